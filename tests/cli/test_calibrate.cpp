// Calibration: kernels verify their own results; the YAML they produce reads back; validate
// prints its table. No timing is asserted: timings are measurements, not facts.
#include <catch2/catch.hpp>

#include <filesystem>

#include "calibrate/calibration_device.hpp"
#include "cli_runner.hpp"
#include "io/gpu_writer.hpp"

using namespace roofline;

TEST_CASE("calibrate: best, median and spread of rates from timings worked by hand") {
  // 10 units of work in 1, 2 and 4 s: rates 10, 5, 2.5; spread (10 − 2.5) / 5 = 1.5.
  const auto m = calibrate::summarize("k", calibrate::Rate::flops_per_s, 10, {1, 2, 4});
  CHECK(m.best == 10);
  CHECK(m.median == 5);
  CHECK(m.spread == 1.5);
  CHECK(m.repetitions == 3);
}

TEST_CASE("calibrate: the CPU kernels run and pass their own result checks") {
  auto cpu = calibrate::make_device("cpu");
  const calibrate::CalibrationOptions o{2, std::size_t{8} << 20};
  for (const auto& m : {cpu->copy(o), cpu->triad(o), cpu->read(o), cpu->fma_peak(o)}) {
    INFO(m.kernel);
    CHECK(m.best > 0);
    CHECK(m.median <= m.best);
    CHECK(m.repetitions == 2);
  }
  CHECK(cpu->gemm(o).front().kernel == "gemm_fp32");
}

TEST_CASE("calibrate: synthetic steps check their products - batched GEMV and GEMM paths") {
  auto cpu = calibrate::make_device("cpu");
  // 3 rows take the batched matrix-vector path, 40 rows Eigen's GEMM; each is checked inside.
  const auto seconds = cpu->run_step({{3, 64, 48, 2}, {40, 96, 80, 1}}, 2);
  CHECK(seconds.size() == 2);
}

TEST_CASE("calibrate: the YAML written reads back to the same description") {
  const GpuSpec original = io::load_gpu(test::data_file("good/calibrated-cpu.yaml"));
  const GpuSpec again = io::read_gpu(io::parse_yaml(io::gpu_yaml(original), "written.yaml"));
  CHECK(again.name == original.name);
  CHECK(again.memory_bandwidth == original.memory_bandwidth);
  CHECK(again.memory_capacity == original.memory_capacity);
  CHECK(again.datasheet_peak(DType::fp32) == original.datasheet_peak(DType::fp32));
  REQUIRE(again.calibration.has_value());
  CHECK(again.calibration->bandwidth == original.calibration->bandwidth);
  CHECK(again.calibration->kernels.size() == 2);
  CHECK(again.calibration->kernels[0].median == 36e9);
  CHECK(again.calibration->kernels[1].bandwidth == false);
  // The calibrated ceilings replace the datasheet ones: 38 GB/s and 200 GFLOP/s.
  CHECK(again.effective_bandwidth().value() == 38e9);
  CHECK(again.effective_peak(DType::fp32)->value() == 200e9);
}

TEST_CASE("calibrate: writes a GPU description that every command can read") {
  const std::string out = (std::filesystem::temp_directory_path() / "rooflineplan-calibrate-test.yaml").string();
  const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--stream-size", "4 MiB", "--out", out});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("read") && Catch::Contains("gemm_fp32") && Catch::Contains("wrote"));
  const auto point = test::run_cli({"-m", test::data_file("good/tiny.yaml"), "-g", out, "-f", "json"});
  CHECK(point.code == 0);
}

TEST_CASE("validate: one row per batch and a prefill, the knee and the median error") {
  const auto r = test::run_cli({"validate", "-m", test::data_file("good/tiny.yaml"), "-g",
                                test::data_file("good/calibrated-cpu.yaml"), "-b", "1,4,16", "--repetitions", "1",
                                "-p", "8"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("predicted  measured") && Catch::Contains("knee: measured") &&
                        Catch::Contains("predicted B*") && Catch::Contains("median |error|"));
  // Title, header and rule; 3 decode rows and a prefill; the knee and the error lines.
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 3 + 4 + 2);
}

TEST_CASE("validate and calibrate refuse what they cannot run, with exit code 2") {
  const auto moe = test::run_cli({"validate", "-m", "mixtral-8x7b", "-g", test::data_file("good/calibrated-cpu.yaml")});
  CHECK(moe.code == 2);
  CHECK_THAT(moe.err, Catch::Contains("dense models"));
  const auto cuda = test::run_cli({"calibrate", "--device", "cuda", "--repetitions", "1"});
  CHECK(cuda.code == 2);  // this machine has no GPU; a build without nvcc has no backend
  CHECK_THAT(cuda.err, Catch::Contains("no CUDA device") || Catch::Contains("no CUDA backend"));
}
