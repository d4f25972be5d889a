#include "planner/closed_form.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace roofline::planner {

double closed_form_wait(double rate, double mu, double ca2, double cs2, double p) {
  const double rho = rate / mu;
  if (rho >= 1) return std::numeric_limits<double>::infinity();
  if (rho <= 1 - p) return 0;
  return (ca2 + cs2) / 2 / mu / (1 - rho) * std::log(rho / (1 - p));
}

Pool pool_of(const CapacityPlan& p) {
  if (p.prefill_replicas == 0) return {false, p.requests_per_s_per_replica, p.ttft.value(), p.replicas};
  return {true, 1 / p.prefill_per_request.value(), p.ttft.value(), p.prefill_replicas};
}

double routed_ca2(double cv, long n, serve::Routing routing) {
  const double c2 = cv * cv, k = static_cast<double>(n);
  switch (routing) {
    case serve::Routing::random:
      return 1 + (c2 - 1) / k;
    case serve::Routing::round_robin:
    case serve::Routing::least_loaded:
    case serve::Routing::prefix_affinity:
    case serve::Routing::kv_aware:
      break;
  }
  return c2 / k;
}

long closed_form_replicas(const Pool& pool, const LoadTarget& t, double cv, double p, serve::Routing routing) {
  const auto ttft = [&](long n) {
    const double rate = t.requests_per_s / static_cast<double>(n);
    return pool.ttft + closed_form_wait(rate, pool.mu, routed_ca2(cv, n, routing), 0, p);
  };
  long lo = std::max(1L, pool.steady), hi = lo;
  while (ttft(hi) > t.ttft.value()) {
    if (hi >= kMaxReplicas) return 0;
    lo = hi;
    hi = std::min(kMaxReplicas, hi * 2);
  }
  if (ttft(lo) <= t.ttft.value()) return lo;
  while (hi - lo > 1) {
    const long mid = lo + (hi - lo) / 2;
    (ttft(mid) <= t.ttft.value() ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace roofline::planner
