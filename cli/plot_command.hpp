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
  WorkloadFlags workload;
  std::string kind = "roofline";
  std::string out;  // .svg or .png; empty: characters on stdout
  std::string lang = "en";  // the charts' words: en or zh
};

void add_plot_options(Options& o, PlotArgs& args);
void run_plot(const PlotArgs& args, std::ostream& out);

// Writes a figure to the file `--flag path` names (.svg or .png), whole or not at all: the old
// file stays until the new one is complete. io::InputError for another extension or a folder
// that cannot take it; report::WriteError when the write fails.
// `notes`: what replacing an existing file broke (a hard link) or followed (a symbolic link).
void write_figure_file(const chart::Figure& f, const std::string& path, std::string_view flag, std::ostream& notes);


}  // namespace roofline::cli
