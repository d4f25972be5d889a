// Calibration: kernels verify their own results; the YAML they produce reads back; validate
// prints its table. No timing is asserted: timings are measurements, not facts.
#include <sys/resource.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "calibrate/calibration_device.hpp"
#include "calibrate/host_machine.hpp"
#include "calibrate/plugin_abi.hpp"
#include "cli_runner.hpp"
#include "fake_calibration_device.hpp"
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

namespace {

constexpr double kMiB = 1024.0 * 1024.0, kGiB = 1024 * kMiB;

// A host of this machine's kind: a 32 MiB last-level cache and 16 GiB free.
const calibrate::HostFacts kSmallCache{32 * kMiB, 16 * kGiB};
// This project's CI machines: a 260 MiB last-level cache (and 16 GiB free).
const calibrate::HostFacts kLargeCache{260 * kMiB, 16 * kGiB};

std::string temp_file(const std::string& name) { return (std::filesystem::temp_directory_path() / name).string(); }

}  // namespace

TEST_CASE("calibrate on a fake device: the ceilings it reached and its fit come back from the file") {
  const test::FakeCalibrationHost host(kSmallCache);
  const std::string out = temp_file("rooflineplan-calibrate-fake.yaml");
  const auto r = test::run_cli({"calibrate", "--repetitions", "3", "--out", out});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("read") && Catch::Contains("gemm_fp32") && Catch::Contains("gemv_fp32") &&
                        Catch::Contains("bandwidth against transfer size") && Catch::Contains("GEMM efficiency") &&
                        Catch::Contains("skinny_rows") && Catch::Contains("wrote " + out));
  const GpuSpec g = io::load_gpu(out);
  // The read and GEMM kernels reach 40 GB/s and 300 GFLOP/s exactly; the products only 90% and
  // 80% of them, so the curves raise neither ceiling.
  REQUIRE(g.calibration.has_value());
  CHECK(g.calibration->bandwidth->value() == 40e9);
  CHECK(g.effective_peak(DType::fp32)->value() == 300e9);
  CHECK(g.calibration->repetitions == 3);
  // The fit gives back the shares the products were timed with, against those ceilings.
  REQUIRE(g.expected.has_value());
  CHECK_THAT(g.expected->memory, Catch::Matchers::WithinRel(0.9, 0.02));
  CHECK_THAT(g.expected->compute, Catch::Matchers::WithinRel(0.8, 0.02));
  CHECK_THAT(g.expected->source, Catch::StartsWith("measured by rooflineplan calibrate on fake: 40 GB/s, 300 GFLOP/s, ") &&
                                     Catch::Contains(g.calibration->date));
  const auto point = test::run_cli({"-m", test::data_file("good/tiny.yaml"), "-g", out, "-f", "json"});
  CHECK(point.code == 0);
}

TEST_CASE("calibrate --base: a datasheet of another device is refused, one of this device kept") {
  // The fake device reads 40 GB/s. An H100's 3.35 TB/s is 83.75 times that: its datasheet's bf16
  // peak would have sat beside this device's bandwidth (a CPU's 28 GB/s beside 989 TFLOP/s).
  // Refused once the kernels are measured, before the curves' minutes, and the kernels' table shown.
  const test::FakeCalibrationHost host(kSmallCache);
  const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--quick", "--base", "h100-sxm"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("read         40.0 GB/s") &&
                        Catch::Contains("error: --base h100-sxm: its 3.35 TB/s of memory bandwidth is 83.8 times the "
                                        "40.0 GB/s measured on this device (fake: 40 GB/s, 300 GFLOP/s); --base "
                                        "describes the device measured, a MIG slice its own"));
  CHECK(host.log->steps.empty());
  // A description of this device (its datasheet's 40 GB/s) is taken.
  CHECK(test::run_cli({"calibrate", "--repetitions", "1", "--quick", "--base", test::data_file("good/calibrated-cpu.yaml")})
            .code == 0);
}

namespace {

std::vector<std::tuple<long, long, long>> shapes_of(const test::FakeDeviceLog& log) {
  std::vector<std::tuple<long, long, long>> shapes;
  for (const auto& [s, runs] : log.steps) shapes.emplace_back(s.rows, s.in, s.out);
  return shapes;
}

}  // namespace

TEST_CASE("calibrate: every point of the curves gets the repetitions asked for, in passes") {
  const test::FakeCalibrationHost host(kSmallCache);
  REQUIRE(test::run_cli({"calibrate", "--repetitions", "2"}).code == 0);
  // 256 MiB arrays: transfer 128² … 4096² (a quarter of 512 MiB of fp32 weights), GEMMs of
  // M = 1 … 256 (16 × the ridge at 15 rows, at least 256) over three shapes: 6 + 27 points, each
  // timed once in each of two passes through all of them.
  const auto steps = shapes_of(*host.log);
  REQUIRE(steps.size() == 2 * (6 + 27));
  CHECK(std::vector(steps.begin(), steps.begin() + 33) == std::vector(steps.begin() + 33, steps.end()));
  for (const auto& [s, runs] : host.log->steps) CHECK(runs == 1);
  // Ten repetitions: passes of 4, 3 and 3 runs.
  const test::FakeCalibrationHost ten(kSmallCache);
  REQUIRE(test::run_cli({"calibrate", "--repetitions", "10"}).code == 0);
  REQUIRE(ten.log->steps.size() == 3 * 33);
  CHECK(ten.log->steps[0].second == 4);
  CHECK(ten.log->steps[33].second == 3);
  CHECK(ten.log->steps[66].second == 3);
}

TEST_CASE("calibrate --quick: the curves at every other point, the ends kept - 4 + 15 of 6 + 27") {
  const test::FakeCalibrationHost host(kSmallCache);
  const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--quick"});
  REQUIRE(r.code == 0);
  // Transfer 128², 512², 2048² and the largest, 4096²; rows 1, 4, 16, 64, 256 per shape.
  using Shape = std::tuple<long, long, long>;
  const auto steps = shapes_of(*host.log);
  CHECK(steps == std::vector<Shape>{{1, 128, 128},    {1, 512, 512},     {1, 2048, 2048},   {1, 4096, 4096},
                                    {1, 4096, 4096},  {4, 4096, 4096},   {16, 4096, 4096},  {64, 4096, 4096},
                                    {256, 4096, 4096}, {1, 4096, 14336}, {4, 4096, 14336},  {16, 4096, 14336},
                                    {64, 4096, 14336}, {256, 4096, 14336}, {1, 14336, 4096}, {4, 14336, 4096},
                                    {16, 14336, 4096}, {64, 14336, 4096}, {256, 14336, 4096}});
  CHECK_THAT(r.err, Catch::Contains("over 19 points") && Catch::Contains("; curves --quick"));
  CHECK_THAT(r.out, Catch::StartsWith("# measured with STREAM arrays of 268 MB each (--stream-size auto: 256 MiB, above "
                                      "4 × the last-level cache of 33.6 MB), curves --quick\n"));
}

TEST_CASE("calibrate sizes its arrays from the host: 256 MiB past a 32 MiB cache, 1040 MiB past 260 MiB") {
  {
    const test::FakeCalibrationHost host(kSmallCache);
    const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--quick"});
    REQUIRE(r.code == 0);
    CHECK(host.log->stream_bytes == std::vector<std::size_t>(4, std::size_t{256} << 20));  // copy, triad, read, read_end
  }
  const test::FakeCalibrationHost host(kLargeCache);
  const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--quick"});
  REQUIRE(r.code == 0);
  // 4 × 260 MiB = 1040 MiB = 1090519040 bytes: the three arrays spill the cache twelvefold.
  CHECK(host.log->stream_bytes == std::vector<std::size_t>(4, std::size_t{1040} << 20));
  CHECK_THAT(r.err, Catch::StartsWith("STREAM arrays of 1.09 GB each (--stream-size auto: 4 × the last-level cache of "
                                      "273 MB); curves --quick\n"));
}

TEST_CASE("calibrate on a host short of memory: a sixth of it, but never below 4 × the cache") {
  {
    // 600 MiB free: a sixth is 100 MiB, above 4 × a 16 MiB cache.
    const test::FakeCalibrationHost host({16 * kMiB, 600 * kMiB});
    const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--quick"});
    REQUIRE(r.code == 0);
    CHECK(host.log->stream_bytes.front() == std::size_t{100} << 20);
    CHECK_THAT(r.err, Catch::StartsWith("STREAM arrays of 105 MB each (--stream-size auto: a sixth of the 629 MB "
                                        "available, and 4 × the last-level cache of 16.8 MB or more)"));
  }
  // A 32 MiB cache asks for 128 MiB: three of them (384 MiB) still fit in the 600 MiB.
  const test::FakeCalibrationHost host({32 * kMiB, 600 * kMiB});
  const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--quick"});
  REQUIRE(r.code == 0);
  CHECK(host.log->stream_bytes.front() == std::size_t{128} << 20);
  CHECK_THAT(r.err, Catch::StartsWith("STREAM arrays of 134 MB each (--stream-size auto: 4 × the last-level cache of 33.6 MB)"));
}

TEST_CASE("calibrate: a host whose memory cannot hold 4 × its cache is refused before measuring, exit 2") {
  // 3 × 1040 MiB = 3120 MiB, more than 2048 MiB.
  const test::FakeCalibrationHost host({260 * kMiB, 2 * kGiB});
  const auto r = test::run_cli({"calibrate"});
  CHECK(r.code == 2);
  CHECK(r.err == "error: --stream-size: three STREAM arrays of 1040 MiB (4 × the last-level cache of 260 MiB) need more "
                 "than the 2048 MiB this machine has available: free memory and run again\n");
  CHECK(host.log->kernels == 0);
}

TEST_CASE("the memory available is at most what ulimit -v leaves this process") {
  rlimit before{};
  REQUIRE(getrlimit(RLIMIT_AS, &before) == 0);
  const std::optional<double> unlimited = calibrate::host_memory_available();
  REQUIRE(unlimited.has_value());
  if (before.rlim_cur != RLIM_INFINITY || *unlimited < 512.0 * kMiB) {
    WARN("a limit is set already, or less than 512 MiB is free: nothing to lower");
    return;
  }
  // The address space in use now, and 256 MiB more (a sanitizer's shadow maps are in use already).
  std::ifstream status("/proc/self/status");
  double used = 0;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmSize:", 0) == 0) used = std::stod(line.substr(7)) * 1024;
  }
  REQUIRE(used > 0);
  rlimit tight = before;
  tight.rlim_cur = static_cast<rlim_t>(used) + (rlim_t{256} << 20);
  if (before.rlim_cur != RLIM_INFINITY && tight.rlim_cur > before.rlim_cur) tight.rlim_cur = before.rlim_cur;
  REQUIRE(setrlimit(RLIMIT_AS, &tight) == 0);
  const std::optional<double> limited = calibrate::host_memory_available();
  REQUIRE(setrlimit(RLIMIT_AS, &before) == 0);
  REQUIRE(limited.has_value());
  // What is left below the limit: 256 MiB, less what reading the files mapped.
  CHECK(*limited <= 256.0 * kMiB);
  CHECK(*limited > 200.0 * kMiB);
  CHECK(*limited <= *unlimited);
}

TEST_CASE("a cgroup leaves its limit less its usage, the page cache it may reclaim counted free") {
  const std::filesystem::path root = std::filesystem::temp_directory_path() / "rooflineplan-cgroup";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "memory");
  const auto write = [](const std::filesystem::path& file, const std::string& text) { std::ofstream(file) << text; };
  CHECK_FALSE(calibrate::cgroup_headroom(root).has_value());  // none there
  // v1: 4 GiB, 3 GiB used of which 512 MiB inactive file pages.
  write(root / "memory/memory.limit_in_bytes", "4294967296\n");
  write(root / "memory/memory.usage_in_bytes", "3221225472\n");
  write(root / "memory/memory.stat", "cache 1073741824\ntotal_inactive_file 536870912\n");
  CHECK(calibrate::cgroup_headroom(root) == 1.5 * kGiB);
  // v2 beside it wins: 2 GiB of which 2.5 GiB used (over, by page cache) and 1 GiB inactive file.
  write(root / "memory.max", "2147483648\n");
  write(root / "memory.current", "2684354560\n");
  write(root / "memory.stat", "anon 1610612736\nfile 1073741824\ninactive_file 1073741824\n");
  CHECK(calibrate::cgroup_headroom(root) == 0.5 * kGiB);
  write(root / "memory.stat", "anon 1\n");  // no cache to reclaim: nothing left, not less than nothing
  CHECK(calibrate::cgroup_headroom(root) == 0.0);
  write(root / "memory.max", "max\n");  // no limit
  CHECK_FALSE(calibrate::cgroup_headroom(root).has_value());
  std::filesystem::remove_all(root);
}

TEST_CASE("calibrate --out /dev/full: exit 1 naming the file, and the measurement still on stdout") {
  const test::FakeCalibrationHost host(kSmallCache);
  const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--quick", "--out", "/dev/full"});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("writing --out /dev/full: No space left on device"));
  CHECK_THAT(r.out, Catch::Contains("\ncalibration:\n") && Catch::Contains("\nexpected:\n"));
  CHECK_THAT(r.err, Catch::Contains("bandwidth against transfer size"));
}

// The one test that measures this machine: every kernel verified, a file every command reads.
// Labelled slow (tests/cli/CMakeLists.txt): run by the gcc suite, not under the sanitizers.
TEST_CASE("calibrate on this machine: --quick writes a description every command reads", "[slow]") {
  const std::string out = temp_file("rooflineplan-calibrate-real.yaml");
  const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--quick", "--out", out});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("STREAM arrays of ") && Catch::Contains("--stream-size auto"));
  const GpuSpec g = io::load_gpu(out);
  REQUIRE(g.expected.has_value());
  CHECK_THAT(g.expected->source, Catch::StartsWith("measured by rooflineplan calibrate on cpu: "));
  CHECK(test::run_cli({"-m", test::data_file("good/tiny.yaml"), "-g", out, "-f", "json"}).code == 0);
}

TEST_CASE("validate's coverage: 2, 3 and 4 of the runs 1 … 5 lie in [2, 4], ends included - counts add") {
  calibrate::Coverage c = calibrate::coverage({1, 2, 3, 4, 5}, 2, 4);
  CHECK(c.inside == 3);
  CHECK(c.total == 5);
  c += calibrate::coverage({10, 20}, 0, 15);
  CHECK(c.inside == 4);
  CHECK(c.total == 7);
}

// validate measures through the calibration host, so that these run on the fake device: its step
// is exact (bytes at 90% of 40 GB/s, FLOPs at 80% of 300 GFLOP/s, 3 us a product), and no
// assertion depends on how fast or busy this machine is.
TEST_CASE("validate: the median |error| of two decode points is their mean, not the larger") {
  const test::FakeCalibrationHost host(kSmallCache);
  const auto r = test::run_cli({"validate", "-m", test::data_file("good/tiny.yaml"), "-g",
                                test::data_file("good/calibrated-cpu.yaml"), "-b", "1,16", "--repetitions", "2",
                                "-p", "8"});
  REQUIRE(r.code == 0);
  // The rows' errors (the fake device is exact): bound -54.7% and -58.1%, expected +113.8% and
  // +127.8%; their medians are the means, 56.4% and 120.8% (the larger, 58.1% and 127.8%, was said).
  CHECK_THAT(r.out, Catch::Contains("-54.7%") && Catch::Contains("-58.1%") && Catch::Contains("+113.8%") &&
                        Catch::Contains("+127.8%"));
  CHECK_THAT(r.out, Catch::Contains("median |error| over the 2 decode points: bound 56.4% (against the fastest run), "
                                    "expected 120.8% (against the median)"));
}

TEST_CASE("validate: one row per batch and a prefill - the knee, both errors, the coverage and the bound's check") {
  const test::FakeCalibrationHost host(kSmallCache);
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
  // The file records read at 38 GB/s and gemm_fp32 at 200 GFLOP/s; the fake reaches 40 and 300:
  // 40/38 - 1 = +5%, 300/200 - 1 = +50%.
  CHECK_THAT(r.out, Catch::Contains("drift since calibration (") &&
                        Catch::Contains(": read +5%, gemm_fp32 +50%, the best of 5 runs now") &&
                        Catch::Contains("the predictions use the calibration's"));
  // Title, header and rule; 3 decode rows and a prefill; knee, errors, coverage, bound, drift,
  // coefficients.
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 3 + 4 + 6);
  // The three steps and the prefill, and the drift's read stream and GEMM: nothing else measured.
  CHECK(host.log->steps.size() == 4 * 2);
  CHECK(host.log->stream_bytes == std::vector<std::size_t>{256u << 20});
}

TEST_CASE("validate: ceilings far below the device (1 GB/s, 1 GFLOP/s) are beaten, and it says where") {
  const test::FakeCalibrationHost host(kSmallCache);
  const auto file = std::filesystem::temp_directory_path() / "rooflineplan-slow-ceilings.yaml";
  std::ofstream(file) << "name: slow\nmemory: {capacity: 16 GB, bandwidth: 1 GB/s}\ncompute: {peak: {fp32: 1 GFLOPS}}\n"
                         "calibration: {bandwidth: 1 GB/s, peak: {fp32: 1 GFLOPS}}\n";
  const auto r = test::run_cli({"validate", "-m", test::data_file("good/tiny.yaml"), "-g", file.string(), "-b", "1",
                                "--repetitions", "5", "-p", "8"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("bound: BEATEN at decode 1 (fastest run") && Catch::Contains("prefill 1") &&
                        Catch::Contains("calibrate again on a quiet machine"));
  // The fake's decode step at batch 1, worked by hand over Tiny's products (2 layers; bytes at
  // 36 GB/s, FLOPs at 240 GFLOP/s, 3 us each): 8 of 128x128 at 4.985 us, 6 of 128x256 or 256x128
  // at 6.957 us, the head 128x512 at 10.90 us: 92.5 us.
  CHECK_THAT(r.out, Catch::Contains("92.5 us"));
  // No kernel recorded in the file: no drift to state, and nothing measured for one.
  CHECK_THAT(r.out, !Catch::Contains("drift since calibration"));
  CHECK(host.log->stream_bytes.empty());
}

TEST_CASE("validate and calibrate refuse what they cannot run, with exit code 2") {
  const auto moe = test::run_cli({"validate", "-m", "mixtral-8x7b", "-g", test::data_file("good/calibrated-cpu.yaml")});
  CHECK(moe.code == 2);
  CHECK_THAT(moe.err, Catch::Contains("dense models"));
  // One device, a dense model: a parallel layout is not a flag of it (--ep 2 on a dense model was
  // taken, and changed nothing measured).
  for (const char* layout : {"--ep", "--pp"}) {
    const auto r = test::run_cli({"validate", "-m", test::data_file("good/tiny.yaml"), "-g",
                                  test::data_file("good/calibrated-cpu.yaml"), layout, "2"});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(std::string(layout) + ": not a flag of `rooflineplan validate`"));
  }
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
