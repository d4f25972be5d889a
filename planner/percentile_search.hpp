#pragma once
// `plan --percentile P`: replicas such that the P-th percentile of TTFT and TPOT meets the targets
// under an arrival process, not just their steady-state means. The closed form
// (planner/closed_form.hpp) gives a count to start from; the fleet of that many replicas behind
// the scenario's router is simulated (planner/fleet_check.hpp) and the count moved, upward by
// doubling until the targets hold, then down to the fewest that hold them by bisection; the
// distance to the cliff (the rate at which the fleet's P-th TTFT doubles) is found by simulation.
// A disaggregated plan's two pools are sized by planner/disaggregated_search.hpp.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "planner/fleet_check.hpp"
#include "planner/scenario.hpp"

namespace roofline::planner {

struct PercentileRow {
  const SteadyPlan* steady = nullptr;
  serve::Routing routing = kDefaultPlanRouting;  // the fleet's router
  // The searched pool's count: colocated replicas, or the prefill pool's.
  long closed_form = 0, replicas = 0;
  // Disaggregated: the decode pool's count the search started from (the steady plan's) and found.
  long decode_start = 0, decode_replicas = 0;
  PercentilePoint at_plan{};
  // The fleet of the steady plan's count, simulated: why the answer differs from it.
  std::optional<PercentilePoint> at_steady;
  // Disaggregated, that fleet's P-th waits on each side of the link: for a prefill step and the
  // prefill replica's link, and for a decode slot once the cache has landed.
  struct Waits {
    double prefill = 0, decode = 0;
  };
  std::optional<Waits> steady_waits;
  double cliff = 0;  // requests/s per replica at which the P-th TTFT doubles; 0: not found
  bool feasible = false;
  std::string reason;
  FleetCost cost;  // of the fleet this row sizes, where it meets the target
  long checks = 0;             // fleet simulations the row took
  std::size_t check_requests = 0;  // requests each simulated
  double check_seconds = 0;        // the seconds their arrivals span at the target's rate
};

// The cliff is looked for up to 1.25^(kCliffSteps + 1) = 7.45 times the planned rate.
inline constexpr double kCliffStep = 1.25;
inline constexpr int kCliffSteps = 8;

// The rate above `rate` at which `ttft_at(rate)` reaches twice `ttft`: by factors of kCliffStep,
// then bisecting; 0 when not found within kCliffSteps. `checked` hears each call. A call that
// throws serve::WorkLimit is past the cliff.
[[nodiscard]] double cliff_rate(const std::function<double(double)>& ttft_at, double rate, double ttft,
                                const std::function<void()>& checked);

// One row sized. `progress` (may be empty) hears the checks done so far. Refusal naming the flag
// when a check stops at its work limit (a cache that thrashes).
[[nodiscard]] PercentileRow size_row(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t,
                                     const PercentileScenario& scenario, const std::function<void(long)>& progress = {});

[[nodiscard]] bool disaggregated(const PercentileRow& r);
// GPUs of the fleet the row sizes (both pools when disaggregated).
[[nodiscard]] long gpus(const PercentileRow& r);

// As the steady plans rank (model::ranks_before): feasible first, cheapest (--price) or fewest
// GPUs first.
void rank(std::vector<PercentileRow>& rows);

}  // namespace roofline::planner
