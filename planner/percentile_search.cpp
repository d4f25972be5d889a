#include "planner/percentile_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "planner/disaggregated_search.hpp"
#include "planner/refusal.hpp"
#include "planner/replica.hpp"
#include "serve/step_cost.hpp"

namespace roofline::planner {

namespace {

constexpr int kSteps = 24;          // doublings a search may take
constexpr int kCliffBisections = 4;  // the cliff to within 1.25^(1/16): 1.4%

PercentileRow search(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario,
                     const std::function<void(long)>& progress) {
  PercentileRow row;
  row.steady = &s;
  row.routing = scenario.routing;
  if (!s.plan.feasible) {
    row.reason = s.reason;
    return row;
  }
  if (const auto why = serve::unsupported(s.workload)) {
    row.reason = "not simulated: " + *why;
    return row;
  }
  if (s.plan.prefill_replicas > 0) return search_disaggregated(m, s, t, scenario, progress);
  const Pool pool = pool_of(s.plan);
  const double cv = scenario.arrivals.kind == serve::ArrivalProcess::Kind::gamma ? scenario.arrivals.cv : 1;
  row.closed_form = closed_form_replicas(pool, t, cv, scenario.percentile / 100, scenario.routing);
  FleetCheck c(m, s, t, scenario);
  row.check_requests = c.requests();
  row.check_seconds = c.seconds();
  std::map<long, PercentilePoint> seen;  // each count simulated once (twice where a stopped one is shown)
  // The search needs only whether a count meets: its checks stop once the targets are sure to be
  // missed (FleetCheck::at). `whole`: run to the end, for the figures a row shows.
  const auto check = [&](long n, bool whole = false) {
    if (const auto it = seen.find(n); it != seen.end() && !(whole && it->second.stopped)) return it->second;
    const PercentilePoint p = whole ? c.at(n, t.requests_per_s) : c.at(n, t.requests_per_s, t.ttft.value(), t.tpot.value());
    if (progress) progress(c.checks());
    return seen[n] = p;
  };
  // No more replicas than the check has requests: past one a request, every request has a replica
  // to itself and more change nothing (a fleet is state a replica: the doubling must not grow it
  // without bound).
  const long most = std::min(kMaxReplicas, std::max(1L, static_cast<long>(c.requests())));
  // The search between a count that misses (lo; 0 misses) and one that meets (hi), from the
  // closed form's.
  long lo = 0, hi = std::clamp(row.closed_form, 1L, most);
  // Drops come from the requests' lengths, not the load: no count of replicas serves them.
  // Whole: its drops are counted (they come from the lengths, the same at every count).
  if (const PercentilePoint first = check(hi, true); first.too_long + first.too_large > 0) {
    row.reason = fmt::format("the simulated replica drops requests ({} longer than the model's context, {} larger {})",
                             first.too_long, first.too_large, cache_dropped_from(s.workload));
    row.checks = c.checks();
    return row;
  }
  int steps = 0;
  while (!check(hi).meets(t)) {
    if (++steps > kSteps || hi >= most) {
      row.reason = fmt::format("the P{} latencies miss the targets at {} replicas", scenario.percentile, hi);
      row.checks = c.checks();
      return row;
    }
    lo = hi;
    hi = std::min(most, hi * 2);
  }
  // Down from a count that meets by growing steps while they still meet (the closed form is
  // often one or two above the answer), then bisection.
  for (long down = 1; hi - down > lo; down *= 2) {
    if (!check(hi - down).meets(t)) {
      lo = hi - down;
      break;
    }
    hi -= down;
  }
  while (hi - lo > 1) {
    const long mid = lo + (hi - lo) / 2;
    (check(mid).meets(t) ? hi : lo) = mid;
  }
  row.replicas = hi;
  row.at_plan = check(hi);
  row.feasible = true;
  if (pool.steady >= 1 && pool.steady <= most && pool.steady != hi) row.at_steady = check(pool.steady, true);
  if (scenario.cliff) {
    // A probe stops once its P-th TTFT is sure to reach twice the plan's (nextafter: the cap
    // counts those over its limit, the cliff those at it too).
    const double twice = std::nextafter(2 * row.at_plan.ttft, 0.0);
    row.cliff = cliff_rate([&](double rate) { return c.at(hi, rate, twice).cliff_ttft(); }, t.requests_per_s, row.at_plan.ttft, [&] {
                  if (progress) progress(c.checks());
                }) /
                static_cast<double>(hi);
  }
  row.checks = c.checks();
  return row;
}

}  // namespace

double cliff_rate(const std::function<double(double)>& ttft_at, double rate, double ttft,
                  const std::function<void()>& checked) {
  // A probe that stops at its work limit (a cache that thrashes, far above the planned rate) is
  // past the cliff, not a reason to refuse the plan.
  const auto below = [&](double at) {
    bool b = false;
    try {
      b = ttft_at(at) < 2 * ttft;
    } catch (const serve::WorkLimit&) {
      b = false;
    }
    checked();
    return b;
  };
  double lo = rate, hi = rate * kCliffStep;
  int steps = 0;
  while (below(hi)) {
    if (++steps > kCliffSteps) return 0;
    lo = hi;
    hi *= kCliffStep;
  }
  for (int i = 0; i < kCliffBisections; ++i) {
    const double mid = (lo + hi) / 2;
    (below(mid) ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

bool disaggregated(const PercentileRow& r) { return r.steady->plan.prefill_replicas > 0; }

long gpus(const PercentileRow& r) {
  if (!disaggregated(r)) return r.replicas * gpus(r.steady->workload);
  return r.replicas * gpus(prefill_workload(*r.steady)) + r.decode_replicas * gpus(r.steady->workload);
}

PercentileRow size_row(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario,
                       const std::function<void(long)>& progress) {
  PercentileRow row;
  try {
    row = search(m, s, t, scenario, progress);
  } catch (const serve::WorkLimit& e) {
    throw Refusal(fmt::format("--percentile: a check stopped: {}; lower --gen or the CV of --arrivals", e.what()));
  }
  if (row.feasible) {
    LoadTarget priced = t;
    priced.price_per_gpu_hour = s.price_per_gpu_hour;
    row.cost = fleet_cost(gpus(row), *s.gpu, priced, s.workload.gen_tokens);
  }
  return row;
}

void rank(std::vector<PercentileRow>& rows) {
  const auto key = [](const PercentileRow& r) { return PlanRank{r.feasible, r.cost.usd_per_million_tokens, gpus(r)}; };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const PercentileRow& a, const PercentileRow& b) { return ranks_before(key(a), key(b)); });
}

}  // namespace roofline::planner
