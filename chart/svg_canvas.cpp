#include "chart/svg_canvas.hpp"

#include <fmt/format.h>

#include "report/safe_text.hpp"
#include "text/utf8.hpp"

namespace roofline::chart {

namespace {

// Names come from files: characters XML 1.0 forbids even as references are dropped before the
// markup characters are escaped, so the document stays well-formed.
std::string escaped(std::string_view raw) {
  const std::string s = report::xml_text(raw);
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

// Latin fonts first, so English reads as it always has; then the Chinese fonts a viewer falls
// back to, per character, for the labels of a --lang zh chart: Noto Sans CJK SC (Debian's
// fonts-noto-cjk, Android, most Linux desktops), WenQuanYi Zen Hei (fonts-wqy-zenhei), PingFang
// SC (macOS, iOS), Microsoft YaHei (Windows). The generic family is the last resort. The names
// are quoted with ' since the attribute itself is in ".
constexpr std::string_view kFontFamilies =
    "DejaVu Sans, Helvetica, Arial, 'Noto Sans CJK SC', 'WenQuanYi Zen Hei', 'PingFang SC', 'Microsoft YaHei', sans-serif";

std::string rgb(Color c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

std::string points_attribute(const std::vector<Pt>& points) {
  std::string out;
  for (const Pt& p : points) fmt::format_to(std::back_inserter(out), "{}{:.1f},{:.1f}", out.empty() ? "" : " ", p.x, p.y);
  return out;
}

}  // namespace

SvgCanvas::SvgCanvas(double width, double height) : width_(width), height_(height) {}

// DejaVu Sans and Helvetica average about 0.56 em per character in mixed text; a Chinese
// character is a full em square, counted as two columns (text::display_width), so 1.12 em: a
// little over, which errs towards space between labels, never towards overprinting.
double SvgCanvas::text_width(std::string_view text, double size) const {
  return 0.56 * size * static_cast<double>(text::display_width(text));
}

void SvgCanvas::polyline(const std::vector<Pt>& points, const Stroke& s) {
  fmt::format_to(std::back_inserter(body_), R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"{}/>)"
                                            "\n",
                 points_attribute(points), rgb(s.color), s.width, s.dashed ? R"( stroke-dasharray="6,4")" : "");
}

void SvgCanvas::polygon(const std::vector<Pt>& points, Color fill, double opacity) {
  fmt::format_to(std::back_inserter(body_), R"(<polygon points="{}" fill="{}" fill-opacity="{}" stroke="none"/>)"
                                            "\n",
                 points_attribute(points), rgb(fill), opacity);
}

void SvgCanvas::point(Pt at, double radius, Color fill, const Datum& d) {
  fmt::format_to(std::back_inserter(body_),
                 R"(<circle class="point" data-kind="{}" data-label="{}" data-x="{:.17g}" data-y="{:.17g}" cx="{:.1f}" cy="{:.1f}" r="{:.1f}" fill="{}" stroke="white" stroke-width="0.8">)",
                 escaped(d.kind), escaped(d.label), d.x, d.y, at.x, at.y, radius, rgb(fill));
  if (!d.tooltip.empty()) fmt::format_to(std::back_inserter(body_), "<title>{}</title>", escaped(d.tooltip));
  body_ += "</circle>\n";
}

void SvgCanvas::text(Pt at, std::string_view text, double size, Anchor anchor, Color color) {
  const char* a = anchor == Anchor::start ? "start" : anchor == Anchor::middle ? "middle" : "end";
  fmt::format_to(std::back_inserter(body_), R"(<text x="{:.1f}" y="{:.1f}" font-size="{:.1f}" text-anchor="{}" fill="{}">{}</text>)"
                                            "\n",
                 at.x, at.y, size, a, rgb(color), escaped(text));
}

std::string SvgCanvas::document() const {
  return fmt::format(R"(<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" font-family="{3}">
<rect width="100%" height="100%" fill="white"/>
{2}</svg>
)",
                     width_, height_, body_, kFontFamilies);
}

}  // namespace roofline::chart
