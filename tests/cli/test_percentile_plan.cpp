// plan --percentile: the closed form worked by hand against M/M/1, and the simulated answer.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

#include "cli/percentile_plan.hpp"
#include "cli_runner.hpp"

using namespace roofline;
using test::check_error;
using test::run_cli;

TEST_CASE("the closed form is M/M/1's exact tail at k = 1: mu 10, rate 7, p99 wait ln(70)/3 = 1.41617 s") {
  // P(W > t) = rho exp(-(mu - rate) t) = 0.7 exp(-3t) = 0.01 at t = ln(70)/3.
  CHECK(cli::closed_form_wait(7, 10, 1, 1, 0.99) == Approx(std::log(70.0) / 3).epsilon(1e-12));
  // M/D/1 (k = 1/2) waits half as long; bursts of CV 4 (k = 8.5 with deterministic service) far longer.
  CHECK(cli::closed_form_wait(7, 10, 1, 0, 0.99) == Approx(std::log(70.0) / 6).epsilon(1e-12));
  CHECK(cli::closed_form_wait(7, 10, 16, 0, 0.99) == Approx(8 * std::log(70.0) / 3).epsilon(1e-12));
  // Below rho = 1 - p, 99% of requests never wait; at rho >= 1 the queue grows without end.
  CHECK(cli::closed_form_wait(0.05, 10, 1, 1, 0.99) == 0);
  CHECK(std::isinf(cli::closed_form_wait(10, 10, 1, 1, 0.99)));
}

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

TEST_CASE("plan --percentile 99 --disaggregate: the prefill pool is searched, the decode pool keeps its steady count") {
  const auto p = plan("gamma:4", true);
  CHECK(p["feasible"] == true);
  CHECK(p["prefill_replicas"].get<long>() >= p["steady_replicas"].get<long>());
  CHECK(p["gpus"].get<long>() == p["replicas"].get<long>() + p["prefill_replicas"].get<long>());
  CHECK(p["ttft_percentile_s"].get<double>() <= 0.5);
  // Colocated, nothing is a prefill replica.
  CHECK(plan("poisson")["prefill_replicas"] == 0);
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
  // 4000 + 500 tokens do not fit Llama-2-7B's 4096: every simulated request is dropped, and a P99
  // over no request would read 0 s.
  const auto r = test::run_cli({"plan", "--model", "llama-2-7b", "--gpu", "a100-80gb", "--prompt", "4000", "--gen",
                                "500", "--rate", "5", "--ttft", "5s", "--percentile", "99", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto rows = nlohmann::json::parse(r.out).at("rows");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["feasible"] == false);
  CHECK_THAT(rows[0]["reason"].get<std::string>(), Catch::Contains("drops requests") && Catch::Contains("longer than"));
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
