#pragma once
// A chart as a PNG image, drawn by Cairo with real font metrics. Built only where Cairo is
// found (ROOFLINEPLAN_HAVE_CAIRO); elsewhere `plot --out f.png` says so and exits 2.
#include <functional>
#include <memory>
#include <ostream>

#include "chart/canvas.hpp"

namespace roofline::chart {

// Renders what `paint` draws on a width × height canvas (in SVG units; the image has `scale`
// pixels per unit) and writes it to `out`; a failed write shows in the stream's state.
// std::invalid_argument in a build without Cairo; std::runtime_error when Cairo itself fails.
void write_png(std::ostream& out, double width, double height, double scale,
               const std::function<void(Canvas&)>& paint);

[[nodiscard]] bool png_supported();

}  // namespace roofline::chart
