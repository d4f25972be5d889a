#pragma once
// `rooflineplan plan`: GPUs needed for a load under TTFT and TPOT targets, per GPU type and
// tensor-parallel size, ranked by cost (or by GPU count when no price is given).
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace roofline::cli {

struct PlanArgs {
  std::string model;
  std::vector<std::string> gpus;
  std::vector<std::string> tp{"1"};
  std::vector<double> prices;  // $/GPU-hour: one for all GPUs, or one per GPU
  double rate = 1;
  long prompt = 512;
  long gen = 256;
  std::string ttft = "1 s";
  std::string tpot = "50 ms";
  std::string weights, kv, compute;
  double reserve = 0.1;
  bool disaggregate = false;
  std::string format = "table";
};

CLI::App* add_plan_command(CLI::App& app, PlanArgs& args);
void run_plan(const PlanArgs& args, std::ostream& out);

}  // namespace roofline::cli
