// What a file's name tells the command line: a user's preset named .yml is a preset as a .yaml one
// is, `presets` says which folder each entry it lists came from, completion offers files where a
// command takes a file, and an output's extension picks its format in any case (X.SVG, r.CSV), by
// one rule (cli::has_extension) for every flag that reads it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <stdlib.h>

#include "chart/png_canvas.hpp"
#include "cli/command.hpp"
#include "cli_runner.hpp"
#include "io/presets.hpp"

using namespace roofline;
using test::check_error;
using test::example_file;
using test::read_text;
using test::run_cli;

namespace fs = std::filesystem;

namespace {

// $ROOFLINEPLAN_PRESETS naming a fresh folder for one test (each test case runs in its own
// process under CTest).
struct UserPresets {
  fs::path dir = test::temp_file("user-presets");
  UserPresets() {
    fs::remove_all(dir);
    ::setenv("ROOFLINEPLAN_PRESETS", dir.c_str(), 1);
  }
  ~UserPresets() {
    ::unsetenv("ROOFLINEPLAN_PRESETS");
    fs::remove_all(dir);
  }
  // The teaching example (examples/7b.yaml: 7e9 fp16 parameters) under another name.
  void model(const std::string& file, const std::string& name) const {
    fs::create_directories(dir / "models");
    std::string text = read_text(example_file("7b.yaml"));
    const std::string was = "name: 7B\n";
    text.replace(text.find(was), was.size(), "name: " + name + "\n");
    std::ofstream(dir / "models" / file) << text;
  }
};

// The line of `text` that begins with `start`, or "" when none does.
std::string line_starting(const std::string& text, const std::string& start) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(start)) return line;
  }
  return "";
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

TEST_CASE("presets: a user's preset named .yml is listed and found, as a .yaml one is (it was skipped without a word)") {
  const UserPresets user;
  user.model("my-yml-model.yml", "My YML Model");
  user.model("other.yaml", "My YAML Model");
  const auto listed = run_cli({"presets"});
  REQUIRE(listed.code == 0);
  CHECK_THAT(listed.out, Catch::Contains("My YML Model") && Catch::Contains("My YAML Model"));
  // The point on an A100, its model found by the .yml file's stem.
  const auto point = run_cli({"-m", "my-yml-model", "-g", "a100-80gb"});
  CHECK(point.code == 0);
  CHECK_THAT(point.out, Catch::Contains("My YML Model"));
}

TEST_CASE("presets: twin.yaml beside twin.yml is refused naming both, not one of them dropped") {
  const UserPresets user;
  user.model("twin.yaml", "A");
  user.model("twin.yml", "B");
  const std::string models = (user.dir / "models").string();
  check_error(run_cli({"-m", "twin", "-g", "a100-80gb"}),
              models + "/twin.yaml and " + models + "/twin.yml: both are preset twin", "keep one");
}

TEST_CASE("presets: the listing names the folder each entry comes from, $ROOFLINEPLAN_PRESETS's marked *") {
  const std::string bundled = io::presets_dir().string();
  SECTION("without the variable, every entry is bundled and the header says so alone") {
    const auto r = run_cli({"presets"});
    REQUIRE(r.code == 0);
    CHECK(first_line(r.out) == "presets from " + bundled);
    CHECK_THAT(r.out, !Catch::Contains(" *"));
  }
  SECTION("with it, the user's entries are marked and one shadowing a bundled preset is named") {
    const UserPresets user;
    user.model("my-model.yaml", "Mine");
    user.model("llama-2-7b.yaml", "My Llama");  // in place of the bundled Llama-2-7B
    const auto r = run_cli({"presets"});
    REQUIRE(r.code == 0);
    CHECK(first_line(r.out) == "presets from " + bundled + "; those marked * from $ROOFLINEPLAN_PRESETS=" +
                                   user.dir.string() + " (llama-2-7b in place of the bundled one)");
    CHECK_THAT(line_starting(r.out, "  my-model *"), Catch::Contains("Mine"));
    CHECK_THAT(line_starting(r.out, "  llama-2-7b *"), Catch::Contains("My Llama"));
    // A bundled entry the user's folder does not hold is listed unmarked.
    CHECK_THAT(line_starting(r.out, "  mistral-7b "), Catch::Contains("Mistral-7B-v0.3"));
    CHECK(line_starting(r.out, "  mistral-7b *").empty());
  }
  SECTION("a folder of the user's with nothing in it is said to have none") {
    const UserPresets user;
    fs::create_directories(user.dir / "gpus");
    const auto r = run_cli({"presets"});
    REQUIRE(r.code == 0);
    CHECK(first_line(r.out) ==
          "presets from " + bundled + "; $ROOFLINEPLAN_PRESETS=" + user.dir.string() + " has none");
  }
}

TEST_CASE("completion: fit's measurements are files, not model presets - convert's model is either") {
  const auto r = run_cli({"completion"});
  REQUIRE(r.code == 0);
  const std::string fit = line_starting(r.out, "    fit)");
  REQUIRE_FALSE(fit.empty());
  CHECK_THAT(fit, Catch::Contains("--kernels") && Catch::EndsWith("files=1 ;;"));
  CHECK_THAT(fit, !Catch::Contains("llama-2-7b"));
  const std::string convert = line_starting(r.out, "    convert)");
  CHECK_THAT(convert, Catch::Contains(" llama-2-7b ") && Catch::EndsWith("files=1 ;;"));
  // A command of no positional offers its flags only.
  CHECK_THAT(line_starting(r.out, "    plot)"), !Catch::Contains("files=1") && !Catch::Contains("llama-2-7b"));
}

TEST_CASE("out: an extension picks the format in any case - .SVG .Png .CSV .JSONL as .JSON does") {
  SECTION("the rule") {
    CHECK(cli::has_extension("X.SVG", ".svg"));
    CHECK(cli::has_extension("dir.d/r.Csv", ".csv"));
    CHECK_FALSE(cli::has_extension("r.jsonl", ".json"));  // .jsonl is not .json
    CHECK_FALSE(cli::has_extension("svg", ".svg"));       // shorter than the extension
    CHECK_FALSE(cli::has_extension("a.csv.txt", ".csv"));
  }
  SECTION("plot --out and explain --plot") {
    const std::string svg = test::temp_file("roofline.SVG"), png = test::temp_file("roofline.Png");
    const auto r = run_cli({"plot", "-m", "llama-2-7b", "-g", "a100-80gb", "-o", svg});
    REQUIRE(r.code == 0);
    CHECK_THAT(read_text(svg), Catch::StartsWith("<?xml") && Catch::Contains("<svg"));
    const auto e = run_cli({"explain", "-m", "llama-2-7b", "-g", "a100-80gb", "--plot", svg});
    CHECK(e.code == 0);
    if (chart::png_supported()) {
      REQUIRE(run_cli({"plot", "-m", "llama-2-7b", "-g", "a100-80gb", "-o", png}).code == 0);
      CHECK(read_text(png).substr(1, 3) == "PNG");
    }
    // A name of neither is still refused, by the flag's name.
    check_error(run_cli({"plot", "-m", "llama-2-7b", "-g", "a100-80gb", "-o", test::temp_file("x.txt")}), "--out ",
                "name a .svg or .png file");
  }
  SECTION("simulate --requests-out") {
    const std::vector<std::string> simulate = {"simulate", "-m",    "llama-2-7b", "-g",         "a100-80gb", "--rate",
                                               "1",        "--prompt", "512",    "--gen",      "64",        "--duration",
                                               "20s"};
    const std::string csv = test::temp_file("requests.CSV"), jsonl = test::temp_file("requests.JsonL");
    auto args = simulate;
    args.insert(args.end(), {"--requests-out", csv});
    REQUIRE(run_cli(args).code == 0);
    CHECK_THAT(read_text(csv), Catch::StartsWith("request,arrival_s,prompt_tokens,"));
    args = simulate;
    args.insert(args.end(), {"--requests-out", jsonl});
    REQUIRE(run_cli(args).code == 0);
    CHECK_THAT(read_text(jsonl), Catch::StartsWith("{\"request\":0,"));
  }
  SECTION("sweep --out, as it was") {
    const std::string json = test::temp_file("points.JSON");
    REQUIRE(run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "-b", "1,2", "-o", json}).code == 0);
    CHECK_THAT(read_text(json), Catch::StartsWith("{") && Catch::Contains("\"rows\""));
  }
}
