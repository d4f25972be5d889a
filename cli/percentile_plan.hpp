#pragma once
// `plan --percentile P`'s flags mapped to a planner::PercentileScenario, and its rows reported:
// the sizing itself (closed form, the fleet's simulation behind a router, bisection, cliff) is
// planner/percentile_search.hpp's.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/plan_traffic.hpp"
#include "model/capacity_plan.hpp"
#include "planner/percentile_search.hpp"
#include "planner/scenario.hpp"
#include "serve/traffic.hpp"

namespace roofline::cli {

struct PercentileArgs {
  double percentile = 0;              // 50 to below 100, when --percentile is given
  std::string arrivals = "poisson";   // poisson or gamma:CV
  std::string duration = "600s";      // simulated traffic per check (at least 5000 requests)
  long seed = 1;
  std::string format = "table";
  std::optional<long> top;  // --top N: the N best rows of the ranking
  // --engine: the checks' replicas run that engine's block size, prefill chunking and admission
  // (the plan's batch and token budget kept); none: the simulator's own, chunked and growing.
  std::string engine;
  std::string router = "round-robin";  // the fleet's router (planner::kDefaultPlanRouting)
  // The traffic's lengths and arrivals as read (distributions, a trace) and what the steady
  // columns price of them.
  PlanTraffic traffic;
};

using planner::SteadyPlan;

// Throws InputError naming the flag.
[[nodiscard]] serve::ArrivalProcess arrival_flag(const std::string& value);

// The scenario the flags give (InputError naming the flag).
[[nodiscard]] planner::PercentileScenario percentile_scenario(const PercentileArgs& a);
// Where the checks' engine reserves whole lengths and the outputs vary: the warning that each
// request's own output was reserved (the engine reserves the client's max_tokens), for every row.
[[nodiscard]] std::optional<std::string> reservation_warning(const planner::PercentileScenario& s);

// Each steady plan sized by simulation, a bar on `err` while they are, when stderr is a terminal.
// Refusal naming the flag for a plan whose checks would be too long.
[[nodiscard]] std::vector<planner::PercentileRow> size_percentile_rows(const ModelSpec& m,
                                                                       const std::vector<SteadyPlan>& plans,
                                                                       const LoadTarget& target,
                                                                       const planner::PercentileScenario& scenario,
                                                                       std::ostream& err);

// Why a row's count differs from its steady plan's, from the simulated fleet of the steady count
// (the row feasible, with at_steady).
[[nodiscard]] std::string steady_note(const planner::PercentileRow& r, const PercentileArgs& a, const LoadTarget& t);

// How the checks prefill: "chunked prefill", or as --engine's engine does ("whole prefills").
[[nodiscard]] std::string_view prefill_words(const PercentileArgs& a);
// With --engine, what the checks take from it and keep of the plan ("; --engine vllm: ..."), else "".
[[nodiscard]] std::string engine_words(const PercentileArgs& a);
// The CV of the gaps of the arrivals a plan's checks simulate: 1 for Poisson, a gamma's own, a
// stream's measured (what the closed form reads).
[[nodiscard]] double arrivals_cv(const planner::PercentileScenario& scenario);

// The --percentile plan's columns, CSV and JSON alike, in order (docs/outputs.md lists them).
[[nodiscard]] std::vector<std::string_view> percentile_plan_column_names();

// Ranked as the steady plans are (feasible first, cheapest or fewest GPUs first), the first
// `a.top` kept (said on `err`); a bar on `err` while the rows are sized, when stderr is a terminal.
void print_percentile_plans(const ModelSpec& m, const std::vector<SteadyPlan>& plans, const LoadTarget& target,
                            const PercentileArgs& a, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
