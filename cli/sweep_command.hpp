#pragma once
// `rooflineplan sweep`: every value flag takes a list or range; one output row per point of
// their product, as CSV (default), JSON lines or a table.
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace roofline::cli {

struct SweepArgs {
  std::vector<std::string> models, gpus;
  std::vector<std::string> batch{"1"}, prompt{"512"}, gen{"256"}, context, tp{"1"};
  std::vector<std::string> weights, kv, compute;
  std::string attention = "flash";
  double reserve = 0.1;
  std::string format = "csv";
  std::string out;  // empty: stdout
};

CLI::App* add_sweep_command(CLI::App& app, SweepArgs& args);
void run_sweep(const SweepArgs& args, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
