// tests/model builds its specs in code (tests/model/specs.hpp) so that it links only the engine.
// Here each one is checked against the preset or example file it mirrors, so that they cannot
// drift apart: field for field through the writers, then the numbers the engine makes of them.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "io/gpu_writer.hpp"
#include "io/model_writer.hpp"
#include "io/spec_loader.hpp"
#include "model/engine.hpp"
#include "specs.hpp"

using namespace roofline;

namespace {

std::string example(const std::string& name) { return std::string(ROOFLINEPLAN_EXAMPLES) + "/" + name; }

struct ModelFixture {
  std::string file;  // a preset name or a path, as --model takes it
  std::function<ModelSpec()> build;
};

struct GpuFixture {
  std::string file;
  std::function<GpuSpec()> build;
};

const std::vector<ModelFixture>& model_fixtures() {
  static const std::vector<ModelFixture> fixtures = {
      {"llama-2-7b", test::llama_2_7b},     {"llama-3.1-8b", test::llama_3_1_8b},
      {"llama-2-70b", test::llama_2_70b},   {"mixtral-8x7b", test::mixtral_8x7b},
      {"qwen2.5-7b", test::qwen2_5_7b},     {example("7b.yaml"), test::teaching_7b},
      {"deepseek-v3", test::deepseek_v3},   {"nemotron-3-nano-30b-a3b", test::nemotron_3_nano},
      {std::string(ROOFLINEPLAN_TEST_DATA) + "/good/gpt-oss-like.yaml", test::gpt_oss_like}};
  return fixtures;
}

const std::vector<GpuFixture>& gpu_fixtures() {
  static const std::vector<GpuFixture> fixtures = {{"a100-80gb", test::a100_80gb},
                                                   {"h100-sxm", test::h100_sxm},
                                                   {"l4", test::l4},
                                                   {example("a100.yaml"), test::a100_teaching}};
  return fixtures;
}

// The writers' shortest round-trip digits could hide a last-bit difference: the GPU's
// dimensioned numbers are compared as doubles too.
void check_same_numbers(const GpuSpec& built, const GpuSpec& loaded) {
  CHECK(built.memory_capacity.value() == loaded.memory_capacity.value());
  CHECK(built.memory_bandwidth.value() == loaded.memory_bandwidth.value());
  CHECK(built.peak == loaded.peak);
  REQUIRE(built.interconnect.has_value() == loaded.interconnect.has_value());
  if (built.interconnect) {
    CHECK(built.interconnect->bandwidth.value() == loaded.interconnect->bandwidth.value());
    CHECK(built.interconnect->latency.value() == loaded.interconnect->latency.value());
    CHECK(built.interconnect->topology == loaded.interconnect->topology);
    CHECK(built.interconnect->links == loaded.interconnect->links);
    CHECK(built.interconnect->domain == loaded.interconnect->domain);
  }
  REQUIRE(built.network.has_value() == loaded.network.has_value());
  if (built.network) {
    CHECK(built.network->bandwidth.value() == loaded.network->bandwidth.value());
    CHECK(built.network->latency.value() == loaded.network->latency.value());
  }
  REQUIRE(built.power.has_value() == loaded.power.has_value());
  if (built.power) CHECK(built.power->value() == loaded.power->value());
  CHECK(built.efficiency.memory == loaded.efficiency.memory);
  CHECK(built.efficiency.compute == loaded.efficiency.compute);
  CHECK(built.calibration.has_value() == loaded.calibration.has_value());
}

void check_same_report(const Report& built, const Report& loaded) {
  CHECK(built.model.params == loaded.model.params);
  CHECK(built.model.weight_bytes.value() == loaded.model.weight_bytes.value());
  CHECK(built.model.kv_bytes_per_token.value() == loaded.model.kv_bytes_per_token.value());
  CHECK(built.prefill.time.value() == loaded.prefill.time.value());
  CHECK(built.decode.step.time.value() == loaded.decode.step.time.value());
  CHECK(built.decode.step.comm_time.value() == loaded.decode.step.comm_time.value());
  CHECK(built.memory.total.value() == loaded.memory.total.value());
  CHECK(built.memory.max_batch == loaded.memory.max_batch);
}

}  // namespace

TEST_CASE("each model built in code writes the same YAML as the file it mirrors") {
  for (const ModelFixture& f : model_fixtures()) {
    INFO(f.file);
    CHECK(io::model_yaml(f.build()) == io::model_yaml(io::load_model(f.file)));
  }
}

TEST_CASE("each GPU built in code writes the same YAML as the file it mirrors - and has the same doubles") {
  for (const GpuFixture& f : gpu_fixtures()) {
    INFO(f.file);
    GpuSpec built = f.build();
    const GpuSpec loaded = io::load_gpu(f.file);
    // The fixtures mirror the datasheet; a preset's `expected:` block is fitted (`fit --kernels`,
    // its numbers checked by tests/cli/test_kernel_fit.cpp and docs/expected-performance.md).
    built.expected = loaded.expected;
    CHECK(io::gpu_yaml(built) == io::gpu_yaml(loaded));
    check_same_numbers(built, loaded);
  }
}

TEST_CASE("the engine gives the same report for each spec built in code as for its file - batch 8 - tp 1 and 2") {
  for (const ModelFixture& mf : model_fixtures()) {
    for (const GpuFixture& gf : gpu_fixtures()) {
      INFO(mf.file << " on " << gf.file);
      const ModelSpec built_model = mf.build(), loaded_model = io::load_model(mf.file);
      const GpuSpec built_gpu = gf.build(), loaded_gpu = io::load_gpu(gf.file);
      // The teaching form has no heads to split: it runs on one GPU.
      for (int tp : built_model.architecture ? std::vector{1, 2} : std::vector{1}) {
        Workload w = test::default_workload(built_model, 8);
        w.precision = resolve_precision(built_model, {}, built_gpu);  // fp8 checkpoints on an A100: weight-only
        w.tp = tp;
        check_same_report(evaluate(built_model, built_gpu, w), evaluate(loaded_model, loaded_gpu, w));
      }
    }
  }
}
