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
