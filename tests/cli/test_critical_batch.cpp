// B* as the command tells it; the arithmetic is tested in tests/model/test_critical_batch.cpp.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using namespace roofline;

TEST_CASE("MHA Llama-2-7B at 640 tokens: the command says decode stays memory-bound at this context") {
  const auto cli = test::run_cli({"--model", "llama-2-7b", "--gpu", "a100-80gb"});
  CHECK_THAT(cli.out, Catch::Contains("decode stays memory-bound at this context"));
}

TEST_CASE("a pipeline's B* as the command tells it - Llama-2-70B at tp 4, pp 2: 590 and 1839, a weight read a micro-batch") {
  // tests/model/test_critical_batch.cpp has the arithmetic: one read a step gives 295.2 and 919.7,
  // and a step of 2 micro-batches reads the weights twice, so 2 × 295.2 and 2 × 919.7.
  const std::vector<std::string> point = {"-m", "llama-2-70b", "-g", "h100-sxm", "--tp", "4", "--pp", "2", "-b", "16"};
  auto json = point;
  json.insert(json.end(), {"--format", "json"});
  const auto j = nlohmann::json::parse(test::run_cli(json).out);
  CHECK(j["critical_batch"]["weights_only"].get<double>() == Approx(590.46).epsilon(1e-4));
  CHECK(j["critical_batch"]["at_context"].get<double>() == Approx(1839.39).epsilon(1e-4));
  auto explain = point;
  explain.insert(explain.begin(), "explain");
  const auto e = test::run_cli(explain);
  REQUIRE(e.code == 0);
  CHECK_THAT(e.out, Catch::Contains("B* = 590 is where the weights' arithmetic catches up with their reading; at "
                                    "2·B* = 1181 the step takes") &&
                        Catch::Contains("B* = 590, counting the weights only. With the KV cache at 640 tokens: B* = 1839."));
  // One micro-batch reads the weights once a step: the single read's 295 and 920.
  auto one = explain;
  one.insert(one.end(), {"--microbatches", "1"});
  const auto once = test::run_cli(one);
  CHECK_THAT(once.out, Catch::Contains("B* = 295, counting the weights only. With the KV cache at 640 tokens: B* = 920."));
  // The batching sentence says the reads it counts: twice a step from batch 2 on (it had said
  // "once per step whatever the batch" beside a B* of two reads), once with one micro-batch.
  CHECK_THAT(e.out, Catch::Contains("Batching: the weights are read once a micro-batch, 2 times a step from batch 2 on "
                                    "and no more beyond it,"));
  CHECK_THAT(once.out, Catch::Contains("Batching: the weights are read once per step whatever the batch,"));
  explain.insert(explain.end(), {"--lang", "zh"});
  CHECK_THAT(test::run_cli(explain).out, Catch::Contains("批处理：每个微批读一次权重，从批 2 起每步 2 次"));
  // A mixture of experts' sentence too: its classic B* of 2 × 1078 counts two reads a step.
  const std::vector<std::string> mixtral = {"explain", "-m", "mixtral-8x7b", "-g", "h100-sxm", "--tp", "2", "--pp", "2", "-b", "16"};
  CHECK_THAT(test::run_cli(mixtral).out,
             Catch::Contains("The classic B* = 2157 assumes every weight is read in each of a step's 2 micro-batches;"));
}

// The point report's B* line says what grows with the batch below B*, from the point's own
// figures (report/report_view.cpp, below_critical), and claims "about the same" only where nothing does.
TEST_CASE("B* line - a 7B known by its size alone on the A100 example costs about the same below B* = 156") {
  // 14 GB of weights, no KV cache: 156 sequences add only their activations, far under a fifth
  // of 14 GB. Nothing else grows: one GPU, one micro-batch, no experts.
  const auto cli = test::run_cli({"--model", test::example_file("7b.yaml"), "--gpu", test::example_file("a100.yaml")});
  REQUIRE(cli.code == 0);
  CHECK_THAT(cli.out, Catch::Contains("= 156: below it the weights' reading outlasts their arithmetic, so a decode step "
                                      "costs about the same whatever the batch"));
}

TEST_CASE("B* line - a mixture of experts grows below B*, Qwen3-30B-A3B on H100 at batch 16") {
  // B* = 2933 counts all 128 experts read every step; the step is 1.84 ms at batch 1 and 12.2 ms
  // at 16 (its 16 tokens reach more of them). Its cache: 41.02 GB read, 39.80 GB of it weights,
  // 1.226 GB / 16 = 76.6 MB a sequence at 640 tokens; 2933 × 76.6 MB = 225 GB, past a fifth of
  // 39.8 GB. explain says the same: "The classic B* = 2933 assumes every weight is read every step".
  const auto cli = test::run_cli({"-m", "qwen3-30b-a3b", "-g", "h100-sxm", "-b", "16"});
  REQUIRE(cli.code == 0);
  CHECK_THAT(cli.out, !Catch::Contains("costs about the same"));
  CHECK_THAT(cli.out, Catch::Contains("= 2933: below it the weights' reading outlasts their arithmetic, but a decode step "
                                      "still grows with the batch: each token reads only the 8 of the 128 "
                                      "experts it picks, so a larger batch reads more of them (B* counts every expert "
                                      "read), and each sequence reads its own KV cache and activations (76.6 MB a "
                                      "sequence at 640 tokens, 225 GB for B* of them beside 39.8 GB of weights)"));
  const auto explain = test::run_cli({"explain", "-m", "qwen3-30b-a3b", "-g", "h100-sxm", "-b", "16"});
  CHECK_THAT(explain.out, Catch::Contains("The classic B* = 2933 assumes every weight is read every step"));
}

TEST_CASE("B* line - a dense model's cache grows below B*, Llama-3.1-8B on H100 at 640 tokens") {
  // A step at batch 1 reads 15.1 GB: the 15.0 GB of weights a step streams (16.06 GB less the
  // 128256 × 4096 × 2 B = 1.05 GB embedding table) and 94.8 MB of cache and activations (131072 B
  // a token × 640 = 83.9 MB of K/V, the rest activations). 295 × 94.8 MB = 28.0 GB: the step at
  // B* reads 43.0 GB, 2.8× the 15.1 GB of batch 1, not "about the same".
  const auto cli = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm"});
  REQUIRE(cli.code == 0);
  CHECK_THAT(cli.out, Catch::Contains("= 295: below it the weights' reading outlasts their arithmetic, but a decode step "
                                      "still grows with the batch: each sequence reads its own KV cache and "
                                      "activations (94.8 MB a sequence at 640 tokens, 28.0 GB for B* of them beside "
                                      "15.0 GB of weights); with the KV cache at 640 tokens there is no crossover: decode "
                                      "stays memory-bound at this context"));
}

TEST_CASE("B* line - an interconnect-bound step is not told it stays memory-bound, Llama-3.1-8B on L40S at tp 8") {
  // The JSON: comm_time 4.63 ms over memory_time 4.44 ms, compute 0.68 ms. Over PCIe's 32 GB/s
  // ring, 65 all-reduces of 128 × 4096 × 2 B, 2 × 7/8 of it each: 65 × 57.3 us = 3.73 ms, and the
  // logits' gather 128 × 128256 × 2 B × 7/8 / 32 GB/s = 0.90 ms: 4.63 ms; memory 3.84 GB / 864 GB/s
  // = 4.44 ms. The collectives grow with the batch (B* = 419 counts the weights only), and so does
  // the cache: 3.840 GB less 1.876 GB of weights is 1.964 GB, / 128 = 15.34 MB a GPU a sequence;
  // 419 × 15.34 MB = 6.43 GB beside 1.88 GB.
  const auto cli = test::run_cli({"-m", "llama-3.1-8b", "-g", "l40s", "--tp", "8", "-b", "128"});
  REQUIRE(cli.code == 0);
  CHECK_THAT(cli.out, !Catch::Contains("stays memory-bound") && !Catch::Contains("costs about the same"));
  CHECK_THAT(cli.out, Catch::Contains("but a decode step still grows with the batch: the collectives between the "
                                      "8 GPUs of tensor parallelism carry every sequence's activations, and each "
                                      "sequence reads its own KV cache and activations (15.3 MB a sequence at 640 "
                                      "tokens, 6.43 GB for B* of them beside 1.88 GB of weights); with the KV cache at "
                                      "640 tokens there is no crossover: its compute never catches up with its memory "
                                      "traffic (KV traffic grows as fast as compute), and at this batch the "
                                      "interconnect bounds the step"));
}
