// Charts read the engine: the SVG holds each point's raw numbers, and they are the report's.
#include <catch2/catch.hpp>
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

using namespace roofline;

namespace {

std::string scratch(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("rooflineplan-test-" + name)).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct SvgPoint {
  std::string kind, label;
  double x, y;
};

// Parses the document as XML (a failure fails the test) and collects its data points and texts.
struct ParsedSvg {
  std::vector<SvgPoint> points;
  std::vector<std::string> texts;
  explicit ParsedSvg(const std::string& svg) {
    tinyxml2::XMLDocument doc;
    REQUIRE(doc.Parse(svg.c_str(), svg.size()) == tinyxml2::XML_SUCCESS);
    const tinyxml2::XMLElement* root = doc.FirstChildElement("svg");
    REQUIRE(root != nullptr);
    for (const auto* e = root->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
      if (std::string(e->Name()) == "circle") {
        points.push_back({e->Attribute("data-kind"), e->Attribute("data-label"), e->DoubleAttribute("data-x"),
                          e->DoubleAttribute("data-y")});
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
  const ParsedSvg svg(slurp(path));
  // Prefill: 2 × 7e9 × 512 FLOP over 14 GB = 512 FLOP/B, at the 312 TFLOP/s roof (compute-bound).
  CHECK(svg.only("prefill (whole phase)").x == Approx(512));
  CHECK(svg.only("prefill (whole phase)").y == Approx(312e12));
  // Decode: 14 GFLOP over 14 GB = 1 FLOP/B, on the slope: 1 × 2 TB/s = 2 TFLOP/s attained.
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

TEST_CASE("plot context: the memory limit is the first context the engine says does not fit") {
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
    x.context_tokens = t;
    x.prompt_tokens = std::max(1L, t - x.gen_tokens);
    return evaluate(m, g, x).memory.fits;
  };
  CHECK_FALSE(fits_at(full));
  CHECK(fits_at(full - 4096 / 64));  // the sample before it (max_context 4096, 64 steps)
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
  CHECK_THAT(plot.out, Catch::Contains("decode step time") && Catch::Contains("B* = "));
}

TEST_CASE("plot --out: PNG where Cairo is built in, a clear error for other extensions") {
  const std::string png = scratch("seed.png");
  const auto r = test::run_cli({"plot", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml"), "-o", png});
  if (chart::png_supported()) {
    REQUIRE(r.code == 0);
    const std::string bytes = slurp(png);
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

TEST_CASE("plot batch: B* = 295 and memory full at batch 447 (Llama-3.1-8B on H100) never print over each other") {
  // 0.18 decades apart: beside their rules each label crosses the other rule, so one goes to the
  // panel's header line. Boxes as the SVG canvas measures text: 0.56 em a character.
  const ModelSpec m = io::load_model("llama-3.1-8b");
  const GpuSpec g = io::load_gpu("h100-sxm");
  const std::string svg = svg_of(chart::batch_figure(evaluate(m, g, test::default_workload(m))));
  tinyxml2::XMLDocument doc;
  REQUIRE(doc.Parse(svg.c_str(), svg.size()) == tinyxml2::XML_SUCCESS);
  struct Label {
    double left, right, y;
  };
  std::vector<Label> rules;
  for (const auto* e = doc.FirstChildElement("svg")->FirstChildElement("text"); e != nullptr;
       e = e->NextSiblingElement("text")) {
    const std::string text = e->GetText() ? e->GetText() : "";
    if (text != "B* = 295" && text != "memory full at batch 447") continue;
    const double w = 0.56 * e->DoubleAttribute("font-size") * static_cast<double>(text.size());
    const double x = e->DoubleAttribute("x");
    const std::string anchor = e->Attribute("text-anchor");
    const double left = anchor == "end" ? x - w : anchor == "middle" ? x - w / 2 : x;
    rules.push_back({left, left + w, e->DoubleAttribute("y")});
  }
  REQUIRE(rules.size() == 4);  // each label in each of the two panels
  for (std::size_t i = 0; i < rules.size(); ++i) {
    for (std::size_t j = i + 1; j < rules.size(); ++j) {
      const bool same_line = std::abs(rules[i].y - rules[j].y) < 11;
      CHECK_FALSE((same_line && rules[i].left < rules[j].right && rules[j].left < rules[i].right));
    }
  }
}
