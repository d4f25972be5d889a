#include "chart/chart.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "report/human_units.hpp"

namespace roofline::chart {

using namespace report;

namespace {

constexpr Color kInk{40, 40, 40};
constexpr Color kGrid{225, 225, 225};
constexpr Color kMuted{110, 110, 110};

struct Box {
  double left = 0, top = 0, right = 0, bottom = 0;
  [[nodiscard]] bool overlaps(const Box& o) const {
    return left < o.right && o.left < right && top < o.bottom && o.top < bottom;
  }
  [[nodiscard]] bool inside(const Box& o) const {
    return left >= o.left && right <= o.right && top >= o.top && bottom <= o.bottom;
  }
};

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
void draw_clipped(Canvas& c, const Frame& f, const std::vector<Pt>& data, const Stroke& stroke) {
  std::vector<Pt> run;
  auto flush = [&] {
    if (run.size() >= 2) c.polyline(run, stroke);
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
}

// Labels are placed where they overlap no earlier label or point; the first free candidate wins.
class LabelPlacer {
 public:
  LabelPlacer(Canvas& c, Box bounds) : canvas_(c), bounds_(bounds) {}
  void reserve(Box b) { taken_.push_back(b); }
  // Tries each (offset, anchor) around `at`; leaves the label out when every one collides,
  // unless it is forced. True when it was placed.
  bool place(Pt at, double gap, const std::string& text, double size, Color color, bool force) {
    const double w = canvas_.text_width(text, size), h = size;
    struct Candidate {
      double dx, dy;
      Anchor anchor;
    };
    // Beside the point first, then above and below, then the corners; the same again farther
    // out for a crowded spot.
    std::vector<Candidate> candidates;
    for (const double d : {gap, 3 * gap}) {
      candidates.insert(candidates.end(), {{d, 0.35 * h, Anchor::start}, {-d, 0.35 * h, Anchor::end},
                                           {0, -d, Anchor::middle},      {0, d + h, Anchor::middle},
                                           {d, -d, Anchor::start},       {d, d + h, Anchor::start},
                                           {-d, -d, Anchor::end},        {-d, d + h, Anchor::end}});
    }
    // A label that must be shown takes the first spot on the plot when every spot is taken.
    std::optional<std::pair<Candidate, Box>> chosen;
    for (const Candidate& k : candidates) {
      const Pt base{at.x + k.dx, at.y + k.dy};
      const double left = k.anchor == Anchor::start ? base.x : k.anchor == Anchor::end ? base.x - w : base.x - w / 2;
      const Box box{left, base.y - h, left + w, base.y + 0.25 * h};
      if (!box.inside(bounds_)) continue;
      if (std::none_of(taken_.begin(), taken_.end(), [&](const Box& t) { return t.overlaps(box); })) {
        chosen = {k, box};
        break;
      }
      if (force && !chosen) chosen = {k, box};
    }
    if (chosen) {
      const auto& [k, box] = *chosen;
      canvas_.text({at.x + k.dx, at.y + k.dy}, text, size, k.anchor, color);
      taken_.push_back(box);
    }
    return chosen.has_value();
  }

 private:
  Canvas& canvas_;
  Box bounds_;
  std::vector<Box> taken_;
};

double tick_size(const Canvas& c) { return 0.85 * c.em(); }

double widest_tick_label(const Canvas& c, const Axis& axis) {
  double w = 0;
  for (double t : ticks(axis)) w = std::max(w, c.text_width(tick_label(t, axis.unit), tick_size(c)));
  return w;
}

void draw_axes(Canvas& c, const Frame& f, const Panel& p) {
  const Box& a = f.area();
  const double em = c.em(), size = tick_size(c);
  for (double t : ticks(p.x)) {
    const double x = f.x(t);
    c.polyline({{x, a.top}, {x, a.bottom}}, Stroke{kGrid, 1, false, true});
    c.polyline({{x, a.bottom}, {x, a.bottom + 0.3 * em}}, Stroke{kInk, 1});
    c.text({x, a.bottom + 1.3 * em}, tick_label(t, p.x.unit), size, Anchor::middle, kInk);
  }
  for (double t : ticks(p.y)) {
    const double y = f.y(t);
    c.polyline({{a.left, y}, {a.right, y}}, Stroke{kGrid, 1, false, true});
    c.polyline({{a.left - 0.3 * em, y}, {a.left, y}}, Stroke{kInk, 1});
    c.text({a.left - 0.5 * em, y + 0.35 * size}, tick_label(t, p.y.unit), size, Anchor::end, kInk);
  }
  c.polyline({{a.left, a.top}, {a.right, a.top}, {a.right, a.bottom}, {a.left, a.bottom}, {a.left, a.top}},
             Stroke{kInk, 1});
  c.text({(a.left + a.right) / 2, a.bottom + 2.6 * em}, p.x.label, em, Anchor::middle, kInk);
  c.text({a.left, a.top - 0.6 * em}, p.y.label, em, Anchor::start, kInk);
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

// Every rule's line is reserved before any label is placed, so no label crosses another rule.
void draw_rules(Canvas& c, const Frame& f, const Panel& p, LabelPlacer& labels) {
  const Box& a = f.area();
  const double em = c.em();
  struct Placed {
    const Rule* rule;
    Pt label_at;
  };
  std::vector<Placed> placed;
  for (const Rule& r : p.rules) {
    if (!f.contains(r.vertical ? Pt{r.at, p.y.max} : Pt{p.x.min, r.at})) continue;
    if (r.vertical) {
      const double x = f.x(r.at);
      c.polyline({{x, a.top}, {x, a.bottom}}, r.stroke);
      labels.reserve({x - 0.2 * em, a.top + 1.2 * em, x + 0.2 * em, a.bottom});
      placed.push_back({&r, {x, a.top + 1.4 * em}});
    } else {
      const double y = f.y(r.at);
      c.polyline({{a.left, y}, {a.right, y}}, r.stroke);
      placed.push_back({&r, {a.right - 0.3 * em, y - 0.1 * em}});
    }
  }
  // Two vertical rules close together (B* = 295 and memory full at batch 447) both want the top
  // row, and below it each label would cross the other rule: a label with no free spot beside
  // its rule goes to the panel's header line, right-aligned in its rule's colour, never over
  // another label.
  std::vector<const Rule*> overflow;
  for (const Placed& q : placed) {
    if (!labels.place(q.label_at, 0.3 * em, q.rule->label, tick_size(c), q.rule->stroke.color, false)) {
      overflow.push_back(q.rule);
    }
  }
  // The header holds the panel's own label at its left (draw_axes): what would reach it is forced
  // beside its rule after all, the one overlap left.
  const double floor = a.left + c.text_width(p.y.label, em) + em;
  double x = a.right;
  for (auto it = overflow.rbegin(); it != overflow.rend(); ++it) {
    const double w = c.text_width((*it)->label, tick_size(c));
    if (x - w < floor) {
      const Placed& q =
          *std::find_if(placed.begin(), placed.end(), [&](const Placed& other) { return other.rule == *it; });
      labels.place(q.label_at, 0.3 * em, q.rule->label, tick_size(c), q.rule->stroke.color, true);
      continue;
    }
    c.text({x, a.top - 0.6 * em}, (*it)->label, tick_size(c), Anchor::end, (*it)->stroke.color);
    x -= w + em;
  }
}

// Points that land on the same spot (decode's matmuls share one intensity) get one label.
void draw_markers(Canvas& c, const Frame& f, const Panel& p, LabelPlacer& labels) {
  const double em = c.em();
  struct Spot {
    Pt at;
    const Marker* first;
    std::string label;
  };
  std::vector<Spot> spots;
  for (const Marker& m : p.markers) {
    if (!f.contains({m.x, m.y})) continue;
    const Pt at = f.at({m.x, m.y});
    const double r = m.radius * em / 13;
    c.point(at, r, m.color, Datum{m.kind, m.label, m.x, m.y, m.tooltip, m.glyph});
    labels.reserve({at.x - r, at.y - r, at.x + r, at.y + r});
    auto same = std::find_if(spots.begin(), spots.end(), [&](const Spot& s) {
      return s.first->kind == m.kind && s.first->radius == m.radius && std::hypot(s.at.x - at.x, s.at.y - at.y) < 0.5 * em;
    });
    if (same == spots.end()) spots.push_back({at, &m, m.label});
    else if (!m.label.empty()) same->label += ", " + m.label;
  }
  // Large markers (a phase's total) are labelled first and always.
  std::stable_sort(spots.begin(), spots.end(), [](const Spot& a, const Spot& b) { return a.first->radius > b.first->radius; });
  for (const Spot& s : spots) {
    if (s.label.empty()) continue;
    const bool big = s.first->radius > 4;
    labels.place(s.at, s.first->radius * em / 13 + 0.3 * em, s.label, big ? em : tick_size(c), s.first->color, big);
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

// Lays the legend out in rows from `top`; returns the height it takes. Draws only when asked,
// so the same code measures it first.
double legend(Canvas& c, const std::vector<LegendEntry>& entries, double top, bool draw_it) {
  const double em = c.em(), key = 1.8 * em, size = tick_size(c), row = 1.4 * em, left = em;
  double x = left, y = top + row;
  for (const LegendEntry& e : entries) {
    const double w = key + 0.4 * em + c.text_width(e.label, size) + 1.2 * em;
    if (x > left && x + w > c.width() - em) x = left, y += row;
    if (draw_it) {
      const double mid = y - 0.35 * size;
      if (e.key == LegendEntry::Key::line) {
        c.polyline({{x, mid}, {x + key, mid}}, e.stroke);
      } else if (e.key == LegendEntry::Key::area) {
        c.polygon({{x, mid - 0.4 * em}, {x + key, mid - 0.4 * em}, {x + key, mid + 0.4 * em}, {x, mid + 0.4 * em}}, e.color, 0.4);
      } else {
        c.point({x + key / 2, mid}, 4 * em / 13, e.color, Datum{"legend", e.label, 0, 0, "", e.glyph});
      }
      c.text({x + key + 0.4 * em, y}, e.label, size, Anchor::start, kInk);
    }
    x += w;
  }
  return entries.empty() ? 0 : y - top + 0.6 * em;
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
  const double em = c.em();
  c.text({c.width() / 2, 1.4 * em}, fig.title, 1.2 * em, Anchor::middle, kInk);
  double top = 2.2 * em;
  if (!fig.subtitle.empty()) {
    c.text({c.width() / 2, 2.8 * em}, fig.subtitle, tick_size(c), Anchor::middle, kMuted);
    top = 3.4 * em;
  }
  const std::vector<LegendEntry> entries = legend_of(fig);
  const double legend_height = legend(c, entries, 0, false);
  const double bottom = c.height() - legend_height;
  double left = 0;
  for (const Panel& p : fig.panels) left = std::max(left, widest_tick_label(c, p.y) + 1.2 * em);
  double right = c.width() - 1.5 * em;  // room for half the last x tick label
  for (const Panel& p : fig.panels) right = std::min(right, c.width() - 0.5 * em - widest_tick_label(c, p.x) / 2);
  const double slot = (bottom - top) / static_cast<double>(std::max<std::size_t>(1, fig.panels.size()));
  for (std::size_t i = 0; i < fig.panels.size(); ++i) {
    const Panel& p = fig.panels[i];
    const double slot_top = top + slot * static_cast<double>(i);
    const Frame f(p, Box{left, slot_top + 1.6 * em, right, slot_top + slot - 3.2 * em});
    draw_regions(c, f, p);
    draw_axes(c, f, p);
    for (const Curve& k : p.curves) draw_clipped(c, f, k.points, k.stroke);
    LabelPlacer labels(c, f.area());
    draw_rules(c, f, p, labels);
    draw_markers(c, f, p, labels);
  }
  legend(c, entries, bottom, true);
}

}  // namespace roofline::chart
