// plan --percentile's closed form behind each --router (planner/closed_form.hpp): the squared CV
// of the gaps a replica sees, and the counts it gives, worked by hand; then both searches'
// rows (colocated and the disaggregated prefill pool) starting from the router's count.
#include <catch2/catch.hpp>

#include "planner/closed_form.hpp"
#include "planner/disaggregated_search.hpp"
#include "llama_8b_h100.hpp"
#include "planner/percentile_search.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::test;
using serve::Routing;

TEST_CASE("routed_ca2: round robin sums n gaps (cv^2/n), random thins them (1 + (cv^2 - 1)/n)") {
  // Round robin: every 8th of a gamma CV 4 stream, a sum of 8 gaps: 16/8 = 2.
  CHECK(planner::routed_ca2(4, 8, Routing::round_robin) == Approx(2));
  // Random, each arrival kept with q = 1/8: a geometric count N (mean 8, variance (1-q)/q^2 = 56)
  // of gaps of mean m and variance 16 m^2: variance 8·16 m^2 + 56 m^2 = 184 m^2 over a mean of
  // 8 m, squared: 184/64 = 2.875 = 1 + 15/8.
  CHECK(planner::routed_ca2(4, 8, Routing::random) == Approx(2.875));
  // Poisson stays Poisson at any n; one replica sees the stream itself; smoother than Poisson
  // (CV 0.5) thinned by 4 is nearer Poisson: 1 + (0.25 - 1)/4 = 0.8125.
  CHECK(planner::routed_ca2(1, 7, Routing::random) == Approx(1));
  CHECK(planner::routed_ca2(4, 1, Routing::random) == Approx(16));
  CHECK(planner::routed_ca2(0.5, 4, Routing::random) == Approx(0.8125));
  // Joining the shortest queue has no simple closed form: round robin's stands for it.
  CHECK(planner::routed_ca2(4, 8, Routing::least_loaded) == Approx(2));
  CHECK(planner::routed_ca2(4, 8, Routing::kv_aware) == Approx(2));
}

TEST_CASE("closed_form_replicas by router: 50 req/s on replicas of mu 10, TTFT 100 ms + the p99 wait <= 500 ms") {
  // Deterministic service (cs2 0): the p99 wait at n is (ca2/2)/10/(1 - rho)·ln(100 rho), rho = 5/n;
  // at the steady 5, rho = 1: infinite under every router.
  const planner::Pool pool{false, 10, 0.1, 5};
  LoadTarget t;
  t.requests_per_s = 50;
  t.ttft = Seconds(0.5);
  // Poisson, round robin: ca2 = 1/n. n = 6: rho 0.8333, (1/12)/10/0.1667·ln(83.33) = 0.05·4.4228
  // = 0.2211 s, TTFT 0.321 s: 6.
  CHECK(planner::closed_form_replicas(pool, t, 1, 0.99, Routing::round_robin) == 6);
  // Poisson, random: ca2 = 1 at every n, k = 1/2, wait 0.05/(1 - rho)·ln(100 rho):
  //   n = 9:  rho 0.5556, 0.1125·4.0174 = 0.4520 s, TTFT 0.552 s: misses;
  //   n = 10: rho 0.5,    0.1·3.9120    = 0.3912 s, TTFT 0.491 s: 10.
  CHECK(planner::closed_form_wait(5, 10, 1, 0, 0.99) == Approx(0.1 * std::log(50.0)).epsilon(1e-12));
  CHECK(planner::closed_form_replicas(pool, t, 1, 0.99, Routing::random) == 10);
  // Gamma CV 2, round robin: ca2 = 4/n. n = 7: rho 0.7143, (2/7)/10/0.2857·ln(71.43) = 0.1·4.2687
  // = 0.4269 s, TTFT 0.527 s misses; n = 8: rho 0.625, 0.025/0.375·ln(62.5) = 0.2757 s, 0.376 s: 8.
  CHECK(planner::closed_form_replicas(pool, t, 2, 0.99, Routing::round_robin) == 8);
  // Gamma CV 2, random: ca2 = 1 + 3/n.
  //   n = 11: rho 0.4545, k 0.6364: 0.06364/0.5455·ln(45.45) = 0.11667·3.8167 = 0.4453 s, 0.545 s: misses;
  //   n = 12: rho 0.4167, k 0.625:  0.0625/0.5833·ln(41.67)  = 0.10714·3.7297 = 0.3996 s, 0.4996 s: 12.
  CHECK(planner::closed_form_replicas(pool, t, 2, 0.99, Routing::random) == 12);
  // Least-loaded and kv-aware start where round robin does.
  CHECK(planner::closed_form_replicas(pool, t, 2, 0.99, Routing::least_loaded) == 8);
  CHECK(planner::closed_form_replicas(pool, t, 2, 0.99, Routing::kv_aware) == 8);
}

namespace {

planner::PercentileRow sized(const ModelSpec& m, const planner::SteadyPlan& s, const LoadTarget& t, Routing routing) {
  planner::PercentileScenario scenario;
  scenario.routing = routing;
  scenario.cliff = false;
  return planner::size_row(m, s, t, scenario);
}

}  // namespace

TEST_CASE("size_row: the closed form a row starts from reads --router, random far above round robin under Poisson") {
  // Llama-3.1-8B on an H100, 20 req/s of 8000 + 16 tokens, TTFT <= 500 ms, TPOT <= 100 ms: a
  // replica serves mu = 4.3836 req/s with a steady TTFT of 218.6 ms; the steady count is 5.
  const Llama8bOnH100 c({20, Seconds(0.5), Seconds(0.1), 8000, 16});
  const auto& [m, g, t, s] = c;
  REQUIRE(s.plan.feasible);
  const planner::Pool pool = planner::pool_of(s.plan);
  REQUIRE(pool.mu == Approx(4.3836).epsilon(1e-4));
  REQUIRE(pool.ttft == Approx(0.21862).epsilon(1e-4));
  REQUIRE(pool.steady == 5);
  // Round robin, ca2 = 1/n: n = 6, rho 0.7604: (1/12)/4.3836/0.2396·ln(76.04) = 0.3437 s, TTFT
  // 0.562 s misses; n = 7, rho 0.6518: (1/14)/4.3836/0.3482·ln(65.18) = 0.1955 s, 0.414 s: 7.
  const planner::PercentileRow rr = sized(m, s, t, Routing::round_robin);
  CHECK(rr.closed_form == 7);
  // Random keeps Poisson Poisson, ca2 = 1, k = 1/2: at 7 the wait is 7 times round robin's,
  // 1.368 s, TTFT 1.587 s. The TTFT reaches 500 ms only at rho near 0.09:
  //   n = 48: rho 0.0951, 0.5/4.3836/0.9049·ln(9.51) = 0.12604·2.2518 = 0.2838 s, 0.5025 s: misses;
  //   n = 49: rho 0.0931, 0.5/4.3836/0.9069·ln(9.31) = 0.12577·2.2312 = 0.2806 s, 0.4992 s: 49.
  // (The simulated fleet needs fewer: a replica's batch serves prompts side by side, and
  // Kingman's tail overstates the wait far from heavy traffic; the search comes down to it.)
  const planner::PercentileRow random = sized(m, s, t, Routing::random);
  CHECK(random.closed_form == 49);
  REQUIRE(random.feasible);
  CHECK(random.replicas < random.closed_form);
  CHECK(random.replicas >= rr.replicas);
}

TEST_CASE("size_row, disaggregated: the prefill pool's closed form reads --router too") {
  // Llama-3.1-8B on an H100, 10 req/s of 1000 + 100 tokens, disaggregated, TTFT <= 60 ms: a
  // prefill replica serves mu = 1/T_prefill = 37.600 prompts/s, TTFT 26.6 ms without queueing.
  const Llama8bOnH100 c({10, Seconds(0.06), Seconds(0.05), 1000, 100, true});
  const auto& [m, g, t, s] = c;
  REQUIRE(s.plan.feasible);
  REQUIRE(s.plan.prefill_replicas > 0);
  const planner::Pool pool = planner::pool_of(planner::prefill_plan(s));
  REQUIRE(pool.mu == Approx(37.600).epsilon(1e-4));
  REQUIRE(pool.ttft == Approx(0.026596).epsilon(1e-4));
  REQUIRE(pool.steady == 1);
  // n = 1 under either: rho 0.2660, (1/2)/37.6/0.7340·ln(26.60) = 0.01812·3.2808 = 0.0594 s,
  // TTFT 0.0860 s misses. n = 2, rho 0.1330: round robin ca2 1/2, 0.25/37.6/0.8670·ln(13.30) =
  // 0.00767·2.5876 = 0.0198 s, TTFT 0.0464 s: 2; random ca2 1, twice that, 0.0397 s, 0.0663 s
  // misses; n = 3, rho 0.0887: 0.5/37.6/0.9113·ln(8.87) = 0.01459·2.1821 = 0.0318 s, 0.0584 s: 3.
  CHECK(sized(m, s, t, Routing::round_robin).closed_form == 2);
  CHECK(sized(m, s, t, Routing::random).closed_form == 3);
}
