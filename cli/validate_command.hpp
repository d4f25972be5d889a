#pragma once
// `rooflineplan validate`: the proof of the tool. Runs the matrix products of a decode step
// shaped like the model (its real matrix shapes, fewer layers when the weights would not fit
// the budget) at each batch, and a prefill, on the device; prints the engine's prediction from
// the measured ceilings beside the measured time, the knee against B*, and the error.
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace roofline::cli {

struct ValidateArgs {
  std::string model;
  std::string gpu;
  std::string device = "cpu";
  std::vector<std::string> batches{"1..256:x2"};
  long prompt = 128;
  std::string budget = "2 GiB";  // weights the synthetic step may allocate
  int repetitions = 3;
};

CLI::App* add_validate_command(CLI::App& app, ValidateArgs& args);
void run_validate(const ValidateArgs& args, std::ostream& out);

}  // namespace roofline::cli
