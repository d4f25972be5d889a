#include "chart/figure_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "chart/png_canvas.hpp"
#include "chart/svg_canvas.hpp"
#include "chart/text_canvas.hpp"

namespace roofline::chart {

namespace {

// 960 units wide; 180 of height for titles and legend plus 420 a panel; PNGs have two pixels a unit.
constexpr double kWidth = 960, kPanelHeight = 420, kChrome = 180, kPngScale = 2;

}  // namespace

void write_figure(const Figure& figure, const std::string& path) {
  const double height = kChrome + kPanelHeight * static_cast<double>(figure.panels.size());
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".png") {
    write_png(path, kWidth, height, kPngScale, [&](Canvas& c) { draw(figure, c); });
    return;
  }
  if (ext != ".svg") throw std::invalid_argument(fmt::format("--out {}: name a .svg or .png file", path));
  SvgCanvas svg(kWidth, height);
  draw(figure, svg);
  std::ofstream file(path, std::ios::binary);
  file << svg.document();
  if (!file.flush()) throw std::invalid_argument(fmt::format("--out {}: cannot write the file", path));
}

std::string text_figure(const Figure& figure, int columns, int rows) {
  TextCanvas canvas(columns, rows);
  draw(figure, canvas);
  return canvas.lines();
}

}  // namespace roofline::chart
