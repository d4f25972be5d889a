#pragma once
// `rooflineplan plot`: the roofline, batch and context charts as SVG or PNG (by the --out
// extension), or as characters on stdout when no file is named.
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>

#include "chart.hpp"
#include "workload_options.hpp"

namespace roofline::cli {

struct PlotArgs {
  WorkloadArgs point;
  std::string kind = "roofline";
  std::string out;  // .svg or .png; empty: characters on stdout
};

CLI::App* add_plot_command(CLI::App& app, PlotArgs& args);
void run_plot(const PlotArgs& args, std::ostream& out);

// Writes a figure to `path` as SVG or PNG by its extension; InputError for anything else.
void write_figure(const Figure& figure, const std::string& path);
// The figure as characters, `columns` wide.
[[nodiscard]] std::string text_figure(const Figure& figure, int columns, int rows);

}  // namespace roofline::cli
