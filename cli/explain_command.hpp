#pragma once
// `rooflineplan explain`: the two-phase story told from the user's own model and GPU, every
// number read from engine reports (the base point and a few variations of it), never recomputed.
#include <ostream>
#include <string>

#include "cli/command.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

struct ExplainArgs {
  WorkloadFlags workload;
  std::string lang = "en";
  std::string scenario;  // empty, summarize (8k in, 200 out) or chat (50 in, 800 out)
  std::string plot;      // the roofline to this .svg/.png; empty: drawn in characters
};

void add_explain_options(Options& o, ExplainArgs& args);
void run_explain(const ExplainArgs& args, std::ostream& out);

}  // namespace roofline::cli
