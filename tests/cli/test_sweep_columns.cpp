// What a sweep's rows show and where they go: a table column for each flag the sweep varies that
// the compact table has no column of its own for, --out's name choosing the format, and a list
// flag refusing a value given twice (one point twice).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "cli_runner.hpp"

using namespace roofline;
using test::run_cli;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A table's line split at runs of two spaces or more: its cells.
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ' ' && i + 1 < line.size() && line[i + 1] == ' ') {
      if (!cell.empty()) out.push_back(cell);
      cell.clear();
      while (i + 1 < line.size() && line[i + 1] == ' ') ++i;
      continue;
    }
    cell += line[i];
  }
  if (!cell.empty()) out.push_back(cell);
  return out;
}

const std::vector<std::string> kSweep{"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "64"};

std::vector<std::string> with(std::vector<std::string> args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return args;
}

}  // namespace

TEST_CASE("sweep table: --kv and --reserve lists add their columns, and the four rows differ") {
  // The table had no kv or reserve column: (bf16, 0.1), (fp8, 0.1), (bf16, 0.9), (fp8, 0.9) read as
  // two identical pairs. kv varies fastest (it nests inside reserve, workload_options.hpp).
  const auto r = run_cli(with(kSweep, {"--kv", "bf16,fp8", "--reserve", "0.1,0.9", "-f", "table"}));
  REQUIRE(r.code == 0);
  const auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 2 + 4);
  CHECK(cells_of(lines[0]) == std::vector<std::string>{"model", "gpu", "layout", "weights", "kv", "batch", "prompt",
                                                       "context", "TTFT", "step", "tokens/s", "decode", "reserve", "fits"});
  std::set<std::pair<std::string, std::string>> seen;
  const std::pair<std::string, std::string> expected[] = {{"bf16", "0.1"}, {"fp8", "0.1"}, {"bf16", "0.9"}, {"fp8", "0.9"}};
  for (int i = 0; i < 4; ++i) {
    const auto c = cells_of(lines[static_cast<std::size_t>(2 + i)]);
    REQUIRE(c.size() == 14);
    CHECK(std::pair(c[4], c[12]) == expected[i]);
    seen.insert({c[4], c[12]});
  }
  CHECK(seen.size() == 4);
  // 90% held back of the H100's 85.5 GB leaves no room for 64 sequences' caches: fits no.
  CHECK(cells_of(lines[4]).back() == "no");
  CHECK(cells_of(lines[2]).back() == "yes");
}

TEST_CASE("sweep markdown: every flag the table lacks gets a column when it varies, in its place") {
  const auto r = run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--weights", "int4", "--lm-head", "bf16,int4",
                          "--group-size", "64,128", "--kv", "bf16,fp8", "--activations", "bf16,fp16", "--compute",
                          "bf16,fp8", "--attention", "flash,naive", "--gen", "128,256", "--reserve", "0.1,0.2", "-f",
                          "markdown"});
  REQUIRE(r.code == 0);
  const auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 2 + 256);  // 2^8 points
  CHECK(lines[0] ==
        "| model | gpu | layout | weights | lm-head | group-size | kv | activations | compute | attention | batch | "
        "prompt | gen | context | TTFT | step | tokens/s | decode | reserve | fits |");
  // The first point: every list at its first value; gen 128 gives the context 512 + 128/2 = 576.
  CHECK_THAT(lines[2], Catch::StartsWith("| Llama-3.1-8B | NVIDIA H100 SXM | tp 1 | int4 | bf16 | 64 | bf16 | bf16 | "
                                         "bf16 | flash | 1 | 512 | 128 | 576 |"));
  CHECK_THAT(lines[2], Catch::EndsWith("| 0.1 | yes |"));
}

TEST_CASE("sweep table: a group size no weights take says so, and one value adds no column") {
  const auto bf16 = run_cli(with(kSweep, {"--group-size", "64,128", "-f", "table"}));
  REQUIRE(bf16.code == 0);
  const auto lines = lines_of(bf16.out);
  REQUIRE(lines.size() == 4);
  CHECK(cells_of(lines[2])[4] == "64 (unused)");
  // --kv fp8 alone: one value, so the table is the unvaried one, its columns fixed.
  const auto one = run_cli(with(kSweep, {"--kv", "fp8", "-f", "table"}));
  REQUIRE(one.code == 0);
  CHECK(cells_of(lines_of(one.out)[0]) == std::vector<std::string>{"model", "gpu", "layout", "weights", "batch", "prompt",
                                                                   "context", "TTFT", "step", "tokens/s", "decode", "fits"});
}

TEST_CASE("sweep table: a sweep that varies only shown flags keeps the table it had") {
  // As the frozen 0.1.0 binary drew them, header and rule, for -b 1,8,64.
  const auto t = run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1,8,64", "-f", "table"});
  REQUIRE(t.code == 0);
  const auto lines = lines_of(t.out);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == "  model         gpu              layout  weights  batch  prompt  context     TTFT     step  tokens/s  decode  fits");
  const auto m = run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1,8,64", "-f", "markdown"});
  REQUIRE(m.code == 0);
  CHECK(lines_of(m.out)[0] == "| model | gpu | layout | weights | batch | prompt | context | TTFT | step | tokens/s | decode | fits |");
}

TEST_CASE("sweep csv and json: a varied flag changes neither their columns nor their keys") {
  const auto plain = run_cli(with(kSweep, {"-f", "csv"}));
  const auto varied = run_cli(with(kSweep, {"--kv", "bf16,fp8", "--reserve", "0.1,0.9", "-f", "csv"}));
  REQUIRE(plain.code == 0);
  REQUIRE(varied.code == 0);
  CHECK(lines_of(varied.out)[0] == lines_of(plain.out)[0]);
  CHECK(lines_of(varied.out).size() == 1 + 4);
  const auto jsonl = run_cli(with(kSweep, {"--kv", "bf16,fp8", "-f", "jsonl"}));
  REQUIRE(jsonl.code == 0);
  const auto row = nlohmann::json::parse(lines_of(jsonl.out)[1]);
  CHECK(row["workload"]["kv"] == "fp8");
}

TEST_CASE("sweep --out: the name picks the format where -f is not given") {
  const std::string jsonl = test::temp_file("pts.jsonl"), json = test::temp_file("pts.json"),
                    md = test::temp_file("pts.MD"), csv = test::temp_file("pts.csv"), bare = test::temp_file("pts");
  // It wrote CSV into each of these.
  REQUIRE(run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1,2", "--out", jsonl}).code == 0);
  const auto rows = lines_of(test::read_text(jsonl));
  REQUIRE(rows.size() == 2);
  CHECK(nlohmann::json::parse(rows[1])["workload"]["batch"] == 2);
  REQUIRE(run_cli(with(kSweep, {"--out", json})).code == 0);
  const auto doc = nlohmann::json::parse(test::read_text(json));
  CHECK(doc["schema_version"] == 2);
  CHECK(doc["rows"].size() == 1);
  REQUIRE(run_cli(with(kSweep, {"--out", md})).code == 0);
  CHECK_THAT(test::read_text(md), Catch::StartsWith("| model | gpu |"));
  // A name of no format's: CSV, as before; -f where given.
  REQUIRE(run_cli(with(kSweep, {"--out", bare})).code == 0);
  CHECK_THAT(test::read_text(bare), Catch::StartsWith("model_name,"));
  REQUIRE(run_cli(with(kSweep, {"-f", "table", "--out", bare})).code == 0);
  CHECK_THAT(test::read_text(bare), Catch::StartsWith("  model "));
  REQUIRE(run_cli(with(kSweep, {"-f", "csv", "--out", csv})).code == 0);
  CHECK_THAT(test::read_text(csv), Catch::StartsWith("model_name,"));
}

TEST_CASE("sweep --out: a name that says another format than -f is refused, nothing written") {
  const std::string json = test::temp_file("disagree.json"), csv = test::temp_file("disagree.csv");
  test::check_error(run_cli(with(kSweep, {"-f", "jsonl", "--out", json})), "--out " + json,
                    "the name says json, -f says jsonl; name it .jsonl, or leave -f out");
  CHECK_FALSE(std::filesystem::exists(json));
  test::write_temp("disagree.csv", "the old rows\n");
  const auto r = run_cli(with(kSweep, {"-f", "json", "--out", csv}));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("the name says csv, -f says json"));
  CHECK(test::read_text(csv) == "the old rows\n");
}

TEST_CASE("lists: a value given twice is refused naming the flag and the value") {
  // sweep -b 1,1,2 wrote batch 1 twice; plan --tp 1,1 ranked tp 1 twice.
  test::check_error(run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1,1,2"}), "--batch",
                    "1 is given twice (1,1,2)");
  // A range and an item that it holds: 1..4 has 2.
  test::check_error(run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1..4,2"}), "--batch",
                    "2 is given twice (1..4,2)");
  test::check_error(run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--tp", "1,1"}), "--tp", "1 is given twice");
  test::check_error(run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm,h100-sxm"}), "--gpu",
                    "h100-sxm is given twice");
  test::check_error(run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--kv", "fp8,bf16,fp8"}), "--kv",
                    "fp8 is given twice");
  // Two names of one value: tf32 weights are stored as fp32.
  test::check_error(run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--weights", "fp32,tf32"}), "--weights",
                    "tf32 is fp32 again");
  test::check_error(run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--reserve", "0.1,0.2,0.10"}), "--reserve",
                    "0.1 is given twice");
  // Ranges alone never repeat, however long.
  const auto ok = run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1..3,8", "--tp", "1..2"});
  CHECK(ok.code == 0);
  CHECK(lines_of(ok.out).size() == 1 + 8);
}

TEST_CASE("plan --emit: --tp 1,1 is refused before any launch script is written") {
  // It wrote 01- and 02-vllm-...-tp1.sh, the same GPUs and port.
  const std::filesystem::path dir = test::temp_file("emit-repeat");
  test::check_error(run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--tp", "1,1", "--emit", "vllm",
                             "--emit-dir", dir.string()}),
                    "--tp", "1 is given twice");
  CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("sweep csv and jsonl: each row names its activations' format and its attention kernel") {
  // Both change the answer, and a sweep over them wrote rows no column told apart (the naive
  // kernel's and flash's rows began alike, the prefill bytes the first to differ).
  const auto r = run_cli(with(kSweep, {"--attention", "flash,naive", "--activations", "bf16,fp8", "-f", "csv"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::vector<std::string> rows = lines_of(r.out);
  REQUIRE(rows.size() == 1 + 4);
  const auto split = [](const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) out.push_back(cell);
    return out;
  };
  const std::vector<std::string> header = split(rows[0]);
  const auto at = [&](const std::string& column) {
    const auto it = std::find(header.begin(), header.end(), column);
    REQUIRE(it != header.end());
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t activations = at("workload_activations"), attention = at("workload_attention");
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> cells = split(rows[i]);
    seen.emplace(cells.at(activations), cells.at(attention));
  }
  CHECK(seen == std::set<std::pair<std::string, std::string>>{
                    {"bf16", "flash"}, {"bf16", "naive"}, {"fp8", "flash"}, {"fp8", "naive"}});
  const auto jsonl = run_cli(with(kSweep, {"--attention", "naive", "--activations", "fp8", "-f", "jsonl"}));
  REQUIRE(jsonl.code == 0);
  const auto row = nlohmann::json::parse(lines_of(jsonl.out).at(0));
  CHECK(row["workload"]["activations"] == "fp8");
  CHECK(row["workload"]["attention"] == "naive");
}
