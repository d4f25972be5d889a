#include "chart/text_canvas.hpp"

#include <algorithm>
#include <cmath>

#include "report/safe_text.hpp"
#include "text/utf8.hpp"

namespace roofline::chart {

TextCanvas::TextCanvas(int columns, int rows)
    : columns_(columns), cells_(static_cast<std::size_t>(columns) * static_cast<std::size_t>(rows), " ") {}

double TextCanvas::text_width(std::string_view text, double) const {
  return static_cast<double>(text::display_width(report::terminal_text(text)));
}

double TextCanvas::first_column(Pt at, double w, Anchor anchor) {
  return std::round(anchor == Anchor::start ? at.x : anchor == Anchor::middle ? at.x - w / 2 : at.x - w);
}

// The row where the middle of the letters would be: the layout puts a text's baseline 0.35 of its
// size below the middle of what it labels (chart.cpp), so a tick's label shares the tick's row
// (at 0.3 a label sat a row below its tick where the tick fell at the bottom of a row).
double TextCanvas::row_of(Pt at, double size) {
  return std::floor(at.y - 0.35 * size + 1e-9);  // a tick on a row's edge: its label's row, not the one above
}

Box TextCanvas::text_box(Pt at, std::string_view text, double size, Anchor anchor) const {
  const double w = text_width(text, size), x = first_column(at, w, anchor), y = row_of(at, size);
  return {x - 0.5, y, x + w + 0.5, y + 1};
}

Box TextCanvas::point_box(Pt at, double) const {
  return {std::floor(at.x), std::floor(at.y), std::floor(at.x) + 1, std::floor(at.y) + 1};
}

std::string& TextCanvas::cell(int column, int row) {
  return cells_[static_cast<std::size_t>(row) * static_cast<std::size_t>(columns_) + static_cast<std::size_t>(column)];
}

// A wide character is its glyph in one cell and "" in the next: the row keeps its column count
// only while both halves stay together, so a write over either half blanks the other.
void TextCanvas::clear(int column, int row) {
  std::string& here = cell(column, row);
  if (here.empty()) cell(column - 1, row) = " ";
  else if (column + 1 < columns_ && cell(column + 1, row).empty()) cell(column + 1, row) = " ";
  here = " ";
}

void TextCanvas::put(double x, double y, std::string_view glyph, int columns) {
  const double col = std::floor(x), row = std::floor(y);
  if (col < 0 || row < 0 || col + columns > width() || row >= height()) return;
  const int c = static_cast<int>(col), r = static_cast<int>(row);
  for (int k = 0; k < columns; ++k) clear(c + k, r);
  cell(c, r) = glyph;
  if (columns == 2) cell(c + 1, r) = "";
}

void TextCanvas::polyline(const std::vector<Pt>& points, const Stroke& s) {
  if (s.faint) return;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const Pt a = points[i - 1], b = points[i];
    const double dx = b.x - a.x, dy = b.y - a.y;
    // A row is about twice as tall as a column is wide: the slope on screen is 2·dy/dx.
    const double slope = dx == 0 ? 1e9 : 2 * std::fabs(dy / dx);
    const char* glyph = slope < 0.25 ? "-" : slope > 4 ? (s.dashed ? ":" : "|") : (dy < 0) == (dx > 0) ? "/" : "\\";
    const std::string own(1, s.glyph);
    const int steps = static_cast<int>(std::ceil(std::max(std::fabs(dx), std::fabs(dy)) * 2)) + 1;
    for (int k = 0; k < steps; ++k) {
      const double t = steps == 1 ? 0 : static_cast<double>(k) / (steps - 1);
      const double x = a.x + t * dx, y = a.y + t * dy;
      if (s.dashed && slope < 0.25 && static_cast<long>(std::floor(x)) % 2 != 0) continue;
      put(x, y, s.glyph != 0 ? std::string_view(own) : std::string_view(glyph));
    }
  }
}

void TextCanvas::point(Pt at, double, Color, const Datum& d) {
  const std::string g(1, d.glyph);
  put(at.x, at.y, g);
}

void TextCanvas::text(Pt at, std::string_view raw, double size, Anchor anchor, Color) {
  // A name's control characters would drive the terminal the chart is printed on.
  const std::string shown = report::terminal_text(raw);
  const std::string_view text = shown;
  double x = first_column(at, text_width(text, 1), anchor);
  const double y = row_of(at, size);
  // terminal_text left only whole characters: each takes the columns a terminal gives it, so a
  // Chinese label's characters take two and what follows them stays aligned.
  for (std::size_t i = 0; i < text.size();) {
    const text::CodePoint c = text::decode_utf8(text.substr(i));
    const std::size_t n = std::max<std::size_t>(1, c.length);
    const int columns = text::display_width(c.code);
    if (columns > 0) put(x, y, text.substr(i, n), columns);  // a zero-width mark has no cell of its own: left out
    x += columns;
    i += n;
  }
}

std::string TextCanvas::lines() const {
  std::string out;
  for (std::size_t row = 0; row * static_cast<std::size_t>(columns_) < cells_.size(); ++row) {
    std::string line;
    for (int c = 0; c < columns_; ++c) line += cells_[row * static_cast<std::size_t>(columns_) + static_cast<std::size_t>(c)];
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

}  // namespace roofline::chart
