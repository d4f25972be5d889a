// `rooflineplan simulate` as a user runs it: the JSON's contract, traces read with their errors
// located, every flag refused by name when wrong.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.hpp"
#include "io/csv_records.hpp"

using namespace roofline;
using test::check_error;
using test::data_file;
using test::run_cli;

namespace {

std::vector<std::string> sim(std::vector<std::string> extra) {
  std::vector<std::string> args{"simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace

TEST_CASE("simulate --format json: ttft, tpot, e2e and queue_wait each with mean, p50, p90, p99, and the bound beside") {
  const auto r = run_cli(sim({"--rate", "10", "--prompt", "256", "--gen", "lognormal:64:0.5", "--duration", "60s",
                              "--ttft", "200ms", "--tpot", "30ms", "--format", "json"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"ttft", "tpot", "e2e", "queue_wait"}) {
    for (const char* p : {"mean", "p50", "p90", "p99"}) {
      CHECK(j[key][p].get<double>() >= 0);
      CHECK(j["bound"][key][p].get<double>() >= 0);
    }
    CHECK(j[key]["p50"].get<double>() <= j[key]["p99"].get<double>());
  }
  CHECK(j["timing"] == "expected");
  CHECK(j["served"].get<long>() + j["dropped"].get<long>() == j["traffic"]["requests"].get<long>());
  CHECK(j["goodput"].get<double>() <= 1);
  // The bound is a bound: its tokens come no slower than the expected time's.
  CHECK(j["bound"]["tpot"]["mean"].get<double>() < j["tpot"]["mean"].get<double>());
}

TEST_CASE("simulate reads a trace: every row served, cached prefixes skipped, the table says so") {
  const auto r = run_cli(sim({"--arrivals", data_file("traces/small.csv"), "--format", "json"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["served"] == 5);
  CHECK(j["cached_tokens"].get<double>() == 512 + 1024);
  // One output token: no gap between tokens, so TPOT is over the other four.
  const auto table = run_cli(sim({"--arrivals", data_file("traces/small.csv")}));
  CHECK_THAT(table.out, Catch::Contains("served 5, dropped 0"));
  // --duration cuts a trace, and says so.
  const auto cut = run_cli(sim({"--arrivals", data_file("traces/small.csv"), "--duration", "0.3s"}));
  CHECK_THAT(cut.out, Catch::Contains("4 requests arriving within 0.3 s of its first (--duration leaves out the 1 after)"));
  CHECK_THAT(table.out, Catch::Contains("1536 prompt tokens from the prefix cache"));
}

TEST_CASE("simulate: a trace's cached_tokens is rounded down to whole KV blocks, as --prefix-hit is") {
  // 99 of a 100-token prompt cached: a prefix cache of 16-token blocks (vLLM's) hits 6 full blocks,
  // 96 tokens, and computes 4; the column as given computed 1. SGLang's pages of a token keep 99.
  test::write_temp("cached-99.csv", "arrival_s,prompt_tokens,output_tokens,cached_tokens\n0,100,8,99\n0.5,100,8,32\n");
  const std::vector<std::string> run{"simulate", "-m", "llama-2-7b", "-g", "a100-80gb", "--arrivals",
                                     test::temp_file("cached-99.csv"), "-f", "json"};
  const auto r = run_cli(run);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("cached_tokens").get<double>() == 96 + 32);
  CHECK_THAT(j.at("traffic").at("description").get<std::string>(),
             Catch::EndsWith("; cached_tokens rounded down to whole KV blocks of 16 tokens, as a block prefix cache "
                             "hits (1 row, 3 tokens computed instead)"));
  auto sglang = run;
  sglang.insert(sglang.end(), {"--engine", "sglang"});
  const auto s = run_cli(sglang);
  REQUIRE(s.code == 0);
  const auto k = nlohmann::json::parse(s.out);
  CHECK(k.at("cached_tokens").get<double>() == 99 + 32);
  CHECK_THAT(k.at("traffic").at("description").get<std::string>(), !Catch::Contains("rounded down"));
}

TEST_CASE("simulate: a trace's bad cell, column, order or cached prefix is refused at file:line") {
  check_error(run_cli(sim({"--arrivals", data_file("traces/bad_cell.csv")})), data_file("traces/bad_cell.csv") + ":3:",
              "prompt_tokens: `12x` is not a count of tokens");
  check_error(run_cli(sim({"--arrivals", data_file("traces/unordered.csv")})), data_file("traces/unordered.csv") + ":3:",
              "is before line 2's");
  check_error(run_cli(sim({"--arrivals", data_file("traces/bad_column.csv")})),
              data_file("traces/bad_column.csv") + ":1:", "column `arrival`: not a column of a trace, did you mean `arrival_s`?");
  check_error(run_cli(sim({"--arrivals", data_file("traces/cached_whole.csv")})),
              data_file("traces/cached_whole.csv") + ":2:", "cached_tokens: 512 is not shorter than the prompt");
  check_error(run_cli(sim({"--arrivals", data_file("traces/small.csv"), "--rate", "5"})), "--arrivals",
              "a trace gives the arrivals and lengths");
  // A rate of 0 or below beside a trace was taken as none given and the trace run, exit 0.
  for (const char* rate : {"0", "-5"}) {
    INFO(rate);
    check_error(run_cli(sim({"--arrivals", data_file("traces/small.csv"), "--rate", rate})), "--arrivals",
                "a trace gives the arrivals and lengths");
  }
}

TEST_CASE("simulate: no --rate without a trace is said as required, not as a rate of 0") {
  // Was "--rate: must be above 0, at most 1e+06, got 0" for a rate never given.
  check_error(run_cli(sim({"--prompt", "100", "--gen", "10", "--duration", "10s"})), "--rate",
              "required without a trace");
  check_error(run_cli(sim({"--arrivals", "gamma:2", "--prompt", "100", "--gen", "10", "--duration", "10s"})), "--rate",
              "required without a trace");
  check_error(run_cli(sim({"--rate", "0", "--prompt", "100", "--gen", "10", "--duration", "10s"})), "--rate",
              "must be above 0, at most 1e+06, got 0");
}

TEST_CASE("simulate: a log-normal whose draws below one token would move its mean by over 1% is refused") {
  // lognormal:2:2: mu = ln 2 - 2 = -1.3069; P(X < 1) = Phi(1.3069 / 2) = Phi(0.6534) = 0.7433;
  // E[X; X < 1] = 2 Phi((1.3069 - 4) / 2) = 2 Phi(-1.3466) = 2 x 0.0891 = 0.1781: the floor of one
  // token adds 0.7433 - 0.1781 = 0.565, a mean of 2.57 (2.63 drawn, with rounding), 28% over 2.
  check_error(run_cli(sim({"--rate", "5", "--prompt", "lognormal:2:2", "--gen", "10", "--duration", "10s"})), "--prompt",
              "draws 74% of its lengths below one token, which count as one: its mean would be about 2.57, not 2");
  // lognormal:100:1: mu = 4.105, P(X < 1) = Phi(-4.105) = 2e-5: the shift is under 1e-4 tokens.
  const auto fine = run_cli(sim({"--rate", "5", "--prompt", "lognormal:100:1", "--gen", "10", "--duration", "10s"}));
  CHECK(fine.code == 0);
}

TEST_CASE("simulate: each bad flag is refused by name with exit 2") {
  // Good values for every flag, one of them replaced at a time.
  const auto with = [](std::vector<std::string> extra) {
    std::vector<std::string> a{"--rate", "5", "--prompt", "100", "--gen", "10", "--duration", "10s"};
    for (std::size_t i = 0; i + 1 < extra.size(); i += 2) {
      const auto at = std::find(a.begin(), a.end(), extra[i]);
      if (at != a.end()) {
        *(at + 1) = extra[i + 1];
      } else {
        a.insert(a.end(), {extra[i], extra[i + 1]});
      }
    }
    return run_cli(sim(a));
  };
  check_error(with({"--prompt", "lognormal:0:1"}), "--prompt", "mean that is not 1 to 10^9");
  check_error(with({"--gen", "uniform:9:3"}), "--gen", "needs counts A <= B");
  check_error(with({"--gen", "uniform:0:10"}), "--gen", "has an A that is not a count of tokens from 1 to");
  check_error(with({"--gen", "uniform:1:2.5"}), "--gen", "has a B that is not a count of tokens from 1 to");
  check_error(with({"--gen", "12.5"}), "--gen", "is not a count of tokens");
  check_error(with({"--arrivals", "gamma:0"}), "--arrivals gamma:0", "the CV must be above 0");
  check_error(with({"--arrivals", "weibull"}), "--arrivals", "not poisson, gamma:CV or a .csv trace");
  check_error(with({"--rate", "0"}), "--rate", "must be above 0");
  check_error(with({"--prefix-hit", "1.5"}), "--prefix-hit", "must be 0 to 1");
  check_error(with({"--max-batch", "0"}), "--max-batch", "must be 1 to");
  check_error(with({"--max-batched-tokens", "0"}), "--max-batched-tokens", "must be 1 to");
  check_error(with({"--duration", "10"}), "--duration", "no unit");
  check_error(with({"--ttft", "fast"}), "--ttft", "");
  check_error(with({"--seed", "-1"}), "--seed", "at least 0");
  check_error(with({"--rate", "0.001", "--duration", "1s"}), "--rate x --duration", "no request arrives");
  check_error(run_cli({"simulate", "--model", test::example_file("7b.yaml"), "--gpu", "h100-sxm", "--rate", "1",
                       "--prompt", "1", "--gen", "1"}),
              "--model", "known only by its size");
  check_error(with({"--speculative", "0:0.7"}), "--speculative", "K that is not 1 to 64");
  check_error(with({"--speculative", "4:1.5"}), "--speculative", "acceptance that is not 0 to 1");
  check_error(with({"--speculative", "4"}), "--speculative", "is not K:ACCEPT");
  check_error(with({"--speculative", "4:0.7:no-such-model"}), "", "no-such-model");
  check_error(with({"--speculative", "2:0.8:mtp"}), "--speculative", "Llama-3.1-8B ships no multi-token-prediction modules");
  CHECK(with({"--format", "xml"}).code == 2);
  check_error(run_cli(sim({"--rate", "5", "--gen", "10"})), "--prompt", "required without a trace");
  // A verify step of K = 8 is 9 tokens: a budget of 4 could never run one.
  check_error(with({"--speculative", "8:0.5", "--max-batched-tokens", "4"}), "--max-batched-tokens",
              "cannot hold one verify step");
}

TEST_CASE("simulate: dropped requests count against goodput, and a run that serves none is refused") {
  // Llama-2-7B holds 4096 tokens: prompts of 4000 + 500 generated are all too long.
  const auto on_llama2 = [](std::vector<std::string> extra) {
    std::vector<std::string> a{"simulate", "--model", "llama-2-7b", "--gpu", "a100-80gb"};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_cli(a);
  };
  const auto none = on_llama2({"--rate", "2", "--prompt", "4000", "--gen", "500", "--duration", "10s"});
  CHECK(none.code == 2);
  CHECK_THAT(none.err, Catch::Contains("every request was dropped") && Catch::Contains("longer than the model's context"));
  // Prompts uniform on 100..6000 with 10 generated: the ones above 4086 tokens are dropped, and
  // every dropped one misses the targets, however easy they are.
  const auto some = on_llama2({"--rate", "2", "--prompt", "uniform:100:6000", "--gen", "10", "--duration", "60s",
                                "--ttft", "100s", "--tpot", "10s", "--format", "json"});
  REQUIRE(some.code == 0);
  const auto j = nlohmann::json::parse(some.out);
  const double served = j["served"].get<double>(), dropped = j["dropped_too_long"].get<double>();
  REQUIRE(dropped > 0);
  CHECK(j["goodput"].get<double>() == Approx(served / (served + dropped)));
}

TEST_CASE("simulate --plot writes the batch and the KV cache over time as SVG") {
  const std::string path = "simulate_plot_test.svg";
  std::remove(path.c_str());
  const auto r = run_cli(sim({"--rate", "5", "--prompt", "200", "--gen", "20", "--duration", "20s", "--plot", path}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string svg = test::read_text(path);
  CHECK_THAT(svg, Catch::Contains("<svg") && Catch::Contains("KV cache held") && Catch::Contains("running"));
  std::remove(path.c_str());
  check_error(run_cli(sim({"--rate", "5", "--prompt", "200", "--gen", "20", "--plot", "x.txt"})), "--plot x.txt",
              "name a .svg or .png file");
  // A fleet's: every replica's sequences together, against all their batches.
  const auto fleet = run_cli(sim({"--rate", "20", "--prompt", "200", "--gen", "20", "--duration", "20s", "--replicas",
                                  "4", "--plot", path}));
  REQUIRE(fleet.code == 0);
  const std::string four = test::read_text(path);
  CHECK_THAT(four,
             Catch::Contains("4 replicas together") && Catch::Contains("KV cache held, a replica's on average"));
  std::remove(path.c_str());
}

TEST_CASE("simulate --plot says the run's warnings in the chart file, as every other output does") {
  // The B200 has no kernel tables of its own: its expected times borrow coefficients (ExpectedBorrowed).
  const std::string path = "simulate_plot_warnings_test.svg";
  std::remove(path.c_str());
  const auto r = run_cli({"simulate", "--model", "llama-3.1-8b", "--gpu", "b200", "--rate", "5", "--prompt", "200",
                          "--gen", "20", "--duration", "20s", "--plot", path});
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE_THAT(r.err, Catch::Contains("no kernel was measured on the NVIDIA B200"));
  CHECK_THAT(test::read_text(path), Catch::Contains("warning: no kernel was measured on the NVIDIA B200"));
  std::remove(path.c_str());
}

TEST_CASE("simulate --speculative 5:0.8:llama-2-7b: the draft's tokens per step, its batch-1 rates and where it stops paying") {
  // gpt-fast's setting: Llama-2-70B int4 on an A100 with a Llama-2-7B draft, K 5.
  const auto r = run_cli({"simulate", "--model", "llama-2-70b", "--gpu", "a100-80gb", "--weights", "int4", "--group-size",
                          "16", "--rate", "0.2", "--prompt", "5", "--gen", "200", "--duration", "100s", "--max-batch",
                          "64", "--speculative", "5:0.8:llama-2-7b", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto s = nlohmann::json::parse(r.out)["speculative"];
  CHECK(s["tokens_per_step"].get<double>() == Approx(3.68928));
  CHECK(s["draft"] == "Llama-2-7B");
  // The published 48.4 tok/s (25.25 without) lies under the bound.
  CHECK(s["batch_1_tokens_per_s"]["speculative_bound"].get<double>() > 48.4);
  CHECK(s["batch_1_tokens_per_s"]["plain_bound"].get<double>() > 25.25);
  CHECK(s["stops_paying_at_batch"].get<long>() > 1);
  // A dense model: it pays from batch 1 up to the batch before it stops.
  REQUIRE(s["pays_at_batches"].size() == 1);
  CHECK(s["pays_at_batches"][0][0] == 1);
  CHECK(s["pays_at_batches"][0][1].get<long>() + 1 == s["stops_paying_at_batch"].get<long>());
  CHECK(s["max_batch"] == 64);
  // One tokenizer, one vocabulary: no word of it.
  CHECK(nlohmann::json::parse(r.out)["warnings"].dump().find("vocabulary") == std::string::npos);
}

TEST_CASE("simulate --speculative with a draft of another vocabulary says so: Llama-2-70B's 32000 tokens, Qwen3-8B's 151936") {
  const auto r = run_cli({"simulate", "--model", "llama-2-70b", "--gpu", "h100-sxm", "--tp", "4", "--rate", "1",
                          "--prompt", "512", "--gen", "128", "--duration", "20s", "--speculative", "4:0.8:qwen3-8b",
                          "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(nlohmann::json::parse(r.out)["warnings"].dump(),
             Catch::Contains("the draft Qwen3-8B's vocabulary of 151936 tokens is not the target's 32000"));
}

TEST_CASE("simulate --speculative mtp: a module cut to a full-attention layer of a sliding model drafts - Step-3.7-Flash") {
  // Its last layer attends in full; the draft is that one layer, without the window no layer of
  // it uses (kept, it was refused as "sliding_window: no layer slides").
  const auto r = run_cli({"simulate", "-m", data_file("hf-configs/step-3.7-flash-aic.json"), "-g", "b200", "--tp", "8",
                          "--prompt", "1024", "--gen", "256", "--rate", "1", "--duration", "10s", "--speculative",
                          "2:0.7:mtp"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("with draft step-3.7-flash-aic MTP"));
}

TEST_CASE("simulate DeepSeek-V3 at EP 8 with --speculative 1:0.85:mtp: its own module drafts, and TPOT falls") {
  // Latent attention is priced step by step (prefill through kv_b_proj, decode absorbed), and the
  // model's one MTP module drafts, its input projection and norms with it: the engine's "MTP not
  // priced" goes, and nothing takes its place.
  const auto run = [](std::vector<std::string> extra) {
    std::vector<std::string> a{"simulate", "--model", "deepseek-v3", "--gpu", "h200", "--tp", "8", "--ep", "8",
                               "--rate", "1", "--prompt", "1000", "--gen", "200", "--duration", "30s", "--format", "json"};
    a.insert(a.end(), extra.begin(), extra.end());
    const auto r = run_cli(a);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto plain = run({}), mtp = run({"--speculative", "1:0.85:mtp"});
  CHECK(plain["ep"] == 8);
  CHECK(mtp["speculative"]["draft"] == "DeepSeek-V3 MTP");
  CHECK(mtp["speculative"]["tokens_per_step"].get<double>() == Approx(1.85));
  CHECK(mtp["tpot"]["mean"].get<double>() < 0.75 * plain["tpot"]["mean"].get<double>());
  CHECK(mtp["served"] == plain["served"]);
  // Nothing is left to warn of but the checkpoint's fp8 arithmetic and the H200's elementwise
  // kernels, which its tables did not measure: the module is the target's own checkpoint, priced whole.
  REQUIRE(mtp.contains("warnings"));
  REQUIRE(mtp["warnings"].is_array());
  REQUIRE(mtp["warnings"].size() == 2);
  CHECK_THAT(mtp["warnings"][0].get<std::string>(), Catch::StartsWith("the linears compute in fp8: the checkpoint"));
  CHECK_THAT(mtp["warnings"][1].get<std::string>(),
             Catch::StartsWith("the NVIDIA H200 SXM's kernel tables did not measure elementwise: "));
  CHECK(plain["warnings"].dump().find("nor is speculative decoding") != std::string::npos);
  // The module's weights and its layer of cache come off the blocks.
  CHECK(mtp["server"]["kv_blocks"].get<long>() < plain["server"]["kv_blocks"].get<long>());
}

TEST_CASE("simulate DeepSeek-V3 with --dp-attention: the ranks serve their own requests, and a pipeline is refused by flag") {
  std::vector<std::string> a{"simulate", "--model", "deepseek-v3", "--gpu", "h200", "--tp", "8", "--ep", "8",
                             "--rate", "4", "--prompt", "1000", "--gen", "100", "--duration", "20s", "--format", "json"};
  const auto tp = run_cli(a);
  a.emplace_back("--dp-attention");
  const auto dp = run_cli(a);
  INFO(dp.err);
  REQUIRE(tp.code == 0);
  REQUIRE(dp.code == 0);
  const auto t = nlohmann::json::parse(tp.out), d = nlohmann::json::parse(dp.out);
  CHECK(d["dp_attention"] == true);
  CHECK(d["served"] == t["served"]);
  // Each rank caches only its own sequences' latents: far more blocks than under TP 8, where
  // every GPU holds every sequence's.
  CHECK(d["server"]["kv_blocks"].get<long>() > 4 * t["server"]["kv_blocks"].get<long>());
  a.insert(a.end(), {"--pp", "2"});
  check_error(run_cli(a), "--pp", "micro-batches in flight");
}

TEST_CASE("simulate under --dp-attention: errors say a rank's share, a dense draft at EP 8 is refused by --speculative") {
  const auto deepseek = [](std::vector<std::string> extra) {
    std::vector<std::string> a{"simulate", "--model", "deepseek-v3", "--gpu", "h200", "--tp", "8", "--ep", "8",
                               "--rate", "1", "--gen", "10", "--duration", "5s"};
    a.insert(a.end(), extra.begin(), extra.end());
    if (std::find(a.begin(), a.end(), "--prompt") == a.end()) a.insert(a.end(), {"--prompt", "1000"});
    return run_cli(a);
  };
  check_error(deepseek({"--speculative", "2:0.5:llama-2-7b"}), "--speculative",
              "runs in the target's layout, and --ep: expert parallelism needs a model with experts");
  // At --reserve 0.31 the cache holds 52 blocks of 4096 tokens, 6 a rank: a prompt of 30000
  // tokens fits the cache but not a rank's share, and the error says which. Chunked: whole, its
  // 30000-token step's activations would leave no cache at all.
  check_error(deepseek({"--dp-attention", "--prompt", "30000", "--block-tokens", "4096", "--reserve", "0.31",
                        "--chunked-prefill"}),
              "simulate", "than the KV cache one attention rank holds");
  // At 0.321 it holds 5 blocks: fewer than the 8 ranks, none of which could hold a sequence.
  check_error(deepseek({"--dp-attention", "--block-tokens", "4096", "--reserve", "0.321"}), "--dp-attention",
              "holds 5 blocks of 4096 tokens, fewer than its 8 ranks");
  // Speculation is tried at every batch of the replica: 8 ranks of --max-batch 4.
  const auto spec = deepseek({"--dp-attention", "--max-batch", "4", "--speculative", "1:0.8:mtp", "--format", "json"});
  INFO(spec.err);
  REQUIRE(spec.code == 0);
  CHECK(nlohmann::json::parse(spec.out)["speculative"]["max_batch"] == 32);
}

// Issue 25, real traffic: the Azure LLM inference traces (Splitwise's, ../shared/traces) name
// their columns arrived_at, num_prefill_tokens and num_decode_tokens; --trace-rate replays one at
// another mean rate, every gap scaled alike.
TEST_CASE("simulate: a trace in the Azure traces' columns is read as one in its own") {
  const auto azure = run_cli(sim({"--arrivals", data_file("traces/azure_columns.csv"), "--format", "json"}));
  REQUIRE(azure.code == 0);
  const auto j = nlohmann::json::parse(azure.out);
  CHECK(j.at("served") == 5);
  check_error(run_cli(sim({"--arrivals", data_file("traces/both_names.csv")})),
              data_file("traces/both_names.csv") + ":1:", "column `num_prefill_tokens`: given twice (as `prompt_tokens` before)");
}

TEST_CASE("simulate: --duration counts from a trace's first arrival, rescaled or not") {
  // Rows cut from a trace's 1000th second: "no request arrives before 3 s" until session 45,
  // though --trace-rate (which counts from the first) ran them.
  const auto csv = std::filesystem::temp_directory_path() / "rooflineplan-late-trace.csv";
  std::ofstream(csv) << "arrived_at,num_prefill_tokens,num_decode_tokens\n1000.0,374,44\n1001.5,396,20\n1005.0,91,16\n";
  const auto r = run_cli(sim({"--arrivals", csv.string(), "--duration", "3s"}));
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("2 requests arriving within 3 s of its first (--duration leaves out the 1 after)"));
  std::filesystem::remove(csv);
}

TEST_CASE("simulate: a trace runs from its first arrival, so an arrival far from 0 keeps every step's time") {
  // Llama-2-7B on an A100-80GB, one request of 512 prompt tokens and 64 outputs: TTFT 38.5 ms, TPOT
  // 9.73 ms, end to end 651 ms at arrival 0. A double's spacing at 10^15 s is 0.125 s, past every
  // step: run on the trace's own clock, each latency was 0 s, and at 1.7e12 (Unix milliseconds)
  // TPOT drifted to 9.77 ms. A fleet and a disaggregated pair run the same requests.
  const auto at = [](const std::string& arrival, std::vector<std::string> extra) {
    const std::string name = "far-" + arrival + ".csv";
    test::write_temp(name, "arrival_s,prompt_tokens,output_tokens\n" + arrival + ",512,64\n");
    std::vector<std::string> args{"simulate", "-m", "llama-2-7b", "-g", "a100-80gb", "--arrivals",
                                  test::temp_file(name), "-f", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_cli(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out);
  };
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, {"--replicas", "2"}, {"--disaggregate", "1:1"}}) {
    const auto zero = at("0", extra);
    CHECK(zero.at("ttft").at("mean").get<double>() > 0.03);
    for (const std::string arrival : {"1e15", "1.7e12", "1700000000"}) {
      INFO(arrival << (extra.empty() ? "" : " " + extra[0]));
      const auto far = at(arrival, extra);
      for (const char* key : {"ttft", "tpot", "e2e"}) {
        CHECK(far.at(key).at("mean").get<double>() == Approx(zero.at(key).at("mean").get<double>()).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("simulate --requests-out: a trace's rows keep the arrivals it gave them") {
  // The run counts from the first arrival; the rows are on the trace's own clock, so each is found
  // by its arrival there: 1700000000.25 and 1700000000.75 (Unix seconds), half a second apart.
  test::write_temp("unix-times.csv", "arrival_s,prompt_tokens,output_tokens\n1700000000.25,512,64\n1700000000.75,512,64\n");
  const std::string csv = test::temp_file("unix-times-out.csv");
  const auto r = run_cli({"simulate", "-m", "llama-2-7b", "-g", "a100-80gb", "--arrivals", test::temp_file("unix-times.csv"),
                          "--requests-out", csv});
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 3);
  CHECK_THAT(lines[1], Catch::StartsWith("0,1700000000.25,512,0,64,served,"));
  CHECK_THAT(lines[2], Catch::StartsWith("1,1700000000.75,512,0,64,served,"));
  // first_token_s is on that clock too: its arrival plus its TTFT, to the clock's spacing there
  // (2.4e-7 s at 1.7e9).
  const std::vector<std::string> cells = [&] {
    std::vector<std::string> out;
    std::stringstream row(lines[1]);
    for (std::string cell; std::getline(row, cell, ',');) out.push_back(cell);
    return out;
  }();
  REQUIRE(cells.size() == 13);
  CHECK(std::stod(cells[7]) - 1700000000.25 == Approx(std::stod(cells[9])).margin(5e-7));
}

TEST_CASE("simulate: --trace-rate scales a trace's gaps to a mean rate, and is refused without one") {
  // azure_columns.csv: 5 requests over 10 s, 0.4 a second from first to last (4 gaps). At 2 a
  // second every gap is a fifth: the last arrives at 2 s, so --duration 3s holds all five, where it
  // held the first alone (the second arrives at 4.3 s, scaled 0.86 s).
  const auto at = [](std::vector<std::string> extra) {
    std::vector<std::string> args{"--arrivals", data_file("traces/azure_columns.csv"), "--duration", "3s"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(sim(args));
  };
  const auto plain = at({}), fast = at({"--trace-rate", "2"});
  REQUIRE(plain.code == 0);
  REQUIRE(fast.code == 0);
  CHECK_THAT(plain.out, Catch::Contains("1 requests arriving within 3 s of its first"));
  CHECK_THAT(fast.out, Catch::Contains("its 0.4 requests/s scaled to 2: 5 requests arriving within 3 s of its first"));
  check_error(run_cli(sim({"--rate", "5", "--prompt", "100", "--gen", "10", "--trace-rate", "2"})), "--trace-rate",
              "only with a trace");
  check_error(at({"--trace-rate", "0"}), "--trace-rate", "must be above 0");
  check_error(run_cli(sim({"--arrivals", data_file("traces/one_request.csv"), "--trace-rate", "2"})), "--trace-rate",
              "no time between its first and last arrival");
}

TEST_CASE("simulate: --prompt and --gen draw from a file's column with empirical:FILE[:COLUMN]") {
  // azure_columns.csv: prompts 374, 396, 879, 91, 1200 (mean 588), outputs 44, 109, 55, 16, 80
  // (mean 60.8), found by the Azure traces' names without a column.
  const std::string file = data_file("traces/azure_columns.csv");
  const auto r = run_cli(sim({"--rate", "5", "--prompt", "empirical:" + file, "--gen",
                              "empirical:" + file + ":num_decode_tokens", "--duration", "20s"}));
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("prompt empirical (" + file + ":num_prefill_tokens: 5 lengths, mean 588, each drawn alone)"));
  CHECK_THAT(r.out, Catch::Contains("output empirical (" + file + ":num_decode_tokens: 5 lengths, mean 60.8"));
  check_error(run_cli(sim({"--rate", "5", "--prompt", "empirical:" + file + ":prompt", "--gen", "10"})), file + ":1:",
              "no column prompt (it has arrived_at, num_prefill_tokens, num_decode_tokens)");
  check_error(run_cli(sim({"--rate", "5", "--prompt", "empirical:" + data_file("traces/bad_length.csv"), "--gen", "10"})),
              data_file("traces/bad_length.csv") + ":3:", "prompt_tokens: `0` is not a count of tokens, 1 to 10^9");
  check_error(run_cli(sim({"--rate", "5", "--prompt", "empirical:lengths", "--gen", "10"})), "--prompt",
              "empirical:FILE.csv or empirical:FILE:COLUMN");
}

TEST_CASE("simulate: a request alone sees every gap equal to its TPOT, per gap (ITL) as per request") {
  // One request of 128 prompt tokens and 8 outputs: 7 gaps, each one decode step at batch 1, and
  // TPOT is their mean; the ITL percentiles are the same gap, within the histogram's 0.6%.
  const auto r = run_cli(sim({"--arrivals", data_file("traces/one_request.csv"), "--format", "json"}));
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const double tpot = j.at("tpot").at("mean").get<double>();
  CHECK(j.at("itl").at("mean").get<double>() == Approx(tpot).epsilon(1e-9));
  CHECK(j.at("itl").at("p99").get<double>() == Approx(tpot).epsilon(0.006));
  CHECK(j.at("bound").at("itl").at("mean").get<double>() == Approx(j.at("bound").at("tpot").at("mean").get<double>()));
}

TEST_CASE("simulate: a request alone reports ITL percentiles among its gaps, never below the bound's decode step") {
  // Llama-2-7B on A100-80GB, one request of 100 prompt tokens and 3 outputs: 2 gaps. At the roofline
  // each is one decode step at batch 1, 6.5119 ms; the histogram's bin for it (763, 6456.5 to
  // 6531.3 µs) has its middle at 6493.8 µs, 0.28% below every gap the run had. Its percentiles are
  // a gap it had; the expected run's (9.5700 ms a gap, its percentiles 9.5703 ms) never pass its
  // greatest gap, so per gap and per request agree.
  test::write_temp("one-request-three.csv", "arrival_s,prompt_tokens,output_tokens\n0,100,3\n");
  const auto r = run_cli({"simulate", "-m", "llama-2-7b", "-g", "a100-80gb", "--arrivals",
                          test::temp_file("one-request-three.csv"), "-f", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& bound = j.at("bound").at("itl");
  CHECK(bound.at("mean").get<double>() == Approx(6.5119e-3).epsilon(1e-4));
  for (const char* p : {"p50", "p90", "p99"}) {
    INFO(p);
    // The two gaps differ by 2.5e-5 of one (the context grows a token): within 1e-4 of their mean.
    CHECK(bound.at(p).get<double>() == Approx(bound.at("mean").get<double>()).epsilon(1e-4));
    CHECK(j.at("itl").at(p).get<double>() == Approx(j.at("tpot").at(p).get<double>()).epsilon(1e-4));
  }
  CHECK(j.at("itl").at("mean").get<double>() == Approx(9.5700e-3).epsilon(1e-4));
}

TEST_CASE("simulate: under load a prefill stalls the decodes beside it, so ITL's p99 passes TPOT's") {
  // The Azure-named five requests at 20 a second: prompts of up to 1200 tokens prefill whole in
  // the steps of the running decodes, a gap far above the mean gap a request sees.
  const auto r = run_cli(sim({"--arrivals", data_file("traces/azure_columns.csv"), "--trace-rate", "20", "--format", "json"}));
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("itl").at("p99").get<double>() > j.at("tpot").at("p99").get<double>());
}

TEST_CASE("simulate --requests-out: a row a request, in arrival order, served or dropped once each") {
  // Three requests on a model of 1024 tokens of context: the 5000-token prompt is dropped, its
  // times empty; the one-token request has no TPOT; each finish is its arrival plus its end to end.
  const std::string csv = (std::filesystem::temp_directory_path() / "rooflineplan-requests-out.csv").string();
  const std::string jsonl = (std::filesystem::temp_directory_path() / "rooflineplan-requests-out.jsonl").string();
  const std::vector<std::string> args = {"simulate", "-m", data_file("good/short-context.yaml"), "-g", "h100-sxm",
                                         "--arrivals", data_file("traces/one_too_long.csv")};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = args;
    a.insert(a.end(), extra.begin(), extra.end());
    return run_cli(a);
  };
  REQUIRE(with({"--requests-out", csv}).code == 0);
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 4);
  CHECK_THAT(lines[0], Catch::StartsWith("request,arrival_s,prompt_tokens,cached_tokens,output_tokens,status,"));
  CHECK_THAT(lines[1], Catch::StartsWith("0,0,100,0,10,served,"));
  // The last column, the replica, is 0 for each: one replica. A dropped request had nothing cached.
  CHECK(lines[2] == "1,0.01,5000,,10,dropped_longer_than_context,,,,,,,0\r");
  CHECK_THAT(lines[3], Catch::StartsWith("2,0.02,200,0,1,served,") && Catch::EndsWith(",,0,0\r"));
  REQUIRE(with({"--requests-out", jsonl}).code == 0);
  std::ifstream jin(jsonl);
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(jin, line);) rows.push_back(nlohmann::json::parse(line));
  REQUIRE(rows.size() == 3);
  for (const auto& row : rows) {
    if (row.at("status") != "served") continue;
    CHECK(row.at("finish_s").get<double>() >= row.at("first_token_s").get<double>());
    CHECK(row.at("first_token_s").get<double>() - row.at("arrival_s").get<double>() ==
          Approx(row.at("ttft_s").get<double>()).epsilon(1e-12));
  }
  CHECK(rows[1].at("ttft_s").is_null());
  std::filesystem::remove(csv);
  std::filesystem::remove(jsonl);
  check_error(with({"--requests-out", "requests.txt"}), "--requests-out requests.txt", "a .csv or a .jsonl file");
}

TEST_CASE("simulate --requests-out: cached_tokens is what the replica's cache held, and a request no replica took has none") {
  // One prefix group over 2 replicas: the first request on each finds nothing cached (its TTFT a
  // whole prompt's); the file's column sums to the run's cached_tokens.
  const std::string csv = (std::filesystem::temp_directory_path() / "rooflineplan-requests-cached.csv").string();
  const auto r = run_cli({"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "1", "--prompt", "1024", "--gen",
                          "10", "--duration", "6s", "--replicas", "2", "--prefix-hit", "0.5", "--prefix-groups", "1",
                          "--requests-out", csv, "-f", "json"});
  REQUIRE(r.code == 0);
  const double run_cached = nlohmann::json::parse(r.out).at("cached_tokens").get<double>();
  const std::string text = test::read_text(csv);
  const auto rows = io::csv_records(text, csv);
  double file_cached = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) file_cached += std::stod(rows[i].cells.at(3));
  CHECK(file_cached == run_cached);
  CHECK(rows.at(1).cells.at(3) == "0");  // the first of the group on replica 0
  CHECK(rows.at(2).cells.at(3) == "0");  // and on replica 1
  std::filesystem::remove(csv);
  // Disaggregated, a prompt too long for the context is dropped before any decode replica takes it.
  const std::string dd = (std::filesystem::temp_directory_path() / "rooflineplan-requests-dropped.csv").string();
  REQUIRE(run_cli({"simulate", "-m", "llama-2-7b", "-g", "h100-sxm", "--rate", "5", "--prompt", "lognormal:3000:0.5",
                   "--gen", "100", "--duration", "30s", "--disaggregate", "1:2", "--requests-out", dd})
              .code == 0);
  const std::string dtext = test::read_text(dd);
  const auto drows = io::csv_records(dtext, dd);
  long dropped = 0;
  for (std::size_t i = 1; i < drows.size(); ++i) {
    if (drows[i].cells.at(5) == "served") continue;
    ++dropped;
    CHECK(drows[i].cells.back().empty());
  }
  CHECK(dropped > 0);
  std::filesystem::remove(dd);
}

TEST_CASE("simulate: on a cache-filling workload the bound replays without thrashing, above both admissions") {
  // 20000 prompt and 2000 output tokens a request at one a second on one H100: growing blocks, the
  // expected run preempts and recomputes without end; reserving whole lengths at admission it never
  // preempts. The bound's replay takes the admission that cannot thrash, and stays above both.
  auto run = [](const std::string& admission) {
    const auto r = run_cli(sim({"--rate", "1", "--prompt", "20000", "--gen", "2000", "--duration", "120s",
                                "--chunked-prefill", "--admission", admission, "--format", "json"}));
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto grow = run("grow"), reserve = run("reserve");
  CHECK(grow.at("preemptions").get<long>() > 0);
  CHECK(reserve.at("preemptions") == 0);
  CHECK(grow.at("server").at("admission") == "grow");
  CHECK(grow.at("bound").at("admission") == "grow and reserve");
  CHECK(reserve.at("bound").at("admission") == "reserve");
  // Each latency of the bound is the better replay's: never above the expected run's.
  for (const auto* key : {"ttft", "tpot", "itl", "e2e", "queue_wait"}) {
    for (const auto* p : {"p50", "p99"}) {
      CHECK(grow.at("bound").at(key).at(p).get<double>() <= grow.at(key).at(p).get<double>());
    }
  }
  const double bound = grow.at("bound").at("output_tokens_per_s").get<double>();
  CHECK(bound >= grow.at("output_tokens_per_s").get<double>());
  CHECK(bound >= reserve.at("output_tokens_per_s").get<double>());
  CHECK(reserve.at("output_tokens_per_s").get<double>() > grow.at("output_tokens_per_s").get<double>());
  const auto bad = run_cli(sim({"--rate", "1", "--prompt", "10", "--gen", "10", "--admission", "evict"}));
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::StartsWith("error: --admission: evict not in {grow,reserve}"));
}

TEST_CASE("simulate --replicas 4 --router round-robin: a fleet, each request's replica in --requests-out") {
  const std::string csv = "simulate_fleet_requests.csv";
  const auto r = run_cli(sim({"--rate", "40", "--prompt", "256", "--gen", "32", "--duration", "10s", "--replicas", "4",
                              "--router", "round-robin", "--requests-out", csv, "--format", "json"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const long n = j["traffic"]["requests"].get<long>();
  CHECK(j["fleet"]["replicas"] == 4);
  CHECK(j["fleet"]["router"] == "round-robin");
  // Round robin deals n requests as ceil(n/4) to the first n mod 4 replicas and floor(n/4) to the rest.
  const auto per = j["fleet"]["requests_per_replica"].get<std::vector<long>>();
  REQUIRE(per.size() == 4);
  for (long k = 0; k < 4; ++k) CHECK(per[static_cast<std::size_t>(k)] == n / 4 + (k < n % 4 ? 1 : 0));
  CHECK(j["served"].get<long>() + j["dropped"].get<long>() == n);
  CHECK(j["fleet"]["imbalance"].get<double>() == Approx(static_cast<double>(per[0]) / (static_cast<double>(n) / 4)));
  // The bound, run as a fleet behind the same router, stays a bound.
  CHECK(j["bound"]["tpot"]["mean"].get<double>() < j["tpot"]["mean"].get<double>());
  // A row a request in arrival order, the last column its replica: request i went to i mod 4.
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  CHECK(line == "request,arrival_s,prompt_tokens,cached_tokens,output_tokens,status,first_step_s,first_token_s,"
                "finish_s,ttft_s,tpot_s,preemptions,replica\r");
  long rows = 0;
  while (std::getline(in, line)) {
    const std::string replica = line.substr(line.rfind(',') + 1);
    CHECK(replica == std::to_string(rows % 4) + "\r");
    ++rows;
  }
  CHECK(rows == n);
  std::remove(csv.c_str());
  // The table names the fleet and its deal.
  const auto table = run_cli(sim({"--rate", "40", "--prompt", "256", "--gen", "32", "--duration", "10s", "--replicas",
                                  "4", "--router", "least-loaded"}));
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("4 replicas, continuous batching") &&
                            Catch::Contains("fleet: 4 replicas behind a least-loaded router"));
}

TEST_CASE("simulate --replicas 1 is the one-replica run whatever the router, the same document but its arguments") {
  const std::vector<std::string> base{"--rate", "20", "--prompt", "lognormal:512:0.8", "--gen", "lognormal:128:0.8",
                                      "--duration", "30s", "--format", "json"};
  auto alone = nlohmann::json::parse(run_cli(sim(base)).out);
  for (const char* router : {"round-robin", "random", "least-loaded", "prefix-affinity"}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--replicas", "1", "--router", router});
    auto one = nlohmann::json::parse(run_cli(sim(args)).out);
    CHECK(one.contains("fleet") == false);
    one.erase("inputs");
    auto expected = alone;
    expected.erase("inputs");
    CHECK(one == expected);
  }
}

TEST_CASE("simulate: bad --replicas and --router are refused by name with exit 2") {
  const auto with = [](std::vector<std::string> extra) {
    std::vector<std::string> a{"--rate", "5", "--prompt", "100", "--gen", "10", "--duration", "10s"};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_cli(sim(a));
  };
  check_error(with({"--replicas", "0"}), "--replicas", "must be 1 to 100000, got 0");
  check_error(with({"--replicas", "-3"}), "--replicas", "must be 1 to 100000, got -3");
  const auto router = with({"--replicas", "2", "--router", "fastest"});
  CHECK(router.code == 2);
  CHECK_THAT(router.err, Catch::Contains("--router") && Catch::Contains("fastest"));
  CHECK(with({"--replicas", "two"}).code == 2);
  check_error(with({"--prefix-groups", "-1"}), "--prefix-groups", "must be 0 to");
  // Without groups prefix-affinity is least-loaded under another name, as plan says too.
  check_error(with({"--replicas", "2", "--router", "prefix-affinity"}), "--router", "this traffic has none");
  CHECK(with({"--replicas", "2", "--router", "prefix-affinity", "--prefix-groups", "3"}).code == 0);
  // 2000 replicas read at each of some 2 x 10^6 arrivals is past the work a run may take.
  check_error(run_cli(sim({"--rate", "20000", "--prompt", "100", "--gen", "10", "--duration", "100s", "--replicas",
                           "2000", "--router", "least-loaded"})),
              "--replicas and --router", "reads all 2000 replicas' loads");
}

TEST_CASE("simulate --prefix-groups with --router prefix-affinity keeps each group's prefix on one replica") {
  // 2000-token prompts, 80% of each cached (1600 tokens) once its group is warm on the replica.
  const auto run = [](const char* router) {
    return nlohmann::json::parse(run_cli(sim({"--rate", "20", "--prompt", "2000", "--gen", "20", "--duration", "30s",
                                              "--prefix-hit", "0.8", "--prefix-groups", "8", "--replicas", "4",
                                              "--router", router, "--format", "json"}))
                                     .out);
  };
  const auto affine = run("prefix-affinity"), robin = run("round-robin");
  const double n = affine["traffic"]["requests"].get<double>();
  CHECK_THAT(affine["traffic"]["description"].get<std::string>(), Catch::EndsWith(", 8 prefix groups"));
  // Each group's first request computes its whole prompt: 8 of them behind affinity, one a group
  // on every replica (32) behind round robin.
  CHECK(affine["cached_tokens"].get<double>() == 1600 * (n - 8));
  CHECK(robin["cached_tokens"].get<double>() == 1600 * (n - 32));
}

TEST_CASE("simulate: a windowed model's sequences hold their windows' blocks only - Gemma 3 runs the batch its plan does") {
  // Gemma-3-27B on an H200 at 32768 + 1024 tokens: its plan holds 24 sequences (10 full layers
  // and 52 of 1024 tokens). Counting every block at every layer, the simulated replica ran 5 of
  // them and preempted 9362 times in 120 s.
  const auto r = test::run_cli({"simulate", "-m", "gemma-3-27b", "-g", "h200", "--engine", "vllm", "--prompt", "32768",
                                "--gen", "1024", "--rate", "1", "--duration", "120s", "-f", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["peak_running"].get<double>() >= 22);
  CHECK(j["mean_running"].get<double>() > 20);
  CHECK(j["warnings"].dump().find("a sequence holds their blocks for its last tokens only") != std::string::npos);
  // At 65536 + 1024 on an H100 one sequence holds 5.9 GB of a 21 GB cache; counted whole (34 GB)
  // every request was dropped as larger than the cache.
  const auto h100 = test::run_cli({"simulate", "-m", "gemma-3-27b", "-g", "h100-sxm", "--engine", "vllm", "--prompt",
                                   "65536", "--gen", "1024", "--rate", "0.05", "--duration", "300s", "-f", "json"});
  REQUIRE(h100.code == 0);
  CHECK(nlohmann::json::parse(h100.out)["dropped_no_room"] == 0);
}

TEST_CASE("simulate: windowed blocks - reserved whole they are never handed back, a draft's windows count, speculation's batch sees them") {
  // TensorRT-LLM reserves a request's whole length at admission: for a windowed sequence fewer
  // blocks than its tokens over 16, and the next step's growth came out negative, returned the
  // reservation to the pool and preempted 5 times in 120 s (GUARANTEED_NO_EVICT never preempts).
  const auto trt = test::run_cli({"simulate", "-m", "gemma-3-27b", "-g", "h200", "--engine", "trtllm", "--chunked-prefill",
                                  "--prompt", "32768", "--gen", "1024", "--rate", "1", "--duration", "120s", "-f", "json"});
  REQUIRE(trt.code == 0);
  CHECK(nlohmann::json::parse(trt.out)["preemptions"] == 0);
  // A Gemma 4 draft beside Gemma-4-31B at tp 2: per token the target's 901120 B (819200 in its
  // sliding layers) and the draft's 225280 B (204800): 1024000 / 1126400 of a block keeps 1024
  // tokens. A 131000-token sequence: 8188 blocks less 0.909 x (8188 - 65) = 804 (with the
  // target's share alone, 2281).
  const auto draft = test::run_cli({"simulate", "-m", "gemma-4-31b", "-g", "h200", "--tp", "2", "--speculative",
                                    "3:0.7:gemma-4-26b-a4b", "--prompt", "131000", "--gen", "1", "--rate", "0.001",
                                    "--duration", "3000s", "-f", "json"});
  REQUIRE(draft.code == 0);
  const auto d = nlohmann::json::parse(draft.out);
  CHECK(d["peak_kv_share"].get<double>() * d["server"]["kv_blocks"].get<double>() == Approx(804).margin(0.5));
  // Speculation's batches stop where the cache does: 25 Gemma 3 sequences at 32768 + 1024 on an
  // H200, not the 4 of blocks counted at every layer.
  const auto spec = test::run_cli({"simulate", "-m", "gemma-3-27b", "-g", "h200", "--engine", "vllm", "--prompt", "32768",
                                   "--gen", "1024", "--rate", "1", "--duration", "60s", "--speculative", "3:0.7", "-f",
                                   "json"});
  REQUIRE(spec.code == 0);
  CHECK(nlohmann::json::parse(spec.out)["speculative"]["max_batch"] == 25);
}

TEST_CASE("simulate --engine trtllm, unchunked: a prompt waits for the decodes to leave it room in max_num_tokens") {
  // A budget of 1000 and prompts of 900: TensorRT-LLM admits one beside 100 decodes at most (100 +
  // 900 = 1000), so 101 run at most. The simulator's own rule ran each alone and held 159.
  const auto r = run_cli(sim({"--engine", "trtllm", "--max-batched-tokens", "1000", "--max-batch", "400", "--prompt",
                              "900", "--gen", "2000", "--rate", "8", "--duration", "120s", "--format", "json"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["peak_running"] == 101);
  CHECK(j["server"]["unchunked_fit"] == "stop");
  CHECK(j["engine"]["defaults"]["unchunked_fit"] == "stop");
  const auto table = run_cli(sim({"--engine", "trtllm", "--max-batched-tokens", "1000", "--max-batch", "400", "--prompt",
                                  "900", "--gen", "20", "--rate", "8", "--duration", "10s"}));
  CHECK_THAT(table.out, Catch::Contains("whole prefills, a prompt past the budget's rest waits with those behind it"));
}

TEST_CASE("simulate --engine sglang runs its prefill steps apart from its decodes, as SGLang does without --enable-mixed-chunk") {
  const auto r = run_cli(sim({"--engine", "sglang", "--prompt", "2000", "--gen", "50", "--rate", "10", "--duration",
                              "10s", "--format", "json"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["server"]["mixed_steps"] == false);
  CHECK(j["engine"]["defaults"]["mixed_steps"] == false);
  const auto table = run_cli(sim({"--engine", "sglang", "--prompt", "2000", "--gen", "50", "--rate", "10", "--duration", "10s"}));
  CHECK_THAT(table.out, Catch::Contains("chunked prefills, prefill steps apart from decode steps (the decodes wait)"));
  CHECK_THAT(table.out, Catch::Contains("prefill steps apart from decode steps (no --enable-mixed-chunk)"));
  // Without --engine a step mixes them, as before.
  const auto own = nlohmann::json::parse(run_cli(sim({"--prompt", "2000", "--gen", "50", "--rate", "10", "--duration",
                                                     "10s", "--format", "json"})).out);
  CHECK(own["server"]["mixed_steps"] == true);
  CHECK(own["server"]["unchunked_fit"] == "alone");
}

TEST_CASE("simulate: unchunked, the cache is sized beside the longest prompt's step, not the budget's") {
  // Gemma-3-27B on an H100: beside a step of 8192 tokens the memory left 2611 blocks, but a
  // 32000-token prompt runs whole in a step of its own; beside that step's activations, 2296, as
  // --max-batched-tokens 32000 gives.
  const std::vector<std::string> base{"--model", "gemma-3-27b", "--gpu", "h100-sxm", "--rate", "1", "--prompt", "32000",
                                      "--gen", "10", "--duration", "3s", "--format", "json"};
  const auto blocks = [&](std::vector<std::string> extra) {
    std::vector<std::string> a{"simulate"};
    a.insert(a.end(), base.begin(), base.end());
    a.insert(a.end(), extra.begin(), extra.end());
    const auto r = run_cli(a);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out)["server"];
  };
  const auto whole = blocks({}), budget = blocks({"--max-batched-tokens", "32000"}), chunked = blocks({"--chunked-prefill"});
  CHECK(whole["kv_blocks"] == 2296);
  CHECK(whole["cache_step_tokens"] == 32000);
  CHECK(budget["kv_blocks"] == 2296);
  CHECK(chunked["kv_blocks"] == 2611);
  CHECK(chunked["cache_step_tokens"] == 8192);
}

TEST_CASE("simulate: unchunked, a request the server drops sizes no step - longer than the context, larger than the cache") {
  // Llama-3.1-8B holds 131072 tokens: a request of 131000 + 100 is dropped on arrival and never
  // runs its step. A block of 16 tokens is 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes x 16
  // = 2 MiB; on an H100 the memory beside the budget's step (8192 tokens) holds 28755 of them,
  // 60.3 GB, as the trace without the long row gives. Sized beside 131000 tokens it kept 24437
  // (51.2 GB): 4318 blocks, 9.06 GB, for 122808 tokens more of activations, 73.7 kB a token.
  const auto json = [](const std::string& name, const std::string& rows, const std::string& gpu) {
    test::write_temp(name, "arrival_s,prompt_tokens,output_tokens\n" + rows);
    return run_cli({"simulate", "-m", "llama-3.1-8b", "-g", gpu, "--arrivals", test::temp_file(name), "-f", "json"});
  };
  const auto parse = [](const test::CliResult& r) {
    INFO(r.err);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto too_long = parse(json("drop-long.csv", "0,512,64\n1,131000,100\n", "h100-sxm"));
  CHECK(too_long["server"]["kv_blocks"] == 28755);
  CHECK(too_long["server"]["cache_step_tokens"] == 8192);
  CHECK(too_long["served"] == 1);
  CHECK(too_long["dropped_too_long"] == 1);
  // A prompt of 32000 served beside it still sizes the cache: 23808 tokens past the budget at
  // 73.7 kB is 1.75 GB, 837 blocks: 27918.
  const auto served = parse(json("drop-long-32k.csv", "0,512,64\n1,32000,10\n2,131000,100\n", "h100-sxm"));
  CHECK(served["server"]["kv_blocks"] == 27918);
  CHECK(served["server"]["cache_step_tokens"] == 32000);
  CHECK(served["served"] == 2);
  // On an L4 (24 GB, 16 GB of weights) the 131000-token step left no room for a cache, and the run
  // was refused. Beside the budget's step 2418 blocks remain, 38688 tokens: 60000 + 1000 need 3813
  // blocks, more than the cache holds, and beside its own step (597 blocks) fewer still, so that
  // request is dropped as larger than the cache and sizes nothing either; 512 + 1 is served.
  const auto l4 = parse(json("drop-l4.csv", "0,131000,100\n0.5,512,1\n1,60000,1000\n", "l4"));
  CHECK(l4["server"]["kv_blocks"] == 2418);
  CHECK(l4["server"]["cache_step_tokens"] == 8192);
  CHECK(l4["served"] == 1);
  CHECK(l4["dropped_too_long"] == 1);
  CHECK(l4["dropped_no_room"] == 1);
  // The text says the step the cache was sized beside only where it is a prompt's past the budget.
  test::write_temp("drop-long-text.csv", "arrival_s,prompt_tokens,output_tokens\n0,512,64\n1,131000,100\n");
  const auto text = run_cli({"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--arrivals",
                             test::temp_file("drop-long-text.csv")});
  REQUIRE(text.code == 0);
  CHECK_THAT(text.out, Catch::Contains("KV cache 28755 blocks of 16 tokens (60.3 GB)\n"));
  const auto text32k = run_cli({"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--arrivals",
                                test::temp_file("drop-long-32k.csv")});
  REQUIRE(text32k.code == 0);
  CHECK_THAT(text32k.out, Catch::Contains("beside the activations of the longest prompt's step (32000 tokens, whole)"));
  // TensorRT-LLM unchunked rejects a prompt past its budget (8192), but one the server drops as
  // longer than the context is no prompt it runs: the run is not refused over it (it was, asking
  // for a budget of 131000 tokens), and drops it.
  const auto trtllm = run_cli({"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--engine", "trtllm", "--arrivals",
                               test::temp_file("drop-long.csv"), "-f", "json"});
  CHECK(parse(trtllm)["dropped_too_long"] == 1);
}
