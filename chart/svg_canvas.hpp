#pragma once
// A chart as an SVG document: vector lines and real text, readable in any browser, and each data
// point carries its raw values (data-x, data-y) and a tooltip, so the file holds the numbers.
#include <string>

#include "chart/canvas.hpp"

namespace roofline::chart {

class SvgCanvas final : public Canvas {
 public:
  SvgCanvas(double width, double height);
  [[nodiscard]] double width() const override { return width_; }
  [[nodiscard]] double height() const override { return height_; }
  [[nodiscard]] double em() const override { return 13; }
  [[nodiscard]] double text_width(std::string_view text, double size) const override;

  void polyline(const std::vector<Pt>& points, const Stroke& stroke) override;
  void polygon(const std::vector<Pt>& points, Color fill, double opacity) override;
  void point(Pt at, double radius, Color fill, const Datum& datum) override;
  void text(Pt baseline, std::string_view text, double size, Anchor anchor, Color color) override;

  [[nodiscard]] std::string document() const;  // the whole file, closed

 private:
  double width_, height_;
  std::string body_;
};

}  // namespace roofline::chart
