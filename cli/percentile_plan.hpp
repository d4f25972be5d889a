#pragma once
// `plan --percentile P`: replicas such that the P-th percentile of TTFT and TPOT meets the targets
// under an arrival process, not just their steady-state means. A closed form searches (the
// steady plan's service rate in a G/G/1 queue with Kingman's heavy-traffic scaling and an
// exponential tail), the simulator (serve/) confirms and corrects the count by bisection, and the
// distance to the cliff (the rate per replica at which the P-th TTFT doubles) is found by
// simulation. Requests are routed round robin, so each replica sees every n-th arrival.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/capacity_plan.hpp"
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
};

struct SteadyPlan {
  const GpuSpec* gpu = nullptr;
  Workload workload;
  CapacityPlan plan;
  std::string reason;  // why the steady plan is infeasible, in words
  std::optional<double> price_per_gpu_hour;  // --price for this row's GPU
};

// Throws InputError naming the flag.
[[nodiscard]] serve::ArrivalProcess arrival_flag(const std::string& value);

// The closed form's P-th percentile wait at `rate` on a replica serving `mu` requests/s with
// arrivals of squared CV ca2 and service of squared CV cs2: P(W > t) = ρ·exp(−(1−ρ)·t / (k/μ)),
// k = (ca2 + cs2)/2 (Kingman), so t_p = (k/μ)/(1−ρ)·ln(ρ/(1−p)), 0 while ρ ≤ 1 − p. M/M/1
// (k = 1) is exact; M/D/1 (k = 1/2) its mean. Infinite at ρ ≥ 1.
[[nodiscard]] double closed_form_wait(double rate, double mu, double ca2, double cs2, double p);

// The --percentile plan's columns, CSV and JSON alike, in order (docs/outputs.md lists them).
[[nodiscard]] std::vector<std::string_view> percentile_plan_column_names();

// Ranked as the steady plans are (feasible first, cheapest or fewest GPUs first), the first
// `a.top` kept (said on `err`).
void print_percentile_plans(const ModelSpec& m, const std::vector<SteadyPlan>& plans, const LoadTarget& target,
                            const PercentileArgs& a, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
