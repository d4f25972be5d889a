// Every bundled preset loads, says where its figures come from, and is listed.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "io/presets.hpp"

using namespace roofline;

TEST_CASE("presets: the issue's models and GPUs are all bundled - each with a source") {
  std::vector<std::string> models, gpus;
  for (const auto& p : io::list_presets(io::PresetKind::model)) {
    models.push_back(p.id);
    CHECK_FALSE(io::load_model(p.id).source.empty());
  }
  for (const auto& p : io::list_presets(io::PresetKind::gpu)) {
    gpus.push_back(p.id);
    CHECK_FALSE(io::load_gpu(p.id).source.empty());
  }
  for (const char* id : {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "mistral-7b",
                         "mixtral-8x7b", "qwen2.5-7b", "qwen2.5-72b"}) {
    CHECK(std::find(models.begin(), models.end(), id) != models.end());
  }
  for (const char* id : {"a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200", "l4", "l40s", "rtx-4090", "mi300x",
                         "b200"}) {
    CHECK(std::find(gpus.begin(), gpus.end(), id) != gpus.end());
  }
}

TEST_CASE("presets: A100-80GB is 2039 GB/s and 312 TFLOP/s fp16 dense - ridge 153 FLOP/B") {
  const GpuSpec g = io::load_gpu("a100-80gb");
  CHECK(g.memory_bandwidth.value() == 2039e9);
  CHECK(g.datasheet_peak(DType::fp16)->value() == 312e12);
  // 81920 MiB as nvidia-smi reports it: 80 × 2^30 = 85,899,345,920 B, not the decimal 80e9.
  CHECK(g.memory_capacity.value() == 85'899'345'920.0);
  CHECK(g.power->value() == 400);
}

TEST_CASE("presets: capacities as the devices report them - H100 81559 MiB, H200 143771 MiB, MI300X 192 GiB") {
  // 81559 × 2^20 = 85,520,809,984 B: 6.9% more than the datasheet's "80 GB" read as 80e9.
  CHECK(io::load_gpu("h100-sxm").memory_capacity.value() == 85'520'809'984.0);
  CHECK(io::load_gpu("h100-pcie").memory_capacity.value() == 85'520'809'984.0);
  // 143771 × 2^20 = 150,754,820,096 B, where "141 GB" was 141e9.
  CHECK(io::load_gpu("h200").memory_capacity.value() == 150'754'820'096.0);
  // 8 stacks × 24 GiB = 206,158,430,208 B.
  CHECK(io::load_gpu("mi300x").memory_capacity.value() == 206'158'430'208.0);
}

TEST_CASE("presets: every GPU states its power - H100 SXM 700 W") {
  for (const auto& p : io::list_presets(io::PresetKind::gpu)) {
    INFO(p.id);
    CHECK(io::load_gpu(p.id).power.has_value());
  }
  CHECK(io::load_gpu("h100-sxm").power->value() == 700);
}

TEST_CASE("presets: `rooflineplan presets` lists models with counts and GPUs with figures") {
  const auto r = test::run_cli({"presets"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("llama-2-7b") && Catch::Contains("6.74 B") && Catch::Contains("46.7 B") &&
                        Catch::Contains("12.9 B") && Catch::Contains("h200") && Catch::Contains("4.80 TB/s"));
}
