// The schema tables: what is written reads back as the same spec, the field tables of docs/inputs.md are
// the ones the tables produce, and every error still names its place and suggests a key.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.hpp"
#include "io/gpu_writer.hpp"
#include "io/hf_config.hpp"
#include "io/model_writer.hpp"
#include "io/presets.hpp"
#include "io/schema.hpp"

using namespace roofline;

namespace {

// Member by member, written out here rather than through the schema, so that a field the
// schema forgets to read or write shows up as a difference.
void check_same(const ModelSpec& a, const ModelSpec& b) {
  CHECK(a.name == b.name);
  CHECK(a.source == b.source);
  CHECK(a.declared_params == b.declared_params);
  CHECK(a.dtype == b.dtype);
  CHECK(a.max_context == b.max_context);
  REQUIRE(a.quantization.has_value() == b.quantization.has_value());
  if (a.quantization) {
    CHECK(a.quantization->formats == b.quantization->formats);
    CHECK(a.quantization->group_size == b.quantization->group_size);
  }
  REQUIRE(a.architecture.has_value() == b.architecture.has_value());
  if (!a.architecture) return;
  const Architecture &x = *a.architecture, &y = *b.architecture;
  CHECK(x.layers == y.layers);
  CHECK(x.hidden == y.hidden);
  CHECK(x.heads == y.heads);
  CHECK(x.kv_heads == y.kv_heads);
  CHECK(x.head_dim == y.head_dim);
  CHECK(x.ffn == y.ffn);
  CHECK(x.ffn_type == y.ffn_type);
  CHECK(x.vocab == y.vocab);
  CHECK(x.tied_embeddings == y.tied_embeddings);
  CHECK(x.attention_bias == y.attention_bias);
  CHECK(x.linear_bias == y.linear_bias);
  CHECK(x.norm == y.norm);
  CHECK(x.position_embeddings == y.position_embeddings);
  REQUIRE(x.moe.has_value() == y.moe.has_value());
  if (x.moe) {
    CHECK(x.moe->experts == y.moe->experts);
    CHECK(x.moe->top_k == y.moe->top_k);
    CHECK(x.moe->ffn == y.moe->ffn);
    CHECK(x.moe->shared_experts == y.moe->shared_experts);
    CHECK(x.moe->dense_layers == y.moe->dense_layers);
  }
  REQUIRE(x.mla.has_value() == y.mla.has_value());
  if (x.mla) {
    CHECK(x.mla->q_lora_rank == y.mla->q_lora_rank);
    CHECK(x.mla->kv_lora_rank == y.mla->kv_lora_rank);
    CHECK(x.mla->nope_dim == y.mla->nope_dim);
    CHECK(x.mla->rope_dim == y.mla->rope_dim);
    CHECK(x.mla->v_dim == y.mla->v_dim);
  }
  CHECK(x.mixer_pattern == y.mixer_pattern);
  CHECK(x.ffn_pattern == y.ffn_pattern);
  CHECK(x.sliding_window == y.sliding_window);
  CHECK(x.attention_chunk == y.attention_chunk);
  CHECK(x.attention_sinks == y.attention_sinks);
  CHECK(x.qk_norm == y.qk_norm);
  CHECK(x.qk_norm_per_layer == y.qk_norm_per_layer);
  CHECK(x.attention_gate == y.attention_gate);
  REQUIRE(x.recurrent.has_value() == y.recurrent.has_value());
  if (x.recurrent) {
    CHECK(x.recurrent->kind == y.recurrent->kind);
    CHECK(x.recurrent->inner == y.recurrent->inner);
    CHECK(x.recurrent->state == y.recurrent->state);
    CHECK(x.recurrent->heads == y.recurrent->heads);
    CHECK(x.recurrent->groups == y.recurrent->groups);
    CHECK(x.recurrent->conv_kernel == y.recurrent->conv_kernel);
    CHECK(x.recurrent->dt_rank == y.recurrent->dt_rank);
    CHECK(x.recurrent->conv_bias == y.recurrent->conv_bias);
  }
  REQUIRE(x.sparse.has_value() == y.sparse.has_value());
  if (x.sparse) {
    CHECK(x.sparse->top_k == y.sparse->top_k);
    CHECK(x.sparse->index_heads == y.sparse->index_heads);
    CHECK(x.sparse->index_dim == y.sparse->index_dim);
  }
}

void check_same(const GpuSpec& a, const GpuSpec& b) {
  CHECK(a.name == b.name);
  CHECK(a.source == b.source);
  CHECK(a.memory_capacity == b.memory_capacity);
  CHECK(a.memory_bandwidth == b.memory_bandwidth);
  CHECK(a.peak == b.peak);
  REQUIRE(a.interconnect.has_value() == b.interconnect.has_value());
  if (a.interconnect) {
    CHECK(a.interconnect->bandwidth == b.interconnect->bandwidth);
    CHECK(a.interconnect->latency == b.interconnect->latency);
  }
  CHECK(a.efficiency.memory == b.efficiency.memory);
  CHECK(a.efficiency.compute == b.efficiency.compute);
  REQUIRE(a.expected.has_value() == b.expected.has_value());
  if (a.expected) {
    const ExpectedModel &x = *a.expected, &y = *b.expected;
    CHECK(x.memory == y.memory);
    CHECK(x.compute == y.compute);
    CHECK(x.launch == y.launch);
    CHECK(x.step == y.step);
    CHECK(x.hop_latency == y.hop_latency);
    CHECK(x.dequant_int8 == y.dequant_int8);
    CHECK(x.dequant_int4 == y.dequant_int4);
    CHECK(x.spread_memory == y.spread_memory);
    CHECK(x.spread_compute == y.spread_compute);
    CHECK(x.spread_overhead == y.spread_overhead);
    CHECK(x.overlap == y.overlap);
    CHECK(x.skinny_rows == y.skinny_rows);
    CHECK(x.skinny_compute == y.skinny_compute);
    CHECK(x.source == y.source);
  }
  REQUIRE(a.calibration.has_value() == b.calibration.has_value());
  if (!a.calibration) return;
  const Calibration &x = *a.calibration, &y = *b.calibration;
  CHECK(x.bandwidth == y.bandwidth);
  CHECK(x.peak == y.peak);
  CHECK(x.device == y.device);
  CHECK(x.toolchain == y.toolchain);
  CHECK(x.date == y.date);
  CHECK(x.repetitions == y.repetitions);
  CHECK(x.spread == y.spread);
  REQUIRE(x.kernels.size() == y.kernels.size());
  for (std::size_t i = 0; i < x.kernels.size(); ++i) {
    CHECK(x.kernels[i].name == y.kernels[i].name);
    CHECK(x.kernels[i].bandwidth == y.kernels[i].bandwidth);
    CHECK(x.kernels[i].best == y.kernels[i].best);
    CHECK(x.kernels[i].median == y.kernels[i].median);
    CHECK(x.kernels[i].spread == y.kernels[i].spread);
  }
}

ModelSpec model_from(const std::string& yaml) { return io::read_model(io::parse_yaml(yaml, "model.yaml")); }
GpuSpec gpu_from(const std::string& yaml) { return io::read_gpu(io::parse_yaml(yaml, "gpu.yaml")); }

// docs/inputs.md's text between `<!-- begin NAME -->` and `<!-- end NAME -->`.
std::string readme_section(const std::string& name) {
  const std::string all = test::read_text(ROOFLINEPLAN_DOCS "/inputs.md"), begin = "<!-- begin " + name + " -->\n", end = "<!-- end " + name + " -->";
  const auto from = all.find(begin), to = all.find(end);
  if (from == std::string::npos || to == std::string::npos) return "(no section " + name + " in docs/inputs.md)";
  return all.substr(from + begin.size(), to - from - begin.size());
}

}  // namespace

TEST_CASE("schema: every model preset and Hugging Face config, written and read back, is the same spec") {
  for (const auto& p : io::list_presets(io::PresetKind::model)) {
    INFO(p.id);
    const ModelSpec m = io::load_model(p.id);
    check_same(model_from(io::model_yaml(m)), m);
  }
  for (const std::string folder : {"hf", "hf-configs"}) {
    for (const auto& entry : std::filesystem::directory_iterator(test::data_file(folder))) {
      // unknown-falcon is refused: not a known architecture.
      if (entry.path().extension() != ".json" || entry.path().stem() == "unknown-falcon") continue;
      INFO(entry.path().filename());
      const ModelSpec m = io::load_model(entry.path().string());
      check_same(model_from(io::model_yaml(m)), m);
    }
  }
  const ModelSpec teaching = io::load_model(test::example_file("7b.yaml"));
  check_same(model_from(io::model_yaml(teaching)), teaching);
}

// Nemotron-H's shape in small: Mamba-2 layers, an attention layer, FFN-only layers.
constexpr const char* kHybrid = R"(name: hybrid
dtype: bf16
layers: 8
hidden: 1024
heads: 8
kv_heads: 2
ffn: 4096
ffn_type: plain
vocab: 32000
mixer_pattern: [ssm, none, ssm, none, full, none, sliding, none]
ffn_pattern: [none, dense]
sliding_window: 512
qk_norm: true
attention_sinks: true
recurrent: {kind: mamba2, inner: 2048, state: 128, heads: 32, groups: 4, conv_kernel: 4}
)";

TEST_CASE("schema: a hybrid model's kinds, patterns and recurrent layer read, write and read back the same") {
  const ModelSpec m = model_from(kHybrid);
  const Architecture& a = *m.architecture;
  CHECK(a.mixer(4) == Mixer::full);
  CHECK(a.mixer(6) == Mixer::sliding);
  CHECK(a.ffn_kind(1) == FfnKind::dense);
  CHECK(a.recurrent->heads == 32);
  CHECK(a.recurrent->conv_bias);  // the default
  const std::string yaml = io::model_yaml(m);
  CHECK_THAT(yaml, Catch::Contains("mixer_pattern: [ssm, none, ssm, none, full, none, sliding, none]"));
  CHECK_THAT(yaml, Catch::Contains("recurrent: {kind: mamba2, inner: 2048, state: 128, heads: 32, groups: 4}"));
  check_same(model_from(yaml), m);
}

TEST_CASE("schema: a pattern word that is not a kind, or a kind without its fields, is refused at the field") {
  const std::string head = "name: x\nlayers: 4\nhidden: 8\nheads: 2\nkv_heads: 2\nffn: 16\nffn_type: gated\n"
                           "vocab: 4\ndtype: fp16\n";
  CHECK_THROWS_WITH(model_from(head + "mixer_pattern: [sliding, global]\n"),
                    Catch::StartsWith("model.yaml:10:16: mixer_pattern: \"global\" is not one of `full`, `sliding`"));
  CHECK_THROWS_WITH(model_from(head + "mixer_pattern: sliding\n"),
                    Catch::StartsWith("model.yaml:10:16: mixer_pattern: must be a non-empty list"));
  // The engine's rule, located at the mapping that misses the window.
  CHECK_THROWS_WITH(model_from(head + "mixer_pattern: [sliding, full]\n"),
                    Catch::Contains("sliding_window: sliding layers need the window's width in tokens"));
  CHECK_THROWS_WITH(model_from(head + "mixer_pattern: [ssm]\nffn_pattern: [dense]\n"),
                    Catch::Contains("heads: no layer attends"));
  CHECK_THROWS_WITH(model_from(head + "ffn_pattern: [dense, moe]\n"),
                    Catch::Contains("ffn_pattern: moe layers need the `moe` section"));
}

TEST_CASE("schema: every GPU preset and a calibrated GPU, written and read back, is the same spec") {
  for (const auto& p : io::list_presets(io::PresetKind::gpu)) {
    INFO(p.id);
    const GpuSpec g = io::load_gpu(p.id);
    check_same(gpu_from(io::gpu_yaml(g)), g);
  }
  const GpuSpec calibrated = io::load_gpu(test::data_file("good/calibrated-cpu.yaml"));
  check_same(gpu_from(io::gpu_yaml(calibrated)), calibrated);
  // A measured figure need not survive the trip through GB: 4028408320.3218 / 1e9 prints as
  // 4.0284083203218, which reads back as ...320.3217998 B. Such a value is written in bytes (it
  // does read back in GiB, but in 17 digits: "3.7517476084845143 GiB" is the longer text).
  GpuSpec g = calibrated;
  g.memory_capacity = Bytes(4028408320.3218);
  CHECK_THAT(io::gpu_yaml(g), Catch::Contains("capacity: 4028408320.3218 B"));
  check_same(gpu_from(io::gpu_yaml(g)), g);
  // 80 GiB is 85.89934592 GB exactly; a binary size is written as one, as nvidia-smi gives it.
  g.memory_capacity = Bytes(80.0 * 1024 * 1024 * 1024);
  CHECK_THAT(io::gpu_yaml(g), Catch::Contains("capacity: 80 GiB"));
  g.memory_capacity = Bytes(81559.0 * 1024 * 1024);
  CHECK_THAT(io::gpu_yaml(g), Catch::Contains("capacity: 81559 MiB"));
  g.memory_capacity = Bytes(80e9);
  CHECK_THAT(io::gpu_yaml(g), Catch::Contains("capacity: 80 GB"));
}

TEST_CASE("schema: a quantization section is read, written on one line and read back") {
  const ModelSpec m = io::load_model(test::data_file("good/gpt-oss-like.yaml"));
  REQUIRE(m.quantization);
  CHECK(m.quantization->of(TensorClass::experts) == WeightFormat::mxfp4);
  CHECK_FALSE(m.quantization->of(TensorClass::attention));
  CHECK_FALSE(m.quantization->group_size);
  CHECK_THAT(io::model_yaml(m), Catch::Contains("dtype: bf16\nquantization: {experts: mxfp4}\n"));
  check_same(model_from(io::model_yaml(m)), m);
  // Every class and a group, on a model with a leading dense layer (a format for a class the
  // layers do not hold is refused).
  ModelSpec all = m;
  all.architecture->ffn = 2880;
  all.architecture->moe->dense_layers = 1;
  all.quantization = Quantization{{WeightFormat::fp8_block, WeightFormat::awq, WeightFormat::nvfp4,
                                   WeightFormat::fp8_channel, WeightFormat::int8},
                                  64, DType::fp8};
  CHECK_THAT(io::model_yaml(all), Catch::Contains("quantization: {attention: fp8-block, dense_ffn: awq, experts: nvfp4, "
                                                  "lm_head: fp8-channel, embedding: int8, group_size: 64, compute: fp8}"));
  check_same(model_from(io::model_yaml(all)), all);
}

TEST_CASE("schema: the writer leaves out defaults and what the reader works out again") {
  // tests/data/good/tiny.yaml: head_dim 128 / 4 = 32 is derived, tied_embeddings false is the
  // default, so neither is written; the order is the table's.
  CHECK(io::model_yaml(io::load_model(test::data_file("good/tiny.yaml"))) ==
        "name: Tiny\nlayers: 2\nhidden: 128\nheads: 4\nkv_heads: 4\nffn: 256\nffn_type: gated\nvocab: 512\n"
        "dtype: fp32\n");
  // The teaching form: 7e9 parameters and no architecture.
  CHECK_THAT(io::model_yaml(io::load_model(test::example_file("7b.yaml"))), Catch::Contains("params: 7000000000"));
  // Efficiency 1 is the default: an uncalibrated datasheet GPU has no efficiency line.
  CHECK_THAT(io::gpu_yaml(io::load_gpu("h100-sxm")), !Catch::Contains("efficiency") &&
                                                         Catch::Contains("latency: 5 us") &&
                                                         Catch::Contains("capacity: 81559 MiB"));
}

// On a mismatch the table the schema produces is left in the working directory
// (readme-NAME.md), ready to paste between the markers of docs/inputs.md.
void check_readme_table(const std::string& name, io::SchemaKind kind) {
  const std::string produced = io::schema_markdown(kind);
  if (readme_section(name) == produced) return;
  std::string file = "readme-" + name + ".md";
  std::replace(file.begin(), file.end(), ' ', '-');
  std::ofstream(file) << produced;
  FAIL_CHECK("docs/inputs.md's `" << name << "` table differs from the schema's; the schema's is in " << file);
}

TEST_CASE("schema: the field tables of docs/inputs.md are the ones the schema produces") {
  check_readme_table("model fields", io::SchemaKind::model);
  check_readme_table("gpu fields", io::SchemaKind::gpu);
  CHECK(readme_section("weight formats") == io::weight_formats_markdown());
}

TEST_CASE("schema: the table's rows - required, defaults, units - worked from the model and GPU tables") {
  const std::string model = io::schema_markdown(io::SchemaKind::model);
  CHECK_THAT(model, Catch::Contains("| `layers` | whole number | required |"));
  CHECK_THAT(model, Catch::Contains("| `tied_embeddings` | `true` or `false` | optional, default `false` |"));
  CHECK_THAT(model, Catch::Contains("| `norm` | `rmsnorm` (a scale) or `layernorm` (a scale and a bias) | optional, "
                                    "default `rmsnorm` |"));
  CHECK_THAT(model, Catch::Contains("| `moe.top_k` | whole number | required |"));
  const std::string gpu = io::schema_markdown(io::SchemaKind::gpu);
  CHECK_THAT(gpu, Catch::Contains("| `memory.bandwidth` | bandwidth, like \"2039 GB/s\" | required |"));
  CHECK_THAT(gpu, Catch::Contains("| `efficiency.memory` | share in [0.001, 1] | optional, default `1` |"));
}

TEST_CASE("schema: an unknown key - nested or not - still names its place and the nearest field") {
  const std::string head = "name: x\nlayers: 2\nhidden: 8\nheads: 2\nkv_heads: 2\nffn_type: gated\nvocab: 4\ndtype: fp16\n";
  CHECK_THROWS_WITH(model_from(head + "moe: {experts: 4, topk: 2, ffn: 16}\n"),
                    "model.yaml:9:19: unknown key `moe.topk`, did you mean `moe.top_k`?");
  CHECK_THROWS_WITH(model_from(head + "ffn: 16\nhead_dims: 4\n"),
                    "model.yaml:10:1: unknown key `head_dims`, did you mean `head_dim`?");
  CHECK_THROWS_WITH(gpu_from("name: g\nmemory: {capacity: 1 GB, bandwith: 1 GB/s}\ncompute: {peak: {fp16: 1 TFLOPS}}\n"),
                    "gpu.yaml:2:26: unknown key `memory.bandwith`, did you mean `memory.bandwidth`?");
}

TEST_CASE("schema: rules that join fields fail at the field") {
  const std::string head = "name: x\nlayers: 2\nhidden: 8\nheads: 2\nffn_type: gated\nvocab: 4\ndtype: fp16\n";
  CHECK_THROWS_WITH(model_from(head + "kv_heads: 2\nffn: 16\nparams: 7e9\n"),
                    Catch::StartsWith("model.yaml:10:9: params: give either `params`"));
  CHECK_THROWS_WITH(model_from(head + "head_dim: 4\nmla: {kv_lora_rank: 4, nope_dim: 2, rope_dim: 2, v_dim: 2}\n"),
                    "model.yaml:8:11: head_dim: with mla the head width is mla.nope_dim + mla.rope_dim");
  // With mla, kv_heads is heads (2) and head_dim nope + rope = 4; no ffn without dense layers.
  const ModelSpec m = model_from(head + "mla: {kv_lora_rank: 4, nope_dim: 3, rope_dim: 1, v_dim: 2}\n"
                                        "moe: {experts: 4, top_k: 2, ffn: 16}\n");
  CHECK(m.architecture->kv_heads == 2);
  CHECK(m.architecture->head_dim == 4);
  CHECK(m.architecture->ffn == 0);
  CHECK_THROWS_WITH(model_from(head + "kv_heads: 2\nffn: 16\nmoe: {experts: 4, top_k: 2, ffn: 16}\n"),
                    Catch::StartsWith("model.yaml:9:6: ffn: a MoE model gives its expert width as moe.ffn"));
  CHECK_THROWS_WITH(model_from(head + "kv_heads: 2\nmoe: {experts: 4, top_k: 2, ffn: 16, dense_layers: 1}\n"),
                    "model.yaml:1:1: missing field `ffn`");
}

TEST_CASE("schema: the fields a config.json is mapped onto are fields of the model schema") {
  for (std::string_view field : io::model_fields_read_from_hf_config()) {
    INFO(field);
    CHECK(io::has_field(io::model_schema(), field));
  }
  CHECK_FALSE(io::has_field(io::model_schema(), "moe.topk"));
}

TEST_CASE("schema: every kernel coefficient at either end of the range `fit --kernels` keeps it in is written and read back") {
  // The fit moves each coefficient between its physical bounds (coefficients_of); a GPU file the
  // fit writes must then load. The YAML reader refuses a time under 1 ns: a block's or a tile's
  // fixed time had been fitted down to 1 ps.
  const GpuSpec base = io::load_gpu("h100-sxm");
  REQUIRE(base.expected);
  REQUIRE(base.expected->kernels);
  int checked = 0;
  for (std::size_t c = 0; c < kKernelClasses; ++c) {
    const auto klass = static_cast<KernelClass>(c);
    KernelCoefficients probe = *base.expected->kernels;
    const std::size_t count = coefficients_of(klass, probe).size();
    for (std::size_t i = 0; i < count; ++i) {
      for (const bool high : {false, true}) {
        GpuSpec g = base;
        KernelCoefficients& k = *g.expected->kernels;
        const ClassCoefficient x = coefficients_of(klass, k)[i];
        *x.value = high ? x.highest : x.lowest;
        INFO(name(klass) << "." << x.key << " at " << *x.value);
        GpuSpec back;
        bool loaded = false;
        CHECK_NOTHROW((back = gpu_from(io::gpu_yaml(g)), loaded = true));
        if (!loaded) continue;
        KernelCoefficients& read = *back.expected->kernels;
        CHECK(*coefficients_of(klass, read)[i].value == Approx(*x.value).epsilon(1e-3));
        ++checked;
      }
    }
  }
  CHECK(checked > 100);
}
