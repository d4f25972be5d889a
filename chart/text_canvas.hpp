#pragma once
// A chart as characters, for the terminal: one canvas unit is one column across and one row
// down. Lines become / - | \ by their slope, points their glyph; fills and grid lines are left
// out, since a character cannot be half shaded.
#include <string>
#include <vector>

#include "chart/canvas.hpp"

namespace roofline::chart {

class TextCanvas final : public Canvas {
 public:
  TextCanvas(int columns, int rows);
  [[nodiscard]] double width() const override { return static_cast<double>(columns_); }
  [[nodiscard]] double height() const override { return static_cast<double>(cells_.size() / columns_); }
  [[nodiscard]] double em() const override { return 1; }
  [[nodiscard]] double text_width(std::string_view text, double size) const override;
  // The cells a text writes, and half a column either side: two texts on one row need a blank
  // column between them to read as two ("100 kthroughput" was a tick label and an axis label).
  [[nodiscard]] Box text_box(Pt baseline, std::string_view text, double size, Anchor anchor) const override;
  [[nodiscard]] Box point_box(Pt at, double radius) const override;  // the point's cell

  void polyline(const std::vector<Pt>& points, const Stroke& stroke) override;
  void polygon(const std::vector<Pt>&, Color, double) override {}
  void point(Pt at, double radius, Color fill, const Datum& datum) override;
  void text(Pt baseline, std::string_view text, double size, Anchor anchor, Color color) override;

  [[nodiscard]] std::string lines() const;  // rows joined by newlines, trailing blanks trimmed

 private:
  // The first column and the row of a text `columns` wide: text() and text_box() agree.
  [[nodiscard]] static double first_column(Pt at, double columns, Anchor anchor);
  [[nodiscard]] static double row_of(Pt at, double size);
  // Writes a glyph `columns` wide (2: a Chinese character) with its left edge at (x, y).
  void put(double x, double y, std::string_view glyph, int columns = 1);
  void clear(int column, int row);
  std::string& cell(int column, int row);
  int columns_;
  std::vector<std::string> cells_;  // one UTF-8 character each; "": the right half of a wide one
};

}  // namespace roofline::chart
