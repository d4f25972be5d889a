// `simulate --disaggregate P:D` as a user runs it: every format carries the pools and the
// handoffs, the client's TTFT holds the prefill, the link and the decode replica's step, and what
// it cannot model is refused by name with exit 2.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using namespace roofline;
using test::check_error;
using test::run_cli;

namespace {

std::vector<std::string> sim(std::vector<std::string> extra) {
  std::vector<std::string> args{"simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--rate", "10",
                                "--prompt", "1000", "--gen", "50", "--duration", "20s"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace

TEST_CASE("simulate --disaggregate 2:3 --format json: the pools, the handoffs and the client's TTFT") {
  const auto r = run_cli(sim({"--disaggregate", "2:3", "--format", "json"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& d = j["disaggregated"];
  CHECK(d["prefill_replicas"] == 2);
  CHECK(d["decode_replicas"] == 3);
  CHECK(d["link"] == "interconnect");  // five one-GPU replicas fit one NVLink domain of 8
  // 1000 tokens of Llama-3.1-8B's cache, 131 072 bytes a token: 131 MB.
  CHECK(d["kv_bytes_mean_prompt"].get<double>() == Approx(131072000.0));
  long prefilled = 0, decoded = 0;
  for (const auto& n : d["requests_per_prefill_replica"]) prefilled += n.get<long>();
  for (const auto& n : d["requests_per_decode_replica"]) decoded += n.get<long>();
  CHECK(prefilled == j["traffic"]["requests"].get<long>());
  CHECK(decoded == prefilled);
  CHECK(j["served"].get<long>() + j["dropped"].get<long>() == j["traffic"]["requests"].get<long>());
  // The client's first token comes after the prefill and the transfer: its mean TTFT exceeds
  // both together.
  const auto& h = d["handoffs"];
  CHECK(j["ttft"]["mean"].get<double>() > h["prefill"]["mean"].get<double>() + h["transfer"]["mean"].get<double>());
  CHECK(h["transfer"]["mean"].get<double>() > 0);
  for (const char* pool : {"prefill", "decode", "link"}) {
    CHECK(d["busy"][pool].get<double>() > 0);
    CHECK(d["busy"][pool].get<double>() < 1);
  }
  CHECK_FALSE(j.contains("fleet"));
}

TEST_CASE("simulate --disaggregate: the table, Markdown, CSV and JSON lines each carry the pools") {
  const auto table = run_cli(sim({"--disaggregate", "1:2"}));
  INFO(table.err);
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("1 prefill and 2 decode replicas") && Catch::Contains("link wait") &&
                            Catch::Contains("decode wait") && Catch::Contains("TTFT is to the first token the decode"));
  const auto md = run_cli(sim({"--disaggregate", "1:2", "--format", "markdown"}));
  CHECK_THAT(md.out, Catch::Contains("| transfer"));
  const auto csv = run_cli(sim({"--disaggregate", "1:2", "--format", "csv"}));
  CHECK_THAT(csv.out, Catch::Contains("prefill_replicas,decode_replicas,pool_router,prefill_busy"));
  const auto jsonl = nlohmann::json::parse(run_cli(sim({"--disaggregate", "1:2", "--format", "jsonl"})).out);
  CHECK(jsonl["decode_replicas"] == 2);
  CHECK(jsonl["transfer_p99_s"].get<double>() > 0);
  CHECK_FALSE(jsonl.contains("replicas"));  // a colocated fleet's column
}

TEST_CASE("simulate --disaggregate: bad values and what it cannot model are refused by name with exit 2") {
  for (const char* bad : {"2", "0:2", "2:0", "a:b", "2:3:4", "-1:2", "2:", ":2", "100001:1"}) {
    INFO(bad);
    check_error(run_cli(sim({"--disaggregate", bad})), "--disaggregate", "is not P:D");
  }
  check_error(run_cli(sim({"--disaggregate", "1:1", "--replicas", "4"})), "--replicas", "--disaggregate P:D");
  check_error(run_cli(sim({"--disaggregate", "1:1", "--speculative", "3:0.7"})), "--speculative", "not modelled");
  check_error(run_cli(sim({"--disaggregate", "1:1", "--plot", "x.svg"})), "--plot", "two pools");
}

TEST_CASE("simulate --disaggregate --router prefix-affinity: the head line names each pool's router as it routes") {
  // A decode replica holds no prefix group: prefix-affinity routes the decode pool least-loaded,
  // and the line says so rather than "each pool behind a prefix-affinity router".
  const auto affinity = run_cli(sim({"--disaggregate", "1:2", "--router", "prefix-affinity"}));
  REQUIRE(affinity.code == 0);
  CHECK_THAT(affinity.out, Catch::Contains("the prefill pool behind a prefix-affinity router and the decode pool behind "
                                           "a least-loaded one") &&
                               !Catch::Contains("each pool behind a prefix-affinity router"));
  const auto least = run_cli(sim({"--disaggregate", "1:2", "--router", "least-loaded"}));
  REQUIRE(least.code == 0);
  CHECK_THAT(least.out, Catch::Contains("each pool behind a least-loaded router"));
}
