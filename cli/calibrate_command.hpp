#pragma once
// `rooflineplan calibrate`: measures this machine's ceilings and writes a GPU description with a
// `calibration:` block.
#include <ostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "hardware/gpu_spec.hpp"

namespace roofline::cli {

struct CalibrateArgs {
  std::string device = "cpu";
  std::string out;   // empty: YAML to stdout, the summary to stderr
  std::string base;  // a GPU description whose fields the result keeps
  int repetitions = 10;
  std::string stream_size = "256 MiB";
};

void add_calibrate_options(Options& o, CalibrateArgs& args);
void run_calibrate(const CalibrateArgs& args, std::ostream& out, std::ostream& err);

// A warning line for each kernel whose runs spread more than 10 % (a busy machine, a clock that
// moved); empty when the machine was quiet.
[[nodiscard]] std::string noise_warnings(const Calibration& c);

}  // namespace roofline::cli
