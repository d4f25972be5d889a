#pragma once
// A figure leaves the chart layer in one of three forms: SVG or PNG bytes on a stream, or lines
// of characters for a terminal. Files are the caller's: where the bytes go, and whether they
// arrived, is decided where the file is opened.
#include <ostream>
#include <string>

#include "chart/chart.hpp"

namespace roofline::chart {

enum class FigureFormat { svg, png };

// Writes the figure to `out` in that format, its notes (the run's warnings) under its subtitle; a
// failed write shows in the stream's state.
// std::invalid_argument for PNG in a build without Cairo.
void write_figure(const Figure& figure, FigureFormat format, std::ostream& out);

// The figure as characters, `columns` wide and `rows` high, without its notes: the stream it is
// written to (plot's stdout, explain's) carries the same warnings as lines of their own.
[[nodiscard]] std::string text_figure(const Figure& figure, int columns, int rows);

}  // namespace roofline::chart
