#pragma once
// `rooflineplan sweep`: every value flag takes a list or range; one output row per point of
// their product, streamed as CSV (default), JSON lines, JSON, a table or Markdown.
#include <ostream>
#include <string>

#include "cli/command.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

// A sweep of more points than this is a typo, not a plan: refused before the first point.
inline constexpr std::size_t kMaxSweepPoints = 1'000'000'000;

struct SweepArgs {
  WorkloadFlags workload;
  std::string format = "csv";
  bool format_given = false;  // -f given: else --out's extension picks the format, where it names one
  std::string out;  // empty: stdout
};

void add_sweep_options(Options& o, SweepArgs& args);
void run_sweep(const SweepArgs& args, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
