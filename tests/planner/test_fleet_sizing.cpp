// plan --percentile's search (planner/percentile_search.hpp): the fleet behind its router,
// simulated, against the steady plan it starts from.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "planner/percentile_search.hpp"
#include "llama_8b_h100.hpp"
#include "serve/summary.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::test;

namespace {

// Llama-3.1-8B on an H100 at 100 req/s of 512 + 128 tokens, TTFT <= 500 ms, TPOT <= 50 ms.
struct Case : Llama8bOnH100 {
  Case() : Llama8bOnH100({100, Seconds(0.5), Seconds(0.05), 512, 128}) {}
  planner::PercentileRow size(double cv, serve::Routing routing) const {
    planner::PercentileScenario s;
    s.arrivals = {serve::ArrivalProcess::Kind::gamma, cv};
    s.routing = routing;
    return planner::size_row(m, steady, t, s);
  }
};

}  // namespace

TEST_CASE("size_row: bursts of CV 8 need more replicas than the steady plan, whose fleet misses the P99 TTFT") {
  const Case c;
  REQUIRE(c.steady.plan.feasible);
  const long steady = c.steady.plan.replicas;
  const planner::PercentileRow rr = c.size(8, serve::Routing::round_robin);
  REQUIRE(rr.feasible);
  // The steady count serves the mean rate; the bursts queue past the TTFT target: the reason.
  CHECK(rr.replicas > steady);
  REQUIRE(rr.at_steady);
  CHECK(rr.at_steady->ttft > c.t.ttft.value());
  CHECK(rr.at_plan.meets(c.t));
  // The fewest: one replica fewer misses (the same traffic, the same fleet check).
  planner::PercentileScenario s;
  s.arrivals = {serve::ArrivalProcess::Kind::gamma, 8};
  planner::FleetCheck check(c.m, c.steady, c.t, s);
  CHECK_FALSE(check.at(rr.replicas - 1, c.t.requests_per_s).meets(c.t));
  CHECK(check.at(rr.replicas, c.t.requests_per_s).meets(c.t));
  // Every check simulates at least 5000 requests and at most the 2.5e6 sequence-steps' worth
  // (129 a request: 19 379), here 600 s x 100 req/s cut to that.
  CHECK(rr.check_requests == 19379);
  // Joining the least loaded replica beats dealing in turn: no more replicas are needed.
  const planner::PercentileRow ll = c.size(8, serve::Routing::least_loaded);
  REQUIRE(ll.feasible);
  CHECK(ll.replicas <= rr.replicas);
}

TEST_CASE("FleetCheck: a check with limits stops once its percentile must pass them, never when it meets them") {
  const Case c;
  planner::PercentileScenario s;
  s.arrivals = {serve::ArrivalProcess::Kind::gamma, 8};
  planner::FleetCheck check(c.m, c.steady, c.t, s);
  const long n = c.steady.plan.replicas;
  const planner::PercentilePoint whole = check.at(n, c.t.requests_per_s);
  REQUIRE_FALSE(whole.stopped);
  REQUIRE(whole.ttft > 0);
  // At the P99 itself as the limit it is not passed: the run ends and gives the same figures.
  const planner::PercentilePoint at_it = check.at(n, c.t.requests_per_s, whole.ttft, whole.tpot);
  CHECK_FALSE(at_it.stopped);
  CHECK(at_it.ttft == whole.ttft);
  CHECK(at_it.tpot == whole.tpot);
  CHECK(at_it.kept_up == whole.kept_up);
  // Under it by a tenth, it is: stopped, missing, its TTFT infinite. (A hair under, the P99 may
  // pass between two requests' TTFTs, the lower at or under the limit: then the run goes on to
  // its end and misses there; serve's test pins the count that stops it.)
  const planner::PercentilePoint under = check.at(n, c.t.requests_per_s, 0.9 * whole.ttft);
  CHECK(under.stopped);
  CHECK(std::isinf(under.ttft));
  CHECK_FALSE(under.meets(c.t));
  CHECK(std::isinf(under.cliff_ttft()));
  // The same for TPOT alone.
  const double never = std::numeric_limits<double>::infinity();
  CHECK(check.at(n, c.t.requests_per_s, never, 0.9 * whole.tpot).stopped);
  CHECK_FALSE(check.at(n, c.t.requests_per_s, never, whole.tpot).stopped);
}

TEST_CASE("allowed_over: how many of n may pass a limit with the P-th percentile still under it, against serve::percentile") {
  CHECK(planner::allowed_over(0, 99) == std::numeric_limits<long>::max());
  CHECK(planner::allowed_over(1, 99) == 0);
  CHECK(planner::allowed_over(5, 100) == 0);
  // 101 values: P99 is the value at index 99 exactly, so two (indices 99 and 100) may not both pass.
  CHECK(planner::allowed_over(101, 99) == 1);
  // 1000 values: P99 between indices 989 and 990; 10 over (990..999) leave index 989 under.
  CHECK(planner::allowed_over(1000, 99) == 10);
  // Against the percentile itself: with allowed_over(n) values at 2 (over any limit under 2) and the
  // rest at 1, the P99 stays under 2, so a limit between it and 2 is not passed (a check must run
  // on); with one more at 2 the P99 is 2 itself, over every limit under 2 (the check may stop).
  for (std::size_t n : {7UL, 100UL, 1000UL, 5003UL}) {
    const long k = planner::allowed_over(n, 99);
    std::vector<double> v(n, 1.0);
    for (long i = 0; i < k; ++i) v[n - 1 - static_cast<std::size_t>(i)] = 2.0;
    INFO(n);
    CHECK(serve::percentile(v, 99) < 2.0);
    v[n - 1 - static_cast<std::size_t>(k)] = 2.0;
    CHECK(serve::percentile(v, 99) == 2.0);
  }
}

TEST_CASE("kept_up: served over offered in the second half of the arrivals, worked by hand") {
  // Ten arrivals at 0, 1, ... 9 s: the last at 9, the second half from 4.5, holding 5, 6, 7, 8, 9.
  std::vector<serve::Request> requests;
  for (int i = 0; i < 10; ++i) requests.push_back({static_cast<double>(i), 16, 4, 0});
  std::vector<serve::Outcome> served;
  const auto finished = [&](std::size_t i, double e2e) { served.push_back({0, 0, e2e, 0, 4, i, 0}); };
  // Each takes 0.5 s: 4 (at 4.5) and 5 to 8 finish in the half, 9 at 9.5 past it: 5 of 5 arrived.
  for (std::size_t i = 0; i < 10; ++i) finished(i, 0.5);
  CHECK(planner::kept_up(requests, served) == Approx(1.0));
  // A fleet at half the pace: request i finishes at 2i + 1 (e2e i + 1), so 2 (at 5), 3 (at 7)
  // and 4 (at 9) in [4.5, 9]: 3 of the 5 arrived, 60%: behind.
  served.clear();
  for (std::size_t i = 0; i < 10; ++i) finished(i, static_cast<double>(i) + 1);
  CHECK(planner::kept_up(requests, served) == Approx(0.6));
  planner::PercentilePoint p;
  p.kept_up = 0.6;
  CHECK(p.behind());
  CHECK(p.cliff_ttft() == std::numeric_limits<double>::infinity());
  LoadTarget t;
  t.ttft = Seconds(1);
  t.tpot = Seconds(1);
  CHECK_FALSE(p.meets(t));  // however short its latencies
  p.kept_up = 0.98;
  CHECK(p.meets(t));
}

TEST_CASE("cliff_rate: a probe that stops at its work limit is past the cliff, not a failed plan") {
  // TTFT 1 s up to 3 req/s, the work limit above: from 1 req/s the probes go 1.25, 1.5625,
  // 1.953, 2.441, 3.052 (thrashes: past), then bisect between 2.441 and 3.052 toward 3.
  const auto ttft_at = [](double rate) {
    if (rate > 3) throw serve::WorkLimit("thrashing");
    return 1.0;
  };
  long calls = 0;
  const double cliff = planner::cliff_rate(ttft_at, 1, 1, [&] { ++calls; });
  CHECK(cliff == Approx(3).epsilon(0.01));
  CHECK(calls == 5 + 4);  // five steps out, four bisections
}

TEST_CASE("size_row: at 1000 req/s of 256 output tokens the fleet sized keeps up, where a 5 s window saw none fall behind") {
  // Llama-3.1-8B on H100, 512 + 256 tokens, P99 TPOT <= 20 ms, TTFT <= 1 s, Poisson. One
  // request's steady latency is about 5.1 s (256 x 20 ms), so a check spans at least 51 s of
  // arrivals: 51 000 requests, 1.3e7 sequence-steps (under 2e7). The 2.5e6-step cut alone gave
  // 9 727 requests, 9.7 s, of which the fleet spends the first 5 filling: it answered 31 replicas,
  // 32.3 req/s each, above what one serves (the cliff of the fleet below: some 28 req/s a
  // replica), and 31 replicas fall behind on the longer window. The steady count (42) is no
  // floor here: the simulated replica, chunked prefill under a token budget, serves more than the
  // steady plan's 1000 / 42 = 23.8 req/s.
  const Llama8bOnH100 c({1000, Seconds(1), Seconds(0.02), 512, 256});
  const auto& [m, g, t, steady] = c;
  REQUIRE(steady.plan.feasible);
  planner::PercentileScenario s;
  const planner::PercentileRow row = planner::size_row(m, steady, t, s);
  REQUIRE(row.feasible);
  INFO("replicas " << row.replicas << ", steady " << steady.plan.replicas << ", kept up " << row.at_plan.kept_up);
  // The window: ten latencies of arrivals at least.
  CHECK(row.check_seconds >= 10 * planner::steady_latency(steady) * 0.95);
  CHECK(row.at_plan.kept_up >= planner::kKeptUp);
  planner::FleetCheck check(m, steady, t, s);
  CHECK(check.at(31, t.requests_per_s).behind());
  // What the fleet serves a replica at its cliff (where it falls behind) bounds the count below.
  REQUIRE(row.cliff > 0);
  CHECK(static_cast<double>(row.replicas) >= t.requests_per_s / row.cliff);
  CHECK(row.replicas > 31);
}

TEST_CASE("check_bounded: a window of 10 latencies past 2e7 sequence-steps is refused naming --rate") {
  // 2000 req/s of 256 output tokens on H100: 10 x 5.1 s x 2000 = 103 000 requests of 257 steps,
  // 2.6e7 sequence-steps.
  Llama8bOnH100 c({2000, Seconds(1), Seconds(0.02), 512, 256});
  auto& [m, g, t, steady] = c;
  REQUIRE(steady.plan.feasible);
  CHECK_THROWS_WITH(planner::check_bounded(steady, t, 99), Catch::StartsWith("--rate:"));
  t.requests_per_s = 1000;
  CHECK_NOTHROW(planner::check_bounded(steady, t, 99));
}

TEST_CASE("check_bounded: 5000 requests of gen + 1 steps each, at most 2e7: --gen 3999 is checked, 4000 refused") {
  const ModelSpec m = llama_3_1_8b();
  const GpuSpec g = h100_sxm();
  LoadTarget t;
  t.requests_per_s = 0.01;  // a window of ten latencies holds fewer than 5000 requests
  t.ttft = Seconds(10);
  t.tpot = Seconds(1);
  Workload w = default_workload(m);
  w.prompt_tokens = 512;
  const auto steady = [&](long gen) {
    w.gen_tokens = gen;
    return planner::SteadyPlan{&g, w, plan_capacity(m, g, w, t), "", std::nullopt, std::nullopt, {}};
  };
  const planner::SteadyPlan most = steady(3999), past = steady(4000);
  REQUIRE(most.plan.feasible);
  REQUIRE(past.plan.feasible);
  CHECK_NOTHROW(planner::check_bounded(most, t, 99));  // 5000 × 4000 = 2e7
  CHECK_THROWS_WITH(planner::check_bounded(past, t, 99), Catch::StartsWith("--gen:"));  // 5000 × 4001
}

TEST_CASE("a check holds ten requests above its percentile: P99.9 10 000, P99.999 refused naming --percentile") {
  // 10 / (1 − P/100): P99 1000, P99.8 5000 (the least already), P99.9 10 000, P99.99 100 000,
  // P99.999 10^6; each leaves allowed_over 10 (10 000 at P99.9: floor(0.999 × 9999) = 9989, 10 above).
  CHECK(planner::tail_check_count(99) == 1000);
  CHECK(planner::tail_check_count(99.8) == 5000);
  CHECK(planner::tail_check_count(99.9) == 10000);
  CHECK(planner::tail_check_count(99.99) == 100000);
  CHECK(planner::tail_check_count(99.999) == 1e6);
  CHECK(planner::tail_check_count(50) == 20);
  for (const double p : {99.0, 99.9, 99.99, 99.999}) {
    INFO(p);
    CHECK(planner::allowed_over(static_cast<std::size_t>(planner::tail_check_count(p)), p) == 10);
  }
  // Llama-3.1-8B on H100 at 100 req/s of 512 + 128 tokens: a P99 check takes 2.5e6 / 129 = 19 379
  // requests, and a P99.99 one 100 000 (12.9e6 sequence-steps, under the 2e7), never 19 379 with
  // two of them above the percentile.
  const Case c;
  planner::PercentileScenario s;
  CHECK(std::floor(planner::check_count(c.steady, c.t, s)) == 19379);
  s.percentile = 99.99;
  CHECK(planner::check_count(c.steady, c.t, s) == 100000);
  CHECK(planner::least_check_count(c.steady, c.t, 99.99) == 100000);
  CHECK_NOTHROW(planner::check_bounded(c.steady, c.t, 99.99));
  // P99.999: 10^6 requests of 129 steps, 1.29e8, over the 2e7: refused, naming the highest a check
  // may take, 2e7 / 129 = 155 038 requests, P = 100 × (1 − 10 / 155 038) = 99.99355, so P99.993.
  CHECK_THROWS_WITH(planner::check_bounded(c.steady, c.t, 99.999),
                    Catch::StartsWith("--percentile: a P99.999 check needs at least 1000000 requests, 10 of them "
                                      "above its P99.999") &&
                        Catch::Contains("1.29e+08 sequence-steps, over the 2e+07 a check may take; plan for P99.993 "
                                        "at most, or lower --gen"));
  // A trace of 19 379 requests holds enough for P99.9 (10 000), not for P99.99's 100 000: refused
  // naming --arrivals, and the lower percentile.
  std::vector<serve::Request> stream;
  for (int i = 0; i < 19379; ++i) stream.push_back({0.01 * i, 512, 128});
  s.stream = std::make_shared<const std::vector<serve::Request>>(stream);
  serve::ServerConfig config = planner::check_server(c.m, c.steady, s, 1, true);
  CHECK_THROWS_WITH(planner::check_traffic(c.steady, c.t, s, config),
                    Catch::StartsWith("--arrivals: the trace holds 19379 requests, fewer than the 100000") &&
                        Catch::EndsWith("(or a lower --percentile: its tail is the larger)"));
  s.percentile = 99.9;
  CHECK(planner::check_traffic(c.steady, c.t, s, config).size() == 19379);
}

TEST_CASE("check_traffic: a stream's first requests are the check's, and a tail past the work limit is refused") {
  // Llama-3.1-8B on H100 at 100 req/s of 512 + 128 tokens: a check takes 600 s x 100 req/s cut to
  // 2.5e6 / 129 sequence-steps = 19 379 requests (above). A stream of 30 000 gives its first 19 379,
  // arrivals and lengths as they were.
  const Case c;
  planner::PercentileScenario s;
  std::vector<serve::Request> stream;
  for (int i = 0; i < 30000; ++i) stream.push_back({0.01 * i, 256 + i % 7, 64 + i % 5});
  s.stream = std::make_shared<const std::vector<serve::Request>>(stream);
  serve::ServerConfig config = planner::check_server(c.m, c.steady, s, 1, true);
  const std::vector<serve::Request> taken = planner::check_traffic(c.steady, c.t, s, config);
  REQUIRE(taken.size() == 19379);
  CHECK(taken[19378].arrival == stream[19378].arrival);
  CHECK(taken[6].prompt == 262);
  CHECK(taken[4].gen == 68);
  // Its work limit counts its own requests' outputs and one prefill chunk each, twice over.
  double steps = 0;
  for (const serve::Request& r : taken) steps += static_cast<double>(r.gen) + 1;
  CHECK(config.max_rows == Approx(2 * steps));
  // 19 379 requests of 2000 output tokens: 3.9e7 sequence-steps, over the 2e7 a check may take,
  // though the steady plan's mean (128 tokens) passes check_bounded.
  for (serve::Request& r : stream) r.gen = 2000;
  s.stream = std::make_shared<const std::vector<serve::Request>>(stream);
  CHECK_THROWS_WITH(planner::check_traffic(c.steady, c.t, s, config),
                    Catch::StartsWith("--arrivals: a --percentile check's 19379 requests hold 3.88e+07"));
}

TEST_CASE("check_traffic: a stream shorter than the least a check needs is refused naming its flag") {
  // The least: 5000 requests, or 10 steady latencies of arrivals at 100 req/s where that is more.
  // One request fewer is refused (a window that short counts the last latency's arrivals as
  // unfinished, so every fleet would look behind); exactly the least is simulated whole.
  const Case c;
  const double least = planner::least_check_count(c.steady, c.t, 99);
  CHECK(least >= 5000);
  CHECK(least == std::max(5000.0, std::ceil(10 * planner::steady_latency(c.steady) * 100)));
  std::vector<serve::Request> stream;
  for (int i = 0; i + 1 < static_cast<int>(least); ++i) stream.push_back({0.01 * i, 256, 64});
  planner::PercentileScenario s;
  s.stream = std::make_shared<const std::vector<serve::Request>>(stream);
  serve::ServerConfig config = planner::check_server(c.m, c.steady, s, 1, true);
  CHECK_THROWS_WITH(planner::check_traffic(c.steady, c.t, s, config),
                    Catch::StartsWith(fmt::format("--arrivals: the trace holds {} requests, fewer than the {:g}",
                                                  stream.size(), least)));
  s.stream_flag = "pools";
  s.stream_words = "the long pool's share of the stream";
  CHECK_THROWS_WITH(planner::check_traffic(c.steady, c.t, s, config),
                    Catch::StartsWith("--pools: the long pool's share of the stream holds"));
  stream.push_back({0.01 * static_cast<double>(stream.size()), 256, 64});
  s.stream = std::make_shared<const std::vector<serve::Request>>(stream);
  CHECK(planner::check_traffic(c.steady, c.t, s, config).size() == stream.size());
  // A stream drawn from --gen's distribution: a tail past the work limit names --gen, not --arrivals.
  for (serve::Request& r : stream) r.gen = 8000;
  s.stream = std::make_shared<const std::vector<serve::Request>>(stream);
  s.drawn = true;
  CHECK_THROWS_WITH(planner::check_traffic(c.steady, c.t, s, config), Catch::StartsWith("--gen:"));
}

TEST_CASE("size_row: a scenario without the cliff searches none, in fewer checks, to the same count") {
  // Poisson at 100 req/s, 60 s a check (6000 requests): the cliff takes at least 5 more checks
  // (one factor of 1.25 and 4 bisections).
  const Case c;
  planner::PercentileScenario s;
  s.duration = 60;
  const planner::PercentileRow with = planner::size_row(c.m, c.steady, c.t, s);
  s.cliff = false;
  const planner::PercentileRow without = planner::size_row(c.m, c.steady, c.t, s);
  REQUIRE(with.feasible);
  REQUIRE(without.feasible);
  CHECK(without.replicas == with.replicas);
  CHECK(without.cliff == 0);
  CHECK(without.checks + 5 <= with.checks);
}

TEST_CASE("size_row: a target no fleet meets stops at one replica a request, not a million replicas") {
  // The steady plan made at TPOT <= 50 ms, searched against 1 ms, which no decode step of an 8B
  // model on an H100 reaches (16 GB of weights at 3.35 TB/s: 4.8 ms). Poisson at 100 req/s, 60 s
  // a check: 6000 requests, or 10 steady latencies of arrivals where more (6424 here). Doubling
  // from the closed form passes 4096, and the next count is cut to the check's requests, a
  // replica a request: the search stops there (it went on toward 10^6 replicas, and their state,
  // before).
  const Case c;
  LoadTarget t = c.t;
  t.tpot = Seconds(0.001);
  planner::PercentileScenario s;
  s.duration = 60;
  const planner::PercentileRow row = planner::size_row(c.m, c.steady, t, s);
  CHECK_FALSE(row.feasible);
  const double requests = std::max(6000.0, std::ceil(10 * planner::steady_latency(c.steady) * 100));
  CHECK(static_cast<double>(row.check_requests) == requests);
  REQUIRE(requests > 4096);
  REQUIRE(requests < 8192);
  CHECK_THAT(row.reason, Catch::Contains(fmt::format("miss the targets at {} replicas", row.check_requests)));
}
