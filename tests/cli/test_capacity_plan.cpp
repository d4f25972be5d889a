// The plan command: several GPUs ranked, bad targets refused. The plans themselves are worked by
// hand in tests/model/test_capacity_plan.cpp.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"

using namespace roofline;

TEST_CASE("plan: several GPUs are ranked by cost - the cheapest first") {
  const auto r = test::run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h200,a100-80gb,l4", "--price", "4.5,1.8,0.8",
                                "--rate", "20", "-f", "csv"});
  REQUIRE(r.code == 0);
  const auto a100 = r.out.find("NVIDIA A100"), h200 = r.out.find("NVIDIA H200"), l4 = r.out.find("NVIDIA L4");
  CHECK(a100 < h200);
  CHECK(h200 < l4);  // the L4 cannot meet TPOT 50 ms: last
  CHECK_THAT(r.out, Catch::StartsWith("gpu_name,tp,sized_on,feasible,reason,batch,"));
}

TEST_CASE("plan: bad targets exit 2 naming the flag") {
  const auto bare = test::run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--tpot", "50"});
  CHECK(bare.code == 2);
  CHECK_THAT(bare.err, Catch::Contains("--tpot: \"50\" has no unit"));
  const auto prices = test::run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb,h100-sxm,l4", "--price", "1,2"});
  CHECK(prices.code == 2);
  CHECK_THAT(prices.err, Catch::Contains("one per GPU (3), not 2"));
}
