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
  } else if (value.is_array()) {  // strings, one cell of them joined by " | "
    std::string joined;
    for (const auto& v : value) joined += (joined.empty() ? "" : " | ") + v.get<std::string>();
    CHECK(cell == joined);
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
  // The row's keys are the header's, in order, the warnings among them (after `compute`, as
  // `plan`'s rows carry them).
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  REQUIRE(keys.size() == header.size());
  CHECK(header[6] == "warnings");
  CHECK(j["warnings"].is_array());
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
  // Without a fleet, an engine or speculation, their columns are absent, not empty.
  for (const char* absent : {"replicas", "router", "imbalance", "engine", "engine_version", "speculative_k"}) {
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

TEST_CASE("simulate columns: every name is unique, and the fleet's, engine's, pools' and speculation's only when asked for") {
  const auto names = cli::simulate_column_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t k = i + 1; k < names.size(); ++k) CHECK(names[i] != names[k]);
  }
  // 3 fleet columns, 2 engine columns, 27 of the pools (7, and 4 statistics of 5 handoff times),
  // 15 of speculation (the document's `speculative`, its 4 batch-1 rates one a column).
  CHECK(cli::simulate_columns_for(false, false).size() + 47 == names.size());
  CHECK(cli::simulate_columns_for(true, false).size() + 44 == names.size());
  CHECK(cli::simulate_columns_for(false, true).size() + 45 == names.size());
  CHECK(cli::simulate_columns_for(true, true).size() + 42 == names.size());
  CHECK(cli::simulate_columns_for(false, false, true).size() + 20 == names.size());
  CHECK(cli::simulate_columns_for(false, false, false, true).size() + 32 == names.size());
  CHECK(cli::simulate_columns_for(true, true, true, true).size() == names.size());
}

// --speculative changes every figure of the run (the hunter's: 259 steps at 204 tok/s, against
// 1217 at 212 plain), so its row says so: K, the acceptance, the draft, what a step yields, where
// it pays, and the warning that the draft is priced in the target's formats, in CSV as in JSON lines.
TEST_CASE("simulate --speculative --format csv and jsonl: the speculative figures and the draft's warning in the row") {
  const std::vector<std::string> base{"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--prompt", "512",
                                      "--gen", "128", "--rate", "1", "--duration", "10s"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  const auto plain = with({"-f", "csv"});
  const auto csv = with({"--speculative", "4:0.8:llama-3.1-8b", "-f", "csv"});
  const auto jsonl = with({"--speculative", "4:0.8:llama-3.1-8b", "-f", "jsonl"});
  const auto doc = with({"--speculative", "4:0.8:llama-3.1-8b", "-f", "json"});
  INFO(plain.err << csv.err << jsonl.err << doc.err);
  REQUIRE(plain.code == 0);
  REQUIRE(csv.code == 0);
  REQUIRE(jsonl.code == 0);
  REQUIRE(doc.code == 0);
  const auto plain_lines = csv_lines(plain.out), lines = csv_lines(csv.out);
  REQUIRE(plain_lines.size() == 2);
  REQUIRE(lines.size() == 2);
  // A speculative row cannot be taken for a plain one: its header differs.
  CHECK(plain_lines[0] != lines[0]);
  const auto header = cells(lines[0]), row = cells(lines[1]);
  REQUIRE(header.size() == row.size());
  const auto at = [&](const std::string& name) {
    const auto i = std::find(header.begin(), header.end(), name);
    REQUIRE(i != header.end());
    return row[i - header.begin()];
  };
  CHECK(at("speculative_k") == "4");
  CHECK(at("speculative_accept") == "0.8");
  CHECK(at("speculative_draft") == "Llama-3.1-8B");
  // By hand: K 4 at acceptance 0.8 yields (1 - 0.8^5) / (1 - 0.8) = (1 - 0.32768) / 0.2 = 3.3616
  // tokens a verify step.
  CHECK(std::stod(at("speculative_tokens_per_step")) == Approx(3.3616).epsilon(1e-12));
  // A draft as large as its target pays at no batch: no range, and it stops paying from batch 1.
  CHECK(at("speculative_pays_at_batches").empty());
  CHECK(at("speculative_stops_paying_at_batch") == "1");
  CHECK_THAT(at("warnings"), Catch::Contains("the draft Llama-3.1-8B is priced in the target's formats and layout"));
  // Every speculative cell is the JSON lines' value and the document's `speculative` figure.
  const auto j = nlohmann::ordered_json::parse(jsonl.out);
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  CHECK(keys == header);
  const auto d = nlohmann::ordered_json::parse(doc.out)["speculative"];
  REQUIRE(d.is_object());
  const std::vector<std::pair<std::string, nlohmann::ordered_json>> figures{
      {"speculative_k", d["k"]},
      {"speculative_accept", d["accept"]},
      {"speculative_draft", d["draft"]},
      {"speculative_tokens_per_step", d["tokens_per_step"]},
      {"speculative_context_tokens", d["context"]},
      {"speculative_batch_1_plain_tokens_per_s", d["batch_1_tokens_per_s"]["plain"]},
      {"speculative_batch_1_speculative_tokens_per_s", d["batch_1_tokens_per_s"]["speculative"]},
      {"speculative_batch_1_plain_bound_tokens_per_s", d["batch_1_tokens_per_s"]["plain_bound"]},
      {"speculative_batch_1_speculative_bound_tokens_per_s", d["batch_1_tokens_per_s"]["speculative_bound"]},
      {"speculative_max_batch", d["max_batch"]},
      {"speculative_max_batch_held_by_cache", d["max_batch_held_by_cache"]},
      {"speculative_stops_paying_at_batch", d["stops_paying_at_batch"]},
      {"speculative_stops_paying_at_batch_bound", d["stops_paying_at_batch_bound"]}};
  for (const auto& [name, value] : figures) {
    check_cell(name, at(name), value);
    check_cell(name, at(name), j[name]);
  }
  // The ranges: none here, an empty array in JSON lines as in the document.
  CHECK(j["speculative_pays_at_batches"] == nlohmann::ordered_json::array());
  CHECK(d["pays_at_batches"] == nlohmann::ordered_json::array());
  CHECK(j["speculative_pays_at_batches_bound"] == nlohmann::ordered_json::array());
  CHECK(j["warnings"] == nlohmann::ordered_json::parse(doc.out)["warnings"]);
}

TEST_CASE("simulate --speculative with drafts that cost nothing: the ranges where it pays, in CSV and JSON lines") {
  const std::vector<std::string> args{"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--prompt", "512",
                                      "--gen", "128", "--rate", "1", "--duration", "10s", "--speculative", "4:0.8"};
  auto csv_args = args, jsonl_args = args, doc_args = args;
  csv_args.insert(csv_args.end(), {"-f", "csv"});
  jsonl_args.insert(jsonl_args.end(), {"-f", "jsonl"});
  doc_args.insert(doc_args.end(), {"-f", "json"});
  const auto csv = run_cli(csv_args), jsonl = run_cli(jsonl_args), doc = run_cli(doc_args);
  INFO(csv.err << jsonl.err << doc.err);
  REQUIRE(csv.code == 0);
  REQUIRE(jsonl.code == 0);
  REQUIRE(doc.code == 0);
  const auto lines = csv_lines(csv.out);
  REQUIRE(lines.size() == 2);
  const auto header = cells(lines[0]), row = cells(lines[1]);
  const auto at = [&](const std::string& name) {
    const auto i = std::find(header.begin(), header.end(), name);
    REQUIRE(i != header.end());
    return row[i - header.begin()];
  };
  const auto j = nlohmann::ordered_json::parse(jsonl.out);
  const auto d = nlohmann::ordered_json::parse(doc.out)["speculative"];
  CHECK(at("speculative_draft").empty());  // drafts cost nothing: null in the document
  CHECK(d["draft"].is_null());
  CHECK(j["speculative_draft"].is_null());
  // Each range "from-to" (one batch: "from"), as the document's [from, to] pairs.
  std::vector<std::string> ranges;
  for (const auto& r : d["pays_at_batches"]) {
    const long from = r[0], to = r[1];
    ranges.push_back(from == to ? std::to_string(from) : std::to_string(from) + "-" + std::to_string(to));
  }
  REQUIRE(!ranges.empty());  // free drafts pay at batch 1 at least
  CHECK(j["speculative_pays_at_batches"] == nlohmann::ordered_json(ranges));
  check_cell("speculative_pays_at_batches", at("speculative_pays_at_batches"), j["speculative_pays_at_batches"]);
  check_cell("speculative_stops_paying_at_batch", at("speculative_stops_paying_at_batch"), d["stops_paying_at_batch"]);
}
