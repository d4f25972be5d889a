// A chart file carries every warning of its point, in the chart's language and in the words the
// other outputs give them (report/warning_text.cpp), under its subtitle; the context chart marks the
// model's max_context where its axis runs past it. A chart without warnings is drawn as before.
#include <catch2/catch.hpp>
#include <tinyxml2.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "chart/chart.hpp"
#include "chart/figure_file.hpp"
#include "chart/plot_charts.hpp"
#include "chart/png_canvas.hpp"
#include "chart/svg_canvas.hpp"
#include "cli/workload_options.hpp"
#include "cli_runner.hpp"
#include "report/warning_text.hpp"

using namespace roofline;

namespace {

void collect_texts(const tinyxml2::XMLElement* e, std::vector<std::string>& out) {
  if (std::string(e->Name()) == "text" && e->GetText() != nullptr) out.emplace_back(e->GetText());
  for (const auto* c = e->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) collect_texts(c, out);
}

// Every <text> of an SVG document, wherever it lies, in the document's order, its entities read back.
std::vector<std::string> svg_texts(const std::string& svg) {
  tinyxml2::XMLDocument doc;
  REQUIRE(doc.Parse(svg.c_str(), svg.size()) == tinyxml2::XML_SUCCESS);
  const tinyxml2::XMLElement* root = doc.FirstChildElement("svg");
  REQUIRE(root != nullptr);
  std::vector<std::string> out;
  collect_texts(root, out);
  return out;
}

bool has(const std::vector<std::string>& texts, const std::string& t) {
  return std::find(texts.begin(), texts.end(), t) != texts.end();
}

// How many times `what` occurs in `text`.
std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// A canvas that passes everything on to another and keeps each text drawn.
class Texts final : public chart::Canvas {
 public:
  explicit Texts(chart::Canvas& inner) : inner_(inner) {}
  [[nodiscard]] double width() const override { return inner_.width(); }
  [[nodiscard]] double height() const override { return inner_.height(); }
  [[nodiscard]] double em() const override { return inner_.em(); }
  [[nodiscard]] double text_width(std::string_view text, double size) const override { return inner_.text_width(text, size); }
  [[nodiscard]] chart::Box text_box(chart::Pt at, std::string_view text, double size, chart::Anchor anchor) const override {
    return inner_.text_box(at, text, size, anchor);
  }
  [[nodiscard]] chart::Box point_box(chart::Pt at, double radius) const override { return inner_.point_box(at, radius); }
  void polyline(const std::vector<chart::Pt>& points, const chart::Stroke& s) override { inner_.polyline(points, s); }
  void polygon(const std::vector<chart::Pt>& points, chart::Color fill, double opacity) override {
    inner_.polygon(points, fill, opacity);
  }
  void point(chart::Pt at, double radius, chart::Color fill, const chart::Datum& d) override { inner_.point(at, radius, fill, d); }
  void text(chart::Pt at, std::string_view text, double size, chart::Anchor anchor, chart::Color color) override {
    texts.emplace_back(text);
    inner_.text(at, text, size, anchor, color);
  }
  std::vector<std::string> texts;

 private:
  chart::Canvas& inner_;
};

Report report_of(const std::string& model, const std::string& gpu, const std::string& prompt) {
  cli::WorkloadFlags f;
  f.model = {model};
  f.gpu = {gpu};
  f.prompt = {prompt};
  const cli::OnePoint p = cli::one_point(f, "plot");
  return evaluate(p.model, p.gpu, p.workload);
}

}  // namespace

TEST_CASE("plot context past the model's max_context - the SVG says the warning and marks 131072 on its axis") {
  // Llama-3.1-8B with a 200,000-token prompt and 256 out holds 200,256 tokens, past its 131,072:
  // the axis runs to the workload's context, 200,128 (prompt + gen/2), and a rule marks 131,072.
  const std::string path = test::temp_file("context-past-max.svg");
  const auto r = test::run_cli({"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-k", "context", "-p", "200000", "-o", path});
  REQUIRE(r.code == 0);
  const std::vector<std::string> texts = svg_texts(test::read_text(path));
  CHECK(has(texts, "warning: 200256 tokens exceed the model's max_context of 131072"));
  CHECK(has(texts, "model's max_context 131072"));
  // In Chinese, in the words of report/warning_text.cpp's Chinese.
  const std::string zh = test::temp_file("context-past-max-zh.svg");
  REQUIRE(test::run_cli({"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-k", "context", "-p", "200000", "--lang", "zh", "-o", zh})
              .code == 0);
  const std::vector<std::string> zh_texts = svg_texts(test::read_text(zh));
  CHECK(has(zh_texts, "注意：200256 个词元超过了模型的 max_context（131072）"));
  CHECK(has(zh_texts, "模型的 max_context 131072"));
}

TEST_CASE("explain --plot past the model's max_context - the roofline file says the warning too") {
  const std::string path = test::temp_file("explain-past-max.svg");
  const auto r = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-p", "200000", "--plot", path});
  REQUIRE(r.code == 0);
  CHECK(has(svg_texts(test::read_text(path)), "warning: 200256 tokens exceed the model's max_context of 131072"));
}

TEST_CASE("every chart of the seed example says its architecture is unknown - SVG and PNG, every kind") {
  // examples/7b.yaml gives only `params`, on a GPU of no measured kernels: its two warnings, as
  // stderr says them, under each subtitle, each wrapped at its spaces into lines drawn one after
  // another.
  const test::TeachingExample seed;
  const Report r = seed.at(1);
  const std::vector<std::string> words = report::warning_texts(r, "en");
  REQUIRE(words.size() == 2);
  std::vector<std::string> notes;
  for (const std::string& w : words) notes.push_back("warning: " + w);
  CHECK_THAT(notes.front(), Catch::StartsWith("warning: architecture unknown (only `params` given)"));
  for (const chart::Figure& f : {chart::roofline_figure(r, chart::Detail::full), chart::batch_figure(r), chart::context_figure(r)}) {
    INFO(f.title);
    CHECK(f.notes == notes);
    std::ostringstream svg;
    chart::write_figure(f, chart::FigureFormat::svg, svg);
    std::string drawn;
    for (const std::string& t : svg_texts(svg.str())) drawn += t + " ";
    for (const std::string& n : notes) CHECK_THAT(drawn, Catch::Contains(n + " "));
    if (chart::png_supported()) {
      std::ostringstream bytes;
      std::string on_png;
      chart::write_png(bytes, 960, 180 + 420 * static_cast<double>(f.panels.size()), 2, [&](chart::Canvas& c) {
        Texts texts(c);
        chart::draw(f, texts);
        for (const std::string& t : texts.texts) on_png += t + " ";
      });
      for (const std::string& n : notes) CHECK_THAT(on_png, Catch::Contains(n + " "));
    }
  }
  // The command writes what the figure holds: stderr's warning is in the file.
  const std::string path = test::temp_file("seed-batch.svg");
  const auto run = test::run_cli({"plot", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml"), "-k", "batch", "-o", path});
  REQUIRE(run.code == 0);
  CHECK_THAT(test::read_text(path), Catch::Contains("warning: architecture unknown (only `params` given)"));
}

TEST_CASE("DeepSeek-V3's charts carry each of its warnings - MTP not priced, fp8 compute from the checkpoint") {
  const Report r = report_of("deepseek-v3", "h200", "512");
  const std::vector<std::string> en = report::warning_texts(r, "en"), zh = report::warning_texts(r, "zh");
  REQUIRE(en.size() >= 2);
  const chart::Figure f = chart::batch_figure(r), f_zh = chart::batch_figure(r, "zh");
  REQUIRE(f.notes.size() == en.size());
  for (std::size_t i = 0; i < en.size(); ++i) {
    CHECK(f.notes[i] == "warning: " + en[i]);
    CHECK(f_zh.notes[i] == "注意：" + zh[i]);
  }
  CHECK_THAT(f.notes.front(), Catch::Contains("multi-token-prediction"));
}

TEST_CASE("a chart without warnings has no notes and no max_context rule - Llama-3.1-8B on an H100 at a 100-token prompt") {
  // Its context (228 tokens) is within 131,072: the axis ends at the model's context, unmarked.
  const Report r = report_of("llama-3.1-8b", "h100-sxm", "100");
  REQUIRE(r.warnings.empty());
  for (const chart::Figure& f : {chart::roofline_figure(r, chart::Detail::full), chart::batch_figure(r), chart::context_figure(r)}) {
    CHECK(f.notes.empty());
    std::ostringstream svg;
    chart::write_figure(f, chart::FigureFormat::svg, svg);
    CHECK_THAT(svg.str(), !Catch::Contains("warning") && !Catch::Contains("max_context"));
  }
}

TEST_CASE("plot in characters says each warning once, under the chart, not inside it as well") {
  const auto r = test::run_cli({"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-k", "context", "-p", "200000"});
  REQUIRE(r.code == 0);
  CHECK(occurrences(r.out + r.err, "200256 tokens exceed the model's max_context of 131072") == 1);
}
