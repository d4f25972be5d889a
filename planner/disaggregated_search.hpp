#pragma once
// `plan --disaggregate --percentile P`: prefill and decode pools sized so that the P-th percentile
// of the client's TTFT and TPOT meets the targets, confirmed by simulating both pools with each
// request's cache crossing the link (serve/disaggregated.hpp), not the steady plan's means.
//
// The search starts from the closed form: the prefill pool's Kingman count
// (planner/closed_form.hpp, on the prefill pool's own layout's steady plan where it has one:
// SteadyPlan::prefill) and the steady plan's decode count. While a check misses, the pool
// that made it miss grows, by steps that double (from an eighth of its count, at least 1): the
// decode pool when the P-th TPOT misses, or when the P-th TTFT misses and the P-th wait on a
// decode replica (its cache landed, its first step not yet taken) is longer than the P-th wait
// on the prefill side (for a prefill step, then for the prefill replica's link); else the prefill
// pool. Then the fewest: the decode pool brought down with the prefill pool's count fixed, then
// the prefill pool with the decode pool's, each by steps that double while they still meet, then
// bisection. The search treats each pool's count as monotone in the targets; it is a coordinate
// descent, not a search of every pair.
#include <compare>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "planner/fleet_check.hpp"
#include "planner/percentile_search.hpp"
#include "planner/scenario.hpp"
#include "serve/disaggregated.hpp"
#include "serve/step_cost.hpp"

namespace roofline::planner {

// Refusal naming --model or --gpu when a disaggregated plan's cache's trip cannot be priced, so
// cannot be simulated (a model known only by its size, a GPU with no interconnect); nothing for a
// colocated or infeasible plan.
void check_link(const ModelSpec& m, const SteadyPlan& s);

struct PoolCounts {
  long prefill = 0, decode = 0;
  auto operator<=>(const PoolCounts&) const = default;
};

// What a disaggregated check reads: the client's P-th TTFT and TPOT (and drops), and the P-th
// waits on each side of the link, which say which pool a missed TTFT should grow.
struct PoolPoint {
  PercentilePoint client;
  double prefill_wait = 0;  // P-th of a request's wait for a prefill step plus its wait for the link
  double decode_wait = 0;   // P-th of its wait for decode blocks before the transfer plus from landing to its first step there
};

class DisaggregatedCheck : public CheckedRow {
 public:
  // Refusal naming --model or --gpu when the cache's trip cannot be priced (a model known only by
  // its size, a GPU with no interconnect). The plan must be feasible, disaggregated and simulable.
  DisaggregatedCheck(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario);
  [[nodiscard]] PoolPoint at(PoolCounts n, double rate);
  // Whether the decode blocks are reserved at each request's arrival, before its prefill (the
  // scenario's engine's order: SGLang's), or once its prefill ends.
  [[nodiscard]] bool reserves_at_arrival() const { return pools_.reserve_at_arrival; }

 private:
  serve::DisaggregatedConfig pools_;
  std::optional<serve::StepCost> prefill_cost_;  // the prefill pool's own layout, where it has one
};

// The search's answer: the fewest counts found, and the point there; counts {0, 0} and `reason`
// when none meets the targets within the steps allowed.
struct PoolSearch {
  PoolCounts counts;
  PoolPoint at;
  std::string reason;
};

// The search above, on any check (a test drives it with one worked by hand); each pair of counts
// is checked once. `start`'s counts are at least 1.
[[nodiscard]] PoolSearch search_pools(PoolCounts start, const LoadTarget& t,
                                      const std::function<PoolPoint(PoolCounts)>& check);

// One disaggregated row sized (size_row's, for a plan with a prefill pool): `closed_form` and
// `replicas` the prefill pool's, `decode_start` and `decode_replicas` the decode pool's, the cliff
// per decode replica.
[[nodiscard]] PercentileRow search_disaggregated(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t,
                                                 const PercentileScenario& scenario,
                                                 const std::function<void(long)>& progress);

}  // namespace roofline::planner
