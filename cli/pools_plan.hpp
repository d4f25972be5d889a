#pragma once
// `plan --percentile P --pools SPLIT`'s rows reported: one a pair of a short-prompt pool's GPU and
// layout and a long-prompt pool's, each pool sized by simulation on its own share of the stream
// (planner/length_pools.hpp), the pair ranked by the whole fleet's cost.
#include <ostream>
#include <string_view>
#include <vector>

#include "cli/percentile_plan.hpp"
#include "planner/length_pools.hpp"

namespace roofline::cli {

// One pool sized: its share of the stream, its load, each GPU and layout's steady plan at its
// mean lengths, and each of those sized by simulation (rows[i] sizes plans[i]).
struct PoolSizing {
  const planner::LengthPool* pool = nullptr;
  LoadTarget target;
  double arrivals_cv = 1;  // of its share's gaps, as its closed form reads
  std::vector<SteadyPlan> plans;
  std::vector<planner::PercentileRow> rows;
};

// The pools plan's columns, CSV and JSON alike, in order (docs/outputs.md lists them).
[[nodiscard]] std::vector<std::string_view> pool_plan_column_names();

// Every pair of a short pool's row and a long pool's, ranked (feasible first, cheapest or fewest
// GPUs first), the first `a.top` kept (said on `err`).
// `whole_cv`: the CV of the whole stream's gaps.
void print_pool_plans(const ModelSpec& m, const planner::LengthSplit& split, const PoolSizing& short_pool,
                      const PoolSizing& long_pool, const LoadTarget& whole, double whole_cv, const PercentileArgs& a,
                      std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
