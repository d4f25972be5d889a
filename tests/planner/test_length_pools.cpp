// plan --pools' split of a stream by prompt length, and the whole fleet's cost from its pools',
// worked by hand.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <memory>

#include "planner/length_pools.hpp"
#include "planner/refusal.hpp"
#include "serve/traffic.hpp"

using namespace roofline;
using namespace roofline::planner;
using serve::Request;

TEST_CASE("split_by_prompt: prompts at or under the split go short, longer ones long, arrivals kept") {
  // Prompts 100, 5000, 4096, 4097, 200 split at 4096: short 100, 4096, 200 (3 of 5 = 0.6, prompt
  // mean 4396 / 3 = 1465.33, output mean (1 + 3 + 5) / 3 = 3); long 5000, 4097 (0.4, prompt mean
  // 9097 / 2 = 4548.5, output mean (2 + 4) / 2 = 3).
  const std::vector<Request> stream{{0.0, 100, 1}, {0.5, 5000, 2}, {1.0, 4096, 3}, {1.5, 4097, 4}, {2.0, 200, 5}};
  const LengthSplit s = split_by_prompt(stream, 4096);
  REQUIRE(s.short_pool.requests.size() == 3);
  REQUIRE(s.long_pool.requests.size() == 2);
  CHECK(s.short_pool.share == Approx(0.6));
  CHECK(s.long_pool.share == Approx(0.4));
  CHECK(s.short_pool.prompt_mean == Approx(4396.0 / 3));
  CHECK(s.short_pool.gen_mean == Approx(3.0));
  CHECK(s.long_pool.prompt_mean == Approx(4548.5));
  CHECK(s.long_pool.gen_mean == Approx(3.0));
  // The long pool's requests arrive when they did in the stream: a thinning, not a new stream.
  CHECK(s.long_pool.requests[0].arrival == 0.5);
  CHECK(s.long_pool.requests[1].arrival == 1.5);
  CHECK(s.short_pool.requests[1].prompt == 4096);
}

TEST_CASE("split_by_prompt: a log-normal's share under the split is its CDF there") {
  // Log-normal of mean 1024 and sigma 0.8: mu = ln 1024 - 0.8^2 / 2 = 6.9315 - 0.32 = 6.6115, so
  // P(X <= 1024) = Phi((ln 1024 - mu) / 0.8) = Phi(0.32 / 0.8) = Phi(0.4) = 0.6554 (draws are
  // rounded: X < 1024.5 moves it by Phi'(0.4) x ln(1024.5/1024)/0.8 = 0.00023). 400 000 draws:
  // a standard error of sqrt(0.655 x 0.345 / 4e5) = 0.00075, so 0.003 is four of them.
  const serve::LengthDistribution prompt{serve::LengthDistribution::Kind::lognormal, 1024, 0.8};
  const serve::LengthDistribution gen{serve::LengthDistribution::Kind::fixed, 100, 0};
  const std::vector<Request> stream = serve::generate({}, 10, std::numeric_limits<double>::infinity(), prompt, gen, 0, 16,
                                                      7, kPoolStreamRequests - 1);
  REQUIRE(stream.size() == kPoolStreamRequests);
  const LengthSplit s = split_by_prompt(stream, 1024);
  CHECK(std::abs(s.short_pool.share - 0.6556) < 0.003);
  CHECK(s.short_pool.share + s.long_pool.share == Approx(1.0));
  // Every request in one pool or the other, once.
  CHECK(s.short_pool.requests.size() + s.long_pool.requests.size() == stream.size());
  // The short pool's mean is the log-normal's partial mean: E[X; X <= s] / P(X <= s) =
  // 1024 x Phi(0.4 - 0.8) / Phi(0.4) = 1024 x 0.3446 / 0.6554 = 538.4.
  CHECK(s.short_pool.prompt_mean == Approx(538.4).epsilon(0.01));
  // Poisson arrivals thinned stay Poisson: the pool's gaps have a CV of 1.
  CHECK(gap_cv(s.long_pool.requests) == Approx(1.0).epsilon(0.02));
}

TEST_CASE("gap_cv: the coefficient of variation of the gaps between arrivals") {
  // Evenly spaced: no variation.
  CHECK(gap_cv({{0, 1, 1}, {1, 1, 1}, {2, 1, 1}, {3, 1, 1}}) == 0);
  // Gaps 1 and 2: mean 1.5, variance (1 + 4) / 2 - 2.25 = 0.25, so 0.5 / 1.5 = 1/3.
  CHECK(gap_cv({{0, 1, 1}, {1, 1, 1}, {3, 1, 1}}) == Approx(1.0 / 3));
  // Two requests have one gap: no CV to read.
  CHECK(gap_cv({{0, 1, 1}, {1, 1, 1}}) == 0);
}

TEST_CASE("combined_per_million: the pools' dollars an hour over their tokens an hour") {
  // Short: 0.2 $/M tokens at 1000 tokens/s = 0.72 $/h; long: 0.5 $/M at 3000 tokens/s = 5.4 $/h.
  // Together 6.12 $/h over 14.4 M tokens/h = 0.425 $/M.
  CHECK(*combined_per_million(0.2, 1000, 0.5, 3000) == Approx(0.425));
  // No price for one pool: no price for the fleet.
  CHECK_FALSE(combined_per_million(std::nullopt, 1000, 0.5, 3000));
}

namespace {
// 4000 requests 10 ms apart, every fourth (i = 3, 7, ...) a long prompt of 5000 tokens and 20
// output tokens, the others 100 and 10: split at 4096, 3000 short (share 0.75) and 1000 long (0.25).
std::vector<Request> every_fourth_long(std::size_t n = 4000) {
  std::vector<Request> stream;
  for (std::size_t i = 0; i < n; ++i) {
    const bool is_long = i % 4 == 3;
    stream.push_back({0.01 * static_cast<double>(i), is_long ? 5000L : 100L, is_long ? 20L : 10L});
  }
  return stream;
}
}  // namespace

TEST_CASE("pool_scenarios: each pool at its share of the rate, its own mean lengths and its own share of the stream") {
  const LengthSplit split = split_by_prompt(every_fourth_long(), 4096);
  PercentileScenario base;
  base.percentile = 95;
  base.seed = 7;
  base.prompt = serve::LengthDistribution{serve::LengthDistribution::Kind::lognormal, 1024, 0.8};
  base.gen = serve::LengthDistribution{serve::LengthDistribution::Kind::fixed, 12, 0};
  LoadTarget whole;
  whole.requests_per_s = 40;
  whole.ttft = Seconds(0.5);
  const std::array<PoolScenario, 2> pools = pool_scenarios(split, base, whole);
  const PoolScenario& s = pools[0];
  const PoolScenario& l = pools[1];
  // 40 req/s x 0.75 = 30 to the short pool, x 0.25 = 10 to the long; the targets otherwise the whole's.
  CHECK(s.target.requests_per_s == Approx(30));
  CHECK(l.target.requests_per_s == Approx(10));
  CHECK(s.target.ttft.value() == 0.5);
  CHECK(l.target.ttft.value() == 0.5);
  // The steady plans price each pool's own means: 100 + 10 short, 5000 + 20 long (not the
  // stream's 0.75 x 100 + 0.25 x 5000 = 1325).
  CHECK(s.prompt_tokens == 100);
  CHECK(s.gen_tokens == 10);
  CHECK(l.prompt_tokens == 5000);
  CHECK(l.gen_tokens == 20);
  CHECK(s.pool == &split.short_pool);
  CHECK(l.pool == &split.long_pool);
  // The checks run each pool's own requests, not fresh draws from the distributions; the base's
  // percentile and seed kept, no cliff searched, a short stream refused as --pools'.
  for (const PoolScenario* p : {&s, &l}) {
    CHECK_FALSE(p->scenario.prompt);
    CHECK_FALSE(p->scenario.gen);
    CHECK(p->scenario.percentile == 95);
    CHECK(p->scenario.seed == 7);
    CHECK_FALSE(p->scenario.cliff);
    CHECK(p->scenario.stream_flag == "pools");
    // The base had no trace: the stream was drawn.
    CHECK(p->scenario.drawn);
  }
  REQUIRE(s.scenario.stream);
  REQUIRE(l.scenario.stream);
  CHECK(s.scenario.stream->size() == 3000);
  CHECK(l.scenario.stream->size() == 1000);
  CHECK(s.scenario.stream_words == "the short pool's share of the stream");
  CHECK(l.scenario.stream_words == "the long pool's share of the stream");
  // The closed form reads each pool's own gaps as a gamma process. The long pool's are all 40 ms:
  // CV 0. The short pool's repeat 10, 10, 20 ms: mean 40/3 ms, mean square 200 ms^2, variance
  // 200 - 1600/9 = 200/9, so CV = (sqrt(200)/3) / (40/3) = sqrt(2)/4 = 0.35355 (its last two
  // gaps, 10 and 10, move it by under 0.1%).
  CHECK(s.scenario.arrivals.kind == serve::ArrivalProcess::Kind::gamma);
  CHECK(s.scenario.arrivals.cv == Approx(std::sqrt(2.0) / 4).epsilon(0.002));
  CHECK(l.scenario.arrivals.cv == Approx(0).margin(1e-6));
}

TEST_CASE("pool_scenarios: a trace's pools are not drawn, and a pool of under 1000 requests is refused naming --pools") {
  const LengthSplit split = split_by_prompt(every_fourth_long(), 4096);
  PercentileScenario trace;
  trace.stream = std::make_shared<const std::vector<Request>>(every_fourth_long());
  const std::array<PoolScenario, 2> pools = pool_scenarios(split, trace, LoadTarget{});
  CHECK_FALSE(pools[0].scenario.drawn);
  CHECK_FALSE(pools[1].scenario.drawn);
  // 3996 requests: the long pool gets i = 3, 7, ..., 3995, 999 of them, one short of 1000.
  const LengthSplit thin = split_by_prompt(every_fourth_long(3996), 4096);
  REQUIRE(thin.long_pool.requests.size() == 999);
  CHECK_THROWS_AS(pool_scenarios(thin, PercentileScenario{}, LoadTarget{}), Refusal);
  CHECK_THROWS_WITH(pool_scenarios(thin, PercentileScenario{}, LoadTarget{}),
                    Catch::StartsWith("--pools: the long pool (prompts over 4096 tokens) gets 999 of the 3996 "
                                      "requests drawn, fewer than the 1000"));
  CHECK_THROWS_WITH(pool_scenarios(thin, trace, LoadTarget{}), Catch::Contains("requests in the trace"));
}
