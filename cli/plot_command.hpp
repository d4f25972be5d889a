#pragma once
// `rooflineplan plot`: the roofline, batch and context charts as SVG or PNG (by the --out
// extension), or as characters on stdout when no file is named.
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>

#include "chart/chart.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

struct PlotArgs {
  WorkloadArgs point;
  std::string kind = "roofline";
  std::string out;  // .svg or .png; empty: characters on stdout
};

CLI::App* add_plot_command(CLI::App& app, PlotArgs& args);
void run_plot(const PlotArgs& args, std::ostream& out);


}  // namespace roofline::cli
