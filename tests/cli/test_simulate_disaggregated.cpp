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
  CHECK_THAT(table.out, Catch::Contains("1 prefill and 2 decode replicas") && Catch::Contains("link wait") && Catch::Contains("block wait") &&
                            Catch::Contains("decode wait") && Catch::Contains("TTFT is to the first token the decode"));
  const auto md = run_cli(sim({"--disaggregate", "1:2", "--format", "markdown"}));
  CHECK_THAT(md.out, Catch::Contains("| transfer"));
  const auto csv = run_cli(sim({"--disaggregate", "1:2", "--format", "csv"}));
  CHECK_THAT(csv.out, Catch::Contains("prefill_replicas,decode_replicas,prefill_tp,pool_router,prefill_busy"));
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
  const auto affinity = run_cli(sim({"--disaggregate", "1:2", "--router", "prefix-affinity", "--prefix-groups", "4"}));
  REQUIRE(affinity.code == 0);
  CHECK_THAT(affinity.out, Catch::Contains("the prefill pool behind a prefix-affinity router and the decode pool behind "
                                           "a least-loaded one") &&
                               !Catch::Contains("each pool behind a prefix-affinity router"));
  const auto least = run_cli(sim({"--disaggregate", "1:2", "--router", "least-loaded"}));
  REQUIRE(least.code == 0);
  CHECK_THAT(least.out, Catch::Contains("each pool behind a least-loaded router"));
}

TEST_CASE("simulate --disaggregate --prefill-tp: each pool's layout in every format, the cache resharded on the link") {
  // Llama-3.1-8B, decode at tp 2 and prefill at tp 1. Its cache is 131 072 bytes a token; a
  // transfer holds the links for the larger shard: the one prefill GPU's whole cache, against
  // half of it on each of the two decode GPUs. So the trip is the one a tp 1 pair makes (131 MB
  // over one link), twice the busy time of a tp 2 pair (65.5 MB each); all three fit one domain.
  const auto json = [](std::vector<std::string> extra) {
    const auto r = run_cli(sim(std::move(extra)));
    INFO(r.err);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto mixed = json({"--disaggregate", "1:1", "--tp", "2", "--prefill-tp", "1", "--format", "json"});
  const auto one = json({"--disaggregate", "1:1", "--format", "json"});
  const auto two = json({"--disaggregate", "1:1", "--tp", "2", "--format", "json"});
  const auto& d = mixed["disaggregated"];
  CHECK(d["prefill_layout"]["tp"] == 1);
  CHECK(d["decode_layout"]["tp"] == 2);
  CHECK(mixed["tp"] == 2);
  // Each pool's cache its own: the prefill replica's one GPU holds fewer blocks than the decode
  // replica's two.
  CHECK(d["prefill_layout"]["kv_blocks"] == one["disaggregated"]["decode_layout"]["kv_blocks"]);
  CHECK(d["decode_layout"]["kv_blocks"] == two["disaggregated"]["decode_layout"]["kv_blocks"]);
  CHECK(d["prefill_layout"]["kv_blocks"].get<long>() < d["decode_layout"]["kv_blocks"].get<long>());
  CHECK(d["link"] == "interconnect");
  const double t_mixed = d["kv_transfer_mean_prompt_s"].get<double>();
  const double t_one = one["disaggregated"]["kv_transfer_mean_prompt_s"].get<double>();
  const double t_two = two["disaggregated"]["kv_transfer_mean_prompt_s"].get<double>();
  CHECK(t_mixed == Approx(t_one));
  CHECK(t_mixed > t_two);
  // The prefill pool's own step cost: at tp 1 a prefill of 1000 tokens takes longer than at tp 2.
  CHECK(d["handoffs"]["prefill"]["p50"].get<double>() > two["disaggregated"]["handoffs"]["prefill"]["p50"].get<double>());
  const auto csv = run_cli(sim({"--disaggregate", "1:1", "--tp", "2", "--prefill-tp", "1", "--format", "jsonl"}));
  const auto row = nlohmann::json::parse(csv.out);
  CHECK(row["tp"] == 2);
  CHECK(row["prefill_tp"] == 1);
  const auto table = run_cli(sim({"--disaggregate", "1:1", "--tp", "2", "--prefill-tp", "1"}));
  CHECK_THAT(table.out, Catch::Contains("layouts: a prefill replica tp 1") && Catch::Contains("a decode replica tp 2") &&
                            Catch::Contains("resharded"));
}

TEST_CASE("simulate --prefill-tp: what cannot be modelled is refused by name with exit 2") {
  check_error(run_cli(sim({"--prefill-tp", "2"})), "--prefill-tp", "only with --disaggregate");
  check_error(run_cli(sim({"--disaggregate", "1:1", "--prefill-tp", "-1"})), "--prefill-tp", "must be 1 to 1024");
  check_error(run_cli(sim({"--disaggregate", "1:1", "--prefill-tp", "3"})), "--prefill-tp 3", "prefill pool");
  // A model with experts, whose layout takes data-parallel attention.
  check_error(run_cli({"simulate", "--model", "qwen3-235b-a22b", "--gpu", "h200", "--tp", "8", "--ep", "8", "--dp-attention",
                       "--rate", "1", "--prompt", "1000", "--gen", "50", "--duration", "5s", "--disaggregate", "1:1",
                       "--prefill-tp", "4"}),
              "--prefill-tp", "--dp-attention");
}

TEST_CASE("simulate --engine sglang --disaggregate: the decode blocks reserved before the prefill, so none waits after it") {
  // 1000-token prompts: each cache 0.296 ms on the link. vLLM's decode replica reserves once the
  // prefill has ended, at its next step's start (some 3 ms into a 7 ms decode step), so a
  // cache's time from the prefill's end to landing holds that wait; SGLang's reserved before
  // the prefill ran, so it is the link alone.
  const auto json_of = [](const std::string& engine) {
    const auto r = run_cli(sim({"--disaggregate", "1:1", "--engine", engine, "--format", "json"}));
    INFO(r.err);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto sglang = json_of("sglang"), vllm = json_of("vllm");
  const double link = sglang["disaggregated"]["kv_transfer_mean_prompt_s"].get<double>();
  const auto& s = sglang["disaggregated"]["handoffs"];
  const auto& v = vllm["disaggregated"]["handoffs"];
  CHECK(s["transfer"]["p50"].get<double>() == Approx(link));
  CHECK(v["transfer"]["p50"].get<double>() > link + 0.001);
  // The wait for blocks comes before SGLang's prefill: inside its arrival-to-prefill-end time.
  CHECK(s["block_wait"]["p50"].get<double>() > 0.001);
  CHECK(s["prefill"]["p50"].get<double>() > s["block_wait"]["p50"].get<double>());
  for (const auto& w : sglang["warnings"]) CHECK(w.get<std::string>().find("--disaggregate") == std::string::npos);
  CHECK(sglang["disaggregated"]["decode_blocks_reserved"] == "at_arrival");
  CHECK(vllm["disaggregated"]["decode_blocks_reserved"] == "after_prefill");
}

TEST_CASE("simulate --disaggregate: a fleet past one domain warns in every format that its link is priced for a pair in one") {
  // 4 prefill + 6 decode replicas of one H100 each: 10 GPUs, past the 8 of an NVLink domain. The
  // link is priced as a prefill and a decode replica paired in one domain; JSON and CSV carried
  // only the table's link line before, so nothing said it there.
  const std::vector<std::string> base{"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "50", "--prompt",
                                      "2048", "--gen", "256", "--duration", "20s", "--disaggregate"};
  const auto run = [&](const char* pools, const char* format) {
    std::vector<std::string> a = base;
    a.insert(a.end(), {pools, "-f", format});
    const auto r = test::run_cli(a);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return r.out;
  };
  const std::string said = "as a prefill and a decode replica paired in one 8-GPU domain; the fleet's 10 GPUs span more than one";
  const auto j = nlohmann::json::parse(run("4:6", "json"));
  const auto& w = j.at("warnings");
  CHECK(std::any_of(w.begin(), w.end(), [&](const auto& s) { return s.template get<std::string>().find(said) != std::string::npos; }));
  CHECK_THAT(run("4:6", "csv"), Catch::Contains(said));
  // 2 + 3 GPUs fit one domain: nothing to say.
  CHECK_THAT(run("2:3", "json"), !Catch::Contains("span more than one"));
}
