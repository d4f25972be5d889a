#pragma once
// The percentile plan's closed form: a replica's P-th percentile wait in a G/G/1 queue (Kingman's
// heavy-traffic scaling, an exponential tail), and the fewest replicas whose P-th TTFT it puts
// under the target. It only starts the search: the fleet's simulation confirms or moves it.
#include "model/capacity_plan.hpp"
#include "serve/router.hpp"

namespace roofline::planner {

// The closed form's P-th percentile wait at `rate` on a replica serving `mu` requests/s with
// arrivals of squared CV ca2 and service of squared CV cs2: P(W > t) = ρ·exp(−(1−ρ)·t / (k/μ)),
// k = (ca2 + cs2)/2 (Kingman), so t_p = (k/μ)/(1−ρ)·ln(ρ/(1−p)), 0 while ρ ≤ 1 − p. M/M/1
// (k = 1) is exact; M/D/1 (k = 1/2) its mean. Infinite at ρ ≥ 1.
[[nodiscard]] double closed_form_wait(double rate, double mu, double ca2, double cs2, double p);

// The pool the closed form counts: colocated replicas, or (disaggregated) the prefill pool, whose
// replicas run one prompt at a time (a rank, under data-parallel attention) and return its first
// token; the decode pool starts from the steady plan's count (its batch is sized for it, and no
// prefill stalls it), and the simulation of both pools moves both (disaggregated_search.hpp).
struct Pool {
  bool prefill_only = false;
  double mu = 0;    // requests/s a replica serves
  double ttft = 0;  // a request's TTFT without queueing
  long steady = 0;  // the steady plan's count
};
[[nodiscard]] Pool pool_of(const CapacityPlan& p);

// Past this a fleet is not worth simulating replica by replica.
inline constexpr long kMaxReplicas = 1'000'000;

// The squared CV of the gaps one of n replicas sees of a renewal stream whose gaps have CV `cv`,
// behind `routing`:
//   - round robin: every n-th arrival, a gap the sum of n: cv²/n;
//   - random: each arrival kept with chance q = 1/n, a gap the sum of a geometric count of them
//     (mean 1/q): 1 + q·(cv² − 1), so Poisson stays Poisson (1) at any n;
//   - least-loaded and kv-aware (and prefix-affinity, least-loaded where a request has no
//     group): round robin's, an approximation. Joining the shortest queue has no simple closed
//     form; on equal servers it evens the queues at least as well as dealing in turn (at ρ 0.8
//     in tests/serve/test_fleet.cpp its mean wait is near one queue before all the servers'),
//     but the routers simulated count requests (or blocks), not work, and can need a replica
//     more than round robin (a long prompt counts one): the simulation settles the count.
[[nodiscard]] double routed_ca2(double cv, long n, serve::Routing routing);

// The fewest replicas, from the steady count up, whose closed-form P-th TTFT meets the target
// when each sees its share of the arrivals behind `routing` (routed_ca2); 0 past kMaxReplicas.
[[nodiscard]] long closed_form_replicas(const Pool& pool, const LoadTarget& t, double cv, double p,
                                        serve::Routing routing);

}  // namespace roofline::planner
