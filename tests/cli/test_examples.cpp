// The example spreadsheets are what the commands in examples/capacity-planning.md print, so the
// walkthrough cannot drift from the engine.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "cli_runner.hpp"

TEST_CASE("examples: capacity-plan.csv is the plan command's output") {
  const auto r = roofline::test::run_cli({"plan", "-m", "llama-3.1-8b", "-g", "a100-80gb,h100-sxm,h200,l40s,l4", "--price",
                                          "1.8,3.5,4.5,1.2,0.8", "--rate", "50", "--prompt", "512", "--gen", "256",
                                          "--ttft", "1s", "--tpot", "50ms", "-f", "csv"});
  REQUIRE(r.code == 0);
  CHECK(r.out == roofline::test::read_text(roofline::test::example_file("capacity-plan.csv")));
}

TEST_CASE("examples: sweep-batch.csv is the sweep command's output") {
  const auto r = roofline::test::run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "a100-80gb,h100-sxm", "-b", "1..512:x2"});
  REQUIRE(r.code == 0);
  CHECK(r.out == roofline::test::read_text(roofline::test::example_file("sweep-batch.csv")));
}
