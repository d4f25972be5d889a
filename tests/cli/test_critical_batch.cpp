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
