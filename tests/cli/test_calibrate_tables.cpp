// Issue 26: `calibrate --kernel-table DIR` times kernels over a grid and writes them in the columns
// of aiconfigurator's tables, which `fit --kernels` reads unchanged. The writer is checked on the
// fake device (its times are a formula, worked by hand below); the CPU's path, calibrate then fit,
// runs for real on the smoke grid, and only its structure is asserted: timings are measurements.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/kernel_tables.hpp"
#include "cli_runner.hpp"
#include "fake_calibration_device.hpp"
#include "io/kernel_table.hpp"

using namespace roofline;

namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  return dir;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> csv_files(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".csv") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

const nlohmann::json& row_of(const nlohmann::json& j, const std::string& klass) {
  for (const auto& r : j["rows"]) {
    if (r["class"] == klass) return r;
  }
  FAIL("no row for " << klass);
  return j;
}

constexpr double kMiB = 1024.0 * 1024.0, kGiB = 1024 * kMiB;
// The same host as test_calibrate.cpp's: a 32 MiB last-level cache and 16 GiB free.
const calibrate::HostFacts kHost{32 * kMiB, 16 * kGiB};

}  // namespace

TEST_CASE("kernel tables: the grids and the file names their devices give") {
  const auto gpu = calibrate::kernel_grid(true, calibrate::KernelGridSize::full);
  CHECK(gpu.m.size() * gpu.n.size() * gpu.k.size() == 80);  // 5 M × 4 N × 4 K
  CHECK(gpu.context.size() == 11);
  CHECK(gpu.generation.size() == 12);
  CHECK(gpu.all_reduce.size() == 7);
  const auto cpu = calibrate::kernel_grid(false, calibrate::KernelGridSize::full);
  CHECK(cpu.m.size() * cpu.n.size() * cpu.k.size() == 64);
  CHECK(cpu.context.size() == 2);  // asked for, so that a CPU says it has no attention kernel
  const auto smoke = calibrate::kernel_grid(true, calibrate::KernelGridSize::smoke);
  CHECK(smoke.m.size() * smoke.n.size() * smoke.k.size() == 16);  // 4 a GEMM coefficient: the fewest fit
  CHECK(calibrate::table_prefix("cuda: NVIDIA H100 80GB HBM3, 132 SMs, sm_90") == "nvidia-h100-80gb-hbm3");
  CHECK(calibrate::table_prefix("cpu: AMD EPYC 7B13 64-Core Processor, 2 threads") == "amd-epyc-7b13-64-core-processor");
  CHECK(calibrate::table_prefix("cpu: , 2 threads") == "device");
  // No a100_, h100_ or h200_: fit --kernels takes no preset from the name and asks for --gpu.
  CHECK(io::gpu_of_table("nvidia-h100-80gb-hbm3_gemm.csv") == "nvidia-h100-80gb-hbm3");
}

TEST_CASE("calibrate --kernel-table on a fake device: each table in aiconfigurator's columns, times worked by hand") {
  const test::FakeCalibrationHost host(kHost);
  const auto dir = fresh_dir("rooflineplan-tables-fake");
  const auto r = test::run_cli({"calibrate", "--tables-only", "--kernel-table", dir.string(), "--kernel-grid", "smoke",
                                "--repetitions", "3"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  // "fake: 40 GB/s, 300 GFLOP/s": the name before the first comma.
  const auto gemm = lines(test::read_text(dir / "40-gb-s_gemm.csv"));
  REQUIRE(gemm.size() == 17);
  CHECK(gemm[0] == "gemm_dtype,m,n,k,latency_us");
  // m = 1, n = 128, k = 128 in fp32: 65536 weight bytes + 1024 of activations at 0.9 × 40 GB/s
  // (1.84889 us), 32768 FLOPs at 0.8 × 300 GFLOP/s (0.13653 us), and 3 us: 4.98542 us.
  CHECK(gemm[1] == "float32,1,128,128,4.98542");
  CHECK(gemm[16].rfind("float32,256,512,512,", 0) == 0);
  const auto context = lines(test::read_text(dir / "40-gb-s_context_attention.csv"));
  REQUIRE(context.size() == 3);
  CHECK(context[0] == "batch_size,isl,num_heads,num_key_value_heads,head_dim,window_size,attn_dtype,kv_cache_dtype,latency_us");
  const auto generation = lines(test::read_text(dir / "40-gb-s_generation_attention.csv"));
  REQUIRE(generation.size() == 3);
  CHECK(generation[0] == "batch_size,num_heads,num_key_value_heads,head_dim,window_size,attn_dtype,kv_cache_dtype,step,latency_us");
  // One query over 256 keys (255 cached), 4 heads on 2 KV heads of 64: K and V 2 × 2 × 256 × 64
  // and Q and O 2 × 4 × 64 halves, 132096 bytes (3.66933 us); 4 × 4 × 64 × 256 FLOPs (1.09227
  // us); and 3 us: 7.7616 us.
  CHECK(generation[1] == "1,4,2,64,0,float16,float16,255,7.7616");
  CHECK_FALSE(std::filesystem::exists(dir / "40-gb-s_nccl.csv"));
  CHECK(host.log->table_gemms.size() == 16);
  CHECK(host.log->table_attention.size() == 4);
  CHECK(host.log->stream_bytes.empty());  // --tables-only: no STREAM kernel, no curve
  CHECK(host.log->steps.empty());
  const std::string readme = test::read_text(dir / "README.md");
  CHECK_THAT(readme, Catch::Contains("- device: fake: 40 GB/s, 300 GFLOP/s") &&
                         Catch::Contains("- `40-gb-s_gemm.csv`: 16 kernels. timed by a formula") &&
                         Catch::Contains("- skipped: nccl (all-reduce): 1 device here; an all-reduce needs two or more") &&
                         Catch::Contains("rooflineplan fit --kernels 40-gb-s_*.csv --gpu GPU.yaml"));
  CHECK_THAT(r.out, Catch::Contains("wrote " + (dir / "40-gb-s_gemm.csv").string() + " (16 kernels)") &&
                        Catch::Contains("skipped nccl (all-reduce)"));

  // fit --kernels reads every table as written: fp32 GEMMs against the fp32 peak (a GPU of their
  // own), attention against the 16-bit one.
  std::vector<std::string> args = {"fit", "--format", "json", "--gpu", "h100-sxm", "--kernels"};
  for (const std::string& f : csv_files(dir)) args.push_back(f);
  const auto fit = test::run_cli(args);
  INFO(fit.err);
  REQUIRE(fit.code == 0);
  const auto j = nlohmann::json::parse(fit.out);
  CHECK(j["gpus"] == nlohmann::json::array({"h100-sxm", "h100-sxm (fp32)"}));
  CHECK(row_of(j, "gemm")["kernels"] == 16);
  CHECK(row_of(j, "prefill_attention")["kernels"] == 2);
  CHECK(row_of(j, "decode_attention")["kernels"] == 2);
}

TEST_CASE("calibrate --kernel-table with two devices: NCCL's all-reduce table, in elements") {
  const test::FakeCalibrationHost host(kHost);
  host.log->devices = 2;
  const auto dir = fresh_dir("rooflineplan-tables-fake-2");
  const auto r = test::run_cli({"calibrate", "--tables-only", "--kernel-table", dir.string(), "--kernel-grid", "smoke",
                                "--repetitions", "1"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto nccl = lines(test::read_text(dir / "40-gb-s_nccl.csv"));
  REQUIRE(nccl.size() == 3);
  CHECK(nccl[0] == "op_name,nccl_dtype,num_gpus,message_size,latency_us");
  // 5 us + 2·(2 − 1)/2 × 2048 bytes at 100 GB/s (0.02048 us).
  CHECK(nccl[1] == "all_reduce,half,2,1024,5.02048");
  const io::KernelTable t = io::read_kernel_table((dir / "40-gb-s_nccl.csv").string());
  REQUIRE(t.samples.size() == 2);
  CHECK(t.samples[1].ask.bytes == 2 * 65536);
  CHECK(t.samples[1].ask.gpus == 2);
}

TEST_CASE("calibrate --kernel-table beside a description: both written, the tables after the YAML") {
  const test::FakeCalibrationHost host(kHost);
  const auto dir = fresh_dir("rooflineplan-tables-with-yaml");
  const std::string yaml = (std::filesystem::temp_directory_path() / "rooflineplan-tables-with.yaml").string();
  const auto r = test::run_cli({"calibrate", "--repetitions", "1", "--quick", "--out", yaml, "--kernel-table",
                                dir.string(), "--kernel-grid", "smoke"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("wrote " + yaml) < r.out.find("wrote " + (dir / "40-gb-s_gemm.csv").string()));
  CHECK(std::filesystem::exists(yaml));
  CHECK(io::read_kernel_table((dir / "40-gb-s_gemm.csv").string()).samples.size() == 16);
  // Without --out the YAML is stdout: what the tables say goes to stderr.
  const auto to_stdout = test::run_cli({"calibrate", "--repetitions", "1", "--quick", "--kernel-table", dir.string(),
                                        "--kernel-grid", "smoke"});
  REQUIRE(to_stdout.code == 0);
  CHECK(to_stdout.out.find("wrote") == std::string::npos);
  CHECK_THAT(to_stdout.err, Catch::Contains("(16 kernels)"));
}

TEST_CASE("calibrate --kernel-table: flags that would be ignored are refused, and so is a folder it cannot make") {
  const test::FakeCalibrationHost host(kHost);
  test::check_error(test::run_cli({"calibrate", "--tables-only"}), "--tables-only", "give --kernel-table DIR");
  test::check_error(test::run_cli({"calibrate", "--kernel-grid", "smoke"}), "--kernel-grid", "give --kernel-table DIR");
  const std::string dir = fresh_dir("rooflineplan-tables-refused").string();
  test::check_error(test::run_cli({"calibrate", "--tables-only", "--kernel-table", dir, "--out", dir + ".yaml"}), "--out",
                    "writes no GPU description");
  test::check_error(test::run_cli({"calibrate", "--tables-only", "--kernel-table", dir, "--quick"}), "--quick",
                    "measures no curves");
  const auto file = std::filesystem::temp_directory_path() / "rooflineplan-tables-a-file";
  std::ofstream(file) << "x\n";
  test::check_error(test::run_cli({"calibrate", "--tables-only", "--kernel-table", file.string()}), "--kernel-table",
                    "cannot make a folder there");
  CHECK(host.log->kernels == 0);  // refused before anything was measured
}

TEST_CASE("kernel tables: float32 GEMMs are read, and refused beside 16-bit ones at file:line") {
  const auto dir = fresh_dir("rooflineplan-tables-fp32");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "cpu_gemm.csv") << "gemm_dtype,m,n,k,latency_us\nfloat32,8,512,256,20\n";
  const io::KernelTable t = io::read_kernel_table((dir / "cpu_gemm.csv").string());
  CHECK(t.fp32_gemms);
  REQUIRE(t.samples.size() == 1);
  // 2·8·512·256 FLOPs; 4 bytes × (8·256 + 256·512 + 8·512) = 4 × 137216; weights 4 × 131072.
  CHECK(t.samples[0].ask.flops == 2097152);
  CHECK(t.samples[0].ask.bytes == 548864);
  CHECK(t.samples[0].ask.stream_bytes == 524288);
  CHECK(t.samples[0].seconds == Approx(20e-6));
  const std::string mixed = (dir / "mixed_gemm.csv").string();
  std::ofstream(mixed) << "gemm_dtype,m,n,k,latency_us\nbfloat16,8,512,256,20\nfloat32,8,512,256,20\n";
  CHECK_THROWS_WITH(io::read_kernel_table(mixed),
                    mixed + ":3: column `gemm_dtype`: float32 after 16-bit GEMMs: one peak a table");
}

TEST_CASE("calibrate --device cpu --kernel-table then fit --kernels: the whole path on this machine") {
  const auto dir = fresh_dir("rooflineplan-tables-cpu");
  const auto r = test::run_cli({"calibrate", "--device", "cpu", "--tables-only", "--kernel-table", dir.string(),
                                "--kernel-grid", "smoke", "--repetitions", "1"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto files = csv_files(dir);
  REQUIRE(files.size() == 1);  // GEMMs only: the CPU backend has no attention kernel, no all-reduce
  CHECK_THAT(files[0], Catch::EndsWith("_gemm.csv"));
  CHECK(lines(test::read_text(files[0]))[0] == "gemm_dtype,m,n,k,latency_us");
  const io::KernelTable t = io::read_kernel_table(files[0]);
  CHECK(t.fp32_gemms);
  REQUIRE(t.samples.size() == 16);
  for (const io::KernelSample& s : t.samples) CHECK((std::isfinite(s.seconds) && s.seconds > 0));
  CHECK_THAT(test::read_text(dir / "README.md"), Catch::Contains("skipped: context_attention: the cpu backend has no attention kernel") &&
                                          Catch::Contains("skipped: nccl (all-reduce): 1 device here"));
  // Fitted against a calibrated CPU's description (its fp32 peak and bandwidth).
  const auto fit = test::run_cli({"fit", "--format", "json", "--kernels", files[0], "--gpu",
                                  test::data_file("good/calibrated-cpu.yaml")});
  INFO(fit.err);
  REQUIRE(fit.code == 0);
  const auto j = nlohmann::json::parse(fit.out);
  CHECK(row_of(j, "gemm")["kernels"] == 16);
  CHECK(j["gpus"][0].get<std::string>().find("(fp32)") != std::string::npos);
}
