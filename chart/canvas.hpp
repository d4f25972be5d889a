#pragma once
// What a chart is drawn on: an SVG file, a Cairo image (PNG) or a grid of characters for the
// terminal. The chart's layout is computed once (chart.cpp) and drawn through this interface,
// so the three outputs cannot disagree about where a point lies.
#include <cstdint>
#include <string_view>
#include <vector>

namespace roofline::chart {

struct Pt {
  double x = 0, y = 0;  // canvas units, y down
};

struct Color {
  std::uint8_t r = 0, g = 0, b = 0;
};

struct Stroke {
  Color color;
  double width = 1;
  bool dashed = false;
  bool faint = false;  // grid lines: a character canvas leaves them out
  char glyph = 0;      // a character canvas's line; 0: a slash, dash or bar by the slope
};

enum class Anchor { start, middle, end };

// A rectangle in canvas units, y down.
struct Box {
  double left = 0, top = 0, right = 0, bottom = 0;
  [[nodiscard]] bool overlaps(const Box& o) const {
    return left < o.right && o.left < right && top < o.bottom && o.top < bottom;
  }
  [[nodiscard]] bool inside(const Box& o) const {
    return left >= o.left && right <= o.right && top >= o.top && bottom <= o.bottom;
  }
};

// A data point as the chart knows it, for outputs that can carry it (SVG: a <title> tooltip and
// data-* attributes with the raw values, so a reader or a test gets the numbers, not pixels).
struct Datum {
  std::string_view kind;   // "prefill", "decode", ...
  std::string_view label;  // "ffn_up"
  double x = 0, y = 0;
  std::string_view tooltip;
  char glyph = '*';        // the character canvas's mark
};

class Canvas {
 public:
  virtual ~Canvas() = default;
  [[nodiscard]] virtual double width() const = 0;
  [[nodiscard]] virtual double height() const = 0;
  // The base font size in canvas units; layout margins and gaps are multiples of it.
  [[nodiscard]] virtual double em() const = 0;
  [[nodiscard]] virtual double text_width(std::string_view text, double size) const = 0;
  // Where a text drawn at `baseline` lands: its advance across, and from a size above the
  // baseline to a quarter of one below (the ascenders and descenders of DejaVu Sans and Noto Sans
  // CJK fit inside). The layout places every text by this box, so that no two meet; a canvas
  // that writes on a grid (characters) gives the cells it writes.
  [[nodiscard]] virtual Box text_box(Pt baseline, std::string_view text, double size, Anchor anchor) const {
    const double w = text_width(text, size);
    const double left = anchor == Anchor::start ? baseline.x : anchor == Anchor::middle ? baseline.x - w / 2 : baseline.x - w;
    return {left, baseline.y - size, left + w, baseline.y + 0.25 * size};
  }
  // Where a point of this radius lands.
  [[nodiscard]] virtual Box point_box(Pt at, double radius) const {
    return {at.x - radius, at.y - radius, at.x + radius, at.y + radius};
  }

  virtual void polyline(const std::vector<Pt>& points, const Stroke& stroke) = 0;
  virtual void polygon(const std::vector<Pt>& points, Color fill, double opacity) = 0;
  virtual void point(Pt at, double radius, Color fill, const Datum& datum) = 0;
  virtual void text(Pt baseline, std::string_view text, double size, Anchor anchor, Color color) = 0;
};

}  // namespace roofline::chart
