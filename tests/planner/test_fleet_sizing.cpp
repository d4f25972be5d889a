// plan --percentile's search (planner/percentile_search.hpp): the fleet behind its router,
// simulated, against the steady plan it starts from.
#include <catch2/catch.hpp>

#include "planner/percentile_search.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::test;

namespace {

// Llama-3.1-8B on an H100 at 100 req/s of 512 + 128 tokens, TTFT <= 500 ms, TPOT <= 50 ms.
struct Case {
  ModelSpec m = llama_3_1_8b();
  GpuSpec g = h100_sxm();
  LoadTarget t;
  planner::SteadyPlan steady;
  Case() {
    t.requests_per_s = 100;
    t.ttft = Seconds(0.5);
    t.tpot = Seconds(0.05);
    Workload w = default_workload(m);
    w.prompt_tokens = 512;
    w.gen_tokens = 128;
    steady = {&g, w, plan_capacity(m, g, w, t), "", std::nullopt};
  }
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
