#pragma once
// `rooflineplan validate`: the proof of the tool. Runs the matrix products of a decode step
// shaped like the model (its real matrix shapes, fewer layers when the weights would not fit
// the budget) at each batch, and a prefill, on the device; prints the engine's prediction from
// the measured ceilings beside the measured time, the knee against B*, and the error.
#include <ostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

struct ValidateArgs {
  // The device sets the formats, and a synthetic step has no tp or attention choice: only the
  // model, the GPU, the decode batches and the prompt of the prefill are the user's.
  WorkloadFlags workload{.prompt = {"128"}, .batch = {"1..256:x2"}};
  std::string device = "cpu";
  std::string budget = "2 GiB";  // weights the synthetic step may allocate
  bool budget_given = false;     // a budget typed is a limit; the default gives way to one layer, said
  int repetitions = 3;
};

void add_validate_options(Options& o, ValidateArgs& args);
// Warns on `err` when the GPU file is not calibrated: the prediction then uses datasheet ceilings.
void run_validate(const ValidateArgs& args, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
