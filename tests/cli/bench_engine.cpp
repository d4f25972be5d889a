// Benchmarks, not tests: how long one engine evaluation takes, and a million-row CSV sweep on
// every core. Run by hand:
//   build/tests/cli/rooflineplan_bench
#define CATCH_CONFIG_MAIN
#define CATCH_CONFIG_ENABLE_BENCHMARKING
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cli/ordered_parallel.hpp"
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

// Once, not sampled: a million rows take seconds. 1000 batches × 1000 prompts of Llama-3.1-8B on
// an H100, written to a file as a user's --out would be.
TEST_CASE("a million-row CSV sweep") {
  const std::string out = (std::filesystem::temp_directory_path() / "rooflineplan-bench-sweep.csv").string();
  const auto start = std::chrono::steady_clock::now();
  const auto r = test::run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1..1000", "--prompt", "1..1000",
                                "-f", "csv", "--out", out});
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  REQUIRE(r.code == 0);
  const auto bytes = std::filesystem::file_size(out);
  std::filesystem::remove(out);
  std::printf("a million-row CSV sweep: %.2f s on %u threads (%.2f us a row), %.0f MB\n", took.count(),
              cli::worker_threads(), took.count(), static_cast<double>(bytes) / 1e6);
}
