// Issue 27, the simulator's side: arrivals so regular their CV underflows, a run that stops at
// its work limit instead of running for ever, and what a run reports measured over every step
// (the time-weighted batch, the true peaks), not over samples taken every duration / 1000.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "serve/simulator.hpp"
#include "serve/summary.hpp"
#include "replica.hpp"

using namespace roofline;
using namespace roofline::serve;

namespace {

using test::fixed;
using test::Replica;

}  // namespace

TEST_CASE("gamma arrivals with a CV of 1e-300 (1/CV^2 overflows) come every 1/rate exactly, and end") {
  // Before: shape infinity, and Marsaglia-Tsang compared NaNs for ever.
  const auto r = generate({ArrivalProcess::Kind::gamma, 1e-300}, 4, 10, fixed(10), fixed(10), 0, 16, 1);
  REQUIRE(r.size() == 39);  // 0.25, 0.5, ... 9.75: the first gap is a gap too
  CHECK(r.front().arrival == 0.25);
  CHECK(r.back().arrival == Approx(9.75));
  // A shape of 10^13 (CV 3e-7) is past the sampler's reach too: the mean.
  Rng rng(3);
  CHECK(rng.gamma(1e13) == 1e13);
  CHECK(rng.gamma(std::numeric_limits<double>::infinity()) == std::numeric_limits<double>::infinity());
}

TEST_CASE("generate stops past its cap: at most + 1 requests, for the caller to refuse") {
  const auto r = generate({}, 1000, 100, fixed(10), fixed(10), 0, 16, 1, 500);
  CHECK(r.size() == 501);
}

TEST_CASE("a run past max_rows sequence-steps stops with WorkLimit, naming the limit") {
  Replica r;
  r.config.max_batch = 1;
  r.config.max_rows = 1000;
  // 2 requests of 600 output tokens at batch 1: 1200 decode rows and 2 prefills.
  const std::vector<Request> requests{{0, 10, 600, 0}, {0, 10, 600, 0}};
  CHECK_THROWS_AS(r.run(requests), WorkLimit);
  CHECK_THROWS_WITH(r.run(requests), Catch::Contains("passed 1000 sequence-steps"));
  r.config.max_rows = 1202;
  CHECK(r.run(requests).served.size() == 2);
}

TEST_CASE("a run shorter than one sample reports its batch and peak from every step, not from samples") {
  Replica r;
  r.config.sample_every = 1e9;  // one sample, at the start, before anything runs
  // Two requests at once, 100 output tokens each, batched together: 2 running in every step.
  const SimResult s = r.run({{0, 50, 100, 0}, {0, 50, 100, 0}});
  REQUIRE(s.samples.size() == 1);
  CHECK(s.samples.front().running == 0);
  const Summary sum = summarize(s, {});
  // Both run from the first step to the last: the time-weighted mean is exactly 2.
  CHECK(sum.mean_running == Approx(2).epsilon(1e-12));
  CHECK(sum.peak_running == 2);
  // Each holds ceil(150 / 16) = 10 blocks at the end (9 before its last tokens): 20 blocks.
  CHECK(sum.peak_kv_share == Approx(20.0 / static_cast<double>(r.config.kv_blocks)));
}

TEST_CASE("one output token has no TPOT: the distribution is empty, and a TPOT target judges nothing") {
  Replica r;
  const SimResult s = r.run({{0, 50, 1, 0}, {0.5, 50, 1, 0}});
  const Summary none = summarize(s, {std::nullopt, 0.05});
  CHECK(none.tpot.count == 0);
  CHECK_FALSE(none.goodput.has_value());
  CHECK(none.unjudged == 2);
  // With a TTFT target alone both are judged, and both meet a second.
  const Summary ttft = summarize(s, {1.0, std::nullopt});
  REQUIRE(ttft.goodput.has_value());
  CHECK(*ttft.goodput == 1);
  CHECK(ttft.unjudged == 0);
  // With both targets, a one-token request is judged on its TTFT alone: a miss is a miss.
  const Summary both = summarize(s, {1.0, 0.05});
  CHECK(both.unjudged == 0);
  REQUIRE(both.goodput.has_value());
  CHECK(*both.goodput == 1);
  const Summary missed = summarize(s, {1e-9, 0.05});
  REQUIRE(missed.goodput.has_value());
  CHECK(*missed.goodput == 0);
  // Mixed: the one-token request is left out of the TPOT-judged share.
  const SimResult mixed = r.run({{0, 50, 1, 0}, {0, 50, 20, 0}});
  const Summary m = summarize(mixed, {std::nullopt, 1.0});
  CHECK(m.tpot.count == 1);
  CHECK(m.unjudged == 1);
  REQUIRE(m.goodput.has_value());
  CHECK(*m.goodput == 1);
  // A dropped request of one token is left out as a served one is: two served one-token requests
  // and one such dropped have no TPOT to judge (no goodput, not 0 of 1), and a dropped 20-token
  // one misses: 1 of 2 judged.
  SimResult drops = r.run({{0, 50, 1, 0}, {0, 50, 1, 0}});
  drops.dropped = {{2, false, 1}};
  drops.dropped_no_room = 1;
  const Summary none_judged = summarize(drops, {std::nullopt, 1.0});
  CHECK(none_judged.unjudged == 3);
  CHECK_FALSE(none_judged.goodput.has_value());
  SimResult longer = mixed;
  longer.dropped = {{2, false, 20}};
  longer.dropped_no_room = 1;
  const Summary half = summarize(longer, {std::nullopt, 1.0});
  REQUIRE(half.goodput.has_value());
  CHECK(*half.goodput == 0.5);
}
