#pragma once
// `rooflineplan calibrate`: measures this machine's ceilings and writes a GPU description with a
// `calibration:` block; with --kernel-table, also kernel tables that `fit --kernels` reads.
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "calibrate/calibration_device.hpp"
#include "calibrate/host_machine.hpp"
#include "cli/command.hpp"
#include "hardware/gpu_spec.hpp"

namespace roofline::cli {

struct CalibrateArgs {
  std::string device = "cpu";
  std::string out;   // empty: YAML to stdout, the summary to stderr
  std::string base;  // a GPU description whose fields the result keeps
  int repetitions = 10;
  std::string stream_size = "auto";  // from the host: calibrate/stream_size.hpp
  bool quick = false;                 // the curves at every other point (calibrate/curves.hpp)
  std::string kernel_table;           // a folder: time the kernel tables too and write them there
  std::string kernel_grid = "full";   // full or smoke (calibrate/kernel_tables.hpp)
  bool tables_only = false;           // the kernel tables alone: no ceilings, curves nor YAML
};

void add_calibrate_options(Options& o, CalibrateArgs& args);
void run_calibrate(const CalibrateArgs& args, std::ostream& out, std::ostream& err);
// --repetitions of calibrate and validate: 1 to calibrate::kMostRepetitions, else an InputError.
void check_repetitions(int repetitions);

// Where calibrate gets its device and what it knows of the host: the real ones, unless a
// ScopedCalibrationHost has put others in their place. Tests of calibrate's plumbing run on a
// fake device and a described host, so that none depends on this machine's caches or speed.
struct CalibrationHost {
  std::function<std::unique_ptr<calibrate::CalibrationDevice>(const std::string& kind)> open_device;
  calibrate::HostFacts facts;
};
class ScopedCalibrationHost {
 public:
  explicit ScopedCalibrationHost(CalibrationHost host);
  ~ScopedCalibrationHost();
  ScopedCalibrationHost(const ScopedCalibrationHost&) = delete;
  ScopedCalibrationHost& operator=(const ScopedCalibrationHost&) = delete;

 private:
  CalibrationHost host_;
  const CalibrationHost* previous_;
};
// The host in force: a test's, else this machine's (validate measures through it too).
[[nodiscard]] CalibrationHost calibration_host();

// A warning line for each kernel whose runs spread more than 10 % (a busy machine, a clock that
// moved); empty when the machine was quiet.
[[nodiscard]] std::string noise_warnings(const Calibration& c);

}  // namespace roofline::cli
