#pragma once
// A chart as a PNG image, drawn by Cairo with real font metrics. Built only where Cairo is
// found (ROOFLINEPLAN_HAVE_CAIRO); elsewhere `plot --out f.png` says so and exits 2.
#include <functional>
#include <memory>
#include <string>

#include "chart/canvas.hpp"

namespace roofline::chart {

// Renders what `paint` draws on a width × height canvas (in SVG units; the image has `scale`
// pixels per unit) and writes it to `path`. Throws std::invalid_argument where the file cannot be written.
void write_png(const std::string& path, double width, double height, double scale,
               const std::function<void(Canvas&)>& paint);

[[nodiscard]] bool png_supported();

}  // namespace roofline::chart
