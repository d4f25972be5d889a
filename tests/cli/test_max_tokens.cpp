// simulate --max-tokens: the clients' cap on a request's output. A reserving admission
// (TensorRT-LLM's GUARANTEED_NO_EVICT) reserves prompt + max_tokens, as its
// getRemainingBlocksToCompletion counts prompt + mMaxNewTokens; an output past the cap is cut at
// it. Without it, a reserving run over outputs that vary says it reserved each one's own length.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using namespace roofline;
using test::check_error;
using test::run_cli;

namespace {

// Llama-3.1-8B on an H100, 1000-token prompts and log-normal outputs (mean 1000), 20 req/s for 30 s.
std::vector<std::string> sim(std::vector<std::string> extra) {
  std::vector<std::string> args{"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--chunked-prefill",
                                "--prompt", "1000", "--gen", "lognormal:1000:1", "--rate", "20", "--duration", "30s"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

nlohmann::json json_of(const std::vector<std::string>& args) {
  const auto r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

bool says_own_lengths(const nlohmann::json& j) {
  for (const auto& w : j["warnings"]) {
    if (w.get<std::string>().find("reserved each request's own output length") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("simulate --max-tokens 16384 --admission reserve: each request reserves 1000 + 16384 tokens, 26 at once") {
  const auto j = json_of(sim({"--admission", "reserve", "--max-tokens", "16384", "-f", "json"}));
  // 17384 tokens are ceil(17384 / 16) = 1087 blocks of 16: the cache's 28755 blocks (the default
  // --reserve 0.1 beside the step's activations) hold 28755 / 1087 = 26.45, so 26 at once. The
  // same arrivals reserving their own outputs had run 216 at once (its outputs 26 to 19594 tokens).
  const long blocks = j["server"]["kv_blocks"].get<long>();
  CHECK(j["server"]["block_tokens"] == 16);
  CHECK(j["peak_running"].get<long>() == blocks / ((1000 + 16384 + 15) / 16));
  CHECK(j["preemptions"] == 0);
  CHECK_FALSE(says_own_lengths(j));
  // One output past 16384 (log-normal, sigma 1) is cut at it, and the traffic says so.
  CHECK(j["traffic"]["description"].get<std::string>().ends_with(", max_tokens 16384 (1 output cut at it)"));
}

TEST_CASE("simulate --engine trtllm without --max-tokens: a warning in every format that each output was reserved as known") {
  for (const std::string format : {"json", "jsonl"}) {
    const auto r = run_cli(sim({"--engine", "trtllm", "-f", format}));
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("reserved each request's own output length") &&
                          Catch::Contains("give --max-tokens N"));
  }
  for (const std::string format : {"table", "markdown", "csv"}) {
    const auto r = run_cli(sim({"--engine", "trtllm", "-f", format}));
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out + r.err, Catch::Contains("reserved each request's own output length"));
  }
  // Not where the outputs are one fixed length (its reservation is max_tokens = that length), nor
  // where blocks grow (vLLM), nor with --max-tokens.
  std::vector<std::string> fixed = sim({"--engine", "trtllm", "-f", "json"});
  fixed[9] = "1000";
  CHECK_FALSE(says_own_lengths(json_of(fixed)));
  CHECK_FALSE(says_own_lengths(json_of(sim({"--engine", "vllm", "-f", "json"}))));
  CHECK_FALSE(says_own_lengths(json_of(sim({"--engine", "trtllm", "--max-tokens", "8192", "-f", "json"}))));
}

TEST_CASE("simulate --max-tokens: vLLM and SGLang grow blocks, and run as before where no output reaches the cap") {
  for (const std::string engine : {"vllm", "sglang"}) {
    const auto before = json_of(sim({"--engine", engine, "-f", "json"}));
    const auto after = json_of(sim({"--engine", engine, "--max-tokens", "1000000", "-f", "json"}));
    CHECK(after["output_tokens_per_s"] == before["output_tokens_per_s"]);
    CHECK(after["peak_running"] == before["peak_running"]);
    CHECK(after["preemptions"] == before["preemptions"]);
    CHECK(after["bound"] == before["bound"]);
  }
}

TEST_CASE("simulate --max-tokens: outputs past it are cut at it") {
  // uniform:10:2000 cut at 500: (2000 - 500) / 1991 = 75% of the requests are cut, on average.
  std::vector<std::string> args = sim({"--max-tokens", "500", "--requests-out", test::temp_file("max_tokens.csv")});
  args[9] = "uniform:10:2000";
  const auto r = run_cli(args);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains(" outputs cut at it)"));
  // The fifth column, output_tokens: at most 500, and some at 500.
  std::istringstream rows(test::read_text(test::temp_file("max_tokens.csv")));
  std::string line;
  std::getline(rows, line);
  REQUIRE(line.starts_with("request,arrival_s,prompt_tokens,cached_tokens,output_tokens,"));
  long most = 0, at_cap = 0, n = 0;
  while (std::getline(rows, line)) {
    std::istringstream cells(line);
    std::string cell;
    for (int i = 0; i < 5; ++i) std::getline(cells, cell, ',');
    const long out = std::stol(cell);
    most = std::max(most, out);
    at_cap += out == 500 ? 1 : 0;
    ++n;
  }
  CHECK(n > 500);  // 20 req/s for 30 s
  CHECK(most == 500);
  CHECK(at_cap > n / 2);
}

TEST_CASE("simulate --max-tokens: refused at 0, past the cache under reserve, and disaggregated under reserve") {
  check_error(run_cli(sim({"--max-tokens", "0"})), "--max-tokens", "must be 1 to 1000000000, got 0");
  // --reserve 0.75 leaves 1124 blocks of 32 (TensorRT-LLM's): 1000 + 100000 tokens are 3157, and
  // a request reserving them would wait at the queue's head for ever.
  check_error(run_cli(sim({"--engine", "trtllm", "--reserve", "0.75", "--max-tokens", "100000"})), "--max-tokens",
              "would never be admitted");
  check_error(run_cli(sim({"--engine", "trtllm", "--max-tokens", "4000", "--disaggregate", "1:1"})), "--max-tokens",
              "not modelled with --disaggregate");
}
