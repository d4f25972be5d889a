// B* as the command tells it; the arithmetic is tested in tests/model/test_critical_batch.cpp.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"

using namespace roofline;

TEST_CASE("MHA Llama-2-7B at 640 tokens: the command says decode stays memory-bound at this context") {
  const auto cli = test::run_cli({"--model", "llama-2-7b", "--gpu", "a100-80gb"});
  CHECK_THAT(cli.out, Catch::Contains("decode stays memory-bound at this context"));
}
