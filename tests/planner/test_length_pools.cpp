// plan --pools' split of a stream by prompt length, and the whole fleet's cost from its pools',
// worked by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "planner/length_pools.hpp"
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
