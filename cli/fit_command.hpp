#pragma once
// `rooflineplan fit measurements.csv`: the expected-performance coefficients fitted to measured
// runs (published or the user's own), with each run's residual, each source held out, the
// interval widths that follow and whether any run beat the bound; --out writes the GPU YAML's
// `expected:` block.
#include <ostream>
#include <string>
#include <vector>

#include "cli/command.hpp"

namespace roofline::cli {

struct FitArgs {
  std::string measurements;
  std::vector<std::string> kernels;  // kernel tables (--kernels): fit the kernel classes instead
  std::string gpu;                   // the kernel tables' GPU; empty: from each file's name
  std::string for_gpu;               // whose fit --out writes; empty: the one GPU's, or all GPUs' together
  std::string format = "table";
  std::string out;  // the expected: block; empty: not written
};

void add_fit_options(Options& o, FitArgs& args);
void run_fit(const FitArgs& args, std::ostream& out, std::ostream& err);
// fit --kernels (cli/kernel_fit_command.cpp).
void run_kernel_fit(const FitArgs& args, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
