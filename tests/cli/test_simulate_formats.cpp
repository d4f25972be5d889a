// Issue 25: `simulate --format` takes every format the other commands take, through the report
// sinks. CSV and JSON lines are one row of the summary's figures, the same figures the JSON
// document holds; a table and Markdown show the run whole.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

#include "cli/simulate_columns.hpp"
#include "cli_runner.hpp"

using namespace roofline;
using test::run_cli;

namespace {

std::vector<std::string> sim(const std::string& format, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--rate", "8",
                                "--prompt", "512", "--gen", "lognormal:64:0.5", "--duration", "20s",
                                "--ttft", "200ms", "--tpot", "30ms", "--format", format};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The CRLF-ended lines of a CSV; the test fails on a line ending otherwise.
std::vector<std::string> csv_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t from = 0;
  while (from < text.size()) {
    const std::size_t end = text.find("\r\n", from);
    REQUIRE(end != std::string::npos);
    lines.push_back(text.substr(from, end - from));
    from = end + 2;
  }
  return lines;
}

// simulate's cells hold no comma or quote (names like "NVIDIA H100 SXM"): a split reads them.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::stringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// A CSV cell read as the JSON value it stands for: empty is null, numbers shortest round-trip.
void check_cell(const std::string& name, const std::string& cell, const nlohmann::ordered_json& value) {
  INFO(name << " = " << cell << " against " << value.dump());
  if (value.is_null()) {
    CHECK(cell.empty());
  } else if (value.is_string()) {
    CHECK(cell == value.get<std::string>());
  } else if (value.is_boolean()) {
    CHECK(cell == (value.get<bool>() ? "true" : "false"));
  } else {
    REQUIRE(!cell.empty());
    CHECK(std::stod(cell) == value.get<double>());
  }
}

}  // namespace

TEST_CASE("simulate --format csv: a header and one row, each cell the JSON lines' and the document's figure") {
  const auto csv = run_cli(sim("csv"));
  const auto jsonl = run_cli(sim("jsonl"));
  const auto doc = run_cli(sim("json"));
  INFO(csv.err << jsonl.err << doc.err);
  REQUIRE(csv.code == 0);
  REQUIRE(jsonl.code == 0);
  REQUIRE(doc.code == 0);
  const auto lines = csv_lines(csv.out);
  REQUIRE(lines.size() == 2);
  const auto header = cells(lines[0]), row = cells(lines[1]);
  REQUIRE(header.size() == row.size());
  const auto j = nlohmann::ordered_json::parse(jsonl.out);  // ordered: the keys as written
  // The row's keys are the header's, in order, and then the warnings CSV says on stderr.
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  REQUIRE(keys.size() == header.size() + 1);
  CHECK(keys.back() == "warnings");
  for (std::size_t i = 0; i < header.size(); ++i) {
    CHECK(keys[i] == header[i]);
    check_cell(header[i], row[i], j[header[i]]);
  }
  // The same run's document says the same figures in its own places.
  const auto d = nlohmann::ordered_json::parse(doc.out);
  const auto at = [&](const std::string& name) { return row[std::find(header.begin(), header.end(), name) - header.begin()]; };
  check_cell("model", at("model"), d["model"]);
  check_cell("served", at("served"), d["served"]);
  check_cell("preemptions", at("preemptions"), d["preemptions"]);
  check_cell("output_tokens_per_s", at("output_tokens_per_s"), d["output_tokens_per_s"]);
  check_cell("goodput", at("goodput"), d["goodput"]);
  check_cell("ttft_p99_s", at("ttft_p99_s"), d["ttft"]["p99"]);
  check_cell("queue_wait_mean_s", at("queue_wait_mean_s"), d["queue_wait"]["mean"]);
  check_cell("itl_p50_s", at("itl_p50_s"), d["itl"]["p50"]);
  check_cell("bound_tpot_p50_s", at("bound_tpot_p50_s"), d["bound"]["tpot"]["p50"]);
  check_cell("bound_output_tokens_per_s", at("bound_output_tokens_per_s"), d["bound"]["output_tokens_per_s"]);
  check_cell("bound_admission", at("bound_admission"), d["bound"]["admission"]);
  // Without a fleet or an engine, their columns are absent, not empty.
  for (const char* absent : {"replicas", "router", "imbalance", "engine", "engine_version"}) {
    CHECK(std::find(header.begin(), header.end(), absent) == header.end());
  }
}

TEST_CASE("simulate --format jsonl: one object on one line, no envelope, fleet and engine keys when given") {
  const auto r = run_cli(sim("jsonl", {"--replicas", "2", "--router", "least-loaded", "--engine", "vllm"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(!r.out.empty());
  CHECK(r.out.back() == '\n');
  CHECK(r.out.find('\n') == r.out.size() - 1);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.is_object());
  CHECK(!j.contains("schema_version"));
  CHECK(!j.contains("inputs"));
  CHECK(j["replicas"] == 2);
  CHECK(j["router"] == "least-loaded");
  CHECK(j["imbalance"].get<double>() >= 1);
  CHECK(j["engine"] == "vllm");
  CHECK(j["engine_version"].get<std::string>().starts_with("vLLM"));
  // The document of the same run keeps its envelope.
  const auto doc = nlohmann::json::parse(run_cli(sim("json", {"--replicas", "2", "--router", "least-loaded"})).out);
  CHECK(doc["schema_version"] == 2);
  CHECK(doc["fleet"]["replicas"] == 2);
}

TEST_CASE("simulate --format markdown: a heading, the facts as a list, the latencies as a GitHub table") {
  const auto r = run_cli(sim("markdown"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.starts_with("## Llama-3.1-8B on NVIDIA H100 SXM"));
  CHECK_THAT(r.out, Catch::Contains("\n- traffic: Poisson at 8 req/s"));
  CHECK_THAT(r.out, Catch::Contains("|  | mean | p50 | p90 | p99 | bound p50 | bound p99 |\n|---|---:|"));
  CHECK_THAT(r.out, Catch::Contains("\n| TTFT | "));
  CHECK_THAT(r.out, Catch::Contains("\n| queue wait | "));
  CHECK_THAT(r.out, Catch::Contains("\n- throughput: "));
  // The table's own lines, not aligned columns.
  CHECK_THAT(r.out, !Catch::Contains("                  mean"));
}

TEST_CASE("simulate: a bad --format is refused with exit 2 naming the flag") {
  const auto r = run_cli(sim("xml"));
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("--format"));
}

TEST_CASE("simulate columns: every name is unique, and the fleet's, engine's and pools' only when asked for") {
  const auto names = cli::simulate_column_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t k = i + 1; k < names.size(); ++k) CHECK(names[i] != names[k]);
  }
  // 3 fleet columns, 2 engine columns, 27 of the pools (7, and 4 statistics of 5 handoff times).
  CHECK(cli::simulate_columns_for(false, false).size() + 32 == names.size());
  CHECK(cli::simulate_columns_for(true, false).size() + 29 == names.size());
  CHECK(cli::simulate_columns_for(false, true).size() + 30 == names.size());
  CHECK(cli::simulate_columns_for(true, true).size() + 27 == names.size());
  CHECK(cli::simulate_columns_for(false, false, true).size() + 5 == names.size());
  CHECK(cli::simulate_columns_for(true, true, true).size() == names.size());
}
