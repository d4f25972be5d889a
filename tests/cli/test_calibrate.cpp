// Calibration: kernels verify their own results; the YAML they produce reads back; validate
// prints its table. No timing is asserted: timings are measurements, not facts.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "calibrate/calibration_device.hpp"
#include "calibrate/host_machine.hpp"
#include "calibrate/plugin_abi.hpp"
#include "cli_runner.hpp"
#include "io/gpu_writer.hpp"

using namespace roofline;

namespace {

// Points the plugin search at one folder for the life of the guard (the variable is the loader's
// documented override), and puts back whatever was there.
class PluginDir {
 public:
  explicit PluginDir(const std::string& dir) {
    if (const char* old = std::getenv("ROOFLINEPLAN_PLUGIN_DIR")) old_ = old;
    setenv("ROOFLINEPLAN_PLUGIN_DIR", dir.c_str(), 1);
  }
  ~PluginDir() {
    if (old_) setenv("ROOFLINEPLAN_PLUGIN_DIR", old_->c_str(), 1);
    else unsetenv("ROOFLINEPLAN_PLUGIN_DIR");
  }
  PluginDir(const PluginDir&) = delete;
  PluginDir& operator=(const PluginDir&) = delete;

 private:
  std::optional<std::string> old_;
};

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("calibrate: best, median and spread of rates from timings worked by hand") {
  // 10 units of work in 1, 2 and 4 s: rates 10, 5, 2.5; spread (10 − 2.5) / 5 = 1.5.
  const auto m = calibrate::summarize("k", calibrate::Rate::flops_per_s, 10, {1, 2, 4});
  CHECK(m.best == 10);
  CHECK(m.median == 5);
  CHECK(m.spread == 1.5);
  CHECK(m.repetitions == 3);
}

TEST_CASE("calibrate: the CPU kernels run and pass their own result checks") {
  auto cpu = calibrate::open_device("cpu");
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
  auto cpu = calibrate::open_device("cpu");
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
  // Arrays of 4 × the last-level cache, the least calibrate takes: large enough to measure memory.
  const double llc = calibrate::last_level_cache().value_or(1 << 20);
  const std::string size = std::to_string(static_cast<long long>(4 * llc)) + " B";
  const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--stream-size", size, "--out", out});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("read") && Catch::Contains("gemm_fp32") && Catch::Contains("gemv_fp32") &&
                        Catch::Contains("bandwidth against transfer size") && Catch::Contains("GEMM efficiency") &&
                        Catch::Contains("skinny_rows") && Catch::Contains("wrote"));
  // The expected model's coefficients, fitted on this device, with where and when.
  const GpuSpec g = io::load_gpu(out);
  REQUIRE(g.expected.has_value());
  CHECK_THAT(g.expected->source, Catch::StartsWith("measured by rooflineplan calibrate on cpu: ") &&
                                     Catch::Contains(g.calibration->date));
  const auto point = test::run_cli({"-m", test::data_file("good/tiny.yaml"), "-g", out, "-f", "json"});
  CHECK(point.code == 0);
}

TEST_CASE("validate's coverage: 2, 3 and 4 of the runs 1 … 5 lie in [2, 4], ends included - counts add") {
  calibrate::Coverage c = calibrate::coverage({1, 2, 3, 4, 5}, 2, 4);
  CHECK(c.inside == 3);
  CHECK(c.total == 5);
  c += calibrate::coverage({10, 20}, 0, 15);
  CHECK(c.inside == 4);
  CHECK(c.total == 7);
}

TEST_CASE("validate: one row per batch and a prefill - the knee, both errors, the coverage and the bound's check") {
  const auto r = test::run_cli({"validate", "-m", test::data_file("good/tiny.yaml"), "-g",
                                test::data_file("good/calibrated-cpu.yaml"), "-b", "1,4,16", "--repetitions", "2",
                                "-p", "8"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("bound") && Catch::Contains("expected (10-90%)") && Catch::Contains("expected err") &&
                        Catch::Contains("knee: measured") && Catch::Contains("predicted B*") &&
                        Catch::Contains("median |error| over the 3 decode points: bound") &&
                        Catch::Contains("of 8 runs") && Catch::Contains("inside the 10-90% interval") &&
                        Catch::Contains("bound: ") &&
                        Catch::Contains("coefficients: written for the tests, as calibrate writes it"));
  // The file records read and gemm_fp32 (38 GB/s, 200 GFLOP/s): both are measured again, and
  // how far this machine now is from them is said (a timing: its value is not checked).
  CHECK_THAT(r.out, Catch::Contains("drift since calibration (") && Catch::Contains(": read ") &&
                        Catch::Contains("%, gemm_fp32 ") && Catch::Contains("the predictions use the calibration's"));
  // Title, header and rule; 3 decode rows and a prefill; knee, errors, coverage, bound, drift,
  // coefficients.
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 3 + 4 + 6);
}

TEST_CASE("validate: ceilings far below the device (1 GB/s, 1 GFLOP/s) are beaten, and it says where") {
  const auto file = std::filesystem::temp_directory_path() / "rooflineplan-slow-ceilings.yaml";
  std::ofstream(file) << "name: slow\nmemory: {capacity: 16 GB, bandwidth: 1 GB/s}\ncompute: {peak: {fp32: 1 GFLOPS}}\n"
                         "calibration: {bandwidth: 1 GB/s, peak: {fp32: 1 GFLOPS}}\n";
  const auto r = test::run_cli({"validate", "-m", test::data_file("good/tiny.yaml"), "-g", file.string(), "-b", "1",
                                "--repetitions", "5", "-p", "8"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("bound: BEATEN at decode 1 (fastest run") && Catch::Contains("prefill 1") &&
                        Catch::Contains("calibrate again on a quiet machine"));
  // No kernel recorded in the file: no drift to state.
  CHECK_THAT(r.out, !Catch::Contains("drift since calibration"));
}

TEST_CASE("validate and calibrate refuse what they cannot run, with exit code 2") {
  const auto moe = test::run_cli({"validate", "-m", "mixtral-8x7b", "-g", test::data_file("good/calibrated-cpu.yaml")});
  CHECK(moe.code == 2);
  CHECK_THAT(moe.err, Catch::Contains("dense models"));
  // The test binary is not beside the plugin (and the machine may have no GPU): either way, exit 2.
  const auto cuda = test::run_cli({"calibrate", "--device", "cuda", "--repetitions", "1"});
  CHECK(cuda.code == 2);
  CHECK_THAT(cuda.err, Catch::Contains("no CUDA device") || Catch::Contains("no CUDA backend"));
}

TEST_CASE("open_device: an unknown backend is refused, naming --device and the choices") {
  CHECK_THROWS_WITH(calibrate::open_device("tpu"), "--device tpu: unknown device; use cpu or cuda");
  CHECK(calibrate::device_kinds() == std::vector<std::string>{"cpu", "cuda"});
}

TEST_CASE("calibrate --device cuda without its plugin: exit 2, saying where it was looked for") {
  const auto dir = fresh_dir("rooflineplan-no-plugin");
  const PluginDir only(dir.string());
  const auto r = test::run_cli({"validate", "--device", "cuda", "-m", test::data_file("good/tiny.yaml"), "-g",
                                test::data_file("good/calibrated-cpu.yaml")});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("error: --device cuda: ") && Catch::Contains("no CUDA backend") &&
                        Catch::Contains("librooflineplan_cuda.so is in none of: " + dir.string()));
}

TEST_CASE("calibrate --device cuda with a plugin that will not load: exit 2 with the dynamic loader's reason") {
  const auto dir = fresh_dir("rooflineplan-broken-plugin");
  std::ofstream(dir / "librooflineplan_cuda.so") << "not a shared object\n";
  const PluginDir only(dir.string());
  const auto r = test::run_cli({"calibrate", "--device", "cuda", "--repetitions", "1"});
  CHECK(r.code == 2);
  // glibc's own words follow the file name: "invalid ELF header" or "file too short".
  CHECK_THAT(r.err, Catch::StartsWith("error: --device cuda: cannot load the backend: " +
                                      (dir / "librooflineplan_cuda.so").string() + ": "));
}

TEST_CASE("calibrate --device cuda with a plugin of another ABI version: refused before anything in it runs") {
  const PluginDir only(ROOFLINEPLAN_STALE_PLUGIN_DIR);
  const auto r = test::run_cli({"calibrate", "--device", "cuda", "--repetitions", "1"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("librooflineplan_cuda.so was built for plugin ABI version 0, this rooflineplan "
                                    "needs " + std::to_string(calibrate::kPluginAbiVersion) + ": rebuild and install them together"));
}
