// Charts read the engine: the SVG holds each point's raw numbers, and they are the report's.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <tinyxml2.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "chart/chart.hpp"
#include "cli_runner.hpp"
#include "chart/plot_charts.hpp"
#include "chart/png_canvas.hpp"
#include "chart/svg_canvas.hpp"
#include "report/human_units.hpp"
#include "text/utf8.hpp"

using namespace roofline;

namespace {

std::string scratch(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("rooflineplan-test-" + name)).string();
}

struct SvgPoint {
  std::string kind, label;
  double x, y;
};

// Parses the document as XML (a failure fails the test) and collects its data points and texts.
struct ParsedSvg {
  std::vector<SvgPoint> points;
  std::vector<std::string> texts;
  std::vector<std::string> tooltips;
  explicit ParsedSvg(const std::string& svg) {
    tinyxml2::XMLDocument doc;
    REQUIRE(doc.Parse(svg.c_str(), svg.size()) == tinyxml2::XML_SUCCESS);
    const tinyxml2::XMLElement* root = doc.FirstChildElement("svg");
    REQUIRE(root != nullptr);
    for (const auto* e = root->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
      if (std::string(e->Name()) == "circle") {
        points.push_back({e->Attribute("data-kind"), e->Attribute("data-label"), e->DoubleAttribute("data-x"),
                          e->DoubleAttribute("data-y")});
        const auto* title = e->FirstChildElement("title");
        if (title != nullptr && title->GetText() != nullptr) tooltips.emplace_back(title->GetText());
      } else if (std::string(e->Name()) == "text" && e->GetText() != nullptr) {
        texts.emplace_back(e->GetText());
      }
    }
  }
  [[nodiscard]] const SvgPoint& only(const std::string& kind) const {
    std::vector<const SvgPoint*> found;
    for (const SvgPoint& p : points) {
      if (p.kind == kind) found.push_back(&p);
    }
    REQUIRE(found.size() == 1);
    return *found.front();
  }
  [[nodiscard]] std::size_t count(const std::string& kind) const {
    return static_cast<std::size_t>(std::count_if(points.begin(), points.end(), [&](const SvgPoint& p) { return p.kind == kind; }));
  }
  [[nodiscard]] bool has_text(const std::string& t) const { return std::find(texts.begin(), texts.end(), t) != texts.end(); }
};

std::string svg_of(const chart::Figure& f) {
  chart::SvgCanvas canvas(960, 600);
  chart::draw(f, canvas);
  return canvas.document();
}

}  // namespace

TEST_CASE("plot roofline: the seed example's phases sit at 512 and 1.00 FLOP/B, ridge at 156") {
  const test::TeachingExample seed;
  const std::string path = scratch("seed-roofline.svg");
  const auto r = test::run_cli({"plot", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml"), "-o", path});
  REQUIRE(r.code == 0);
  const ParsedSvg svg(test::read_text(path));
  // Prefill: 2 × 7e9 × 512 FLOP over 14 GB = 512 FLOP/B, at the 312 TFLOP/s roof (compute-bound).
  CHECK(svg.only("prefill (whole phase)").x == Approx(512));
  CHECK(svg.only("prefill (whole phase)").y == Approx(312e12));
  // Decode: 14 GFLOP over 14 GB = 1 FLOP/B, on the slope: at most 1 × 2 TB/s = 2 TFLOP/s.
  CHECK(svg.only("decode (whole phase)").x == Approx(1.0));
  CHECK(svg.only("decode (whole phase)").y == Approx(2e12));
  CHECK(svg.has_text("ridge 156 FLOP/B"));
  CHECK(svg.has_text("Roofline: prefill is compute-bound, decode memory-bound (fp16 compute)"));
  CHECK(svg.has_text("memory bandwidth 2.00 TB/s"));
  const Report report = seed.at(1);
  CHECK(svg.only("decode (whole phase)").y == Approx((report.decode.step.flops / report.decode.step.time).value()));
}

TEST_CASE("plot roofline: every operator of Llama-2-7B is a point, at the engine's intensity") {
  const ModelSpec m = io::load_model("llama-2-7b");
  const GpuSpec g = io::load_gpu("a100-80gb");
  const Report r = evaluate(m, g, test::default_workload(m, 8));
  const ParsedSvg svg(svg_of(chart::roofline_figure(r, chart::Detail::full)));
  std::map<std::string, double> decode_intensity;
  std::size_t with_flops = 0;
  for (const OpResult& op : r.decode.step.ops) {
    if (op.cost.flops.value() > 0 && op.cost.bytes.value() > 0) {
      ++with_flops;
      decode_intensity[std::string(op.cost.name)] = op.intensity().value();
    }
  }
  CHECK(svg.count("decode operators") == with_flops);
  REQUIRE(decode_intensity.count("ffn_up") == 1);
  for (const SvgPoint& p : svg.points) {
    if (p.kind == "decode operators") CHECK(p.x == Approx(decode_intensity.at(p.label)));
  }
  // At batch 8 a decode matmul does 2·8·K·N FLOPs on K·N·2 bytes of fp16 weights: just under 8 FLOP/B.
  CHECK(decode_intensity.at("ffn_up") == Approx(8).epsilon(0.01));
}

TEST_CASE("plot roofline: the title says what the report found - Mixtral's 512-token prefill is memory-bound") {
  const ModelSpec m = io::load_model("mixtral-8x7b");
  const GpuSpec gpu = io::load_gpu("h100-sxm");
  const Report r = evaluate(m, gpu, test::default_workload(m));
  REQUIRE(r.prefill.bound == Bound::memory);  // 2 of 8 experts a token: about 128 tokens per expert
  CHECK(chart::roofline_figure(r, chart::Detail::full).title == "Roofline: prefill is memory-bound, decode memory-bound (bf16 compute)");
}

TEST_CASE("plot batch: B* 156 and the workload's own 7.00 ms step are marked") {
  const test::TeachingExample seed;
  const ParsedSvg svg(svg_of(chart::batch_figure(seed.at(1))));
  CHECK(svg.has_text("B* = 156"));
  // One marker per panel: the step time above, the tokens/s below.
  REQUIRE(svg.count("this workload") == 2);
  CHECK(svg.points[0].y == Approx(7.0e-3));
  CHECK(svg.points[1].y == Approx(1 / 7.0e-3));
}

TEST_CASE("plot batch: the expected step time and its 10-90% band sit above the bound, named in the legend") {
  const test::TeachingExample seed;
  const ParsedSvg svg(svg_of(chart::batch_figure(seed.at(1))));
  CHECK(svg.has_text("expected step time (10-90% shaded)"));
  CHECK(svg.has_text("expected, 10-90%"));
  CHECK(svg.has_text("expected tokens/s"));
}

TEST_CASE("plot context: the memory limit is the first context the engine says does not fit, at the workload's prompt") {
  const ModelSpec m = io::load_model("llama-2-7b");
  const GpuSpec g = io::load_gpu("a100-80gb");
  const Workload w = test::default_workload(m, 32);
  const chart::Figure f = chart::context_figure(evaluate(m, g, w));
  REQUIRE(f.panels.size() == 1);
  REQUIRE(f.panels[0].shades.size() == 1);
  // 32 sequences × 512 KiB per token: 66 GB free of 80 after weights and the reserve is about 4000 tokens each.
  const auto full = static_cast<long>(f.panels[0].shades[0].from);
  CHECK(full > 3000);
  CHECK(full < 5000);
  auto fits_at = [&](long t) {
    Workload x = w;
    x.context_tokens = t;  // the workload's 512-token prompt kept
    return evaluate(m, g, x).memory.fits;
  };
  // Exactly: not the first of the 64 samples past it.
  CHECK_FALSE(fits_at(full));
  CHECK(fits_at(full - 1));
  CHECK_THAT(svg_of(f), Catch::Contains(fmt::format("memory full at {} tokens", full)));
}

TEST_CASE("plot: a point that fits nowhere says so on every chart, and its marker and B* with KV stay on the axis") {
  // Llama-3.1-70B's 141 GB of bf16 weights on one 24 GB L4: no context fits, which the context
  // chart names as such (not "memory full at 1 tokens"), and every subtitle says it.
  const ModelSpec big = io::load_model("llama-3.1-70b");
  const GpuSpec l4 = io::load_gpu("l4");
  const Report none = evaluate(big, l4, test::default_workload(big, 1));
  REQUIRE_FALSE(none.memory.fits);
  const std::string context = svg_of(chart::context_figure(none));
  CHECK_THAT(context, Catch::Contains("no context fits at batch 1") && !Catch::Contains("memory full at 1 tokens"));
  for (const std::string& svg : {context, svg_of(chart::roofline_figure(none, chart::Detail::full)), svg_of(chart::batch_figure(none))}) {
    CHECK_THAT(svg, Catch::Contains("does not fit in memory"));
  }
  // A batch of 10^7 is past the 10^6 the axis stopped at: its marker is drawn at its batch.
  const ModelSpec llama = io::load_model("llama-3.1-8b");
  const GpuSpec h100 = io::load_gpu("h100-sxm");
  Workload huge = test::default_workload(llama, 10'000'000);
  const chart::Figure f = chart::batch_figure(evaluate(llama, h100, huge));
  CHECK(f.panels[0].x.max >= 1e7);
  REQUIRE_FALSE(f.panels[0].markers.empty());
  CHECK(f.panels[0].markers[0].x == 1e7);
  // DeepSeek-V3 at tp 8 under data-parallel attention: B* with its cache at 640 tokens is past
  // 10^4, where the axis stopped, and its rule went undrawn.
  const ModelSpec ds = io::load_model("deepseek-v3");
  Workload dp = test::default_workload(ds, 64);
  dp.tp = dp.ep = 8;
  dp.dp_attention = true;
  const Report r = evaluate(ds, io::load_gpu("h200"), dp);
  REQUIRE(r.critical_batch.at_context);
  REQUIRE(*r.critical_batch.at_context > 1e4);
  CHECK_THAT(svg_of(chart::batch_figure(r)), Catch::Contains("B* with KV at 640 tokens"));
}

TEST_CASE("chart ticks: decades on a log axis, 1-2-5 steps on a linear one") {
  CHECK(chart::ticks({"", "", chart::Scale::log, 0.1, 1e4}) == std::vector<double>{0.1, 1, 10, 100, 1e3, 1e4});
  CHECK(chart::ticks({"", "", chart::Scale::log, 1, 100}) == std::vector<double>{1, 2, 5, 10, 20, 50, 100});
  // 0.19 / 6 = 0.032 a step, rounded to 2 × 0.01: ten ticks, 0 to 0.18.
  const std::vector<double> linear = chart::ticks({"", "", chart::Scale::linear, 0, 0.19});
  REQUIRE(linear.size() == 10);
  CHECK(linear[1] == Approx(0.02));
  CHECK(linear.back() == Approx(0.18));
}

TEST_CASE("SVG text is escaped: a model named with & and < still parses as XML") {
  const auto doc = io::parse_yaml("name: A&B <test>\nparams: 7e9\ndtype: fp16\n", "amp.yaml");
  const ModelSpec m = io::read_model(doc);
  const GpuSpec g = io::load_gpu(test::example_file("a100.yaml"));
  const ParsedSvg svg(svg_of(chart::roofline_figure(evaluate(m, g, test::default_workload(m)), chart::Detail::full)));
  CHECK(std::any_of(svg.texts.begin(), svg.texts.end(), [](const std::string& t) { return t.rfind("A&B <test> on", 0) == 0; }));
}

TEST_CASE("plot without --out, and explain, draw the roofline in characters: P above the ridge, D below") {
  const auto r = test::run_cli({"explain", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml")});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("ridge 156 FLOP/B") && Catch::Contains("P prefill (whole phase)") &&
                        Catch::Contains("D decode (whole phase)"));
  // Decode's D lies left of prefill's P, and lower (a later line).
  const std::size_t d = r.out.find("D/"), p = r.out.find("=P=");
  REQUIRE(d != std::string::npos);
  REQUIRE(p != std::string::npos);
  CHECK(d > p);
  const auto plot = test::run_cli({"plot", "-m", "llama-2-7b", "-g", "a100-80gb", "--kind", "batch"});
  REQUIRE(plot.code == 0);
  CHECK_THAT(plot.out, Catch::Contains("decode step time, at least") && Catch::Contains("B* = "));
}

TEST_CASE("plot --out: PNG where Cairo is built in, a clear error for other extensions") {
  const std::string png = scratch("seed.png");
  const auto r = test::run_cli({"plot", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml"), "-o", png});
  if (chart::png_supported()) {
    REQUIRE(r.code == 0);
    const std::string bytes = test::read_text(png);
    REQUIRE(bytes.size() > 24);
    CHECK(bytes.substr(1, 3) == "PNG");
    // IHDR: 960 × 600 units at two pixels each.
    auto be32 = [&](std::size_t at) {
      return (static_cast<unsigned char>(bytes[at]) << 24) | (static_cast<unsigned char>(bytes[at + 1]) << 16) |
             (static_cast<unsigned char>(bytes[at + 2]) << 8) | static_cast<unsigned char>(bytes[at + 3]);
    };
    CHECK(be32(16) == 1920);
    CHECK(be32(20) == 1200);
  } else {
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("cannot write PNG"));
  }
  const auto bad = test::run_cli({"plot", "-m", "llama-2-7b", "-g", "a100-80gb", "-o", scratch("chart.pdf")});
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("name a .svg or .png file"));
}

TEST_CASE("plot batch: B* = 295 and memory full at batch 439 (Llama-3.1-8B on H100) never print over each other, in English or Chinese") {
  // 0.18 decades apart: beside their rules each label crosses the other rule, so one goes to the
  // panel's header line. Boxes as the SVG canvas measures text: 0.56 em a column, a Chinese
  // character two columns. The workload's own labels (batch 1 at least 4.51 ms, at most 222
  // tokens/s: the roofline's bounds) are measured with them.
  const ModelSpec m = io::load_model("llama-3.1-8b");
  const GpuSpec g = io::load_gpu("h100-sxm");
  const Report r = evaluate(m, g, test::default_workload(m));
  const std::map<std::string, std::vector<std::string>> labels{
      {"en", {"B* = 295", "memory full at batch 439", "batch 1: at least 4.51 ms", "at most 222 tokens/s"}},
      {"zh", {"临界批大小 B* = 295", "批大小 439 时显存已满", "批大小 1：至少 4.51 ms", "至多 222 词元/秒"}}};
  for (const auto& [lang, wanted] : labels) {
    INFO("--lang " << lang);
    const std::string svg = svg_of(chart::batch_figure(r, lang));
    tinyxml2::XMLDocument doc;
    REQUIRE(doc.Parse(svg.c_str(), svg.size()) == tinyxml2::XML_SUCCESS);
    struct Label {
      std::string text;
      double left, right, y;
    };
    std::vector<Label> boxes;
    for (const auto* e = doc.FirstChildElement("svg")->FirstChildElement("text"); e != nullptr;
         e = e->NextSiblingElement("text")) {
      const std::string text = e->GetText() ? e->GetText() : "";
      if (std::find(wanted.begin(), wanted.end(), text) == wanted.end()) continue;
      const double w = 0.56 * e->DoubleAttribute("font-size") * static_cast<double>(text::display_width(text));
      const double x = e->DoubleAttribute("x");
      const std::string anchor = e->Attribute("text-anchor");
      const double left = anchor == "end" ? x - w : anchor == "middle" ? x - w / 2 : x;
      boxes.push_back({text, left, left + w, e->DoubleAttribute("y")});
    }
    REQUIRE(boxes.size() == 6);  // each rule's label in each of the two panels, a workload label in each
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      for (std::size_t j = i + 1; j < boxes.size(); ++j) {
        INFO(boxes[i].text << " and " << boxes[j].text);
        const bool same_line = std::abs(boxes[i].y - boxes[j].y) < 11;
        CHECK_FALSE((same_line && boxes[i].left < boxes[j].right && boxes[j].left < boxes[i].right));
      }
    }
  }
}

TEST_CASE("display width: a Chinese character or fullwidth mark takes two columns, ASCII one") {
  CHECK(text::display_width("B* = 295") == 8);
  // 5 characters of two columns, then " B* = 295": 10 + 9.
  CHECK(text::display_width("临界批大小 B* = 295") == 19);
  // Ten wide characters (the fullwidth parentheses and comma among them) and a narrow slash.
  CHECK(text::display_width("（词元/秒，全组合计）") == 21);
  CHECK(text::display_width("4.51 ms · bf16") == 14);         // the middle dot is narrow
  CHECK(text::display_width("e\u0301") == 1);                 // a combining accent adds no column
  // The SVG canvas places labels by these columns, 0.56 em each: 临界批大小 is ten, not five.
  const chart::SvgCanvas svg(960, 600);
  CHECK(svg.text_width("临界批大小", 13) == Approx(0.56 * 13 * 10));
  CHECK(svg.text_width("B* = 295", 13) == Approx(0.56 * 13 * 8));
}

TEST_CASE("plot --lang zh: the batch chart's title, axes, rules and legend are in Chinese, the numbers as in English") {
  const std::string path = scratch("batch-zh.svg");
  const auto r = test::run_cli({"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--kind", "batch", "--lang", "zh", "-o", path});
  REQUIRE(r.code == 0);
  const ParsedSvg svg(test::read_text(path));
  CHECK(svg.has_text("解码随批大小变化：单步耗时与吞吐量，临界批大小 B* 与显存上限"));
  CHECK(svg.has_text("Llama-3.1-8B 在 NVIDIA H100 SXM 上 · 批大小 1 · 上下文长度 640 · bf16 权重"));
  CHECK(svg.has_text("解码单步耗时"));                  // the upper panel's header
  CHECK(svg.has_text("解码单步耗时下界"));              // a legend entry
  CHECK(svg.has_text("吞吐量（词元/秒，全组合计）"));   // the lower panel's header
  CHECK(svg.has_text("批大小（一起解码的序列数）"));    // the x axis
  CHECK(svg.has_text("临界批大小 B* = 295"));
  CHECK(svg.has_text("批大小 439 时显存已满"));
  CHECK(svg.has_text("显存放不下"));
  CHECK(svg.has_text("至多 222 词元/秒"));
  // The same engine numbers as the English chart: batch 1's step of at least 4.51 ms, marked in each panel.
  CHECK(svg.has_text("批大小 1：至少 4.51 ms"));
  REQUIRE(svg.count("本工作负载") == 2);
  CHECK(svg.points[0].kind == "本工作负载");
  CHECK(svg.points[0].y == Approx(4.51e-3).epsilon(0.002));
}

TEST_CASE("plot --lang zh: no English word is left in any chart's texts or tooltips") {
  const std::vector<std::string> english{"Roofline", "prefill", "decode", "Decode", "batch", "context", "throughput",
                                         "tokens",   "memory",  "compute", "bound", "roof",   "ridge",   "expected",
                                         "workload", "weights", "step",    "attained", "whole", "phase", " on "};
  for (const std::string kind : {"roofline", "batch", "context"}) {
    INFO("--kind " << kind);
    const std::string path = scratch("zh-" + kind + ".svg");
    const auto r = test::run_cli({"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--kind", kind, "--lang", "zh", "-o", path});
    REQUIRE(r.code == 0);
    const ParsedSvg svg(test::read_text(path));
    std::vector<std::string> words = svg.texts;
    words.insert(words.end(), svg.tooltips.begin(), svg.tooltips.end());
    for (const SvgPoint& p : svg.points) words.push_back(p.kind);
    for (const std::string& w : words) {
      for (const std::string& e : english) {
        INFO(w);
        CHECK(w.find(e) == std::string::npos);
      }
    }
  }
}

TEST_CASE("plot --lang en is the English chart, word for word, and what plot draws without --lang") {
  const std::string plain = scratch("batch-plain.svg"), en = scratch("batch-en.svg");
  REQUIRE(test::run_cli({"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--kind", "batch", "-o", plain}).code == 0);
  REQUIRE(test::run_cli({"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--kind", "batch", "--lang", "en", "-o", en}).code == 0);
  CHECK(test::read_text(plain) == test::read_text(en));
  const ParsedSvg svg(test::read_text(en));
  CHECK(svg.has_text("Decode against batch: step time and throughput, with B* and the memory limit"));
  CHECK(svg.has_text("Llama-3.1-8B on NVIDIA H100 SXM · batch 1 · context 640 · bf16 weights"));
  CHECK(svg.has_text("throughput (tokens/s, whole group)"));
  CHECK(svg.has_text("batch (sequences decoded together)"));
  CHECK(svg.has_text("memory full at batch 439"));
  CHECK(svg.has_text("batch 1: at least 4.51 ms"));
}

TEST_CASE("plot --lang xx is refused, exit 2, naming --lang and what it takes") {
  const auto r = test::run_cli({"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--lang", "xx"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--lang") && Catch::Contains("en") && Catch::Contains("zh"));
  CHECK(r.out.empty());
}

TEST_CASE("plot --lang zh in characters: columns align by display width, a Chinese character taking two") {
  const auto r = test::run_cli({"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--kind", "batch", "--lang", "zh"});
  REQUIRE(r.code == 0);
  std::istringstream lines(r.out);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) {
    CHECK(text::display_width(line) <= 100);  // the canvas is 100 columns
    rows.push_back(line);
  }
  // B*'s label sits left of the memory limit's rule; the rule's bar on the label's row must be
  // in the same column as on the row below it, where only rules cross.
  const auto label = std::find_if(rows.begin(), rows.end(), [](const std::string& l) { return l.find("临界批大小 B* = 295") != std::string::npos; });
  REQUIRE(label != rows.end());
  REQUIRE(label + 1 != rows.end());
  auto rule_column = [](const std::string& row, std::size_t after) {
    const std::size_t bar = row.find('|', after);
    REQUIRE(bar != std::string::npos);
    return text::display_width(row.substr(0, bar));
  };
  const std::size_t label_end = label->find("295") + 3;
  const std::size_t column = rule_column(*label, label_end);
  const std::string& below = *(label + 1);
  std::size_t at = 0;  // the byte in the row below at the same display column as the label's end
  while (at < below.size() && text::display_width(below.substr(0, at)) < text::display_width(label->substr(0, label_end))) ++at;
  CHECK(rule_column(below, at) == column);
}

TEST_CASE("plot --lang zh --out .png draws the Chinese labels where Cairo is built in") {
  const std::string png = scratch("batch-zh.png");
  const auto r = test::run_cli({"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--kind", "batch", "--lang", "zh", "-o", png});
  if (!chart::png_supported()) {
    CHECK(r.code == 2);
    return;
  }
  // A Chinese font missing (fonts-noto-cjk, debian-packages.txt) is refused rather than drawn as boxes.
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(test::read_text(png).substr(1, 3) == "PNG");
}

TEST_CASE("plot batch and context: the roofline curve and marks are said as bounds - a step at least, tokens/s at most") {
  // Llama-3.1-8B on H100, batch 1 at 640 tokens: the bound step is (15.0 GB of weights + 94.8 MB of
  // cache and activations) / 3.35 TB/s = 4.51 ms, so at most 1 / 4.51 ms = 222 tokens/s. Those are
  // the roofline's floor and ceiling, not what a run takes: the expected curve (above them) is the one
  // that is called expected. Text, SVG and PNG all draw these Figure labels.
  const ModelSpec m = io::load_model("llama-3.1-8b");
  const GpuSpec g = io::load_gpu("h100-sxm");
  const Report r = evaluate(m, g, test::default_workload(m));
  REQUIRE(report::human(r.decode.step.time) == "4.51 ms");
  const chart::Figure en = chart::batch_figure(r, "en");
  REQUIRE(en.panels.size() == 2);
  // The upper panel holds the expected curve too: its axis names the quantity, its curves which is which.
  CHECK(en.panels[0].y.label == "decode step time");
  CHECK(en.panels[0].curves[0].label == "decode step time, at least");
  CHECK(en.panels[1].curves[0].label == "tokens/s, at most");
  CHECK(en.panels[1].curves[1].label == "expected tokens/s");
  CHECK(en.panels[0].markers[0].label == "batch 1: at least 4.51 ms");
  CHECK(en.panels[1].markers[0].label == "at most 222 tokens/s");
  const chart::Figure zh = chart::batch_figure(r, "zh");
  CHECK(zh.panels[0].y.label == "解码单步耗时");
  CHECK(zh.panels[0].curves[0].label == "解码单步耗时下界");
  CHECK(zh.panels[1].curves[0].label == "词元/秒上界");
  CHECK(zh.panels[0].markers[0].label == "批大小 1：至少 4.51 ms");
  CHECK(zh.panels[1].markers[0].label == "至多 222 词元/秒");
  // The context chart draws the bound alone: its axis and its marker say so too.
  const chart::Figure context = chart::context_figure(r, "en");
  CHECK(context.panels[0].y.label == "decode step time at batch 1, at least");
  CHECK(context.panels[0].markers[0].label == "context 640: at least 4.51 ms");
  CHECK(chart::context_figure(r, "zh").panels[0].markers[0].label == "上下文长度 640：至少 4.51 ms");
  // And the characters plot prints.
  const auto text = test::run_cli({"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--kind", "batch"});
  REQUIRE(text.code == 0);
  CHECK_THAT(text.out, Catch::Contains("batch 1: at least 4.51 ms") && Catch::Contains("at most 222 tokens/s") &&
                           Catch::Contains("decode step time, at least"));
}

TEST_CASE("plot roofline: a point's tooltip gives its FLOP/s as a ceiling and its time as a floor, not as attained") {
  // The seed example: decode moves 14 GB at 2 TB/s in at least 7.00 ms, 14 GFLOP in it: at most
  // 14e9 / 7e-3 = 2.00 TFLOP/s. Prefill's 512 × 14 GFLOP = 7.17 TFLOP at the 312 TFLOP/s roof:
  // at least 7.17e12 / 312e12 = 23.0 ms.
  const test::TeachingExample seed;
  const ParsedSvg svg(svg_of(chart::roofline_figure(seed.at(1), chart::Detail::summary)));
  const ParsedSvg zh(svg_of(chart::roofline_figure(seed.at(1), chart::Detail::summary, "zh")));
  const auto has = [](const ParsedSvg& s, const std::string& t) {
    return std::find(s.tooltips.begin(), s.tooltips.end(), t) != s.tooltips.end();
  };
  CHECK(has(svg, "decode: 1.00 FLOP/B, at most 2.00 TFLOP/s, at least 7.00 ms, memory-bound"));
  CHECK(has(svg, "prefill: 512 FLOP/B, at most 312 TFLOP/s, at least 23.0 ms, compute-bound"));
  CHECK(has(zh, "解码：1.00 FLOP/B，至多 2.00 TFLOP/s，至少 7.00 ms，访存受限"));
  for (const std::string& t : svg.tooltips) CHECK_THAT(t, !Catch::Contains("attained"));
}
