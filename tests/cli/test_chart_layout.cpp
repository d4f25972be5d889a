// Charts never print text over text: every text a chart draws is recorded with where it landed,
// measured here by each canvas's own rule for it (not by the layout being tested), and no two may
// meet, nor a text and a point, nor may a text lie across a panel's frame. Geometry, not pixels.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <tinyxml2.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "chart/chart.hpp"
#include "chart/figure_file.hpp"
#include "chart/plot_charts.hpp"
#include "chart/png_canvas.hpp"
#include "chart/svg_canvas.hpp"
#include "chart/text_canvas.hpp"
#include "cli/workload_options.hpp"
#include "cli_runner.hpp"
#include "text/utf8.hpp"

using namespace roofline;
using chart::Anchor;
using chart::Canvas;
using chart::Pt;

namespace {

struct Drawn {
  std::string text;
  double left, top, right, bottom;
};

// A canvas that passes everything to another and keeps where each text and point landed. On a
// grid of characters (`cells`) a text takes whole cells: its first column rounded, its row the
// floor of its middle, 0.35 of a size above its baseline (chart/text_canvas.cpp); a point its
// cell. Elsewhere a text reaches a size above its baseline and a quarter of one below (DejaVu
// Sans' ascent and descent fit), across its advance; a point its circle's square.
class Recorder final : public Canvas {
 public:
  Recorder(Canvas& inner, bool cells) : inner_(inner), cells_(cells) {}
  [[nodiscard]] double width() const override { return inner_.width(); }
  [[nodiscard]] double height() const override { return inner_.height(); }
  [[nodiscard]] double em() const override { return inner_.em(); }
  [[nodiscard]] double text_width(std::string_view text, double size) const override {
    return inner_.text_width(text, size);
  }
  [[nodiscard]] chart::Box text_box(Pt at, std::string_view text, double size, Anchor anchor) const override {
    return inner_.text_box(at, text, size, anchor);
  }
  [[nodiscard]] chart::Box point_box(Pt at, double radius) const override { return inner_.point_box(at, radius); }
  // A closed rectangle of five points is a panel's frame.
  void polyline(const std::vector<Pt>& points, const chart::Stroke& s) override {
    if (points.size() == 5 && points.front().x == points.back().x && points.front().y == points.back().y) {
      const auto [x0, x1] = std::minmax({points[0].x, points[1].x, points[2].x, points[3].x});
      const auto [y0, y1] = std::minmax({points[0].y, points[1].y, points[2].y, points[3].y});
      frames_.push_back({"frame", x0, y0, x1, y1});
    }
    inner_.polyline(points, s);
  }
  void polygon(const std::vector<Pt>& points, chart::Color fill, double opacity) override {
    inner_.polygon(points, fill, opacity);
  }
  void point(Pt at, double radius, chart::Color fill, const chart::Datum& d) override {
    if (cells_) {
      points_.push_back({std::string(d.label), std::floor(at.x), std::floor(at.y), std::floor(at.x) + 1, std::floor(at.y) + 1});
    } else {
      points_.push_back({std::string(d.label), at.x - radius, at.y - radius, at.x + radius, at.y + radius});
    }
    inner_.point(at, radius, fill, d);
  }
  void text(Pt at, std::string_view text, double size, Anchor anchor, chart::Color color) override {
    const double w = inner_.text_width(text, size);
    const double x = anchor == Anchor::start ? at.x : anchor == Anchor::middle ? at.x - w / 2 : at.x - w;
    if (cells_) {
      const double column = std::round(x), row = std::floor(at.y - 0.35 * size + 1e-9);
      texts.push_back({std::string(text), column, row, column + w, row + 1});
    } else {
      texts.push_back({std::string(text), x, at.y - size, x + w, at.y + 0.25 * size});
    }
    inner_.text(at, text, size, anchor, color);
  }

  // Each pair of texts that meet (on a grid of characters, two on one row with no blank column
  // between them: "100 kthroughput"), each text over a point, and each text across a frame.
  [[nodiscard]] std::vector<std::string> collisions() const {
    const double gap = cells_ ? 1 : 0;
    const auto meet = [](const Drawn& a, const Drawn& b, double g) {
      return a.left < b.right + g && b.left < a.right + g && a.top < b.bottom && b.top < a.bottom;
    };
    std::vector<std::string> out;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      for (std::size_t j = i + 1; j < texts.size(); ++j) {
        if (meet(texts[i], texts[j], gap)) out.push_back(fmt::format("'{}' meets '{}'", texts[i].text, texts[j].text));
      }
      for (const Drawn& p : points_) {
        if (meet(texts[i], p, 0)) out.push_back(fmt::format("'{}' over the point of '{}'", texts[i].text, p.text));
      }
      for (const Drawn& f : frames_) {
        if (crosses(texts[i], f)) out.push_back(fmt::format("'{}' over a panel's frame", texts[i].text));
      }
    }
    return out;
  }

  std::vector<Drawn> texts;

 private:
  // Whether a text lies across one of a frame's four sides: on a grid of characters, in a cell of
  // the row or column a side is drawn in.
  [[nodiscard]] bool crosses(const Drawn& t, const Drawn& f) const {
    if (cells_) {
      const double top = std::floor(f.top), bottom = std::floor(f.bottom), left = std::floor(f.left), right = std::floor(f.right);
      const bool on_row = (t.top == top || t.top == bottom) && t.left < right + 1 && t.right > left;
      const bool on_column = t.top >= top && t.top <= bottom &&
                             ((t.left <= left && left < t.right) || (t.left <= right && right < t.right));
      return on_row || on_column;
    }
    const auto across_row = [&](double y) { return t.top < y && y < t.bottom && t.left < f.right && t.right > f.left; };
    const auto across_column = [&](double x) { return t.left < x && x < t.right && t.top < f.bottom && t.bottom > f.top; };
    return across_row(f.top) || across_row(f.bottom) || across_column(f.left) || across_column(f.right);
  }

  Canvas& inner_;
  bool cells_;
  std::vector<Drawn> points_, frames_;
};

Report report_of(const std::string& model, const std::string& gpu, const std::string& tp, const std::string& batch) {
  cli::WorkloadFlags f;
  f.model = {model};
  f.gpu = {gpu};
  f.tp = {tp};
  f.batch = {batch};
  const cli::OnePoint p = cli::one_point(f, "plot");
  return evaluate(p.model, p.gpu, p.workload);
}

// The collisions of a figure drawn on each canvas at the sizes `plot` and `explain` draw it:
// SVG and PNG 960 wide (180 + 420 a panel high, chart/figure_file.cpp), characters 100 × 44 or
// 30 (plot) and, for explain's roofline, 80 × 26 and a 60-column terminal's 60 × 26.
std::vector<std::string> collisions_of(const chart::Figure& fig, bool explains) {
  std::vector<std::string> out;
  const auto add = [&](const std::string& canvas, const std::vector<std::string>& found) {
    for (const std::string& s : found) out.push_back(canvas + ": " + s);
  };
  const double height = 180 + 420 * static_cast<double>(fig.panels.size());
  chart::SvgCanvas svg(960, height);
  Recorder on_svg(svg, false);
  chart::draw(fig, on_svg);
  add("svg", on_svg.collisions());
  if (chart::png_supported()) {
    std::ostringstream bytes;
    chart::write_png(bytes, 960, height, 1, [&](Canvas& c) {
      Recorder on_png(c, false);
      chart::draw(fig, on_png);
      add("png", on_png.collisions());
    });
  }
  std::vector<std::pair<int, int>> grids{{100, fig.panels.size() > 1 ? 44 : 30}};
  if (explains) grids.insert(grids.end(), {{80, 26}, {60, 26}});
  for (const auto& [columns, rows] : grids) {
    chart::TextCanvas text(columns, rows);
    Recorder on_text(text, true);
    chart::draw(fig, on_text);
    add(fmt::format("{} × {} characters", columns, rows), on_text.collisions());
  }
  return out;
}

}  // namespace

TEST_CASE("charts print no text over another text or a point - every kind, en and zh, SVG, PNG and characters") {
  // Each was seen overprinted: DeepSeek-V3's and gpt-oss-120b's throughput panel named over its
  // top tick ("100 kthroughput"), gpt-oss-120b's B* = 1539 and B* with KV = 26976 forced over each
  // other, Llama-3.1-8B on an L4's x label 0.1 under the corner meeting 10 GFLOP/s beside it, and
  // on an H100 in Chinese "批大小 439 时显存已满" over the throughput panel's frame.
  struct Point {
    std::string model, gpu, tp, batch;
  };
  for (const Point& c : {Point{"deepseek-v3", "h200", "8", "1"}, Point{"deepseek-v3", "h200", "8", "64"},
                         Point{"llama-3.1-8b", "l4", "1", "1"}, Point{"llama-3.1-8b", "h100-sxm", "1", "1"},
                         Point{"llama-3.1-8b", "h100-sxm", "1", "32"},
                         Point{"gpt-oss-120b", "mi300x", "1", "1"}, Point{"qwen3-30b-a3b", "tpu-v6e", "1", "8"}}) {
    const Report r = report_of(c.model, c.gpu, c.tp, c.batch);
    for (const std::string lang : {"en", "zh"}) {
      INFO(c.model << " on " << c.gpu << " at tp " << c.tp << ", batch " << c.batch << ", --lang " << lang);
      const std::vector<std::pair<std::string, chart::Figure>> figures{
          {"roofline", chart::roofline_figure(r, chart::Detail::full, lang)},
          {"explain's roofline", chart::roofline_figure(r, chart::Detail::summary, lang)},
          {"batch", chart::batch_figure(r, lang)},
          {"context", chart::context_figure(r, lang)}};
      for (const auto& [kind, figure] : figures) {
        INFO(kind);
        CHECK(collisions_of(figure, kind == "explain's roofline") == std::vector<std::string>{});
      }
    }
  }
}

TEST_CASE("plot batch in characters: the throughput panel is named on a row of its own, not run into its 100 k tick") {
  // gpt-oss-120b on an MI300X: the second panel's top fell late in a row, and its name, a row
  // above it, shared the row of the top tick's label: "  100 kthroughput (tokens/s, whole group)".
  const auto r = test::run_cli({"plot", "--kind", "batch", "-m", "gpt-oss-120b", "-g", "mi300x"});
  REQUIRE(r.code == 0);
  INFO(r.out);
  CHECK_THAT(r.out, !Catch::Contains("kthroughput") && Catch::Contains("\n       throughput (tokens/s, whole group)") &&
                        Catch::Contains("\n  100 k|---"));
}

TEST_CASE("plot roofline: the x axis's first label and the y axis's lowest do not meet at the corner - Llama-3.1-8B on an L4") {
  // 0.1 FLOP/B is centred on the corner, 1.3 em below it before, and 10 GFLOP/s ends half an em
  // left of it, 0.35 of 0.85 em below its tick: at 13 units an em the boxes (a size above the
  // baseline, a quarter below) overlapped by 0.06 em. Now 1.4 em below: 0.04 em apart.
  const Report r = report_of("llama-3.1-8b", "l4", "1", "1");
  std::ostringstream out;
  chart::write_figure(chart::roofline_figure(r, chart::Detail::full, "en"), chart::FigureFormat::svg, out);
  const std::string svg = out.str();
  tinyxml2::XMLDocument doc;
  REQUIRE(doc.Parse(svg.c_str(), svg.size()) == tinyxml2::XML_SUCCESS);
  std::map<std::string, Drawn> found;
  for (const auto* e = doc.FirstChildElement("svg")->FirstChildElement("text"); e != nullptr; e = e->NextSiblingElement("text")) {
    const std::string text = e->GetText() ? e->GetText() : "";
    if (text != "0.1" && text != "10 GFLOP/s") continue;
    const double size = e->DoubleAttribute("font-size"), w = 0.56 * size * static_cast<double>(text::display_width(text));
    const double x = e->DoubleAttribute("x"), y = e->DoubleAttribute("y");
    const std::string anchor = e->Attribute("text-anchor");
    const double left = anchor == "end" ? x - w : anchor == "middle" ? x - w / 2 : x;
    found[text] = {text, left, y - size, left + w, y + 0.25 * size};
  }
  REQUIRE(found.size() == 2);
  const Drawn &x = found["0.1"], &y = found["10 GFLOP/s"];
  CHECK(x.left < y.right);      // side by side across the corner
  CHECK(x.top >= y.bottom);     // and the x label below the other
}

TEST_CASE("charts wrap a title or subtitle wider than themselves at its ' · ', losing nothing - DeepSeek-V3 at tp 8 in 80 columns") {
  // "DeepSeek-V3 on NVIDIA H200 SXM · batch 64 · context 640 · fp8-block weights · tp 8" is 83
  // columns: centred in 80 it lost both ends, and cut to fit it lost "tp 8". Broken after its
  // fourth part: 76 columns and 4, each within the 79 between half-column margins.
  const Report r = report_of("deepseek-v3", "h200", "8", "64");
  const auto lines_of = [](const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string line; std::getline(in, line);) {
      line.erase(0, line.find_first_not_of(' '));
      out.push_back(line);
    }
    return out;
  };
  const auto has = [](const std::vector<std::string>& lines, const std::string& l) {
    return std::find(lines.begin(), lines.end(), l) != lines.end();
  };
  const std::vector<std::string> en = lines_of(chart::text_figure(chart::roofline_figure(r, chart::Detail::summary, "en"), 80, 26));
  CHECK(has(en, "DeepSeek-V3 on NVIDIA H200 SXM · batch 64 · context 640 · fp8-block weights"));
  CHECK(has(en, "tp 8"));
  // In Chinese the four parts take 79 columns (a Chinese character two).
  const std::vector<std::string> zh = lines_of(chart::text_figure(chart::roofline_figure(r, chart::Detail::summary, "zh"), 80, 26));
  CHECK(has(zh, "DeepSeek-V3 在 NVIDIA H200 SXM 上 · 批大小 64 · 上下文长度 640 · fp8-block 权重"));
  CHECK(has(zh, "tp 8"));
  // In 40 columns the title breaks at its spaces and the subtitle at each ' · ' that must.
  const std::vector<std::string> narrow = lines_of(chart::text_figure(chart::roofline_figure(r, chart::Detail::summary, "en"), 40, 26));
  CHECK(has(narrow, "Roofline: prefill is memory-bound,"));
  CHECK(has(narrow, "decode memory-bound (fp8 compute)"));
  CHECK(has(narrow, "DeepSeek-V3 on NVIDIA H200 SXM"));
  CHECK(has(narrow, "batch 64 · context 640"));
  CHECK(has(narrow, "fp8-block weights · tp 8"));
}
