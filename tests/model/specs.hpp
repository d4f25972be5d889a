#pragma once
// The specs the engine's tests use, built in code so that tests/model links only the engine.
// Each mirrors one preset or example file field for field, in the units the file is written in
// (the loaders scale the written number by the unit, and so do the helpers here, which keeps
// every double bit-identical). tests/cli/test_model_fixtures.cpp checks each against what io
// loads from its file, so the two cannot drift apart.
#include <initializer_list>
#include <utility>

#include "hardware/gpu_spec.hpp"
#include "model/engine.hpp"
#include "model/model_spec.hpp"
#include "model/precision.hpp"
#include "model/workload.hpp"

namespace roofline::test {

// Units as the YAML files write them (SI and binary prefixes, as io/units_parse.cpp reads them).
inline Bytes GB(double n) { return Bytes(n * 1e9); }
inline Bytes MiB(double n) { return Bytes(n * 0x1p20); }
inline BytesPerSecond GBps(double n) { return BytesPerSecond(n * 1e9); }
inline BytesPerSecond TBps(double n) { return BytesPerSecond(n * 1e12); }
inline FlopsPerSecond TFLOPS(double n) { return FlopsPerSecond(n * 1e12); }
inline FlopsPerSecond TOPS(double n) { return FlopsPerSecond(n * 1e12); }
inline Seconds us(double n) { return Seconds(n * 1e-6); }

inline PeakTable peaks(std::initializer_list<std::pair<DType, FlopsPerSecond>> rates) {
  PeakTable table{};
  for (const auto& [dtype, rate] : rates) table[static_cast<std::size_t>(dtype)] = rate;
  return table;
}

// A dense Llama-style decoder with head_dim = hidden / heads, as the loader defaults it.
inline Architecture dense_gated(int layers, long hidden, int heads, int kv_heads, long ffn, long vocab) {
  Architecture a;
  a.layers = layers;
  a.hidden = hidden;
  a.heads = heads;
  a.kv_heads = kv_heads;
  a.head_dim = hidden / heads;
  a.ffn = ffn;
  a.ffn_type = FfnType::gated;
  a.vocab = vocab;
  a.tied_embeddings = false;
  return a;
}

// ---- models ----

// presets/models/llama-2-7b.yaml
inline ModelSpec llama_2_7b() {
  ModelSpec m;
  m.name = "Llama-2-7B";
  m.source = "HF meta-llama/Llama-2-7b-hf config.json (6.74 B parameters)";
  m.architecture = dense_gated(32, 4096, 32, 32, 11008, 32000);
  m.dtype = DType::fp16;
  m.max_context = 4096;
  return m;
}

// presets/models/llama-3.1-8b.yaml
inline ModelSpec llama_3_1_8b() {
  ModelSpec m;
  m.name = "Llama-3.1-8B";
  m.source = "HF meta-llama/Llama-3.1-8B config.json (8.03 B parameters, GQA with 8 KV heads)";
  m.architecture = dense_gated(32, 4096, 32, 8, 14336, 128256);
  m.dtype = DType::bf16;
  m.max_context = 131072;
  return m;
}

// presets/models/llama-2-70b.yaml
inline ModelSpec llama_2_70b() {
  ModelSpec m;
  m.name = "Llama-2-70B";
  m.source = "HF meta-llama/Llama-2-70b-hf config.json (69.0 B parameters, GQA with 8 KV heads)";
  m.architecture = dense_gated(80, 8192, 64, 8, 28672, 32000);
  m.dtype = DType::fp16;
  m.max_context = 4096;
  return m;
}

// presets/models/mixtral-8x7b.yaml: no dense FFN (ffn 0); each expert is 14336 wide.
inline ModelSpec mixtral_8x7b() {
  Architecture a = dense_gated(32, 4096, 32, 8, 0, 32000);
  a.moe = MoeSpec{};
  a.moe->experts = 8;
  a.moe->top_k = 2;
  a.moe->ffn = 14336;
  ModelSpec m;
  m.name = "Mixtral-8x7B";
  m.source = "HF mistralai/Mixtral-8x7B-v0.1 config.json (46.7 B total, 12.9 B active parameters)";
  m.architecture = a;
  m.dtype = DType::bf16;
  m.max_context = 32768;
  return m;
}

// presets/models/qwen2.5-7b.yaml
inline ModelSpec qwen2_5_7b() {
  Architecture a = dense_gated(28, 3584, 28, 4, 18944, 152064);
  a.attention_bias = true;
  ModelSpec m;
  m.name = "Qwen2.5-7B";
  m.source = "HF Qwen/Qwen2.5-7B config.json (7.61 B parameters, 6.53 B non-embedding; QKV biases)";
  m.architecture = a;
  m.dtype = DType::bf16;
  m.max_context = 131072;
  return m;
}

// tests/data/good/gpt-oss-like.yaml: gpt-oss-20b's widths (24 layers of 2880, 64 query and 8 K/V
// heads of 64, 32 experts of 2880 with top 4, a 201,088-token vocabulary) as the checkpoint
// stores them: MXFP4 experts, bf16 attention, embedding and head. Its biases, attention sinks and
// sliding window are left out, to keep the hand-worked numbers short.
inline ModelSpec gpt_oss_like() {
  Architecture a = dense_gated(24, 2880, 64, 8, 0, 201088);
  a.head_dim = 64;
  a.moe = MoeSpec{};
  a.moe->experts = 32;
  a.moe->top_k = 4;
  a.moe->ffn = 2880;
  ModelSpec m;
  m.name = "gpt-oss-like";
  m.source = "gpt-oss-20b's widths and formats, without biases, sinks or windows";
  m.architecture = a;
  m.dtype = DType::bf16;
  m.quantization = Quantization{};
  m.quantization->of(TensorClass::experts) = WeightFormat::mxfp4;
  return m;
}

// presets/models/deepseek-v3.yaml (HF deepseek-ai/DeepSeek-V3 config.json): 61 layers of 7168, latent attention of
// 128 heads (Q rank 1536, K/V rank 512, 128 + 64 Q/K and 128 V per head), 3 dense layers of 18432,
// then 256 routed experts of 2048 (8 a token) and one shared; a 129,280-token vocabulary, untied;
// weights fp8 in 128 × 128 blocks but the embedding and head (bf16), computed in fp8 (the
// activations quantized as they run). 671 B parameters, 37 B active;
// one multi-token-prediction module beside them, not priced.
inline ModelSpec deepseek_v3() {
  Architecture a = dense_gated(61, 7168, 128, 128, 18432, 129280);
  a.head_dim = 192;
  a.mla = LatentAttention{1536, 512, 128, 64, 128};
  a.moe = MoeSpec{256, 8, 2048, 1, 3};
  a.mtp_modules = 1;
  ModelSpec m;
  m.name = "DeepSeek-V3";
  m.source = "HF deepseek-ai/DeepSeek-V3 config.json, fp8 128x128 block weights as published (671 B total, 37 B "
             "active; the 14 B multi-token-prediction module is not priced)";
  m.max_context = 163840;
  m.architecture = a;
  m.assumptions = {Assumption::mtp_not_modelled};
  m.dtype = DType::bf16;
  m.quantization = Quantization{};
  for (TensorClass c : {TensorClass::attention, TensorClass::dense_ffn, TensorClass::experts}) {
    m.quantization->of(c) = WeightFormat::fp8_block;
  }
  m.quantization->compute = DType::fp8;  // activation_scheme dynamic: W8A8
  return m;
}

// examples/7b.yaml: a dense 7B model known only by its size.
inline ModelSpec teaching_7b() {
  ModelSpec m;
  m.name = "7B";
  m.source = "teaching example (any dense 7B model, e.g. Llama-2-7B, rounded)";
  m.declared_params = 7e9;
  m.dtype = DType::fp16;
  return m;
}

// presets/models/nemotron-3-nano-30b-a3b.yaml (HF nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16
// config.json): a Nemotron-H hybrid of 52 layers of 2688, each one Mamba-2 mixer (M), one
// attention mixer of 32 query and 2 K/V heads of 128 (*) or one MoE FFN of 128 plain experts of
// 1856, 6 a token, and 2 shared (E): MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME, the
// preset's 48-entry lists repeated from the first layer; Mamba-2 of 4096 inner, 64 heads, 8
// groups, state 128 kept in fp32; a 131,072-token vocabulary, untied; bf16.
inline ModelSpec nemotron_3_nano() {
  Architecture a = dense_gated(52, 2688, 32, 2, 0, 131072);
  a.head_dim = 128;
  a.ffn_type = FfnType::plain;
  a.moe = MoeSpec{.experts = 128, .top_k = 6, .ffn = 1856, .shared_experts = 2};
  using M = Mixer;
  using F = FfnKind;
  const M s = M::ssm, f = M::full, n = M::none;
  a.mixer_pattern = {s, n, s, n, s, f, n, s, n, s, n, s, f, n, s, n, s, n, s, f, n, s, n, s,
                     n, s, f, n, s, n, s, n, s, f, n, s, n, s, n, s, n, s, f, n, s, n, s, n};
  const F e = F::moe, o = F::none;
  a.ffn_pattern = {o, e, o, e, o, o, e, o, e, o, e, o, o, e, o, e, o, e, o, o, e, o, e, o,
                   e, o, o, e, o, e, o, e, o, o, e, o, e, o, e, o, e, o, o, e, o, e, o, e};
  a.recurrent = Recurrent{.kind = RecurrentKind::mamba2, .inner = 4096, .state = 128, .heads = 64, .groups = 8,
                          .fp32_state = true};
  ModelSpec m;
  m.name = "Nemotron-3-Nano-30B-A3B";
  m.source = "HF nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 config.json, bf16 as published (31.6 B total, 3.6 B "
             "active with embeddings)";
  m.architecture = a;
  m.dtype = DType::bf16;
  m.max_context = 262144;
  return m;
}

// ---- GPUs (no preset gives an efficiency: datasheet figures are used as they are) ----

// presets/gpus/a100-80gb.yaml
inline GpuSpec a100_80gb() {
  GpuSpec g;
  g.name = "NVIDIA A100 80GB SXM";
  g.source = "NVIDIA A100 Tensor Core GPU datasheet (dense, without sparsity)";
  g.memory_capacity = MiB(81920);  // as nvidia-smi reports it: 85.9e9 B
  g.power = Watts(400);
  g.memory_bandwidth = GBps(2039);
  g.peak = peaks({{DType::fp16, TFLOPS(312)}, {DType::bf16, TFLOPS(312)}, {DType::tf32, TFLOPS(156)},
                 {DType::fp32, TFLOPS(19.5)}, {DType::int8, TOPS(624)}});
  g.interconnect = Interconnect{GBps(300), us(5), Topology::switched, 1, 8};
  g.network = Network{GBps(25), us(10)};
  g.efficiency.memory = 1.0;
  g.efficiency.compute = 1.0;
  return g;
}

// examples/a100.yaml: the A100 rounded to 2 TB/s for the teaching example.
inline GpuSpec a100_teaching() {
  GpuSpec g;
  g.name = "NVIDIA A100 (teaching figures)";
  g.source = "NVIDIA A100 datasheet, rounded to 2 TB/s and 312 TFLOPS";
  g.memory_capacity = GB(80);
  g.memory_bandwidth = TBps(2);
  g.peak = peaks({{DType::fp16, TFLOPS(312)}, {DType::bf16, TFLOPS(312)}, {DType::fp32, TFLOPS(19.5)},
                 {DType::tf32, TFLOPS(156)}, {DType::int8, TOPS(624)}});
  g.interconnect = Interconnect{GBps(300), us(5)};
  g.efficiency.memory = 1.0;
  g.efficiency.compute = 1.0;
  return g;
}

// presets/gpus/h100-sxm.yaml
inline GpuSpec h100_sxm() {
  GpuSpec g;
  g.name = "NVIDIA H100 SXM";
  g.source = "NVIDIA H100 Tensor Core GPU datasheet (dense, without sparsity)";
  g.memory_capacity = MiB(81559);  // as nvidia-smi reports it: 85.5e9 B
  g.power = Watts(700);
  g.memory_bandwidth = TBps(3.35);
  g.peak = peaks({{DType::fp16, TFLOPS(989)}, {DType::bf16, TFLOPS(989)}, {DType::tf32, TFLOPS(494)},
                 {DType::fp32, TFLOPS(67)}, {DType::fp8, TFLOPS(1979)}, {DType::int8, TOPS(1979)}});
  g.interconnect = Interconnect{GBps(450), us(5), Topology::switched, 1, 8};
  g.network = Network{GBps(50), us(10)};
  g.efficiency.memory = 1.0;
  g.efficiency.compute = 1.0;
  return g;
}

// H200's datasheet figures: 141 GB at 4.8 TB/s, NVLink 4 at 450 GB/s a direction, 8 a node
// (presets/gpus/h200.yaml holds the 143,771 MiB = 150.75 GB nvidia-smi reports).
inline GpuSpec h200_141gb() {
  GpuSpec g = h100_sxm();
  g.name = "H200";
  g.memory_capacity = GB(141);
  g.memory_bandwidth = TBps(4.8);
  return g;
}

// presets/gpus/l4.yaml
inline GpuSpec l4() {
  GpuSpec g;
  g.name = "NVIDIA L4";
  g.source = "NVIDIA L4 Tensor Core GPU datasheet (dense, without sparsity)";
  g.memory_capacity = MiB(23034);  // as nvidia-smi reports it: 24.15e9 B
  g.power = Watts(72);
  g.memory_bandwidth = GBps(300);
  g.peak = peaks({{DType::fp16, TFLOPS(121)}, {DType::bf16, TFLOPS(121)}, {DType::tf32, TFLOPS(60)},
                 {DType::fp32, TFLOPS(30.3)}, {DType::fp8, TFLOPS(242.5)}, {DType::int8, TOPS(242.5)}});
  g.interconnect = Interconnect{GBps(32), us(10), Topology::pcie};
  g.efficiency.memory = 1.0;
  g.efficiency.compute = 1.0;
  return g;
}

// ---- workloads ----

// A workload with the defaults of the command line (512 tokens in, 256 out, tp 1), its formats
// resolved for this model.
inline Workload default_workload(const ModelSpec& m, long batch = 1) {
  Workload w;
  w.batch = batch;
  w.precision = resolve_precision(m);
  return w;
}

// Eight GPUs of tp 8 with the routed experts over ep 8 (DeepSeek-V3's serving layout), with or
// without data-parallel attention.
inline Workload expert_parallel_8(const ModelSpec& m, bool dp_attention, long batch = 1) {
  Workload w = default_workload(m, batch);
  w.tp = 8;
  w.ep = 8;
  w.dp_attention = dp_attention;
  return w;
}

// examples/7b.yaml on examples/a100.yaml: 7e9 fp16 parameters, 2 TB/s, 312 TFLOP/s.
struct TeachingExample {
  ModelSpec model = teaching_7b();
  GpuSpec gpu = a100_teaching();
  [[nodiscard]] Report at(long batch) const { return evaluate(model, gpu, default_workload(model, batch)); }
};

}  // namespace roofline::test
