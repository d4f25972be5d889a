// plan --percentile with the traffic simulate takes: length distributions, traces rescaled by
// --rate or --trace-rate, and --pools routing by prompt length. The steady and closed-form columns
// price a mean, and every format says which.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli_runner.hpp"

using namespace roofline;
using test::check_error;
using test::data_file;
using test::run_cli;
using test::temp_file;
using test::write_temp;

namespace {

std::vector<std::string> plan(std::vector<std::string> extra, const std::string& gpu = "h100-sxm") {
  std::vector<std::string> a{"plan", "-m", "llama-3.1-8b", "-g", gpu, "--ttft", "1s", "--tpot", "50ms"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

nlohmann::json rows(const std::vector<std::string>& args) {
  const auto r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out).at("rows");
}

// tests/data/traces/two_lengths.csv: 15000 requests 0.01 s apart (100 req/s: 14999 gaps over
// 149.99 s), every third one 3072 + 128 tokens and the others 256 + 64. Means: prompts
// (2 x 256 + 3072) / 3 = 1194.67, outputs (2 x 64 + 128) / 3 = 85.33. Split at 1024, its long
// pool holds 5000 requests: the least a check simulates (planner/fleet_check.hpp).
const std::string kTwoLengths = "traces/two_lengths.csv";

}  // namespace

TEST_CASE("plan --percentile --prompt lognormal: simulated, the steady columns at the distribution's mean, said") {
  const auto r = rows(plan({"--rate", "20", "--prompt", "lognormal:512:0.5", "--gen", "uniform:64:192", "--percentile",
                            "99", "--duration", "60s", "--format", "json"}));
  REQUIRE(r.size() == 1);
  CHECK(r[0]["feasible"] == true);
  CHECK(r[0]["prompt_lengths"] == "log-normal mean 512 sigma 0.5");
  CHECK(r[0]["gen_lengths"] == "uniform 64..192");
  // The steady plan prices the means: 512, and (64 + 192) / 2 = 128.
  CHECK(r[0]["steady_prompt_tokens"] == 512);
  CHECK(r[0]["steady_gen_tokens"] == 128);
  // The table's title says so too.
  const auto table = run_cli(plan({"--rate", "20", "--prompt", "lognormal:512:0.5", "--gen", "uniform:64:192",
                                   "--percentile", "99", "--duration", "60s"}));
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("the steady and closed-form columns price the distributions' means: 512 + 128"));
}

TEST_CASE("plan: a length distribution without --percentile is refused naming the flag, exit 2") {
  check_error(run_cli(plan({"--prompt", "lognormal:512:0.5"})), "--prompt", "add --percentile");
  check_error(run_cli(plan({"--gen", "empirical:" + data_file(kTwoLengths)})), "--gen", "add --percentile");
  // A distribution's own mistakes are named as simulate names them.
  check_error(run_cli(plan({"--prompt", "lognormal:512:9", "--percentile", "99"})), "--prompt", "sigma");
}

TEST_CASE("plan --percentile --arrivals TRACE: rescaled by --rate, the steady columns at the trace's means") {
  const auto r = rows(plan({"--arrivals", data_file(kTwoLengths), "--rate", "30", "--percentile", "99", "--format",
                            "json"}));
  REQUIRE(r.size() == 1);
  CHECK(r[0]["feasible"] == true);
  CHECK(r[0]["steady_prompt_tokens"] == 1195);  // 1194.67 rounded
  CHECK(r[0]["steady_gen_tokens"] == 85);       // 85.33 rounded
  CHECK_THAT(r[0]["prompt_lengths"].get<std::string>(), Catch::Contains("two_lengths.csv (mean 1195)"));
  // --trace-rate is the same rescaling; the trace's own 100 req/s without either.
  const auto csv = run_cli(plan({"--arrivals", data_file(kTwoLengths), "--trace-rate", "30", "--percentile", "99",
                                 "--format", "csv"}));
  REQUIRE(csv.code == 0);
  CHECK_THAT(csv.out, Catch::Contains("steady_prompt_tokens,steady_gen_tokens") && Catch::Contains(",1195,85,"));
  const auto own = run_cli(plan({"--arrivals", data_file(kTwoLengths), "--percentile", "99"}));
  REQUIRE(own.code == 0);
  CHECK_THAT(own.out, Catch::Contains("at its own 100 requests/s") && Catch::Contains("gaps' CV 0.00 read by the closed form"));
}

TEST_CASE("plan --arrivals TRACE: lengths beside it, --trace-rate without one or against --rate: exit 2 by name") {
  const std::string trace = data_file(kTwoLengths);
  check_error(run_cli(plan({"--arrivals", trace, "--prompt", "512", "--percentile", "99"})), "--arrivals",
              "drop --prompt");
  check_error(run_cli(plan({"--trace-rate", "5", "--percentile", "99"})), "--trace-rate", "only with a trace");
  check_error(run_cli(plan({"--arrivals", trace, "--trace-rate", "5", "--rate", "6", "--percentile", "99"})),
              "--trace-rate", "against --rate 6");
  check_error(run_cli(plan({"--arrivals", trace, "--trace-rate", "0", "--percentile", "99"})), "--trace-rate",
              "must be positive");
  check_error(run_cli(plan({"--arrivals", trace})), "--arrivals", "add --percentile");
}

TEST_CASE("plan --pools: refused by name without --percentile, without varying prompts, or disaggregated") {
  check_error(run_cli(plan({"--prompt", "lognormal:512:1", "--pools", "1024"})), "--pools", "add --percentile");
  check_error(run_cli(plan({"--prompt", "512", "--pools", "1024", "--percentile", "99"})), "--pools",
              "a fixed --prompt sends every request to one pool");
  check_error(run_cli(plan({"--prompt", "lognormal:512:1", "--pools", "1024", "--percentile", "99", "--disaggregate"})),
              "--pools", "not with --disaggregate");
  check_error(run_cli(plan({"--prompt", "lognormal:512:1", "--pools", "0", "--percentile", "99"})), "--pools",
              "got 0");
  // A split past every prompt of the trace leaves the long pool empty.
  check_error(run_cli(plan({"--arrivals", data_file(kTwoLengths), "--pools", "4096", "--percentile", "99"})), "--pools",
              "the long pool (prompts over 4096 tokens) gets 0 of the 15000 requests in the trace");
}

TEST_CASE("plan --pools on a trace: each pool sized at its share, one row a pair of GPUs, the fleet's cost") {
  // Split at 1024: the short pool gets the 2000 requests of 256 + 64 tokens (2/3 of 30 req/s = 20),
  // the long pool the 1000 of 3072 + 128 (10 req/s).
  const auto r = rows(plan({"--price", "3,1.8", "--arrivals", data_file(kTwoLengths), "--rate", "30", "--pools", "1024",
                            "--percentile", "99", "--format", "json"},
                           "h100-sxm,a100-80gb"));
  REQUIRE(r.size() == 4);  // (H100, A100) x (H100, A100)
  for (const auto& row : r) {
    CHECK(row["split_prompt_tokens"] == 1024);
    CHECK(row["short_share"].get<double>() == Approx(2.0 / 3));
    CHECK(row["long_share"].get<double>() == Approx(1.0 / 3));
    CHECK(row["short_requests_per_s"].get<double>() == Approx(20));
    CHECK(row["long_requests_per_s"].get<double>() == Approx(10));
    CHECK(row["short_steady_prompt_tokens"] == 256);
    CHECK(row["short_steady_gen_tokens"] == 64);
    CHECK(row["long_steady_prompt_tokens"] == 3072);
    CHECK(row["long_steady_gen_tokens"] == 128);
    REQUIRE(row["feasible"] == true);
    CHECK(row["gpus"] == row["short_gpus"].get<long>() + row["long_gpus"].get<long>());
    CHECK(row["short_ttft_percentile_s"].get<double>() <= 1.0);
    CHECK(row["long_tpot_percentile_s"].get<double>() <= 0.05);
    // The fleet's $/M tokens: each pool's dollars an hour over the output tokens of both, 20 x 64
    // + 10 x 128 = 2560 tokens/s (each pool's own cost is at its own tokens).
    const double price_short = row["short_gpu_name"] == "NVIDIA H100 SXM" ? 3.0 : 1.8;
    const double price_long = row["long_gpu_name"] == "NVIDIA H100 SXM" ? 3.0 : 1.8;
    const double usd_per_hour =
        price_short * row["short_gpus"].get<double>() + price_long * row["long_gpus"].get<double>();
    CHECK(row["cost_per_million_tokens_usd"].get<double>() == Approx(usd_per_hour * 1e6 / (2560.0 * 3600)));
  }
  // Ranked cheapest first.
  for (std::size_t i = 1; i < r.size(); ++i) {
    CHECK(r[i - 1]["cost_per_million_tokens_usd"].get<double>() <= r[i]["cost_per_million_tokens_usd"].get<double>());
  }
}

TEST_CASE("plan --pools: every format carries the pools' columns, and the table says each pool's share") {
  const std::vector<std::string> base = plan({"--prompt", "lognormal:1024:0.8", "--gen", "128", "--rate", "20",
                                              "--pools", "1024", "--percentile", "99", "--duration", "60s"});
  const auto with = [&](const std::string& format) {
    auto a = base;
    a.insert(a.end(), {"--format", format});
    const auto r = run_cli(a);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return r.out;
  };
  const std::string csv = with("csv");
  CHECK_THAT(csv, Catch::StartsWith("split_prompt_tokens,prompt_lengths,gen_lengths,requests_per_s,arrivals_cv,router,"
                                      "feasible,short_gpu_name"));
  CHECK_THAT(csv, Catch::Contains("short_replicas") && Catch::Contains("long_steady_prompt_tokens") &&
                      Catch::Contains("short_feasible,short_reason,") && Catch::Contains("long_feasible,long_reason,"));
  const std::string jsonl = with("jsonl");
  const auto line = nlohmann::ordered_json::parse(jsonl.substr(0, jsonl.find('\n')));
  // Phi(0.4) of a log-normal of mean 1024 and sigma 0.8 lies under its mean (worked in
  // tests/planner/test_length_pools.cpp): 0.6556, drawn.
  CHECK(std::abs(line.at("short_share").get<double>() - 0.6556) < 0.003);
  CHECK(line.at("short_replicas").get<long>() >= 1);
  // Its JSON keys are its CSV columns, in the same order.
  std::string keys;
  for (const auto& item : line.items()) keys += (keys.empty() ? "" : ",") + item.key();
  CHECK(keys == csv.substr(0, csv.find('\r')));
  CHECK(line.at("long_replicas").get<long>() >= 1);
  for (const std::string format : {"table", "markdown"}) {
    const std::string out = with(format);
    CHECK_THAT(out, Catch::Contains("short pool (<= 1024)") && Catch::Contains("long pool (> 1024)") &&
                        Catch::Contains("short pool: 65.") && Catch::Contains("of the requests"));
  }
}

TEST_CASE("plan --percentile: every format carries the lengths simulated and the mean the steady columns price") {
  const std::vector<std::string> base = plan({"--rate", "20", "--prompt", "256", "--gen", "64", "--percentile", "99",
                                              "--duration", "60s"});
  for (const std::string format : {"csv", "json", "jsonl", "markdown", "table"}) {
    auto a = base;
    a.insert(a.end(), {"--format", format});
    const auto r = run_cli(a);
    INFO(format << ": " << r.err);
    REQUIRE(r.code == 0);
    if (format == "markdown" || format == "table") {
      CHECK_THAT(r.out, Catch::Contains("256 prompt + 64 output tokens"));
      continue;
    }
    // The values, not the keys alone: each key's cell in the first row.
    nlohmann::json row;
    if (format == "json") {
      row = nlohmann::json::parse(r.out).at("rows").at(0);
    } else if (format == "jsonl") {
      row = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
    } else {
      // The CSV's header and first row, cell by cell (no cell here holds a comma or a quote).
      const auto cells = [](const std::string& line) {
        std::vector<std::string> c;
        std::size_t from = 0;
        for (std::size_t at; (at = line.find(',', from)) != std::string::npos; from = at + 1) c.push_back(line.substr(from, at - from));
        c.push_back(line.substr(from));
        return c;
      };
      const std::size_t first = r.out.find("\r\n");
      const std::size_t second = r.out.find("\r\n", first + 2);
      const auto keys = cells(r.out.substr(0, first));
      const auto values = cells(r.out.substr(first + 2, second - first - 2));
      REQUIRE(keys.size() == values.size());
      for (std::size_t i = 0; i < keys.size(); ++i) row[keys[i]] = values[i];
      row["steady_prompt_tokens"] = std::stol(row["steady_prompt_tokens"].get<std::string>());
      row["steady_gen_tokens"] = std::stol(row["steady_gen_tokens"].get<std::string>());
      row["requests_per_s"] = std::stod(row["requests_per_s"].get<std::string>());
      row["arrivals_cv"] = std::stod(row["arrivals_cv"].get<std::string>());
    }
    CHECK(row.at("prompt_lengths") == "256");
    CHECK(row.at("gen_lengths") == "64");
    CHECK(row.at("steady_prompt_tokens") == 256);
    CHECK(row.at("steady_gen_tokens") == 64);
    // The rate sized for and the CV of Poisson gaps (1).
    CHECK(row.at("requests_per_s") == 20.0);
    CHECK(row.at("arrivals_cv") == 1.0);
  }
}

TEST_CASE("plan --percentile --arrivals TRACE: its rate sized for and its gaps' CV are columns, not the title alone") {
  // two_lengths.csv rescaled to 30 req/s: its gaps all 1/30 s, CV 0 (to the 2 decimals of its times).
  const auto r = rows(plan({"--arrivals", data_file(kTwoLengths), "--rate", "30", "--percentile", "99", "--format",
                            "json"}));
  REQUIRE(r.size() == 1);
  CHECK(r[0]["requests_per_s"].get<double>() == 30);
  CHECK(r[0]["arrivals_cv"].get<double>() == Approx(0).margin(1e-3));
  // gamma:4 is its own CV.
  const auto g = rows(plan({"--rate", "20", "--arrivals", "gamma:4", "--percentile", "99", "--duration", "60s",
                            "--format", "json"}));
  CHECK(g[0]["arrivals_cv"].get<double>() == 4);
  // The table's title says the check took the whole trace, 15000 of the 18000 that --duration's
  // 600 s at 30 req/s asks: never "under" a least it is above.
  const auto table = run_cli(plan({"--arrivals", data_file(kTwoLengths), "--rate", "30", "--percentile", "99"}));
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("each check simulated 15000 requests") &&
                            Catch::Contains("and to the trace's 15000 requests where it holds fewer, never under 5000 requests"));
}

TEST_CASE("plan --percentile --arrivals TRACE: a trace shorter than a check needs is refused, exit 2, not simulated") {
  // Three requests: a check needs at least 5000 (each fleet would otherwise look behind, its last
  // seconds' arrivals unfinished, and the search doubled the fleet toward a million replicas).
  write_temp("three.csv", "arrival_s,prompt_tokens,output_tokens\n0,256,64\n0.5,256,64\n1.0,300,64\n");
  check_error(run_cli(plan({"--percentile", "99", "--arrivals", temp_file("three.csv")})), "--arrivals",
              "the trace holds 3 requests, fewer than the 5000");
  // A pool's share too short names --pools: 6000 requests, every sixth long, leave the long pool
  // 1000 (enough to be a pool, not a check).
  std::string text = "arrival_s,prompt_tokens,output_tokens\n";
  for (int i = 0; i < 6000; ++i) text += fmt::format("{:.2f},{},64\n", 0.01 * i, i % 6 == 5 ? 3072 : 256);
  write_temp("short_long_pool.csv", text);
  check_error(run_cli(plan({"--percentile", "99", "--arrivals", temp_file("short_long_pool.csv"), "--pools", "1024"})),
              "--pools", "the long pool's share of the stream holds 1000 requests, fewer than the 5000");
}

TEST_CASE("plan --percentile --arrivals TRACE: a trace's own rate out of bounds names --arrivals, not --rate") {
  // Two rows 1e-12 s apart: 1e12 requests/s of its own, over the 1e9 a plan takes.
  write_temp("instant.csv", "arrival_s,prompt_tokens,output_tokens\n0,256,64\n1e-12,256,64\n");
  check_error(run_cli(plan({"--percentile", "99", "--arrivals", temp_file("instant.csv")})), "--arrivals",
              "own rate, 2 requests over 1e-12 s: at most 1e+09 requests/s, got 1e+12");
  // Two rows 1e7 s apart: 1e-7 requests/s, under the 1e-6 --rate is held to.
  write_temp("glacial.csv", "arrival_s,prompt_tokens,output_tokens\n0,256,64\n10000000,256,64\n");
  check_error(run_cli(plan({"--percentile", "99", "--arrivals", temp_file("glacial.csv")})), "--arrivals",
              "at least 1e-06 requests/s, got 1e-07");
}

TEST_CASE("plan --percentile --arrivals TRACE: cached_tokens are refused naming the column, not simulated unsaid") {
  // The steady plan prices every prompt token; 4000 of 4096 cached would size the fleet for 96.
  write_temp("cached.csv", "arrival_s,prompt_tokens,output_tokens,cached_tokens\n0,4096,64,0\n0.1,4096,64,4000\n");
  check_error(run_cli(plan({"--percentile", "99", "--arrivals", temp_file("cached.csv")})), "--arrivals",
              "cached.csv:3: column `cached_tokens`: 4000 cached tokens");
}

TEST_CASE("plan --percentile --engine trtllm: a prompt past the plan's token budget is refused, as simulate refuses it") {
  // lognormal:1024:1 draws prompts of several thousand tokens; the plan's budget is a whole mean
  // prompt beside a token a sequence, a few thousand at most: TensorRT-LLM, unchunked, rejects
  // the longer ones. vLLM chunks them.
  const std::vector<std::string> load{"--percentile", "99", "--rate", "10", "--prompt", "lognormal:1024:1", "--gen", "128"};
  auto with = [&](const std::string& engine) {
    std::vector<std::string> extra = load;
    extra.insert(extra.end(), {"--engine", engine});
    return run_cli(plan(extra));
  };
  check_error(with("trtllm"), "--engine", "TensorRT-LLM 1.0 rejects a prompt longer than its token budget");
  CHECK(with("vllm").code == 0);
}

TEST_CASE("plan --pools: its title names --engine's prefill, and why a pool fails is a column in CSV and JSON") {
  // --engine trtllm prefills whole prompts (engine_defaults): the title says so, as the
  // percentile plan's does, not "chunked prefill".
  const auto table = run_cli(plan({"--arrivals", data_file(kTwoLengths), "--rate", "30", "--pools", "1024",
                                   "--percentile", "99", "--engine", "trtllm"}));
  INFO(table.err);
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("--engine trtllm:"));
  // A TPOT of 1 ms no H100 replica of Llama-3.1-8B reaches (a decode step reads 16 GB of weights
  // at 3.35 TB/s: 4.8 ms): every pool fails, and says why in its own column.
  auto a = plan({"--arrivals", data_file(kTwoLengths), "--rate", "30", "--pools", "1024", "--percentile", "99",
                 "--format", "json"});
  a[8] = "1ms";  // --tpot
  const auto r = rows(a);
  REQUIRE(r.size() == 1);
  CHECK(r[0]["feasible"] == false);
  CHECK(r[0]["short_feasible"] == false);
  CHECK_FALSE(r[0]["short_reason"].get<std::string>().empty());
  CHECK_FALSE(r[0]["long_reason"].get<std::string>().empty());
  CHECK(r[0]["requests_per_s"].get<double>() == 30);
  CHECK(r[0]["arrivals_cv"].get<double>() == Approx(0).margin(1e-3));
  CHECK(r[0]["short_arrivals_cv"].get<double>() >= 0);
}
