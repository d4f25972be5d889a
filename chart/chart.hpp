#pragma once
// A chart as data: panels with axes, curves, shaded bands, reference rules and labelled points,
// in the data's own units. draw() lays it out on any Canvas. Chart builders (plot_charts.cpp)
// fill these from engine reports and never place anything by hand.
#include <string>
#include <vector>

#include "chart/canvas.hpp"

namespace roofline::chart {

enum class Scale { linear, log };

struct Axis {
  std::string label;  // "arithmetic intensity"
  std::string unit;   // "FLOP/B": tick labels carry it with an SI prefix
  Scale scale = Scale::linear;
  double min = 0, max = 1;
};

struct Curve {
  std::string label;  // in the legend
  std::vector<Pt> points;  // data units
  Stroke stroke;
};

// The area between two curves over the same x values: which part of a total is which.
struct Band {
  std::string label;
  std::vector<double> x, low, high;
  Color fill;
  double opacity = 0.35;
};

// A reference line across the panel: the ridge point, B*, the memory limit.
struct Rule {
  std::string label;
  double at = 0;
  bool vertical = true;
  Stroke stroke;
};

// A region of x the reader should not use (it does not fit in memory), shaded.
struct Shade {
  std::string label;
  double from = 0, to = 0;
  Color fill;
};

struct Marker {
  std::string kind;   // the legend groups markers by kind
  std::string label;  // written beside the point, placed where it overlaps nothing else
  std::string tooltip;
  double x = 0, y = 0;
  Color color;
  double radius = 4;  // in thirteenths of an em: 4 is an ordinary point, larger for a phase total
  char glyph = '*';
};

struct Panel {
  Axis x, y;
  std::vector<Shade> shades;
  std::vector<Band> bands;
  std::vector<Curve> curves;
  std::vector<Rule> rules;
  std::vector<Marker> markers;
};

struct Figure {
  std::string title;
  std::string subtitle;
  std::vector<Panel> panels;  // stacked top to bottom
  // What the run warns of (report/warning_text.hpp, "warning: 200256 tokens exceed the model's
  // max_context of 131072"), each a line of its own under the subtitle, wrapped to the width: a
  // chart file carries what the point could not model as every other output does. None: the
  // chart is drawn as it was without them.
  std::vector<std::string> notes;
};

// Tick positions for an axis: decades (and 2, 5 within them when few) on a log axis, 1-2-5
// steps on a linear one. Exposed for tests.
[[nodiscard]] std::vector<double> ticks(const Axis& axis);

void draw(const Figure& figure, Canvas& canvas);

}  // namespace roofline::chart
