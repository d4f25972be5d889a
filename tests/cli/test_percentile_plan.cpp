// plan --percentile through the command: the simulated answer, its refusals, --price and --top
// (the closed form is worked by hand in tests/planner).
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"

using namespace roofline;
using test::check_error;
using test::run_cli;

namespace {

nlohmann::json plan(const std::string& arrivals, bool disaggregate = false) {
  std::vector<std::string> args{"plan", "--model", "llama-3.1-8b", "--gpu", "a100-80gb", "--rate", "100", "--prompt", "512",
                                "--gen", "128", "--ttft", "500ms", "--tpot", "50ms", "--percentile", "99", "--arrivals",
                                arrivals, "--format", "json"};
  if (disaggregate) args.emplace_back("--disaggregate");
  const auto r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out).at("rows").at(0);
}

}  // namespace

TEST_CASE("plan --percentile 99: the simulated replicas meet both P99 targets, and bursts need at least as many") {
  const auto poisson = plan("poisson");
  const auto bursty = plan("gamma:4");
  for (const auto& p : {poisson, bursty}) {
    CHECK(p["feasible"] == true);
    CHECK(p["ttft_percentile_s"].get<double>() <= 0.5);
    CHECK(p["tpot_percentile_s"].get<double>() <= 0.05);
    CHECK(p["closed_form_replicas"].get<long>() >= 1);
    // The cliff lies beyond the planned load per replica.
    CHECK(p["cliff_requests_per_s_per_replica"].get<double>() > 100.0 / p["replicas"].get<double>());
  }
  CHECK(bursty["replicas"].get<long>() >= poisson["replicas"].get<long>());
  CHECK(bursty["closed_form_replicas"].get<long>() > poisson["closed_form_replicas"].get<long>());
}

TEST_CASE("plan --percentile 99 --disaggregate: both pools simulated, each count beside the steady plan's") {
  const auto p = plan("gamma:4", true);
  CHECK(p["feasible"] == true);
  CHECK(p["ttft_percentile_s"].get<double>() <= 0.5);
  CHECK(p["tpot_percentile_s"].get<double>() <= 0.05);
  CHECK(p["replicas"].get<long>() >= 1);
  CHECK(p["prefill_replicas"].get<long>() >= 1);
  CHECK(p["gpus"].get<long>() == p["replicas"].get<long>() + p["prefill_replicas"].get<long>());
  // The decode pool's search starts from the steady plan's count: the closed form is for prompts.
  CHECK(p["closed_form_replicas"] == p["steady_replicas"]);
  // Colocated, nothing is a prefill replica.
  const auto colocated = plan("poisson");
  CHECK(colocated["prefill_replicas"] == 0);
  CHECK(colocated["steady_prefill_replicas"] == 0);
}

TEST_CASE("plan --disaggregate --percentile 99: the steady decode pool's P99 TPOT misses, so it needs more decoders") {
  // DeepSeek-V3 on H200 at EP 8 with data-parallel attention, 20 req/s of 4096 + 1024 tokens,
  // TPOT <= 50 ms, TTFT <= 2 s. The steady plan's decode replica serves r req/s (3.14 today) at
  // its mean TPOT (49.7 ms), so ceil(20 / r) = 7 decode replicas. Simulated, each decode step
  // waits for its most loaded attention rank: 7 decode replicas reach a P99 TPOT over 50 ms, and
  // the plan needs more of them (9 today, with 3 prefill replicas for 2). In bf16 arithmetic: the
  // checkpoint's own fp8 (its default) prices a faster step, whose steady count already holds.
  const std::vector<std::string> args{"plan", "-m", "deepseek-v3", "-g", "h200", "--tp", "8", "--ep", "8", "--dp-attention",
                                      "--compute", "bf16",
                                      "--rate", "20", "-p", "4096", "--gen", "1024", "--tpot", "50ms", "--ttft", "2s",
                                      "--disaggregate", "--price", "2", "--format", "json"};
  const auto steady = run_cli(args);
  REQUIRE(steady.code == 0);
  const auto s = nlohmann::json::parse(steady.out).at("rows").at(0);
  REQUIRE(s.at("feasible") == true);
  const long decode = s.at("replicas").get<long>();
  CHECK(decode == static_cast<long>(std::ceil(20 / s.at("requests_per_s_per_replica").get<double>())));
  CHECK(s.at("tpot_s").get<double>() <= 0.05);
  auto pct = args;
  pct.insert(pct.end(), {"--percentile", "99"});
  const auto r = run_cli(pct);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto p = nlohmann::json::parse(r.out).at("rows").at(0);
  REQUIRE(p.at("feasible") == true);
  CHECK(p.at("steady_replicas").get<long>() == decode);
  CHECK(p.at("steady_prefill_replicas").get<long>() == s.at("prefill_replicas").get<long>());
  CHECK(p.at("steady_tpot_percentile_s").get<double>() > 0.05);
  CHECK(p.at("replicas").get<long>() > decode);
  CHECK(p.at("tpot_percentile_s").get<double>() <= 0.05);
  CHECK(p.at("ttft_percentile_s").get<double>() <= 2.0);
  // Both pools' GPUs, 8 a replica, at 2 $/h: 2 x GPUs x 10^6 / (20 x 1024 x 3600) $ a million tokens.
  const long gpus = 8 * (p.at("replicas").get<long>() + p.at("prefill_replicas").get<long>());
  CHECK(p.at("gpus").get<long>() == gpus);
  CHECK(p.at("cost_per_million_tokens_usd").get<double>() ==
        Approx(2.0 * static_cast<double>(gpus) * 1e6 / (20.0 * 1024 * 3600)).epsilon(1e-12));
}

TEST_CASE("plan --disaggregate --percentile: a link it cannot price is refused by name with exit 2") {
  // A model known only by its size has no cache to send; a GPU without an interconnect no link.
  check_error(run_cli({"plan", "-m", test::example_file("7b.yaml"), "-g", "h100-sxm", "--rate", "10", "--disaggregate",
                       "--percentile", "99"}),
              "--model", "known only by its size");
  const auto gpu = std::filesystem::temp_directory_path() / "rooflineplan-no-interconnect.yaml";
  {
    std::ofstream f(gpu);
    f << "name: no link\nmemory: { capacity: \"80 GB\", bandwidth: \"2 TB/s\" }\n"
         "compute:\n  peak: { fp16: \"312 TFLOPS\", bf16: \"312 TFLOPS\" }\n";
  }
  check_error(run_cli({"plan", "-m", "llama-3.1-8b", "-g", gpu.string(), "--rate", "10", "--disaggregate",
                       "--percentile", "99"}),
              "--gpu", "names no interconnect");
  std::filesystem::remove(gpu);
}

TEST_CASE("plan: --percentile out of range, or --arrivals without it, is refused by name") {
  const std::vector<std::string> base{"plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--rate", "10"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return run_cli(a);
  };
  check_error(with({"--percentile", "100"}), "--percentile", "must be 50 to below 100");
  check_error(with({"--arrivals", "gamma:4"}), "--arrivals", "only with --percentile");
  check_error(with({"--percentile", "99", "--arrivals", "weibull"}), "--arrivals", "not poisson or gamma:CV");
  check_error(with({"--percentile", "99", "--confidence", "0.9"}), "--confidence", "not with --percentile");
}

TEST_CASE("plan --percentile: a replica that drops requests fails its row instead of meeting the target on the rest") {
  // 4000 + 500 tokens do not fit Llama-2-7B's 4096: every simulated request would be dropped, and
  // a P99 over no request would read 0 s. The steady plan refuses it before any simulation.
  const auto r = test::run_cli({"plan", "--model", "llama-2-7b", "--gpu", "a100-80gb", "--prompt", "4000", "--gen",
                                "500", "--rate", "5", "--ttft", "5s", "--percentile", "99", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto rows = nlohmann::json::parse(r.out).at("rows");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["feasible"] == false);
  CHECK_THAT(rows[0]["reason"].get<std::string>(),
             Catch::Contains("the planned request's 4500 tokens (prompt and generation, their means under a "
                             "distribution) exceed the model's max_context of 4096"));
  // Prompts uniform on 1000..6000 average 3500 + 100, within the context, so the replica is
  // simulated: the prompts above 3996 are dropped, and the row fails on them.
  const auto some = test::run_cli({"plan", "--model", "llama-2-7b", "--gpu", "a100-80gb", "--prompt", "uniform:1000:6000",
                                   "--gen", "100", "--rate", "1", "--ttft", "5s", "--percentile", "99", "--format", "json"});
  REQUIRE(some.code == 0);
  const auto dropped = nlohmann::json::parse(some.out).at("rows");
  REQUIRE(dropped.size() == 1);
  CHECK(dropped[0]["feasible"] == false);
  CHECK_THAT(dropped[0]["reason"].get<std::string>(),
             Catch::StartsWith("the simulated replica drops requests (") && Catch::Contains("longer than the model's context"));
}

TEST_CASE("plan --percentile prices each fleet with --price, ranks the cheapest first and keeps --top") {
  // Issue 25: the percentile plan dropped --price. Llama-3.1-8B at 20 requests/s of 256 tokens: a
  // fleet of G GPUs at P $/h costs P · G · 10^6 / (20 · 256 · 3600) $ a million tokens.
  const std::vector<std::string> args = {"plan", "-m", "llama-3.1-8b", "-g", "a100-80gb,h100-sxm", "--price", "1.8,3",
                                         "--rate", "20", "--percentile", "99", "--duration", "120s", "--format",
                                         "json"};
  const auto r = test::run_cli(args);
  REQUIRE(r.code == 0);
  const auto rows = nlohmann::json::parse(r.out).at("rows");
  REQUIRE(rows.size() == 2);
  for (const auto& row : rows) {
    REQUIRE(row.at("feasible") == true);
    const double price = row.at("gpu_name") == "NVIDIA H100 SXM" ? 3.0 : 1.8;
    CHECK(row.at("cost_per_million_tokens_usd").get<double>() ==
          Approx(price * row.at("gpus").get<double>() * 1e6 / (20.0 * 256 * 3600)).epsilon(1e-12));
  }
  CHECK(rows[0].at("cost_per_million_tokens_usd").get<double>() <= rows[1].at("cost_per_million_tokens_usd").get<double>());
  auto top = args;
  top.insert(top.end(), {"--top", "1"});
  const auto one = test::run_cli(top);
  REQUIRE(one.code == 0);
  CHECK(nlohmann::json::parse(one.out).at("rows").size() == 1);
  CHECK(nlohmann::json::parse(one.out).at("rows")[0] == rows[0]);
  CHECK_THAT(one.err, Catch::Contains("the first 1 of 2 ranked rows"));
}

TEST_CASE("plan --percentile: the fleet behind its router needs more than the steady count under bursts, and says why") {
  // Llama-3.1-8B on H100 at 100 req/s of 512 + 128 tokens: the steady plan's replica serves
  // r req/s (40.5 today), so it needs ceil(100 / r) = 3. Gamma arrivals of CV 8 fill every
  // replica's batch at once: the simulated fleet of 3, routed round robin, misses the P99 TTFT.
  const std::vector<std::string> args{"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "100", "--prompt",
                                      "512", "--gen", "128", "--ttft", "500ms", "--tpot", "50ms"};
  const auto steady = run_cli([&] {
    auto a = args;
    a.insert(a.end(), {"--format", "json"});
    return a;
  }());
  REQUIRE(steady.code == 0);
  const auto s = nlohmann::json::parse(steady.out).at("rows").at(0);
  const long count = s.at("replicas").get<long>();
  CHECK(count == static_cast<long>(std::ceil(100.0 / s.at("requests_per_s_per_replica").get<double>())));
  auto bursty = args;
  bursty.insert(bursty.end(), {"--percentile", "99", "--arrivals", "gamma:8"});
  auto json = bursty;
  json.insert(json.end(), {"--format", "json"});
  const auto r = run_cli(json);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto p = nlohmann::json::parse(r.out).at("rows").at(0);
  CHECK(p.at("router") == "round-robin");
  CHECK(p.at("steady_replicas").get<long>() == count);
  CHECK(p.at("replicas").get<long>() > count);
  CHECK(p.at("steady_ttft_percentile_s").get<double>() > 0.5);
  CHECK(p.at("ttft_percentile_s").get<double>() <= 0.5);
  // The table says the reason under the row, and the router in its title.
  const auto table = run_cli(bursty);
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("routed round-robin") &&
                            Catch::Contains(fmt::format("not the steady plan's {}: the simulated fleet of {}", count, count)) &&
                            Catch::Contains("requests queue for the batch's slots"));
}

TEST_CASE("plan --router: a name it does not know, or without --percentile, is refused by name with exit 2") {
  const std::vector<std::string> base{"plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--rate", "10"};
  auto without = base;
  without.insert(without.end(), {"--router", "least-loaded"});
  check_error(run_cli(without), "--router", "only with --percentile");
  auto unknown = base;
  unknown.insert(unknown.end(), {"--percentile", "99", "--router", "fastest"});
  const auto r = run_cli(unknown);
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--router"));
}

TEST_CASE("plan --percentile: a recurrent model is refused naming --model, and a windowed one's checks say how its blocks are counted") {
  check_error(run_cli({"plan", "-m", "qwen3.5-4b", "-g", "h100-sxm", "--rate", "10", "-p", "512", "--gen", "128",
                       "--ttft", "1s", "--tpot", "50ms", "--percentile", "99"}),
              "--model", "recurrent state per sequence");
  const auto gemma = run_cli({"plan", "-m", "gemma-3-27b", "-g", "h100-sxm", "--rate", "1", "-p", "512", "--gen", "64",
                              "--ttft", "5s", "--tpot", "200ms", "--percentile", "90"});
  INFO(gemma.err);
  REQUIRE(gemma.code == 0);
  CHECK_THAT(gemma.out, Catch::Contains("some layers keep only a window (or a chunk) of each sequence"));
  const auto llama = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "1", "-p", "512", "--gen", "64",
                              "--ttft", "5s", "--tpot", "200ms", "--percentile", "90"});
  REQUIRE(llama.code == 0);
  CHECK_THAT(llama.out + llama.err, !Catch::Contains("keep only a window"));
}

TEST_CASE("plan --percentile --router prefix-affinity: refused naming --router, the plan's traffic has no groups") {
  // Its requests carry no prefix group, so prefix-affinity would route every one least-loaded
  // under its own name: refused, pointing at least-loaded.
  const std::vector<std::string> args{"plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--rate", "10",
                                      "--percentile", "99", "--router", "prefix-affinity"};
  check_error(run_cli(args), "--router", "least-loaded");
}

TEST_CASE("plan --percentile: the title says how many requests each check simulated and the seconds they span") {
  // Llama-3.1-8B on H100 at 100 req/s of 512 + 128 tokens: 600 s x 100 req/s = 60 000 requests,
  // cut to 2.5e6 sequence-steps / 129 a request = 19 379, which span about 19 379 / 100 = 194 s
  // of Poisson arrivals; the window of 10 latencies (about 1.3 s each, 1 300 requests) is shorter.
  const std::vector<std::string> args{"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "100", "--prompt",
                                      "512", "--gen", "128", "--ttft", "500ms", "--tpot", "50ms", "--percentile", "99"};
  const auto r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("each check simulated 19379 requests, 19") && Catch::Contains(" s of arrivals"));
  // Not the --duration asked as if simulated.
  CHECK_THAT(r.out, !Catch::Contains("600s of traffic a check"));
}

TEST_CASE("plan --percentile: a check holds ten requests above the percentile, or the percentile is refused") {
  // Llama-2-7B on A100-80GB at 20 req/s of 512 + 256 tokens: the work cut a check to 2.5e6 / 257 =
  // 9727 requests, where a P99.999 (between indices floor(0.99999 × 9726) = 9725 and 9726, the
  // greatest) had 0.1 request above it. P99.9 needs 10 / 0.001 = 10 000 (2.57e6 steps): raised to them.
  std::vector<std::string> args{"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", "20", "--prompt", "512",
                                "--gen", "256", "--ttft", "500ms", "--tpot", "30ms", "--percentile", "99.9"};
  const auto r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("each check simulated 10000 requests") &&
                        Catch::Contains("nor 10000 requests (10 above the P99.9)"));
  // P99.999 needs 10 / 10^-5 = 10^6 requests of 257 steps, 2.57e8, past the 2e7 a check may take,
  // whose 2e7 / 257 = 77 821 requests measure P = 100 × (1 − 10 / 77 821) = 99.98715 at most.
  args.back() = "99.999";
  check_error(run_cli(args), "--percentile",
              "a P99.999 check needs at least 1000000 requests, 10 of them above its P99.999");
  CHECK_THAT(run_cli(args).err, Catch::Contains("2.57e+08 sequence-steps, over the 2e+07 a check may take; plan for "
                                                "P99.987 at most, or lower --gen"));
}

TEST_CASE("plan --disaggregate --percentile --prefill-tp: the prefill pool sized on its own layout, both in the row") {
  // Llama-3.1-8B on H100s, decode at tp 2 and prefill at tp 1. The prefill pool's steady count is
  // the one the steady plan at tp 1 gives its prefill pool, not tp 2's; its GPUs count at 1 a
  // replica beside the decode pool's 2.
  const std::vector<std::string> base{"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "20", "-p", "2000",
                                      "--gen", "200", "--tpot", "30ms", "--ttft", "1s", "--disaggregate", "--format", "json"};
  const auto steady_at = [&](const char* tp) {
    auto args = base;
    args.insert(args.end(), {"--tp", tp});
    const auto r = run_cli(args);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out).at("rows").at(0);
  };
  const auto one = steady_at("1");
  const auto two = steady_at("2");
  REQUIRE(one.at("feasible") == true);
  REQUIRE(two.at("feasible") == true);
  auto args = base;
  args.insert(args.end(), {"--tp", "2", "--prefill-tp", "1", "--percentile", "99"});
  const auto r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto p = nlohmann::json::parse(r.out).at("rows").at(0);
  REQUIRE(p.at("feasible") == true);
  CHECK(p.at("tp") == 2);
  CHECK(p.at("prefill_tp") == 1);
  CHECK(p.at("steady_prefill_replicas").get<long>() == one.at("prefill_replicas").get<long>());
  CHECK(p.at("steady_replicas").get<long>() == two.at("replicas").get<long>());
  CHECK(p.at("gpus").get<long>() == 2 * p.at("replicas").get<long>() + p.at("prefill_replicas").get<long>());
  CHECK(p.at("ttft_percentile_s").get<double>() <= 1.0);
  CHECK(p.at("tpot_percentile_s").get<double>() <= 0.03);
  // The table names both layouts.
  std::vector<std::string> table(args.begin(), args.end());
  std::erase(table, "--format");
  std::erase(table, "json");
  const auto t = run_cli(table);
  CHECK_THAT(t.out, Catch::Contains("tp 2, prefill tp 1"));
}

TEST_CASE("plan --prefill-tp: without its pools, or a layout it cannot take, is refused by name with exit 2") {
  const std::vector<std::string> base{"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "10"};
  auto no_percentile = base;
  no_percentile.insert(no_percentile.end(), {"--disaggregate", "--prefill-tp", "1"});
  check_error(run_cli(no_percentile), "--prefill-tp", "only with --disaggregate --percentile");
  auto colocated = base;
  colocated.insert(colocated.end(), {"--percentile", "99", "--prefill-tp", "1"});
  check_error(run_cli(colocated), "--prefill-tp", "only with --disaggregate --percentile");
  auto odd = base;
  odd.insert(odd.end(), {"--disaggregate", "--percentile", "99", "--prefill-tp", "3"});
  check_error(run_cli(odd), "--prefill-tp 3", "--tp");
}

TEST_CASE("plan --disaggregate --percentile --engine sglang: checked with the decode blocks reserved at arrival") {
  // Once refused (its order was not simulated); serve's tests work the order out by hand.
  const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "20", "--prompt", "2000", "--gen", "200",
                          "--tpot", "30ms", "--ttft", "500ms", "--disaggregate", "--percentile", "99", "--engine", "sglang"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("--engine sglang: SGLang 0.5"));
  CHECK_THAT(r.out, Catch::Contains("decode blocks reserved at its arrival, before its prefill (SGLang)"));
  CHECK_THAT(r.out, Catch::Contains("decode+prefill"));
}

TEST_CASE("plan --percentile: the seconds a check spans in human units, and a short --duration said lengthened, not cut") {
  // 60 s at 5 req/s asks 5 × 60 = 300 requests; a check holds at least 5000, so it was lengthened
  // to 5000, whose Poisson arrivals at 5 req/s span about 5000 / 5 = 1000 s: some 17 min, said as
  // the other durations are ("17.0 min"), not "1.02e+03 s".
  const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm,l40s", "--rate", "5", "--percentile", "90",
                          "--duration", "60s"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("each check simulated 5000 requests, 1") && Catch::Contains(" min of arrivals"));
  CHECK_THAT(r.out, !Catch::Contains("e+0"));
  CHECK_THAT(r.out, Catch::Contains("--duration 60s asked 300 requests, lengthened:") && !Catch::Contains("cut to"));
  // 600 s at 100 req/s asks 60 000, cut by work to 2.5e6 / 129 = 19 379: said cut.
  const auto cut = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "100", "--prompt", "512", "--gen",
                            "128", "--ttft", "500ms", "--tpot", "50ms", "--percentile", "99"});
  REQUIRE(cut.code == 0);
  CHECK_THAT(cut.out, Catch::Contains("each check simulated 19379 requests") &&
                          Catch::Contains("--duration 600s asked 60000 requests, cut:"));
}

TEST_CASE("plan --percentile --engine trtllm: varying outputs reserved as each request's own are said in every format") {
  // TensorRT-LLM's GUARANTEED_NO_EVICT reserves prompt + the client's max_tokens; the checks have no
  // cap and reserve each request's own output (as simulate does without --max-tokens), so where the
  // outputs vary the rows warn: in the table's notes, CSV's and JSON's warnings.
  const std::vector<std::string> base{"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "5",
                                      "--percentile", "90", "--prompt", "1000"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    const auto r = run_cli(a);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return r.out;
  };
  const std::string said = "the checks' reserving admission reserved each request's own output length";
  CHECK_THAT(with({"--engine", "trtllm", "--gen", "lognormal:1000:1"}), Catch::Contains("warning: " + said));
  const auto rows = nlohmann::json::parse(with({"--engine", "trtllm", "--gen", "lognormal:1000:1", "-f", "json"}));
  const auto& warnings = rows.at("rows").at(0).at("warnings");
  CHECK(std::any_of(warnings.begin(), warnings.end(),
                    [&](const auto& w) { return w.template get<std::string>().starts_with(said); }));
  CHECK_THAT(with({"--engine", "trtllm", "--gen", "lognormal:1000:1", "-f", "csv"}), Catch::Contains(said));
  // One fixed output is its own cap; vLLM grows its blocks and reserves nothing.
  CHECK_THAT(with({"--engine", "trtllm", "--gen", "1000"}), !Catch::Contains(said));
  CHECK_THAT(with({"--engine", "vllm", "--gen", "lognormal:1000:1"}), !Catch::Contains(said));
}
