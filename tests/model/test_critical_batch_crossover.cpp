// B* with the KV cache is the batch where the point's own step turns compute-bound: checked against
// the step's compute and memory times on both sides of it, for gpt-oss-120b (sliding-window and
// full layers, attention sinks, MXFP4 experts) with an fp8 cache, whose attention the step times at
// the fp8 peak, and for dense Llama-3.1-8B.
#include <catch2/catch.hpp>

#include <cmath>

#include "model/critical_batch.hpp"
#include "model/engine.hpp"
#include "specs.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

// presets/models/gpt-oss-120b.yaml: 36 layers of 2880 alternating a 128-token sliding window and
// full attention, 64 query and 8 K/V heads of 64 with biases and sinks, 128 experts of 2880 (top
// 4) in MXFP4 beside bf16 attention, embedding and head, a 201,088-token vocabulary.
ModelSpec gpt_oss_120b() {
  Architecture a = test::dense_gated(36, 2880, 64, 8, 0, 201088);
  a.head_dim = 64;
  a.attention_bias = true;
  a.mixer_pattern = {Mixer::sliding, Mixer::full};
  a.sliding_window = 128;
  a.attention_sinks = true;
  a.moe = MoeSpec{};
  a.moe->experts = 128;
  a.moe->top_k = 4;
  a.moe->ffn = 2880;
  ModelSpec m;
  m.name = "gpt-oss-120b";
  m.source = "HF openai/gpt-oss-120b config.json, MXFP4 experts and bf16 attention";
  m.architecture = a;
  m.dtype = DType::bf16;
  m.quantization = Quantization{};
  m.quantization->of(TensorClass::experts) = WeightFormat::mxfp4;
  m.max_context = 131072;
  return m;
}

// The command line's workload (512 tokens in, 256 out: context 640) at `batch`, its cache in `kv`.
Workload at(const ModelSpec& m, long batch, DType kv, long prompt = 512, long gen = 256) {
  Workload w = test::default_workload(m, batch);
  w.prompt_tokens = prompt;
  w.gen_tokens = gen;
  w.context_tokens = prompt + gen / 2;
  w.precision.kv = kv;
  return w;
}

// The step at ⌊B*⌋ is memory-bound (memory ≥ compute), and at ⌈B*⌉ + 1 compute-bound.
void crosses_at_critical_batch(const ModelSpec& m, const GpuSpec& g, DType kv, long prompt = 512, long gen = 256) {
  const Report r = evaluate(m, g, at(m, 8, kv, prompt, gen));
  REQUIRE(r.critical_batch.at_context.has_value());
  const double b = *r.critical_batch.at_context;
  const PhaseResult below = evaluate(m, g, at(m, static_cast<long>(std::floor(b)), kv, prompt, gen)).decode.step;
  const PhaseResult above = evaluate(m, g, at(m, static_cast<long>(std::ceil(b)) + 1, kv, prompt, gen)).decode.step;
  INFO("B* = " << b << "; at the batch below: memory " << below.memory_time.value() << " s, compute "
               << below.compute_time.value() << " s; above: memory " << above.memory_time.value() << " s, compute "
               << above.compute_time.value() << " s");
  CHECK(below.memory_time >= below.compute_time);
  CHECK(above.compute_time >= above.memory_time);
}

}  // namespace

TEST_CASE("gpt-oss-120b with an fp8 cache at 640 tokens on an H100 - B* = 6974.7, its attention timed at the fp8 peak as the step times it") {
  // One sequence, every expert read (the JSON's decode at batches 6000 and 7000): it adds
  // F = 10,496,241,216 FLOPs and 25,984,640 B that are not weights (its fp8 K/V: 18 full layers ×
  // 640 keys × 1024 B = 11,796,480, 18 windowed × 128 × 1024 = 2,359,296), beside 64,010,706,048 B
  // of weights a step. Of F, the attention's products over the fp8 cache, 18 × 64 heads × (640 +
  // 128) keys × (2·64 + 5 + 2·64) = 230,916,096 FLOPs, run at the fp8 peak, 1979 TFLOP/s: 10.379500
  // + 0.116683 = 10.496183 us of compute against 7.756609 us of memory a sequence, so
  // B* = 19.107673 ms / 2.739574 us = 6974.69. Every FLOP at 989 TFLOP/s (10.613 us) had said 6689,
  // where the step's 70.21 ms of compute sit under 70.99 ms of memory.
  const ModelSpec m = gpt_oss_120b();
  const GpuSpec g = test::h100_sxm();
  const Report r = evaluate(m, g, at(m, 8, DType::fp8));
  const double f8 = 18 * 64 * (640 + 128) * (2 * 64 + 5 + 2 * 64.0), f = 10'496'241'216.0;
  CHECK(f8 == 230'916'096.0);
  const double compute = (f - f8) / 989e12 + f8 / 1979e12, memory = 25'984'640.0 / 3.35e12;
  const double hand = (64'010'706'048.0 / 3.35e12) / (compute - memory);
  CHECK(hand == Approx(6974.69).epsilon(1e-6));
  REQUIRE(r.critical_batch.at_context.has_value());
  CHECK_THAT(*r.critical_batch.at_context, WithinRel(hand, 1e-9));
  crosses_at_critical_batch(m, g, DType::fp8);
}

TEST_CASE("gpt-oss-120b's B* with the cache is where its step turns compute-bound - fp8 and bf16 caches, within and past its window") {
  const ModelSpec m = gpt_oss_120b();
  const GpuSpec g = test::h100_sxm();
  // 640 tokens, past the 128-token window; 100 (60 in, 80 out), within it.
  crosses_at_critical_batch(m, g, DType::fp8);
  crosses_at_critical_batch(m, g, DType::fp8, 60, 80);
  crosses_at_critical_batch(m, g, DType::bf16, 60, 80);
}

TEST_CASE("Llama-3.1-8B's B* with the cache is where its step turns compute-bound - fp8 and bf16 caches on an H100") {
  // At 100 tokens (60 in, 80 out): its bf16 cache crosses over at 556.04, an fp8 one at 447.74 (its
  // cache read halves, and its attention runs at the fp8 peak: at 989 TFLOP/s it said 446.54, and the
  // step at 447 is still memory-bound). At 640 tokens on an A100-80GB, a bf16 cache.
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::h100_sxm();
  crosses_at_critical_batch(m, g, DType::bf16, 60, 80);
  crosses_at_critical_batch(m, g, DType::fp8, 60, 80);
  crosses_at_critical_batch(m, test::a100_80gb(), DType::bf16);
}
