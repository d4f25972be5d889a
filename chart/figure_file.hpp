#pragma once
// A figure leaves the chart layer in one of three forms: an SVG or PNG file (by the path's
// extension) or lines of characters for a terminal.
#include <string>

#include "chart/chart.hpp"

namespace roofline::chart {

// Writes a figure to `path` as SVG or PNG by its extension; std::invalid_argument naming the
// path for any other extension or when the file cannot be written.
void write_figure(const Figure& figure, const std::string& path);
// The figure as characters, `columns` wide and `rows` high.
[[nodiscard]] std::string text_figure(const Figure& figure, int columns, int rows);

}  // namespace roofline::chart
