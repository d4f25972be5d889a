// The percentile plan's closed form worked by hand against M/M/1 and M/D/1.
#include <catch2/catch.hpp>

#include <cmath>

#include "planner/closed_form.hpp"

using namespace roofline;
using planner::closed_form_wait;

TEST_CASE("the closed form is M/M/1's exact tail at k = 1: mu 10, rate 7, p99 wait ln(70)/3 = 1.41617 s") {
  // P(W > t) = rho exp(-(mu - rate) t) = 0.7 exp(-3t) = 0.01 at t = ln(70)/3.
  CHECK(closed_form_wait(7, 10, 1, 1, 0.99) == Approx(std::log(70.0) / 3).epsilon(1e-12));
  // M/D/1 (k = 1/2) waits half as long; bursts of CV 4 (k = 8.5 with deterministic service) far longer.
  CHECK(closed_form_wait(7, 10, 1, 0, 0.99) == Approx(std::log(70.0) / 6).epsilon(1e-12));
  CHECK(closed_form_wait(7, 10, 16, 0, 0.99) == Approx(8 * std::log(70.0) / 3).epsilon(1e-12));
  // Below rho = 1 - p, 99% of requests never wait; at rho >= 1 the queue grows without end.
  CHECK(closed_form_wait(0.05, 10, 1, 1, 0.99) == 0);
  CHECK(std::isinf(closed_form_wait(10, 10, 1, 1, 0.99)));
}

TEST_CASE("closed_form_replicas: 100 req/s on replicas of mu 12.5, TTFT 65 ms + the p99 wait <= 500 ms") {
  // Steady: 100 / 12.5 = 8 replicas. Round robin splits gamma CV 4 arrivals into gaps of squared
  // CV 16/n; service deterministic (cs2 0), so k = 8/n and the p99 wait at n replicas is
  // (8/n)/12.5/(1 - rho)·ln(rho/0.01), rho = 8/n:
  //   n = 8:  rho 1, infinite;
  //   n = 9:  rho 0.8889, (0.8889/12.5)/0.1111·ln(88.89) = 0.6400·4.4874 = 2.872 s: misses;
  //   n = 12: rho 0.6667, (0.6667/12.5)/0.3333·ln(66.67) = 0.1600·4.1997 = 0.672 s: misses;
  //   n = 13: rho 0.6154, (0.6154/12.5)/0.3846·ln(61.54) = 0.1280·4.1197 = 0.527 s: misses;
  //   n = 14: rho 0.5714, (0.5714/12.5)/0.4286·ln(57.14) = 0.1067·4.0456 = 0.4316 s: 0.065 + 0.4316 = 0.497 s meets.
  const planner::Pool pool{false, 12.5, 0.065, 8};
  LoadTarget t;
  t.requests_per_s = 100;
  t.ttft = Seconds(0.5);
  CHECK(planner::closed_form_wait(100.0 / 14, 12.5, 16.0 / 14, 0, 0.99) == Approx(0.4316).epsilon(1e-3));
  CHECK(planner::closed_form_replicas(pool, t, 4, 0.99, serve::Routing::round_robin) == 14);
  // Poisson (CV 1): k = 1/(2n); at n = 8 rho = 1 still; at 9, (1/18)/12.5/0.1111·4.4874 = 0.1795 s: 9.
  CHECK(planner::closed_form_replicas(pool, t, 1, 0.99, serve::Routing::round_robin) == 9);
}
