// The worked example every user tries, run as a user would: a 7B model in fp16 on an A100
// (2 TB/s, 312 TFLOP/s). Its numbers are worked by hand in tests/model/test_seed_example.cpp.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"

using namespace roofline;

TEST_CASE("seed: the command prints the story: 7.00 ms - 143 tokens/s - B* 156 - both bounds") {
  const auto r = test::run_cli({"--model", test::example_file("7b.yaml"), "--gpu", test::example_file("a100.yaml")});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("7.00 ms") && Catch::Contains("143") && Catch::Contains("= 156") &&
                        Catch::Contains("prefill is compute-bound") && Catch::Contains("decode is memory-bound") &&
                        Catch::Contains("14.0 GB"));
}

TEST_CASE("seed: the prefill verdict says how much of the TTFT its FLOPs at the peak are") {
  // The seed's TTFT is its 7.17 TFLOP at 312 TFLOP/s, 23.0 ms, and says so in one parenthesis.
  const auto seed = test::run_cli({"--model", test::example_file("7b.yaml"), "--gpu", test::example_file("a100.yaml")});
  REQUIRE(seed.code == 0);
  CHECK_THAT(seed.out, Catch::Contains("TTFT 23.0 ms (7.17 TFLOP of compute at 312 TFLOP/s)"));
  // DeepSeek-V3 on 8 H200s: 178 TFLOP at 1.98 PFLOP/s is 90.2 ms of a 185 ms TTFT; its collectives
  // 56.2 ms (the table's communication time) and memory-bound operators the rest. It read as if
  // 185 ms were the FLOPs' time. The collectives were 55.72 ms (184.08 ms TTFT) before the
  // embedding's all-reduce, 32 × 512 × 7168 × 2 B × 7/8 at 450 GB/s = 456.7 us, and the gather of
  // the logits, 32 × 129,280 × 2 B × 7/8 = 16.1 us, joined them: 56.19 ms, 184.55 ms.
  const auto ds = test::run_cli({"-m", "deepseek-v3", "-g", "h200", "--tp", "8", "--ep", "8", "-b", "32"});
  REQUIRE(ds.code == 0);
  CHECK_THAT(ds.out, Catch::Contains("TTFT 185 ms, of which its 178 TFLOP of compute at 1.98 PFLOP/s take 90.2 ms and "
                                     "its collectives 56.2 ms"));
}
