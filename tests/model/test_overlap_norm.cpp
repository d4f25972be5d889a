// The overlap norm's tables (hardware/overlap_norm.hpp) against the norm worked in long double.
#include <catch2/catch.hpp>

#include "hardware/overlap_norm.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace roofline;

namespace {
// |got / exact − 1| in units of 2^−53 (half an ulp of 1).
double half_ulps(double got, long double exact) {
  return static_cast<double>(std::fabs(got / exact - 1) / 0x1p-53L);
}
long double exact_norm(long double c, long double m, long double p) {
  return std::pow(std::pow(c, p) + std::pow(m, p), 1 / p);
}
}  // namespace

TEST_CASE("overlap norm: worked cases") {
  // p = 2 is Pythagoras; p = 1 adds.
  CHECK(half_ulps(overlap_norm(3, 4, 2), 5) <= 6);
  CHECK(half_ulps(overlap_norm(4, 3, 2), 5) <= 6);
  CHECK(half_ulps(overlap_norm(1e-6, 2e-6, 1), 3e-6L) <= 6);
  // Equal times: 2^(1/p) of one. p = 1.94: 2^0.515464 = 1.429456...
  CHECK(half_ulps(overlap_norm(1, 1, 1.94), std::pow(2.0L, 1 / 1.94L)) <= 6);
  // Past 2^−60 of the longer the shorter vanishes (r^p/p < 2^−60 beside 1).
  CHECK(overlap_norm(1, 0x1p-61, 1.05) == 1);
  // Nothing, or one side alone.
  CHECK(overlap_norm(0, 0, 1.5) == 0);
  CHECK(overlap_norm(0, 7e-6, 1.5) == 7e-6);
  CHECK(overlap_norm(7e-6, -1, 1.5) == 7e-6);
  // Outside the tabulated [1, 4]: glibc's exp and log. p = 10: 2^0.1 = 1.071773462536293.
  CHECK(half_ulps(overlap_norm(1, 1, 10), std::pow(2.0L, 0.1L)) <= 6);
}

TEST_CASE("overlap norm: within 2.4 ulp of the exact norm for the fitted p and the table's ends") {
  std::mt19937_64 random(26);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> binade(0, 63);
  double worst = 0;
  for (const double p : {1.0, 1.04, 1.09, 1.29, 1.34, 1.45, 1.48, 1.709, 1.93, 2.0, 2.3, 2.5, 3.1, 4.0}) {
    for (int i = 0; i < 20000; ++i) {
      // The longer time from 1 ns to 10 s, the shorter 2^−e·μ of it over every binade the
      // exponent table holds and past it (e to 63); every seventh pair within 0.1% of each other.
      const double c = 1e-9 * std::pow(1e10, u(random));
      const double m = i % 7 == 0 ? c * (1 - 1e-3 * u(random)) : std::ldexp(c * (1 + u(random)) / 2, -binade(random));
      worst = std::max(worst, half_ulps(overlap_norm(c, m, p), exact_norm(c, m, p)));
    }
  }
  CHECK(worst <= 4.8);
}

TEST_CASE("overlap norm: the same answer whichever p came before") {
  // More p than a thread keeps at once (64, refilled at half), in one order and the reverse: each
  // norm is a function of its p, not of the tables built before it.
  std::vector<double> ps;
  for (int i = 0; i < 80; ++i) ps.push_back(1 + 0.0371 * i);
  std::vector<double> forward;
  for (const double p : ps) forward.push_back(overlap_norm(2.5e-6, 1.7e-6, p));
  for (std::size_t i = ps.size(); i-- > 0;) CHECK(overlap_norm(2.5e-6, 1.7e-6, ps[i]) == forward[i]);
  // And the same as a norm built alone.
  CHECK(OverlapNorm(ps[5])(2.5e-6, 1.7e-6) == forward[5]);
}
