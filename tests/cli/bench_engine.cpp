// Benchmarks, not tests: how long one engine evaluation takes. Run by hand:
//   build/tests/rooflineplan_bench
#define CATCH_CONFIG_MAIN
#define CATCH_CONFIG_ENABLE_BENCHMARKING
#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "model/engine.hpp"

using namespace roofline;

TEST_CASE("one engine evaluation") {
  const ModelSpec llama = io::load_model("llama-3.1-8b");
  const ModelSpec mixtral = io::load_model("mixtral-8x7b");
  const GpuSpec gpu = io::load_gpu("h100-sxm");
  Workload w = test::default_workload(llama, 32);
  BENCHMARK("Llama-3.1-8B on H100, batch 32") { return evaluate(llama, gpu, w).decode.step.time.value(); };
  w.tp = 2;
  BENCHMARK("Mixtral-8x7B on H100, batch 32, tp 2") { return evaluate(mixtral, gpu, w).decode.step.time.value(); };
}
