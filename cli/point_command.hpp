#pragma once
// `rooflineplan --model M --gpu G ...`: one point's report, as a table for people (the phases,
// the memory ledger, B*), Markdown, CSV, JSON or a JSON line.
#include <ostream>
#include <string>

#include "cli/command.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

struct PointArgs {
  WorkloadFlags workload;
  bool ops = false;
  std::string format = "table";
};

void add_point_options(Options& o, PointArgs& args);
void run_point(const PointArgs& args, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
