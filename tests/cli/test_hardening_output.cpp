// Hardening of commands and outputs (issue 11): every exception and every failed write ends in a
// message and an exit code; --out files are replaced whole or not at all; flags that size memory
// or combine into 64-bit products are bounded by name; names from files cannot drive a terminal,
// break Markdown or XML, or run as a spreadsheet formula.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <tinyxml2.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <streambuf>

#include "chart/figure_file.hpp"
#include "chart/plot_charts.hpp"
#include "cli/app.hpp"
#include "cli/calibrate_command.hpp"
#include "cli_runner.hpp"
#include "fake_calibration_device.hpp"
#include "report/report_csv.hpp"
#include "report/report_record.hpp"
#include "report/safe_text.hpp"
#include "report/sink.hpp"

using namespace roofline;
namespace fs = std::filesystem;

namespace {

// A stream buffer that takes nothing: every write fails, as on a full disk.
class FullDisk : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

test::CliResult run_into(std::ostream& out, const std::vector<std::string>& args) {
  std::vector<const char*> argv{"rooflineplan"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream err;
  const int code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, "", err.str()};
}

std::vector<std::string> seed(std::initializer_list<std::string> extra) {
  std::vector<std::string> args{"-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml")};
  args.insert(args.end(), extra);
  return args;
}

// A fresh folder of its own under the temporary directory.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("rooflineplan-hardening-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::size_t files_in(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

// The teaching example with both names set to `name`.
Report named(const test::TeachingExample& e, ModelSpec& m, GpuSpec& g, const std::string& name) {
  m = e.model;
  g = e.gpu;
  m.name = name;
  g.name = name;
  return evaluate(m, g, test::default_workload(m));
}

std::string through_sink(report::OutputFormat f, report::Shape shape, const Report& r) {
  std::ostringstream out;
  const auto sink = report::make_sink(f, shape, report::report_record_columns(false), out);
  sink->add(report::ReportRecord(r, false, shape == report::Shape::document));
  sink->finish();
  return out.str();
}

const std::string kHostile = "\x1b[2J=cmd|x\nY";
const std::string kFffd = "\xEF\xBF\xBD";

}  // namespace

// ---- 1. Every exception ends in a message and an exit code ------------------------------------

TEST_CASE("json: a name in Latin-1 (not UTF-8) is written as U+FFFD, not an abort") {
  const test::TeachingExample e;
  ModelSpec m;
  GpuSpec g;
  const Report r = named(e, m, g, "Caf\xE9");  // é in Latin-1: one byte, invalid UTF-8
  for (const auto f : {report::OutputFormat::json, report::OutputFormat::jsonl}) {
    const std::string text = through_sink(f, report::Shape::rows, r);
    const auto j = nlohmann::json::parse(text);
    const auto& row = f == report::OutputFormat::json ? j.at("rows")[0] : j;
    CHECK(row["model"]["name"] == "Caf" + kFffd);
  }
}

TEST_CASE("exit codes: --version prints the project's version and exits 0") {
  const auto r = test::run_cli({"--version"});
  CHECK(r.code == 0);
  CHECK(r.out == "rooflineplan 0.1.0\n");
}

// ---- 2. Write errors ---------------------------------------------------------------------------

TEST_CASE("write errors: every command writing to a full stdout exits 1 with the reason") {
  const std::vector<std::vector<std::string>> commands{
      seed({}),
      seed({"-f", "json"}),
      seed({"-f", "csv"}),
      {"plan", "-m", test::example_file("7b.yaml"), "-g", "a100-80gb,h100-sxm"},
      {"explain", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml")},
      {"convert", "llama-2-7b"},
      {"presets"},
      {"completion"},
      {"sweep", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml"), "-b", "1..64:x2"},
      {"plot", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml")},
  };
  for (const auto& args : commands) {
    INFO(args.front());
    FullDisk full;
    std::ostream out(&full);
    const auto r = run_into(out, args);
    CHECK(r.code == cli::kExitFailure);
    CHECK_THAT(r.err, Catch::Contains("error: writing standard output: the output stream refused the write\n"));
  }
}

TEST_CASE("write errors: a stream already failed is reported, not taken for success") {
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  const auto r = run_into(out, {"presets"});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("writing standard output"));
}

TEST_CASE("write errors: a failure after a command's own error keeps that error and its code") {
  FullDisk full;
  std::ostream out(&full);
  const auto r = run_into(out, {"-m", "no-such-model", "-g", "a100-80gb"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, !Catch::Contains("writing standard output"));
}

// ---- 3. --out replaces a file whole or not at all ---------------------------------------------

TEST_CASE("sweep --out: a sweep that fails leaves the old file whole and no temporary behind") {
  const fs::path dir = scratch("sweep-fail");
  const fs::path csv = dir / "rows.csv";
  std::ofstream(csv) << "the old rows\n";
  // The model is read after the file is reserved: the failure comes mid-command.
  const auto r = test::run_cli({"sweep", "-m", (dir / "missing.yaml").string(), "-g", "a100-80gb", "-o", csv.string()});
  CHECK(r.code == 2);
  CHECK(test::read_text(csv) == "the old rows\n");
  CHECK(files_in(dir) == 1);
}

TEST_CASE("sweep --out: a sweep that succeeds replaces the file, header and 7 rows, no temporary behind") {
  const fs::path dir = scratch("sweep-ok");
  const fs::path csv = dir / "rows.csv";
  std::ofstream(csv) << "the old rows\n";
  const auto r = test::run_cli(
      {"sweep", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml"), "-b", "1..64:x2", "-o", csv.string()});
  REQUIRE(r.code == 0);
  const std::string rows = test::read_text(csv);
  CHECK(std::count(rows.begin(), rows.end(), '\n') == 1 + 7);  // batches 1, 2, 4 ... 64
  CHECK(files_in(dir) == 1);
}

TEST_CASE("plot --out: a figure is written whole - a wrong extension or a missing folder exits 2 with nothing written") {
  const fs::path dir = scratch("plot");
  std::vector<std::string> plot{"plot"};
  for (const auto& a : seed({"-o", (dir / "r.svg").string()})) plot.push_back(a);
  CHECK(test::run_cli(plot).code == 0);
  tinyxml2::XMLDocument doc;
  CHECK(doc.LoadFile((dir / "r.svg").c_str()) == tinyxml2::XML_SUCCESS);
  plot.back() = (dir / "r.gif").string();
  const auto gif = test::run_cli(plot);
  CHECK(gif.code == 2);
  CHECK_THAT(gif.err, Catch::Contains("name a .svg or .png"));
  plot.back() = (dir / "no-such-folder" / "r.svg").string();
  const auto missing = test::run_cli(plot);
  CHECK(missing.code == 2);
  CHECK_THAT(missing.err, Catch::Contains("--out: cannot write") && Catch::Contains("No such file or directory"));
  CHECK(files_in(dir) == 1);  // r.svg only
}

TEST_CASE("calibrate --out: a folder that cannot take the file is refused before measuring, exit 2") {
  const test::FakeCalibrationHost host({32 << 20, 16.0 * (1 << 30)});
  const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--out", "/no-such-folder/gpu.yaml"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--out: cannot write /no-such-folder/gpu.yaml"));
  CHECK(r.out.empty());  // no kernel table: nothing was measured
  CHECK(host.log->kernels == 0);
}

// ---- 7. Flags that size an allocation are checked against memory ------------------------------

TEST_CASE("memory: calibrate --stream-size past the machine's memory is refused naming it, exit 2") {
  const test::FakeCalibrationHost host({32 << 20, 16.0 * (1 << 30)});
  const auto r = test::run_cli({"calibrate", "--stream-size", "1 PB"});
  CHECK(r.code == 2);
  CHECK(r.err == "error: --stream-size: three STREAM arrays of 1.00 PB need 3.00 PB (3000000000000000 bytes), more than "
                 "the 17.2 GB this machine has available\n");
  CHECK(host.log->kernels == 0);
}

TEST_CASE("memory: validate's --batch, --prompt and --budget are refused by name when the step cannot fit") {
  const std::string gpu = test::data_file("good/calibrated-cpu.yaml");
  // 10^7 sequences × (4096 + 11008) widths × 4 bytes: 604 GB of activations for one product.
  const auto batch = test::run_cli({"validate", "-m", "llama-2-7b", "-g", gpu, "-b", "10000000", "--repetitions", "1"});
  CHECK(batch.code == 2);
  CHECK_THAT(batch.err, Catch::Contains("--batch: the synthetic step's operands at batch 10000000 need"));
  const auto prompt = test::run_cli({"validate", "-m", "llama-2-7b", "-g", gpu, "-b", "1", "-p", "1000000000"});
  CHECK(prompt.code == 2);
  CHECK_THAT(prompt.err, Catch::Contains("--prompt: the synthetic step's operands at prompt 1000000000 need"));
  // 69 B parameters in fp32: 276 GB of weights, every layer within a budget of 1 PB.
  const auto budget = test::run_cli({"validate", "-m", "llama-2-70b", "-g", gpu, "-b", "1", "--budget", "1 PB"});
  CHECK(budget.code == 2);
  CHECK_THAT(budget.err, Catch::Contains("--budget: the synthetic step's weights within --budget need"));
  // One fp32 layer of Llama-2-7B (6,476,005,376 / 32 × 4 bytes) and its head (32000 × 4096 × 4):
  // 1.33 GB. A smaller budget ran that layer anyway, past the limit given, without a word.
  const auto below = test::run_cli({"validate", "-m", "llama-2-7b", "-g", gpu, "-b", "1", "--budget", "100 MB",
                                    "--repetitions", "1"});
  check_error(below, "--budget", "100 MB holds less than one of Llama-2-7B's layers and its head in fp32 (1.33 GB)");
  // The default budget gives way to one layer and the head, said: Llama-3.1-8B's are 2.97 GB in
  // fp32 (218 M weights a layer × 4 bytes, and 128,256 × 4096 × 4 of head).
  const auto by_default = test::run_cli({"validate", "-m", "llama-3.1-8b", "-g", gpu, "-b", "1", "--repetitions", "1"});
  CHECK(by_default.code == 0);
  CHECK_THAT(by_default.err, Catch::StartsWith("note: one of Llama-3.1-8B's layers and its head in fp32 take 2.97 GB, "
                                               "past the default --budget 2.15 GB"));
}

// ---- 8, 9. Workload flags bounded; no overflow, no narrowing -----------------------------------

TEST_CASE("workload flags: values past their documented maxima are refused naming the flag") {
  const std::string top = "9223372036854775807";  // 2^63 - 1
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--gen", "--gen: 9223372036854775807 is more than the largest value it takes, 1000000000 tokens"},
      {"--prompt", "--prompt: 9223372036854775807 is more than the largest value it takes, 1000000000 tokens"},
      {"--batch", "--batch: 9223372036854775807 is more than the largest value it takes, 10000000 sequences"},
      {"--context", "--context: 9223372036854775807 is more than the largest value it takes, 1000000000 tokens"},
  };
  for (const auto& [flag, message] : cases) {
    for (const std::string command : {"", "plot", "sweep"}) {
      std::vector<std::string> args;
      if (!command.empty()) args.push_back(command);
      for (const auto& a : seed({flag, top})) args.push_back(a);
      const auto r = test::run_cli(args);
      INFO(command << " " << flag);
      CHECK(r.code == 2);
      CHECK_THAT(r.err, Catch::Contains(message));
    }
  }
  const auto tp = test::run_cli(seed({"--tp", "4294967298"}));  // 2^32 + 2: was read as tp 2
  CHECK(tp.code == 2);
  CHECK_THAT(tp.err, Catch::Contains("--tp: 4294967298 is more than the largest value it takes, 65536 GPUs"));
  const auto past = test::run_cli(seed({"--gen", "9223372036854775808"}));  // 2^63: past a long
  CHECK(past.code == 2);
  CHECK_THAT(past.err, Catch::Contains("--gen: \"9223372036854775808\" is past the range of a whole number"));
}

TEST_CASE("workload flags: the largest values are accepted and give finite numbers") {
  // 10^9 generated tokens: the default context is 512 + 5 × 10^8, the KV cache far past memory.
  const auto r = test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--gen", "1000000000", "-f", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["workload"]["context_tokens"] == 500000512);
  CHECK(j["memory"]["kv_cache"].get<double>() > 0);
  CHECK(j["memory"]["fits"] == false);
}

TEST_CASE("workload flags: --context below --prompt is refused naming --context") {
  const auto r = test::run_cli(seed({"--prompt", "512", "--context", "100"}));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--context: 100 tokens is below the prompt's 512: the decode step's context includes the prompt"));
  // In a sweep such points are skipped and counted, the others written.
  const auto s = test::run_cli({"sweep", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml"),
                                "-p", "64,512", "--context", "100"});
  CHECK(s.code == 0);
  CHECK(std::count(s.out.begin(), s.out.end(), '\n') == 1 + 1);
  CHECK_THAT(s.err, Catch::Contains("skipped 1 of 2 points"));
}

TEST_CASE("plan: --rate past 10^9 requests/s is refused - a load past 10^12 replicas is infeasible, not 1 GPU") {
  const auto r = test::run_cli({"plan", "-m", test::example_file("7b.yaml"), "-g", "a100-80gb", "--rate", "1e300"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--rate: at most 1e+09 requests/s, got 1e+300"));
  // 10^9 requests/s of 10^9 generated tokens each: 10^18 tokens/s. A replica decodes at most
  // 1 / (2·7e9 FLOP / 312 TFLOP/s) = 22,286 tokens/s (compute-bound), so past 4·10^13 replicas.
  // (At 10^6 tokens a request it is 4.5·10^10: feasible, which this test once claimed it was not.)
  const auto huge = test::run_cli({"plan", "-m", test::example_file("7b.yaml"), "-g", "a100-80gb", "--rate", "1e9",
                                   "--gen", "1000000000", "--prompt", "1", "--tpot", "1 s", "--ttft", "1000 s", "-f", "json"});
  REQUIRE(huge.code == 0);
  const auto j = nlohmann::json::parse(huge.out);
  CHECK(j.at("rows")[0]["feasible"] == false);
  CHECK(j.at("rows")[0]["reason"] == "the load needs more than 1e+12 replicas");
}

// ---- 10, 11. Names are data: CSV formulas, terminals, Markdown, SVG ----------------------------

TEST_CASE("csv: a text cell starting with = + - @ is quoted behind a ', numbers are not") {
  const test::TeachingExample e;
  ModelSpec m;
  GpuSpec g;
  for (const std::string name : {"=HYPERLINK(\"x\")", "+1", "-cmd", "@SUM(A1)", "\tx"}) {
    const std::string csv = through_sink(report::OutputFormat::csv, report::Shape::rows, named(e, m, g, name));
    const std::string row = csv.substr(csv.find("\r\n") + 2);
    std::string quoted = "\"'";
    for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    INFO(name);
    CHECK_THAT(row, Catch::StartsWith(quoted + "\","));
  }
  std::string cell;
  report::append_csv_cell(cell, report::Cell(-1.5));
  CHECK(cell == "-1.5");
}

TEST_CASE("names: control characters never reach a terminal, Markdown or an SVG") {
  const test::TeachingExample e;
  ModelSpec m;
  GpuSpec g;
  const Report r = named(e, m, g, kHostile);
  const std::string shown = kFffd + "[2J=cmd|x" + kFffd + "Y";
  for (const auto shape : {report::Shape::document, report::Shape::rows}) {
    const std::string table = through_sink(report::OutputFormat::table, shape, r);
    CHECK(table.find('\x1b') == std::string::npos);
    CHECK_THAT(table, Catch::Contains(shown));
    const std::string md = through_sink(report::OutputFormat::markdown, shape, r);
    CHECK(md.find('\x1b') == std::string::npos);
    CHECK(md.find("\nY") == std::string::npos);
  }
  // The Markdown heading stays one line, and a pipe in a cell does not end it.
  CHECK_THAT(through_sink(report::OutputFormat::markdown, report::Shape::document, r),
             Catch::StartsWith("## " + shown + " on " + shown + "\n"));
  CHECK_THAT(through_sink(report::OutputFormat::markdown, report::Shape::rows, r),
             Catch::Contains("| " + kFffd + "[2J=cmd\\|x" + kFffd + "Y |"));
  // JSON escapes: the name reads back exactly.
  CHECK(nlohmann::json::parse(through_sink(report::OutputFormat::json, report::Shape::document, r))["model"]["name"] == kHostile);
  // The text chart and the SVG.
  const chart::Figure f = chart::roofline_figure(r, chart::Detail::full);
  CHECK(chart::text_figure(f, 100, 30).find('\x1b') == std::string::npos);
  const fs::path svg = scratch("svg") / "r.svg";
  {
    std::ofstream file(svg, std::ios::binary);
    chart::write_figure(f, chart::FigureFormat::svg, file);
  }
  tinyxml2::XMLDocument doc;
  CHECK(doc.LoadFile(svg.c_str()) == tinyxml2::XML_SUCCESS);
}

TEST_CASE("safe text: controls, DEL, C1 and bytes that are not UTF-8 become U+FFFD - XML drops what it forbids") {
  CHECK(report::terminal_text("a\x01" "b\x7F" "c\xC2\x9B" "d\xFF" "e") == "a" + kFffd + "b" + kFffd + "c" + kFffd + "d" + kFffd + "e");
  CHECK(report::terminal_text("µs 中文") == "µs 中文");
  CHECK(report::terminal_text("one\ntwo\tthree", true) == "one\ntwo\tthree");
  CHECK(report::markdown_cell("a|b") == "a\\|b");
  CHECK(report::xml_text("a\x1b" "b\tc\x0B" "d\xEF\xBF\xBE" "e") == "ab\tcde");  // ESC, VT and U+FFFE dropped
  CHECK(report::xml_text("\xC3\xA9\xC2\x85") == "\xC3\xA9\xC2\x85");                // é and NEL are allowed
}

// ---- 12. Smaller: an uncalibrated validate, cache-sized streams, a noisy machine ----------------

TEST_CASE("validate: a GPU file without calibration is warned about on stderr, and still runs") {
  const auto r = test::run_cli({"validate", "-m", test::data_file("good/tiny.yaml"), "-g", "a100-80gb", "-b", "1",
                                "--repetitions", "1", "-p", "8"});
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("warning: NVIDIA A100 80GB SXM is not calibrated: predictions use its datasheet ceilings"));
  const auto calibrated = test::run_cli({"validate", "-m", test::data_file("good/tiny.yaml"), "-g",
                                         test::data_file("good/calibrated-cpu.yaml"), "-b", "1", "--repetitions", "1", "-p", "8"});
  CHECK(calibrated.code == 0);
  CHECK_THAT(calibrated.err, !Catch::Contains("not calibrated"));
}

TEST_CASE("calibrate: STREAM arrays below 4 × the last-level cache are refused naming both") {
  // 256 MiB against 4 × 260 MiB: the arrays would stay in the cache.
  const test::FakeCalibrationHost host({260 << 20, 16.0 * (1 << 30)});
  const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--stream-size", "256 MiB"});
  CHECK(r.code == 2);
  CHECK(r.err == "error: --stream-size: 268 MB is below 4 × the last-level cache of 273 MB (256 MiB): the arrays would "
                 "stay in cache and measure its bandwidth, not memory's; give at least 1.09 GB, or auto\n");
  CHECK(host.log->kernels == 0);
}

TEST_CASE("calibrate: a kernel whose runs spread more than 10% is warned about - 10% or less is not") {
  Calibration c;
  c.kernels = {{"copy", true, 10e9, 9e9, 0.05}, {"read", true, 12e9, 10e9, 0.234}, {"gemm_fp32", false, 1e11, 1e11, 0.10}};
  const std::string w = cli::noise_warnings(c);
  CHECK(w == "warning: read's runs spread 23.4% (more than 10%): the machine was busy or its clock changed, so its "
             "ceilings may read low; the spread is recorded in the file. Measure again on a quiet machine, or with more "
             "--repetitions\n");
}
