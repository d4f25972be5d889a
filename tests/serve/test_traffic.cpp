// The requests the simulator is fed: rates, burstiness and lengths as asked.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>
#include <numeric>

#include "serve/gap_histogram.hpp"
#include "serve/traffic.hpp"

using namespace roofline::serve;

namespace {

// Mean and coefficient of variation of n gaps.
std::pair<double, double> moments(const ArrivalProcess& a, double rate, int n) {
  Rng rng(11);
  double sum = 0, sq = 0;
  for (int i = 0; i < n; ++i) {
    const double g = a.gap(rng, rate);
    sum += g;
    sq += g * g;
  }
  const double mean = sum / n;
  return {mean, std::sqrt(sq / n - mean * mean) / mean};
}

}  // namespace

TEST_CASE("Poisson gaps at 50/s average 20 ms with CV 1, gamma CV 4 gaps too with CV 4") {
  const auto [pm, pcv] = moments({}, 50, 1000000);
  CHECK(pm == Approx(0.02).epsilon(0.01));
  CHECK(pcv == Approx(1).epsilon(0.01));
  const auto [gm, gcv] = moments({ArrivalProcess::Kind::gamma, 4}, 50, 1000000);
  CHECK(gm == Approx(0.02).epsilon(0.02));
  CHECK(gcv == Approx(4).epsilon(0.05));
}

TEST_CASE("gamma arrivals of CV 10 hold rate x duration in a window on average, not (CV^2 - 1)/2 more") {
  // 1 req/s for 100 s: 100 arrivals expected. Started from an arrival, a renewal stream of CV 10
  // holds 100 + 49.5 on average; from the stationary residual gap (first_gap), 100 exactly. The
  // count's spread over a run is some 100 (rate·T·CV²'s root): over 4000 seeds the mean's is 1.6.
  const LengthDistribution one{LengthDistribution::Kind::fixed, 1, 0};
  double arrivals = 0;
  const int seeds = 4000;
  for (int seed = 1; seed <= seeds; ++seed) {
    arrivals += static_cast<double>(
        generate({ArrivalProcess::Kind::gamma, 10}, 1, 100, one, one, 0, 16, static_cast<std::uint64_t>(seed)).size());
  }
  CHECK(arrivals / seeds == Approx(100).margin(8));
}

TEST_CASE("a log-normal of mean 1000 and sigma 1 averages 1000 tokens with median 607") {
  // The median of a log-normal is its mean · exp(−σ²/2) = 1000 · 0.6065.
  const LengthDistribution d{LengthDistribution::Kind::lognormal, 1000, 1};
  Rng rng(5);
  std::vector<long> draws(200000);
  for (long& x : draws) x = d.draw(rng);
  const double mean = std::accumulate(draws.begin(), draws.end(), 0.0) / static_cast<double>(draws.size());
  CHECK(mean == Approx(1000).epsilon(0.02));
  std::nth_element(draws.begin(), draws.begin() + 100000, draws.end());
  CHECK(static_cast<double>(draws[100000]) == Approx(607).epsilon(0.02));
}

TEST_CASE("uniform 10 to 12 draws each of 10, 11, 12 and nothing else") {
  const LengthDistribution d{LengthDistribution::Kind::uniform, 10, 12};
  Rng rng(1);
  std::array<int, 3> seen{};
  for (int i = 0; i < 3000; ++i) {
    const long x = d.draw(rng);
    REQUIRE(x >= 10);
    REQUIRE(x <= 12);
    ++seen[static_cast<std::size_t>(x - 10)];
  }
  for (int n : seen) CHECK(n > 900);
}

TEST_CASE("a prefix hit is whole blocks and leaves a token to compute: 0.8 of 1000 is 800, of 16 none, 1.0 of 32 is 16") {
  CHECK(cached_tokens(1000, 0.8, 16) == 800);
  CHECK(cached_tokens(16, 0.8, 16) == 0);
  CHECK(cached_tokens(32, 1.0, 16) == 16);
  CHECK(cached_tokens(1000, 0, 16) == 0);
}

TEST_CASE("arrivals at 50/s over 100 s number about 5000, in order, and a seed repeats them") {
  const LengthDistribution n{LengthDistribution::Kind::fixed, 100, 0};
  const auto a = generate({}, 50, 100, n, n, 0, 16, 9);
  CHECK(static_cast<double>(a.size()) == Approx(5000).epsilon(0.05));
  CHECK(std::is_sorted(a.begin(), a.end(), [](const Request& x, const Request& y) { return x.arrival < y.arrival; }));
  CHECK(generate({}, 50, 100, n, n, 0, 16, 9).back().arrival == a.back().arrival);
}

TEST_CASE("an empirical distribution draws its values, each as often, and averages them") {
  // 100, 200 and 300 tokens: a third each over 30,000 draws (sd of a share sqrt(1/3 · 2/3 / 30000)
  // = 0.27%, so 1.5% is over five of them); the mean 200 exactly, as the plan reads it.
  const LengthDistribution d = empirical_lengths({100, 200, 300}, "three.csv:prompt_tokens");
  CHECK(d.mean() == 200);
  Rng rng(7);
  std::map<long, int> seen;
  for (int i = 0; i < 30000; ++i) ++seen[d.draw(rng)];
  REQUIRE(seen.size() == 3);
  for (const long v : {100L, 200L, 300L}) CHECK(seen[v] / 30000.0 == Approx(1.0 / 3).margin(0.015));
  CHECK_THROWS_AS(empirical_lengths({}, "empty.csv"), std::invalid_argument);
}

TEST_CASE("inter-token gaps: the mean exact, a percentile within 0.6% of the gap of its rank") {
  GapHistogram h;
  CHECK(h.count() == 0);
  CHECK(h.percentile(99) == 0);
  // 1 ms to 1000 ms in 1 ms steps: the 500th is 500 ms, the 990th 990 ms; the mean 500.5 ms.
  for (int i = 1; i <= 1000; ++i) h.add(i * 1e-3);
  CHECK(h.count() == 1000);
  CHECK(h.mean() == Approx(0.5005).epsilon(1e-12));
  CHECK(h.percentile(50) == Approx(0.500).epsilon(0.006));
  CHECK(h.percentile(99) == Approx(0.990).epsilon(0.006));
  CHECK(h.percentile(100) == Approx(1.000).epsilon(0.006));
  // Outside the bins' range a gap still counts, as itself: the least below, the greatest above.
  GapHistogram edges;
  edges.add(2e-7);
  edges.add(3e4);
  CHECK(edges.percentile(50) == 2e-7);
  CHECK(edges.percentile(100) == 3e4);
}

TEST_CASE("inter-token gaps: a percentile never falls outside the least and greatest gap added") {
  // A request alone on Llama-2-7B at A100-80GB's roofline: every gap the same decode step, 6.5119 ms.
  // log10(6511.9 µs) · 200 = 762.74, so bin 763 (6456.5 to 6531.3 µs), whose geometric middle
  // 10^(762.5/200) µs = 6493.8 µs lies 0.28% below the one gap there is: each percentile is that gap.
  GapHistogram one;
  one.add(6.5119e-3);
  one.add(6.5119e-3);
  for (const double p : {0.0, 50.0, 90.0, 99.0, 100.0}) CHECK(one.percentile(p) == 6.5119e-3);
  // Two gaps in one bin, 9.5818 and 9.5900 ms (bin 797, 9549.9 to 9660.5 µs, middle 9605.1 µs above both): the middle is
  // held to the greatest gap, never above it; and a bin whose middle is below both, to the least.
  GapHistogram two;
  two.add(9.5818e-3);
  two.add(9.5900e-3);
  CHECK(two.percentile(99) == 9.5900e-3);
  GapHistogram low;
  low.add(6.5119e-3);
  low.add(6.5200e-3);
  CHECK(low.percentile(50) == 6.5119e-3);
  CHECK(low.percentile(99) == 6.5119e-3);
}
