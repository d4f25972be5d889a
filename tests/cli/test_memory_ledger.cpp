// The memory ledger as the command tells it; the arithmetic is tested in
// tests/model/test_memory_ledger.cpp.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"

using namespace roofline;

TEST_CASE("Llama-2-70B in fp16 does not fit on an L4: said clearly - not an error") {
  const auto r = test::run_cli({"--model", "llama-2-70b", "--gpu", "l4"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("does NOT fit"));
  CHECK_THAT(r.err, Catch::Contains("warning: does not fit"));
}
