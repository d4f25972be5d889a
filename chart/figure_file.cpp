#include "chart/figure_file.hpp"

#include "chart/png_canvas.hpp"
#include "chart/svg_canvas.hpp"
#include "chart/text_canvas.hpp"

namespace roofline::chart {

namespace {

// 960 units wide; 180 of height for titles and legend plus 420 a panel; PNGs have two pixels a unit.
constexpr double kWidth = 960, kPanelHeight = 420, kChrome = 180, kPngScale = 2;

}  // namespace

void write_figure(const Figure& figure, FigureFormat format, std::ostream& out) {
  const double height = kChrome + kPanelHeight * static_cast<double>(figure.panels.size());
  if (format == FigureFormat::png) {
    write_png(out, kWidth, height, kPngScale, [&](Canvas& c) { draw(figure, c); });
    return;
  }
  SvgCanvas svg(kWidth, height);
  draw(figure, svg);
  out << svg.document();
}

std::string text_figure(const Figure& figure, int columns, int rows) {
  TextCanvas canvas(columns, rows);
  // The stream the characters go to says the run's warnings as lines of their own (plot under the
  // chart, explain above its story): drawn here too, they would take the panels' rows twice over.
  if (figure.notes.empty()) {
    draw(figure, canvas);
  } else {
    Figure without = figure;
    without.notes.clear();
    draw(without, canvas);
  }
  return canvas.lines();
}

}  // namespace roofline::chart
