// Issue 27, bounded work: each input that ran for ever or grew without end is refused before the
// work starts (naming the flags to change) or finishes, and each that printed inf or a 0 that
// meant "none" says what it means.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"

using namespace roofline;
using test::check_error;
using test::data_file;
using test::run_cli;

namespace {

std::vector<std::string> simulate(std::vector<std::string> more) {
  std::vector<std::string> args = {"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST_CASE("simulate --arrivals gamma:1e-300 ends: arrivals every 1/rate, as regular as a clock") {
  const auto r = run_cli(simulate({"--rate", "2", "--prompt", "100", "--gen", "10", "--duration", "10s", "--arrivals",
                                   "gamma:1e-300", "-f", "json"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"requests\": 19"));  // 0.5, 1.0, ... 9.5
}

TEST_CASE("plan --percentile with gamma:1e-300 ends too: each replica's CV is 1e-300 / sqrt(n)") {
  const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "2", "--percentile", "99",
                          "--arrivals", "gamma:1e-300", "--duration", "60s", "-f", "csv"});
  INFO(r.err);
  CHECK(r.code == 0);
}

TEST_CASE("simulate --rate 1e6 --duration 100s (10^8 requests, 13 GB) is refused before it generates one") {
  check_error(run_cli(simulate({"--rate", "1e6", "--prompt", "100", "--gen", "10", "--duration", "100s"})),
              "--rate x --duration", "1e+08 requests, over the 1e+07 a run holds (about 450 bytes each)");
}

TEST_CASE("simulate whose tokens pass 2e8 sequence-steps is refused before it runs, naming --gen, --rate, --duration") {
  // 1 request a second for an hour (3524 arrive, seed 1), 100 000 output tokens each at batch 1.
  check_error(run_cli(simulate({"--rate", "1", "--prompt", "100", "--gen", "100000", "--max-batch", "1", "--duration",
                                "3600s"})),
              "--gen, --rate and --duration", "about 3.52e+08 sequence-steps (every output token and prefill chunk "
                                               "of 3524 requests), over the 2e+08 a run may take");
}

TEST_CASE("a trace whose rows pass 2e8 sequence-steps is refused naming --arrivals and --duration, not flags not given") {
  const std::string file = (std::filesystem::temp_directory_path() / "rooflineplan-long-trace.csv").string();
  {
    std::ofstream out(file);
    out << "arrival_s,prompt_tokens,output_tokens\n0,512,150000000\n1,512,150000000\n";
  }
  const auto r = run_cli(simulate({"--arrivals", file}));
  std::filesystem::remove(file);
  check_error(r, "--arrivals and --duration", "about 3e+08 sequence-steps (every output token and prefill chunk of 2 "
                                              "requests), over the 2e+08 a run may take; replay fewer of the trace's");
}

TEST_CASE("plan --percentile --gen 100000 is refused: a check would simulate 5000 requests of 10^5 tokens") {
  check_error(run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "1", "--gen", "100000",
                       "--percentile", "99"}),
              "--gen", "at least 5000 requests of 100000 output tokens, 100001 steps each (its output tokens and its "
                       "prefill): 500005000 sequence-steps, over the 20000000");
}

// 5000 × (4000 + 1) steps is past the 2e7 a check may take (planner/test_fleet_sizing.cpp: 3999 is not).
TEST_CASE("plan --percentile --gen 4000 is refused, its count unrounded: 20005000 steps, not 2e+07 over the 2e+07") {
  check_error(run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "0.01", "--gen", "4000", "--percentile",
                       "99"}),
              "--gen", "4001 steps each (its output tokens and its prefill): 20005000 sequence-steps, over the 20000000");
}

TEST_CASE("speculative 8:0.9:mtp --max-batch 1000000 searches only the batches the KV cache holds") {
  const auto r = run_cli({"simulate", "-m", "deepseek-v3", "-g", "h200", "--tp", "8", "--rate", "1", "--prompt", "1000",
                          "--gen", "100", "--duration", "20s", "--speculative", "8:0.9:mtp", "--max-batch", "1000000",
                          "-f", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["server"]["max_batch"] == 1000000);
  CHECK(j["speculative"]["max_batch_held_by_cache"] == true);
  // The batches searched: those whose context the 42448 blocks hold, far below 10^6.
  CHECK(j["speculative"]["max_batch"].get<long>() < 42448);
}

TEST_CASE("plan --rate 1e-310 is refused, not priced at inf $ and kWh a million tokens") {
  check_error(run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", "1e-310", "--price", "2"}), "--rate",
              "at least 1e-06 requests/s");
  const auto r = run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", "1e-6", "--price", "2", "-f", "csv"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, !Catch::Contains("inf"));
}

TEST_CASE("simulate --gen 1: TPOT is - in the table and null in JSON, and goodput under a TPOT target is -") {
  const std::vector<std::string> args = {"--rate", "1", "--prompt", "100", "--gen", "1", "--duration", "3s",
                                         "--tpot", "50ms"};
  const auto table = run_cli(simulate(args));
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Matches("[\\s\\S]*\nTPOT +- +- +- +- +- +-\n[\\s\\S]*"));
  CHECK_THAT(table.out, Catch::Contains("goodput: - (every request made one token: none has a TPOT to judge)"));
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"-f", "json"});
  const auto json = run_cli(simulate(json_args));
  REQUIRE(json.code == 0);
  CHECK_THAT(json.out, Catch::Contains("\"tpot\": null") && Catch::Contains("\"goodput\": null") &&
                           Catch::Contains("\"goodput_unjudged\": 7"));
}

TEST_CASE("a simulated run's batch is integrated over its steps and its peaks taken at every step, not sampled") {
  // 7 requests of 100 prompt tokens and 1 output token in 3 s (seed 1), each a prefill step
  // alone: at most 1 running, ceil(100 / 16) = 7 blocks held. Sampled every 3 ms, the run read
  // "0.0 sequences running, KV 0.0%" whatever it held.
  const auto r = run_cli(simulate({"--rate", "1", "--prompt", "100", "--gen", "1", "--duration", "3s"}));
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("sequences running on average over time, 1 at most; KV cache at most 0.0% full; 7 steps"));
  const auto j = run_cli(simulate({"--rate", "1", "--prompt", "100", "--gen", "1", "--duration", "3s", "-f", "json"}));
  REQUIRE(j.code == 0);
  CHECK_THAT(j.out, Catch::Contains("\"peak_running\": 1,") && Catch::Contains("\"kv_blocks\": 28755") &&
                        Catch::Contains("\"peak_kv_share\": 0.000243435924187"));  // 7 / 28755
}

TEST_CASE("a GPU whose efficiency leaves a denormal bandwidth is refused at the field, not priced at inf s") {
  const auto dir = std::filesystem::temp_directory_path();
  std::ofstream(dir / "rooflineplan-tiny-efficiency.yaml")
      << "name: x\nmemory: {capacity: 80 GB, bandwidth: 2 TB/s}\ncompute: {peak: {fp16: 312 TFLOPS}}\n"
         "efficiency: {memory: 1e-300}\n";
  check_error(run_cli({"-m", "llama-2-7b", "-g", (dir / "rooflineplan-tiny-efficiency.yaml").string()}),
              (dir / "rooflineplan-tiny-efficiency.yaml").string() + ":4:22: efficiency.memory",
              "must be a share in [0.001, 1], got 1e-300");
  // Within [0.001, 1] but leaving 1 kB/s of 1 MB/s: below the least bandwidth a description gives.
  std::ofstream(dir / "rooflineplan-slow-efficiency.yaml")
      << "name: x\nmemory: {capacity: 80 GB, bandwidth: 1 MB/s}\ncompute: {peak: {fp16: 312 TFLOPS}}\n"
         "efficiency: {memory: 0.001}\n";
  check_error(run_cli({"-m", "llama-2-7b", "-g", (dir / "rooflineplan-slow-efficiency.yaml").string()}),
              (dir / "rooflineplan-slow-efficiency.yaml").string(), "efficiency.memory: leaves 1000 B/s");
}

TEST_CASE("fit refuses a measured value outside its physical range: 4.9e-324 and 1e308 tokens/s") {
  for (const std::string value : {"4.9e-324", "1e308"}) {
    const auto dir = std::filesystem::temp_directory_path() / "rooflineplan-fit-range";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "runs.csv")
        << "id,source,model,gpu,weights,kv,tp,batch,prompt,gen,extra_flags,metric,measured,note\n"
           "A,me,llama-2-7b,a100-80gb,bf16,bf16,1,1,5,200,,decode_tok_s_per_seq," << value << ",\n";
    check_error(run_cli({"fit", (dir / "runs.csv").string()}), (dir / "runs.csv").string() + ":2: measured",
                "tokens/s is outside 0.001 … 1e+09 tokens/s");
  }
}

namespace {

// training.csv's rows again and again, `n` of them, each of source "src<i % sources>".
std::filesystem::path repeated_runs(std::size_t n, std::size_t sources) {
  const auto dir = std::filesystem::temp_directory_path() / "rooflineplan-fit-many";
  std::filesystem::create_directories(dir);
  std::filesystem::copy(data_file("measurements/gpus"), dir / "gpus",
                        std::filesystem::copy_options::overwrite_existing | std::filesystem::copy_options::recursive);
  std::filesystem::copy(data_file("measurements/models"), dir / "models",
                        std::filesystem::copy_options::overwrite_existing | std::filesystem::copy_options::recursive);
  std::ifstream in(data_file("measurements/training.csv"));
  std::string header, line;
  std::getline(in, header);
  std::vector<std::string> rows;
  while (std::getline(in, line)) rows.push_back(line.substr(line.find(',') + 1));  // without the id
  std::ofstream out(dir / "runs.csv");
  out << header << "\n";
  for (std::size_t i = 0; i < n; ++i) {
    std::string rest = rows[i % rows.size()];
    rest = rest.substr(rest.find(',') + 1);  // without the source, quoted or not
    if (rows[i % rows.size()].front() == '"') rest = rows[i % rows.size()].substr(rows[i % rows.size()].find("\",") + 2);
    out << "R" << i << ",src" << i % sources << "," << rest << "\n";
  }
  return dir / "runs.csv";
}

}  // namespace

TEST_CASE("fit holds out 60 sources in 10 groups, each whole: 101 fits, not 3541 (7.3 s at 1000 rows, then)") {
  const auto csv = repeated_runs(60, 60);
  const auto r = run_cli({"fit", csv.string(), "-f", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["sources"].size() == 10);
  // Dealt round robin: the first group holds sources 0, 10, ... 50, and 6 runs.
  CHECK(j["sources"][0]["source"] == "src0 + src10 + src20 + src30 + src40 + src50");
  CHECK(j["sources"][0]["runs"] == 6);
}

TEST_CASE("fit refuses a file of more than 10 000 runs at the first row past it") {
  const auto csv = repeated_runs(10001, 3);
  check_error(run_cli({"fit", csv.string()}), csv.string() + ":10002: row 10001 of 10001",
              "a measurements file holds at most 10000 runs");
}
