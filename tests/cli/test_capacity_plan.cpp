// The plan command: several GPUs ranked, bad targets refused. The plans themselves are worked by
// hand in tests/model/test_capacity_plan.cpp.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include <unistd.h>

#include "cli_runner.hpp"

using namespace roofline;

TEST_CASE("plan: several GPUs are ranked by cost - the cheapest first") {
  const auto r = test::run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h200,a100-80gb,l4", "--price", "4.5,1.8,0.8",
                                "--rate", "20", "-f", "csv"});
  REQUIRE(r.code == 0);
  const auto a100 = r.out.find("NVIDIA A100"), h200 = r.out.find("NVIDIA H200"), l4 = r.out.find("NVIDIA L4");
  CHECK(a100 < h200);
  CHECK(h200 < l4);  // the L4 cannot meet TPOT 50 ms: last
  CHECK_THAT(r.out, Catch::StartsWith("gpu_name,tp,pp,ep,dp_attention,compute,warnings,gpus_per_replica,sized_on,feasible,reason,batch,"));
}

TEST_CASE("plan: bad targets exit 2 naming the flag") {
  const auto bare = test::run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--tpot", "50"});
  CHECK(bare.code == 2);
  CHECK_THAT(bare.err, Catch::Contains("--tpot: \"50\" has no unit"));
  const auto prices = test::run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb,h100-sxm,l4", "--price", "1,2"});
  CHECK(prices.code == 2);
  CHECK_THAT(prices.err, Catch::Contains("one per GPU (3), not 2"));
}

TEST_CASE("plan --search: DeepSeek-V3.2 on H200 - data-parallel attention ahead at 512-token prompts, behind at 4096") {
  const auto search = [](const std::string& prompt) {
    return test::run_cli({"plan", "-m", test::data_file("hf-configs/deepseek-v3.2.json"), "-g", "h200", "--rate", "20",
                          "-p", prompt, "--gen", "1024", "--tpot", "50ms", "--ttft", "2s", "--search", "-f", "csv"});
  };
  const auto r = search("512");
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("gpu_name,tp,pp,ep,dp_attention,compute,warnings,gpus_per_replica,"));
  // Within a node, tp 8 with ep 8 and data-parallel attention needs fewer GPUs than tp 8 alone,
  // which caches the 576-wide latent on all 8 GPUs and fits a smaller batch: 48 GPUs against 56.
  // The checkpoint's fp8 activations: every row computes in fp8, and says why.
  const auto dp = r.out.find("NVIDIA H200 SXM,8,1,8,true,fp8,"), tp = r.out.find("NVIDIA H200 SXM,8,1,1,false,fp8,");
  REQUIRE(tp != std::string::npos);
  CHECK(dp < tp);
  CHECK_THAT(r.out, Catch::Contains("the linears compute in fp8: the checkpoint quantizes their inputs"));
  const std::string rows = r.out.substr(r.out.find('\n') + 1);
  CHECK_THAT(rows, Catch::StartsWith("NVIDIA H200 SXM,8,1,8,true,fp8,"));
  // 4096-token prompts: each is a step of its rank that all eight ranks wait on (the experts are
  // shared), so the larger batch no longer pays for the stalls, and tp 8 needs fewer GPUs.
  const auto long_prompts = search("4096");
  REQUIRE(long_prompts.code == 0);
  const auto tp_long = long_prompts.out.find("NVIDIA H200 SXM,8,1,1,false,fp8,"),
             dp_long = long_prompts.out.find("NVIDIA H200 SXM,8,1,8,true,fp8,");
  REQUIRE(dp_long != std::string::npos);
  CHECK(tp_long < dp_long);
  // One H200 (141 GB) cannot hold 674 GB of weights: such layouts are counted, not listed.
  CHECK(r.out.find("NVIDIA H200 SXM,1,1,1,") == std::string::npos);
  // The table says how many there were (machine formats leave notes out).
  const auto table = test::run_cli({"plan", "-m", test::data_file("hf-configs/deepseek-v3.2.json"), "-g", "h200",
                                    "--search"});
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("layouts searched leave no room for one sequence beside the weights"));
}

TEST_CASE("plan --search: a layout of its grid the engine refuses is said with why, and layout flags beside it are refused") {
  // Qwen3-30B-A3B's 768-wide experts in fp8 blocks: tp 4 and 8 without ep split them through the
  // blocks; with ep = tp each GPU holds whole experts.
  const auto r = test::run_cli({"plan", "-m", "qwen3-30b-a3b", "-g", "h100-sxm", "--weights", "fp8-block", "--search",
                                "--rate", "5", "-f", "csv"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  // One line a reason, the GPU said once: tp 4 at each pp the grid tries.
  CHECK_THAT(r.err, Catch::Contains("skipped NVIDIA H100 SXM with tp 4, tp 4 × pp 2, tp 4 × pp 4, tp 4 × pp 8: --tp: tp 4 "
                                    "splits expert_gate's 768 output columns 4 ways, into 192 a GPU"));
  CHECK_THAT(r.out, Catch::Contains("NVIDIA H100 SXM,4,1,4,"));  // tp 4, pp 1, ep 4
  const auto flags = test::run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--search", "--tp", "2",
                                    "--microbatches", "1"});
  CHECK(flags.code == 2);
  CHECK_THAT(flags.err, Catch::Contains("--search: it chooses tp, pp, ep and data-parallel attention itself, and would "
                                        "drop --tp, --microbatches"));
}

TEST_CASE("plan --gen 1: refused naming --gen, a request of one token has no decode step to size replicas by") {
  for (const std::vector<std::string>& extra : {std::vector<std::string>{}, {"--percentile", "99"}, {"--disaggregate"}}) {
    std::vector<std::string> args{"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--gen", "1", "--rate", "100"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = test::run_cli(args);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--gen: 1 output token a request leaves no decode step"));
  }
  CHECK(test::run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--gen", "2", "--rate", "100"}).code == 0);
}

TEST_CASE("plan: --tp, --pp and --ep lists are compared, and a layout the GPU cannot take exits 2") {
  const auto r = test::run_cli({"plan", "-m", "mixtral-8x7b", "-g", "h100-sxm", "--tp", "2,4", "--ep", "1,2", "-f", "csv"});
  REQUIRE(r.code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1 + 4);
  // L40S boards sit 8 to a PCIe host with no network between hosts.
  const auto tp16 = test::run_cli({"plan", "-m", "llama-3.1-70b", "-g", "l40s", "--tp", "16"});
  CHECK(tp16.code == 2);
  CHECK_THAT(tp16.err, Catch::Contains("--tp: 16 GPUs") && Catch::Contains("network"));
  // H100 nodes have one: tp 16 spans two of them.
  CHECK(test::run_cli({"plan", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "16"}).code == 0);
}

TEST_CASE("plan: a row that meets no target leaves batch, TPOT, TTFT and the counts empty (null in JSON), never 0") {
  // Llama-2-70B in fp16 (138 GB) does not fit one A100-80GB: tp 1 is infeasible, tp 4 is not.
  const auto csv = test::run_cli({"plan", "-m", "llama-2-70b", "-g", "a100-80gb", "--tp", "1,4", "-f", "csv"});
  REQUIRE(csv.code == 0);
  const std::string infeasible = csv.out.substr(csv.out.find("\nNVIDIA A100 80GB SXM,1,") + 1);
  // feasible,reason,batch,max_batch,decode_step_time_s,prefill_time_s,tpot_s,ttft_s,...: the
  // reason, then an empty batch, max_batch 0 (none fits), an empty step time, the prefill time.
  CHECK_THAT(infeasible, Catch::StartsWith("NVIDIA A100 80GB SXM,1,1,1,false,fp16,\"the NVIDIA A100 80GB SXM's kernel "
                                           "tables did not measure decode_attention, prefill_attention: ") &&
                             Catch::Contains(",1,expected,false,does not fit: ") &&
                             Catch::Contains(" GB,,0,,0.") &&
                             (Catch::EndsWith(",,,,,,,,,,,,\r\n") || Catch::EndsWith(",,,,,,,,,,,,\n")));
  const auto json = test::run_cli({"plan", "-m", "llama-2-70b", "-g", "a100-80gb", "--tp", "1", "-f", "json"});
  REQUIRE(json.code == 0);
  for (const char* key : {"batch", "tpot_s", "ttft_s", "decode_step_time_s", "decode_tokens_per_s", "replicas", "gpus"}) {
    CHECK_THAT(json.out, Catch::Contains(std::string("\"") + key + "\": null"));
  }
}

TEST_CASE("plan: a row refused for max_context gives the max batch continuous batching holds, as explain does") {
  // Llama-2-7B on H200 at 8192 + 10 tokens (past its 4096): 143,771 MiB × 0.9 − 13.48 GB of weights
  // = 122.2 GB; 8202 × 0.5 MiB of cache a sequence beside one step of the prompt and a token a
  // sequence (60,416 bytes each, 128,000 of logits): (122.2e9 − 0.495e9) / 4.30027e9 = 28.3, so 28,
  // explain's "28 as continuous batching holds them"; the 25 of every prompt prefilled at once is
  // the point's ledger, not what the column means on the rows sized.
  const auto r = test::run_cli({"plan", "-m", "llama-2-7b", "-g", "h200", "-p", "8192", "--gen", "10", "--rate", "1",
                                "--ttft", "1s", "--tpot", "50ms", "-f", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"feasible\": false") && Catch::Contains("exceed the model's max_context of 4096") &&
                        Catch::Contains("\"max_batch\": 28,"));
  const auto explain = test::run_cli({"explain", "-m", "llama-2-7b", "-g", "h200", "-p", "8192", "--gen", "10", "-b", "64"});
  CHECK_THAT(explain.out, Catch::Contains("28 as continuous batching holds them"));
}

TEST_CASE("plan --top 3 keeps the 3 best of the ranking in every format and says how many there were") {
  const std::vector<std::string> args = {"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm,a100-80gb", "--search",
                                         "--price", "3,2", "--top", "3", "-f", "csv"};
  const auto top = test::run_cli(args);
  REQUIRE(top.code == 0);
  std::vector<std::string> all_args = args;
  all_args.resize(all_args.size() - 4);  // without --top 3
  all_args.insert(all_args.end(), {"-f", "csv"});
  const auto all = test::run_cli(all_args);
  REQUIRE(all.code == 0);
  const auto rows = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n') - 1; };
  CHECK(rows(top.out) == 3);
  // The same first rows, in the same order: --top cuts the ranking, it does not rerank.
  std::size_t end = 0;
  for (int i = 0; i < 4; ++i) end = all.out.find('\n', end) + 1;
  CHECK(top.out == all.out.substr(0, end));
  CHECK_THAT(top.err, Catch::Contains(fmt::format("note: --top 3: the first 3 of {} ranked rows", rows(all.out))));
  CHECK(test::run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--top", "0"}).code == 2);
}

TEST_CASE("plan: an fp8 checkpoint computes in fp8 where the GPU has the peak, weight-only where not - each row says which") {
  const auto r = test::run_cli({"plan", "-m", "qwen3-32b-fp8", "-g", "a100-80gb,h100-sxm", "-f", "csv"});
  REQUIRE(r.code == 0);
  const auto a100 = r.out.substr(r.out.find("\nNVIDIA A100 80GB SXM,") + 1);
  const auto h100 = r.out.substr(r.out.find("\nNVIDIA H100 SXM,") + 1);
  CHECK_THAT(a100, Catch::StartsWith("NVIDIA A100 80GB SXM,1,1,1,false,bf16,\"the weights would compute in fp8, but the "
                                     "NVIDIA A100 80GB SXM gives no fp8 peak"));
  CHECK_THAT(h100, Catch::StartsWith("NVIDIA H100 SXM,1,1,1,false,fp8,\"the linears compute in fp8: the checkpoint"));
  // The table says both under its rows; launch scripts add no --compute note the user never gave.
  const auto table = test::run_cli({"plan", "-m", "qwen3-32b-fp8", "-g", "a100-80gb,h100-sxm"});
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("warning: the weights would compute in fp8, but the NVIDIA A100 80GB SXM") &&
                            Catch::Contains("warning: the linears compute in fp8: the checkpoint"));
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("rooflineplan-emit-fp8-{}", ::getpid());
  const auto emit = test::run_cli({"plan", "-m", "qwen3-32b-fp8", "-g", "a100-80gb", "--emit", "vllm", "--emit-dir",
                                   dir.string()});
  std::filesystem::remove_all(dir);
  REQUIRE(emit.code == 0);
  CHECK(emit.err.find("--compute") == std::string::npos);
  // fp8 weights by flag run W8A8 as engines run them (vLLM's --quantization fp8): fp8 on an H100.
  const auto flag = test::run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--weights", "fp8", "-f", "csv"});
  REQUIRE(flag.code == 0);
  CHECK_THAT(flag.out.substr(flag.out.find('\n') + 1),
             Catch::StartsWith("NVIDIA H100 SXM,1,1,1,false,fp8,\"the linears compute in fp8: engines run fp8 weights"));
}

TEST_CASE("plan: a pipeline's stage that cannot hold one sequence is said of that stage, not of totals that fit") {
  // Llama-3.1-8B on L4s at pp 3, 90,000-token prompts, --reserve 0.32: the totals (47.8 GB beside
  // 23.2 GB of reserve, of 72.5 GB) fit, the fullest stage does not (16.5 GB beside its 7.73 GB of
  // reserve, of its 24.2 GB). The row had said the totals.
  const auto r = test::run_cli({"plan", "-m", "llama-3.1-8b", "-g", "l4", "--pp", "3", "--prompt", "90000", "--gen",
                                "100", "--reserve", "0.32", "--ttft", "1000s", "--tpot", "10s", "-f", "jsonl"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("does not fit: the weights and one sequence need 16.5 GB beside the 7.73 GB --reserve "
                                    "holds back of 24.2 GB") &&
                        !Catch::Contains("of 72.5 GB"));
}

TEST_CASE("plan --disaggregate --dp-attention - Qwen3-30B-A3B sends one rank's whole 50.3 MB cache, 116.8 us over NVLink") {
  // 512 tokens · 48 layers · 4 KV heads · 128 · 2 (K, V) · 2 bytes = 50,331,648 bytes, all on the
  // rank whose sequence it is; two tp 4 replicas fit the 8-GPU domain: 50,331,648 / 450 GB/s
  // = 111.85 us + 5 us = 116.85 us (a tp-th of it, 33.0 us, would have the other ranks send a
  // cache they do not hold).
  const auto r = test::run_cli({"plan", "-m", "qwen3-30b-a3b", "-g", "h100-sxm", "--rate", "5", "--disaggregate", "--tp",
                                "4", "--ep", "4", "--dp-attention", "-f", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& row = j.at("rows").at(0);
  CHECK(row.at("kv_transfer_bytes").get<double>() == 50331648.0);
  CHECK(row.at("kv_transfer_time_s").get<double>() == Approx(50331648.0 / 450e9 + 5e-6).epsilon(1e-9));
  const auto table = test::run_cli({"plan", "-m", "qwen3-30b-a3b", "-g", "h100-sxm", "--rate", "5", "--disaggregate",
                                    "--tp", "4", "--ep", "4", "--dp-attention"});
  CHECK_THAT(table.out, Catch::Contains("(50.3 MB) goes from the prefill to the decode pool in 117 us") &&
                            Catch::Contains("the rank holding it sending it whole over its own link"));
}

TEST_CASE("plan --disaggregate - a 19-GPU fleet priced by the pair rule warns of the network in every format") {
  // Llama-3.1-8B at tp 1 on H100s, 2048-token prompts: 2048 · 131,072 = 268,435,456 bytes, priced
  // over NVLink as a prefill and a decode replica paired in one node (268 MB / 450 GB/s + 5 us =
  // 602 us); the plan's 8 + 11 replicas are 19 GPUs, more than a node of 8, and a cache sent
  // between nodes takes 268 MB / 50 GB/s + 10 us = 5.38 ms: said in the table, CSV and JSON.
  const std::vector<std::string> args{"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "200", "--prompt",
                                      "2048", "--gen", "256", "--disaggregate", "--tp", "1"};
  const auto table = test::run_cli(args);
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("in 602 us over the GPU's interconnect (priced as a prefill and a decode replica "
                                        "paired in one domain)"));
  const std::string across = fmt::format("goes over the network in {}", "5.38 ms");
  CHECK_THAT(table.out, Catch::Contains("the steady plan's 19 GPUs span more than one") && Catch::Contains(across));
  std::vector<std::string> csv = args, json = args;
  csv.insert(csv.end(), {"-f", "csv"});
  json.insert(json.end(), {"-f", "json"});
  CHECK_THAT(test::run_cli(csv).out, Catch::Contains(across));
  const auto j = nlohmann::json::parse(test::run_cli(json).out);
  const auto& warnings = j.at("rows").at(0).at("warnings");
  CHECK(std::any_of(warnings.begin(), warnings.end(),
                    [&](const auto& w) { return w.template get<std::string>().find(across) != std::string::npos; }));
}

TEST_CASE("plan --disaggregate - two tp-8 replicas on L40S (no network named) are refused, not priced over PCIe") {
  // The L40S preset has no `network:`: a prefill and a decode replica of 8 GPUs are 16, past its
  // 8-GPU domain, as a layout of 16 GPUs is refused; beside tp 4 the tp 8 layout is skipped, said.
  const auto alone = test::run_cli({"plan", "-m", "llama-3.1-70b", "-g", "l40s", "--disaggregate", "--tp", "8"});
  CHECK(alone.code == 2);
  CHECK_THAT(alone.err, Catch::Contains("--disaggregate: a prefill replica of 8 GPUs and a decode replica of 8 (16 GPUs)") &&
                            Catch::Contains("`network: {bandwidth, latency}`"));
  const auto both = test::run_cli({"plan", "-m", "llama-3.1-70b", "-g", "l40s", "--disaggregate", "--tp", "4,8"});
  CHECK(both.code == 0);
  CHECK_THAT(both.err, Catch::Contains("skipped NVIDIA L40S with tp 8: --disaggregate"));
  // Colocated, one replica of 8 fits the domain: planned as before.
  CHECK(test::run_cli({"plan", "-m", "llama-3.1-70b", "-g", "l40s", "--tp", "8"}).code == 0);
}
