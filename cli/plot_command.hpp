#pragma once
// `rooflineplan plot`: the roofline, batch and context charts as SVG or PNG (by the --out
// extension), or as characters on stdout when no file is named.
#include <ostream>
#include <string>

#include "chart/chart.hpp"
#include "cli/command.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

struct PlotArgs {
  WorkloadFlags workload;  // as parsed; `point` is its one point, set before run_plot
  WorkloadArgs point;
  std::string kind = "roofline";
  std::string out;  // .svg or .png; empty: characters on stdout
};

void add_plot_options(Options& o, PlotArgs& args);
void run_plot(const PlotArgs& args, std::ostream& out);


}  // namespace roofline::cli
