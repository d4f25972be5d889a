#include "chart/chart.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/human_units.hpp"
#include "text/utf8.hpp"

namespace roofline::chart {

using namespace report;

namespace {

constexpr Color kInk{40, 40, 40};
constexpr Color kGrid{225, 225, 225};
constexpr Color kMuted{110, 110, 110};
constexpr Color kWarning{178, 34, 34};  // a note of what the run warns of, under the subtitle

// Where data lands on the canvas: one panel's plot area and its two axes.
class Frame {
 public:
  Frame(const Panel& p, Box area) : panel_(&p), area_(area) {}
  [[nodiscard]] double x(double v) const { return area_.left + fraction(panel_->x, v) * (area_.right - area_.left); }
  [[nodiscard]] double y(double v) const { return area_.bottom - fraction(panel_->y, v) * (area_.bottom - area_.top); }
  [[nodiscard]] Pt at(Pt data) const { return {x(data.x), y(data.y)}; }
  [[nodiscard]] const Box& area() const { return area_; }
  [[nodiscard]] bool contains(Pt data) const {
    const double fx = fraction(panel_->x, data.x), fy = fraction(panel_->y, data.y);
    return fx >= -1e-9 && fx <= 1 + 1e-9 && fy >= -1e-9 && fy <= 1 + 1e-9;
  }

 private:
  static double fraction(const Axis& a, double v) {
    if (a.scale == Scale::log) {
      if (!(v > 0)) return -1;  // off a log axis: below its bottom
      return (std::log10(v) - std::log10(a.min)) / (std::log10(a.max) - std::log10(a.min));
    }
    return (v - a.min) / (a.max - a.min);
  }
  const Panel* panel_;
  Box area_;
};

// A tick label: the SI prefix and no trailing zeros ("1 ms", "2.5 TFLOP/s", "10 k"); a plain
// number below a thousand has no prefix ("0.1", not "100 m").
std::string tick_label(double v, const std::string& unit) {
  std::string s = unit.empty() && std::fabs(v) < 999.5 ? three_digits(v) : si(v, unit);
  const auto space = s.find(' ');
  std::string number = s.substr(0, space), rest = space == std::string::npos ? "" : s.substr(space);
  if (number.find('.') != std::string::npos) {
    number.erase(number.find_last_not_of('0') + 1);
    if (number.back() == '.') number.pop_back();
  }
  while (!rest.empty() && rest.back() == ' ') rest.pop_back();
  return number + rest;
}

// Segment clipping to the unit square of the plot (Liang-Barsky), in canvas units.
std::optional<std::pair<Pt, Pt>> clip(Pt a, Pt b, const Box& box) {
  double t0 = 0, t1 = 1;
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {a.x - box.left, box.right - a.x, a.y - box.top, box.bottom - a.y};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return std::nullopt;
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0) t0 = std::max(t0, t);
    else t1 = std::min(t1, t);
  }
  if (t0 > t1) return std::nullopt;
  return std::pair{Pt{a.x + t0 * dx, a.y + t0 * dy}, Pt{a.x + t1 * dx, a.y + t1 * dy}};
}

// Draws a data polyline, cut where it leaves the plot area. Points off a log axis are dropped.
// Returns the runs drawn, in canvas units.
std::vector<std::vector<Pt>> draw_clipped(Canvas& c, const Frame& f, const std::vector<Pt>& data, const Stroke& stroke) {
  std::vector<std::vector<Pt>> drawn;
  std::vector<Pt> run;
  auto flush = [&] {
    if (run.size() >= 2) {
      c.polyline(run, stroke);
      drawn.push_back(run);
    }
    run.clear();
  };
  for (std::size_t i = 1; i < data.size(); ++i) {
    const Pt a = f.at(data[i - 1]), b = f.at(data[i]);
    if (!std::isfinite(a.x + a.y + b.x + b.y)) {
      flush();
      continue;
    }
    const auto s = clip(a, b, f.area());
    if (!s) {
      flush();
      continue;
    }
    if (run.empty()) run.push_back(s->first);
    run.push_back(s->second);
    if (s->second.x != b.x || s->second.y != b.y) flush();
  }
  flush();
  return drawn;
}

// Every text and point drawn so far, by where it lands on its canvas (Canvas::text_box,
// point_box): a label goes only where it meets none of them, so that no text prints over another
// ("100 kthroughput" was a tick label run into an axis's name, and a B* label was forced across
// two rules and the other B*'s label). Lines are kept apart as far as they can be: a label crosses
// a curve only where no spot off every curve is free, and a rule only where no spot off the rules
// is (a rule's line, unlike a text, is still read where a label crosses it).
class Ink {
 public:
  explicit Ink(Canvas& c) : c_(c) {}
  [[nodiscard]] Canvas& canvas() const { return c_; }
  [[nodiscard]] bool free(const Box& b) const { return none_meets(taken_, b); }
  [[nodiscard]] bool off_rules(const Box& b) const { return none_meets(rules_, b); }
  [[nodiscard]] bool off_curves(const Box& b) const {
    return std::none_of(curves_.begin(), curves_.end(),
                        [&](const std::pair<Pt, Pt>& s) { return clip(s.first, s.second, b).has_value(); });
  }
  void reserve(const Box& b) { taken_.push_back(b); }
  void rule(const Box& b) { rules_.push_back(b); }
  void curve(const std::vector<Pt>& line) {
    for (std::size_t i = 1; i < line.size(); ++i) curves_.emplace_back(line[i - 1], line[i]);
  }
  // Draws a text that must be shown (a title, an axis's name) and takes where it landed.
  void write(Pt at, std::string_view text, double size, Anchor anchor, Color color) {
    c_.text(at, text, size, anchor, color);
    taken_.push_back(c_.text_box(at, text, size, anchor));
  }
  // Draws a text only where it meets nothing drawn; false, and nothing drawn, where it would.
  bool write_if_free(Pt at, std::string_view text, double size, Anchor anchor, Color color) {
    if (!free(c_.text_box(at, text, size, anchor))) return false;
    write(at, text, size, anchor, color);
    return true;
  }

 private:
  static bool none_meets(const std::vector<Box>& boxes, const Box& b) {
    return std::none_of(boxes.begin(), boxes.end(), [&](const Box& t) { return t.overlaps(b); });
  }
  Canvas& c_;
  std::vector<Box> taken_, rules_;
  std::vector<std::pair<Pt, Pt>> curves_;
};

// How far a label may go to find room: off every line, off the rules, or across lines.
enum class Crossing { none, curves, lines };

// A label beside a point: the first free spot among candidates around it, within the plot area,
// crossing as few lines as it can. Where none is free it is left out, never printed over another
// text: a marker's tooltip (SVG) and the legend's entry for its kind still name it.
class LabelPlacer {
 public:
  LabelPlacer(Ink& ink, Box bounds) : ink_(ink), bounds_(bounds) {}
  // `rings`: how far out to look, in steps of 2 gaps (a rule's label looks farther than a
  // point's); `most`: the most it may cross.
  bool place(Pt at, double gap, std::string_view text, double size, Color color, int rings, Crossing most) {
    Canvas& c = ink_.canvas();
    struct Candidate {
      double dx, dy;
      Anchor anchor;
    };
    // Beside the point first, then above and below, then the corners; the same again farther
    // out for a crowded spot.
    std::vector<Candidate> candidates;
    const double h = size;
    for (int ring = 0; ring < rings; ++ring) {
      const double d = (1 + 2 * ring) * gap;
      candidates.insert(candidates.end(), {{d, 0.35 * h, Anchor::start}, {-d, 0.35 * h, Anchor::end},
                                           {0, -d, Anchor::middle},      {0, d + h, Anchor::middle},
                                           {d, -d, Anchor::start},       {d, d + h, Anchor::start},
                                           {-d, -d, Anchor::end},        {-d, d + h, Anchor::end}});
    }
    for (const Crossing crossing : {Crossing::none, Crossing::curves, Crossing::lines}) {
      if (crossing > most) break;
      for (const Candidate& k : candidates) {
        const Pt base{at.x + k.dx, at.y + k.dy};
        const Box box = c.text_box(base, text, size, k.anchor);
        if (!box.inside(bounds_) || !ink_.free(box)) continue;
        if (crossing < Crossing::lines && !ink_.off_rules(box)) continue;
        if (crossing < Crossing::curves && !ink_.off_curves(box)) continue;
        ink_.write(base, text, size, k.anchor, color);
        return true;
      }
    }
    return false;
  }

 private:
  Ink& ink_;
  Box bounds_;
};

// The text as it fits in `width`: whole, or cut at its end (at a whole character) with "…".
std::string fitted(const Canvas& c, std::string text, double size, double width) {
  if (c.text_width(text, size) <= width) return text;
  while (!text.empty() && c.text_width(text + "…", size) > width) {
    std::size_t last = text.size() - 1;
    while (last > 0 && (static_cast<unsigned char>(text[last]) & 0xC0) == 0x80) --last;
    text.erase(last);
  }
  return text + "…";
}

double tick_size(const Canvas& c) { return 0.85 * c.em(); }

// The plot area within its frame's lines: on a grid of characters a line takes the row or column
// it falls in (a label in the frame's top row was written over the frame).
Box inside_frame(const Canvas& c, const Box& a) {
  const Box top_left = c.point_box({a.left, a.top}, 0), bottom_right = c.point_box({a.right, a.bottom}, 0);
  return {top_left.right, top_left.bottom, bottom_right.left, bottom_right.top};
}

double widest_tick_label(const Canvas& c, const Axis& axis) {
  double w = 0;
  for (double t : ticks(axis)) w = std::max(w, c.text_width(tick_label(t, axis.unit), tick_size(c)));
  return w;
}

// The axis's name above the plot, where it meets no tick label: on a grid of characters the
// panel's top may fall in the same row as the top tick's label, and it is lifted a row. Returns
// its baseline: the panel's header line, where rule labels may go too.
double y_axis_name(Ink& ink, const Frame& f, const Panel& p) {
  const Box& a = f.area();
  const double em = ink.canvas().em();
  for (int tenth = 0; tenth <= 10; ++tenth) {
    const double y = a.top - (0.6 + 0.1 * tenth) * em;
    if (ink.write_if_free({a.left, y}, p.y.label, em, Anchor::start, kInk)) return y;
  }
  ink.write({a.left, a.top - 0.6 * em}, p.y.label, em, Anchor::start, kInk);  // an axis is not left unnamed
  return a.top - 0.6 * em;
}

// A tick label that would print over its neighbour (a panel a few rows of characters high, a
// corner where the two axes' first labels meet) is left out; its tick and grid line stay.
// Returns the panel's header line (y_axis_name).
double draw_axes(Ink& ink, const Frame& f, const Panel& p) {
  Canvas& c = ink.canvas();
  const Box& a = f.area();
  const double em = c.em(), size = tick_size(c);
  for (double t : ticks(p.y)) {
    const double y = f.y(t);
    c.polyline({{a.left, y}, {a.right, y}}, Stroke{kGrid, 1, false, true});
    c.polyline({{a.left - 0.3 * em, y}, {a.left, y}}, Stroke{kInk, 1});
    ink.write_if_free({a.left - 0.5 * em, y + 0.35 * size}, tick_label(t, p.y.unit), size, Anchor::end, kInk);
  }
  // 1.4 em down: the first x label's top clears the lowest y label's descent (at 1.3 em, '0.1'
  // under the corner met '10 GFLOP/s' beside it).
  for (double t : ticks(p.x)) {
    const double x = f.x(t);
    c.polyline({{x, a.top}, {x, a.bottom}}, Stroke{kGrid, 1, false, true});
    c.polyline({{x, a.bottom}, {x, a.bottom + 0.3 * em}}, Stroke{kInk, 1});
    ink.write_if_free({x, a.bottom + 1.4 * em}, tick_label(t, p.x.unit), size, Anchor::middle, kInk);
  }
  c.polyline({{a.left, a.top}, {a.right, a.top}, {a.right, a.bottom}, {a.left, a.bottom}, {a.left, a.top}},
             Stroke{kInk, 1});
  // Centred under the plot, cut to the canvas where it is wider (a terminal of 40 columns).
  const double mid = (a.left + a.right) / 2, room = 2 * std::min(mid, c.width() - mid) - em;
  ink.write({mid, a.bottom + 2.7 * em}, fitted(c, p.x.label, em, room), em, Anchor::middle, kInk);
  return y_axis_name(ink, f, p);
}

void draw_regions(Canvas& c, const Frame& f, const Panel& p) {
  const Box& a = f.area();
  for (const Shade& s : p.shades) {
    const double l = std::clamp(f.x(s.from), a.left, a.right), r = std::clamp(f.x(s.to), a.left, a.right);
    if (r > l) c.polygon({{l, a.top}, {r, a.top}, {r, a.bottom}, {l, a.bottom}}, s.fill, 0.18);
  }
  for (const Band& b : p.bands) {
    std::vector<Pt> outline;
    for (std::size_t i = 0; i < b.x.size(); ++i) outline.push_back(f.at({b.x[i], b.high[i]}));
    for (std::size_t i = b.x.size(); i-- > 0;) outline.push_back(f.at({b.x[i], b.low[i]}));
    for (Pt& q : outline) q = {std::clamp(q.x, a.left, a.right), std::clamp(q.y, a.top, a.bottom)};
    c.polygon(outline, b.fill, b.opacity);
  }
}

// A rule drawn, and where its label would go first.
struct RuleDrawn {
  const Rule* rule;
  Pt label_at;
};

// Every rule's line is marked before any label is placed, so that a label crosses a rule only
// where nothing else is free.
std::vector<RuleDrawn> draw_rule_lines(Ink& ink, const Frame& f, const Panel& p) {
  Canvas& c = ink.canvas();
  const Box& a = f.area();
  const double em = c.em();
  std::vector<RuleDrawn> out;
  for (const Rule& r : p.rules) {
    if (!f.contains(r.vertical ? Pt{r.at, p.y.max} : Pt{p.x.min, r.at})) continue;
    if (r.vertical) {
      const double x = f.x(r.at);
      c.polyline({{x, a.top}, {x, a.bottom}}, r.stroke);
      ink.rule({x - 0.2 * em, a.top, x + 0.2 * em, a.bottom});
      out.push_back({&r, {x, a.top + 1.4 * em}});
    } else {
      const double y = f.y(r.at);
      c.polyline({{a.left, y}, {a.right, y}}, r.stroke);
      ink.rule({a.left, y - 0.2 * em, a.right, y + 0.2 * em});
      out.push_back({&r, {a.right - 0.3 * em, y - 0.1 * em}});
    }
  }
  return out;
}

// Each rule's label beside its rule's top. Two vertical rules close together (B* = 295 and
// memory full at batch 447) both want the top row, and below it each label would cross the other
// rule: a label with no free spot there goes to the panel's header line, right-aligned in its
// rule's colour, then farther down along its rule, and only then across another rule at its top
// (in its own colour); where even that would print over a text it is left out (its rule is still
// drawn in its colour, and the batch chart's other panel draws the same rule and label).
void draw_rule_labels(Ink& ink, const Frame& f, double header, const std::vector<RuleDrawn>& rules, LabelPlacer& labels) {
  Canvas& c = ink.canvas();
  const Box& a = f.area();
  const double em = c.em(), size = tick_size(c);
  std::vector<const RuleDrawn*> overflow;
  for (const RuleDrawn& q : rules) {
    if (!labels.place(q.label_at, 0.3 * em, q.rule->label, size, q.rule->stroke.color, 3, Crossing::curves)) {
      overflow.push_back(&q);
    }
  }
  // The header is the panel's name's line, above the frame: a label smaller than the name may
  // fall a row lower on a grid of characters, onto the frame's top, and is lifted.
  const double frame_top = c.point_box({a.left, a.top}, 0).top;
  const auto in_header = [&](const Rule& r, double right) -> std::optional<Box> {
    for (int tenth = 0; tenth <= 10; ++tenth) {
      const Pt at{right, header - 0.1 * tenth * em};
      const Box box = c.text_box(at, r.label, size, Anchor::end);
      if (box.left < a.left || box.bottom > frame_top || !ink.free(box)) continue;
      ink.write(at, r.label, size, Anchor::end, r.stroke.color);
      return box;
    }
    return std::nullopt;
  };
  double x = a.right;
  for (auto it = overflow.rbegin(); it != overflow.rend(); ++it) {
    const Rule& r = *(*it)->rule;
    if (const std::optional<Box> box = in_header(r, x)) {
      x = box->left - 2 * em;  // two labels in a row read as two
      continue;
    }
    const auto along = [&](double down) {
      const Pt at = r.vertical ? Pt{(*it)->label_at.x, a.top + down * (a.bottom - a.top)}
                               : Pt{a.left + (1 - down) * (a.right - a.left), (*it)->label_at.y};
      return labels.place(at, 0.3 * em, r.label, size, r.stroke.color, 3, Crossing::curves);
    };
    if (!along(0.25) && !along(0.5) && !along(0.75)) {
      labels.place((*it)->label_at, 0.3 * em, r.label, size, r.stroke.color, 3, Crossing::lines);
    }
  }
}

// Points that land on the same spot (decode's matmuls share one intensity) get one label.
struct Spot {
  Pt at;
  const Marker* first;
  std::string label;
};

std::vector<Spot> draw_points(Ink& ink, const Frame& f, const Panel& p) {
  Canvas& c = ink.canvas();
  const double em = c.em();
  std::vector<Spot> spots;
  for (const Marker& m : p.markers) {
    if (!f.contains({m.x, m.y})) continue;
    const Pt at = f.at({m.x, m.y});
    const double r = m.radius * em / 13;
    c.point(at, r, m.color, Datum{m.kind, m.label, m.x, m.y, m.tooltip, m.glyph});
    ink.reserve(c.point_box(at, r));
    auto same = std::find_if(spots.begin(), spots.end(), [&](const Spot& s) {
      return s.first->kind == m.kind && s.first->radius == m.radius && std::hypot(s.at.x - at.x, s.at.y - at.y) < 0.5 * em;
    });
    if (same == spots.end()) spots.push_back({at, &m, m.label});
    else if (!m.label.empty()) same->label += ", " + m.label;
  }
  return spots;
}

// Large markers (a phase's total, the workload's own point) are labelled first, and may cross a
// rule to reach a free spot; an operator's label crosses no rule.
void draw_point_labels(const Canvas& c, std::vector<Spot> spots, LabelPlacer& labels) {
  const double em = c.em();
  std::stable_sort(spots.begin(), spots.end(), [](const Spot& a, const Spot& b) { return a.first->radius > b.first->radius; });
  for (const Spot& s : spots) {
    if (s.label.empty()) continue;
    const bool big = s.first->radius > 4;
    labels.place(s.at, s.first->radius * em / 13 + 0.3 * em, s.label, big ? em : tick_size(c), s.first->color,
                 2, big ? Crossing::lines : Crossing::curves);
  }
}

struct LegendEntry {
  enum class Key { line, area, point } key;
  std::string label;
  Color color;
  Stroke stroke;
  char glyph = '*';
};

std::vector<LegendEntry> legend_of(const Figure& fig) {
  std::vector<LegendEntry> out;
  auto add = [&](LegendEntry e) {
    if (e.label.empty()) return;
    if (std::none_of(out.begin(), out.end(), [&](const LegendEntry& o) { return o.label == e.label; })) out.push_back(e);
  };
  for (const Panel& p : fig.panels) {
    for (const Curve& k : p.curves) add({LegendEntry::Key::line, k.label, k.stroke.color, k.stroke, k.stroke.glyph});
    for (const Band& b : p.bands) add({LegendEntry::Key::area, b.label, b.fill, {}, ' '});
    for (const Shade& s : p.shades) add({LegendEntry::Key::area, s.label, s.fill, {}, ' '});
    for (const Marker& m : p.markers) add({LegendEntry::Key::point, m.kind, m.color, {}, m.glyph});
  }
  return out;
}

// Lays the legend out in rows from `top`; returns the height it takes. Draws only when given the
// ink, so the same code measures it first. Each entry starts 1.2 em past where the last one's
// text landed (on a grid of characters, the cells it took), so a key never runs into the text
// before it.
double legend(Canvas& c, const std::vector<LegendEntry>& entries, double top, Ink* ink) {
  const double em = c.em(), key = 1.8 * em, size = tick_size(c), row = 1.4 * em, left = em;
  double x = left, y = top + row;
  for (const LegendEntry& e : entries) {
    Box text = c.text_box({x + key + 0.4 * em, y}, e.label, size, Anchor::start);
    if (x > left && text.right + 1.2 * em > c.width() - em) {
      x = left, y += row;
      text = c.text_box({x + key + 0.4 * em, y}, e.label, size, Anchor::start);
    }
    if (ink != nullptr) {
      const double mid = y - 0.35 * size;
      if (e.key == LegendEntry::Key::line) {
        c.polyline({{x, mid}, {x + key, mid}}, e.stroke);
      } else if (e.key == LegendEntry::Key::area) {
        c.polygon({{x, mid - 0.4 * em}, {x + key, mid - 0.4 * em}, {x + key, mid + 0.4 * em}, {x, mid + 0.4 * em}}, e.color, 0.4);
      } else {
        c.point({x + key / 2, mid}, 4 * em / 13, e.color, Datum{"legend", e.label, 0, 0, "", e.glyph});
      }
      ink->write({x + key + 0.4 * em, y}, e.label, size, Anchor::start, kInk);
    }
    x = text.right + 1.2 * em;
  }
  return entries.empty() ? 0 : y - top + 0.6 * em;
}

// The lines of a title at most `width` wide: broken at its " · " separators first, then at its
// spaces (and after a Chinese comma or colon), and a part that still does not fit is cut at its
// end with "…". A subtitle centred on a chart narrower than itself lost both its ends
// ("eepSeek-V3 … · tp"), and cut at its end it lost the layout.
std::vector<std::string> wrapped(const Canvas& c, const std::string& text, double size, double width) {
  const auto fits = [&](std::string_view s) { return c.text_width(s, size) <= width; };
  struct Piece {
    std::string text, tail;  // tail: what joins it to the next piece on one line
  };
  // Greedy: each line takes pieces while they fit.
  const auto fill = [&](const std::vector<Piece>& pieces) {
    std::vector<std::string> lines;
    std::string tail;
    for (const Piece& piece : pieces) {
      if (!lines.empty() && fits(lines.back() + tail + piece.text)) lines.back() += tail + piece.text;
      else lines.push_back(piece.text);
      tail = piece.tail;
    }
    return lines;
  };
  constexpr std::string_view kDot = " · ";
  std::vector<Piece> parts;
  for (std::size_t from = 0;;) {
    const std::size_t dot = text.find(kDot, from);
    parts.push_back({text.substr(from, dot == std::string::npos ? std::string::npos : dot - from), std::string(kDot)});
    if (dot == std::string::npos) break;
    from = dot + kDot.size();
  }
  std::vector<std::string> out;
  for (const std::string& line : fill(parts)) {
    // Words: cut at each space, and after a Chinese comma, colon or semicolon (no space there).
    std::vector<Piece> words{{}};
    for (std::size_t i = 0; i < line.size();) {
      const std::size_t n = std::max<std::size_t>(1, text::decode_utf8(std::string_view(line).substr(i)).length);
      const std::string ch = line.substr(i, n);
      i += n;
      if (ch == " ") {
        words.back().tail = ch;
        words.emplace_back();
      } else if (ch == "，" || ch == "：" || ch == "；") {
        words.back().text += ch;
        words.emplace_back();
      } else {
        words.back().text += ch;
      }
    }
    for (const std::string& shown : fill(words)) {
      if (!shown.empty()) out.push_back(fitted(c, shown, size, width));
    }
  }
  return out;
}

}  // namespace

std::vector<double> ticks(const Axis& axis) {
  std::vector<double> out;
  if (!(axis.max > axis.min)) return out;
  if (axis.scale == Scale::log) {
    const double lo = std::log10(axis.min), hi = std::log10(axis.max);
    const int first = static_cast<int>(std::floor(lo + 1e-9)), last = static_cast<int>(std::ceil(hi - 1e-9));
    // Few decades: 1, 2, 5 within each, so the axis still has several labels.
    const bool fine = hi - lo < 2.5;
    const int step = std::max(1, static_cast<int>(std::ceil((hi - lo) / 8)));
    for (int e = first; e <= last; e += step) {
      for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        const double v = m * std::pow(10.0, e);
        if (v >= axis.min * (1 - 1e-9) && v <= axis.max * (1 + 1e-9)) out.push_back(v);
      }
    }
    return out;
  }
  const double raw = (axis.max - axis.min) / 6, mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
  for (double v = std::ceil(axis.min / step - 1e-9) * step; v <= axis.max + step * 1e-9; v += step) {
    out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  }
  return out;
}

void draw(const Figure& fig, Canvas& c) {
  const double em = c.em(), width = c.width() - em;  // half an em a side
  Ink ink(c);
  // The title's lines, then the subtitle's, each just below the last (on a grid of characters,
  // the next row), centred.
  double y = 1.5 * em, below = 0;
  const auto line_at = [&](const std::string& line, double size, Color color) {
    if (below > 0) {
      y = below + 0.75 * size;
      while (c.text_box({c.width() / 2, y}, line, size, Anchor::middle).top < below) y += 0.05 * em;
    }
    ink.write({c.width() / 2, y}, line, size, Anchor::middle, color);
    below = c.text_box({c.width() / 2, y}, line, size, Anchor::middle).bottom;
  };
  for (const std::string& line : wrapped(c, fig.title, 1.2 * em, width)) line_at(line, 1.2 * em, kInk);
  if (!fig.subtitle.empty()) {
    for (const std::string& line : wrapped(c, fig.subtitle, tick_size(c), width)) line_at(line, tick_size(c), kMuted);
  }
  // Each warning on lines of its own, broken at its spaces: the panels take what is left.
  for (const std::string& note : fig.notes) {
    for (const std::string& line : wrapped(c, note, tick_size(c), width)) line_at(line, tick_size(c), kWarning);
  }
  const double top = below + 0.4 * em;
  const std::vector<LegendEntry> entries = legend_of(fig);
  const double bottom = c.height() - legend(c, entries, 0, nullptr);
  double left = 0;
  for (const Panel& p : fig.panels) left = std::max(left, widest_tick_label(c, p.y) + 1.2 * em);
  double right = c.width() - 1.5 * em;  // room for half the last x tick label
  for (const Panel& p : fig.panels) right = std::min(right, c.width() - 0.5 * em - widest_tick_label(c, p.x) / 2);
  const double slot = (bottom - top) / static_cast<double>(std::max<std::size_t>(1, fig.panels.size()));
  std::vector<Frame> frames;
  for (std::size_t i = 0; i < fig.panels.size(); ++i) {
    const double slot_top = top + slot * static_cast<double>(i);
    frames.emplace_back(fig.panels[i], Box{left, slot_top + 1.6 * em, right, slot_top + slot - 3.2 * em});
  }
  // What must be shown first (every panel's axes), then what is placed around it.
  std::vector<double> headers;
  for (std::size_t i = 0; i < fig.panels.size(); ++i) {
    draw_regions(c, frames[i], fig.panels[i]);
    headers.push_back(draw_axes(ink, frames[i], fig.panels[i]));
  }
  for (std::size_t i = 0; i < fig.panels.size(); ++i) {
    const Panel& p = fig.panels[i];
    const Frame& f = frames[i];
    for (const Curve& k : p.curves) {
      for (const std::vector<Pt>& run : draw_clipped(c, f, k.points, k.stroke)) ink.curve(run);
    }
    const std::vector<RuleDrawn> rules = draw_rule_lines(ink, f, p);
    std::vector<Spot> spots = draw_points(ink, f, p);
    LabelPlacer labels(ink, inside_frame(c, f.area()));
    draw_rule_labels(ink, f, headers[i], rules, labels);
    draw_point_labels(c, std::move(spots), labels);
  }
  // Last, as before, so that a document's points come in panel order; nothing placed above is
  // below the panels, where it goes.
  legend(c, entries, bottom, &ink);
}

}  // namespace roofline::chart
