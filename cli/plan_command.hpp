#pragma once
// `rooflineplan plan`: GPUs needed for a load under TTFT and TPOT targets, per GPU type and
// tensor-parallel size, ranked by cost (or by GPU count when no price is given).
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.hpp"
#include "cli/percentile_plan.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

struct PlanArgs {
  WorkloadFlags workload;      // --gpu, --tp, --pp and --ep are lists to compare; the batch is what a plan finds
  std::vector<double> prices;  // $/GPU-hour: one for all GPUs, or one per GPU
  double rate = 1;
  std::string ttft = "1 s";
  std::string tpot = "50 ms";
  bool disaggregate = false;
  long prefill_tp = 0;  // --prefill-tp: the prefill pool's tensor parallelism (--disaggregate --percentile); 0: the row's
  double confidence = 0.5;  // the expected time's quantile the plan sizes on
  bool bound = false;       // size on the roofline bound instead
  bool search = false;      // rank every layout (tp × pp × ep, data-parallel attention) that fits
  std::string format = "table";
  PercentileArgs percentile;  // --arrivals, --duration, --seed: the percentile plan's traffic
  std::optional<double> percentile_given;  // --percentile: size on a latency percentile under an arrival process
  std::optional<long> top;                 // --top N: the N best ranked rows
  std::string emit;                        // --emit vllm|sglang|trtllm: a launch file a feasible row
  std::optional<std::string> emit_dir;     // --emit-dir: where they go (rooflineplan-launch)
  // --prompt and --gen (in `workload`) typed, --rate typed, --trace-rate and --pools.
  bool prompt_given = false, gen_given = false, rate_given = false;
  std::optional<double> trace_rate;
  std::optional<long> pools;
};

void add_plan_options(Options& o, PlanArgs& args);
// The plan's columns, CSV and JSON alike, in order (docs/outputs.md lists them).
[[nodiscard]] std::vector<std::string_view> plan_column_names();
void run_plan(const PlanArgs& args, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
