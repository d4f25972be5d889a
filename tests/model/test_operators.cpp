// Per-operator FLOPs and bytes, worked by hand for Llama-2-7B in fp16.
#include <catch2/catch.hpp>

#include <algorithm>

#include "model/engine.hpp"
#include "model/parameters.hpp"
#include "specs.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

const OpResult& op(const PhaseResult& p, std::string_view name) {
  const auto it = std::find_if(p.ops.begin(), p.ops.end(), [&](const OpResult& o) { return o.cost.name == name; });
  REQUIRE(it != p.ops.end());
  return *it;
}

struct Llama7B {
  ModelSpec model = test::llama_2_7b();
  GpuSpec gpu = test::a100_80gb();
};

}  // namespace

TEST_CASE("decode q_proj at batch 1: 2·4096·4096 FLOPs and 4096² weights + in + out - × 32 layers") {
  const Llama7B s;
  const Report r = evaluate(s.model, s.gpu, test::default_workload(s.model));
  const OpResult& q = op(r.decode.step, "q_proj");
  CHECK(q.cost.flops.value() == 32.0 * 2 * 4096 * 4096);
  CHECK(q.cost.bytes.value() == 32.0 * (4096.0 * 4096 * 2 + 4096 * 2 + 4096 * 2));
  CHECK(q.bound == Bound::memory);
}

TEST_CASE("decode attention at context 640: 32 heads × 640 keys × (2·128 + 5 softmax) FLOPs - K read 640·4096·2 B") {
  const Llama7B s;
  const Report r = evaluate(s.model, s.gpu, test::default_workload(s.model));
  REQUIRE(r.workload.context_tokens == 640);  // 512 + 256/2
  const OpResult& scores = op(r.decode.step, "attn_scores");
  CHECK(scores.cost.flops.value() == 32.0 * 32 * 640 * (2 * 128 + 5));
  CHECK(scores.cost.bytes.value() == 32.0 * (4096 * 2 + 640.0 * 4096 * 2));
}

TEST_CASE("a dense decode step reads every weight but the embedding table once") {
  const Llama7B s;
  const Report r = evaluate(s.model, s.gpu, test::default_workload(s.model, 16));
  Bytes read;
  for (const OpResult& o : r.decode.step.ops) read += o.cost.weight_bytes;
  // The embedding is a gather of 16 rows, not a read of the 32000 × 4096 × 2 B table.
  CHECK_THAT(read.value(), WithinRel(r.model.weight_bytes.value() - 32000.0 * 4096 * 2, 1e-12));
}

TEST_CASE("naive attention writes the full 512×512 score matrix per head in prefill - flash writes none") {
  const Llama7B s;
  Workload w = test::default_workload(s.model);
  const Report flash = evaluate(s.model, s.gpu, w);
  w.attention = AttentionKernel::naive;
  const Report naive = evaluate(s.model, s.gpu, w);
  const double scores = 32.0 * 32 * 512 * 512;  // layers × heads × n²
  // attn_scores writes the scores (2 B each); flash computes only the causal pairs n(n+1)/2.
  CHECK(op(naive.prefill, "attn_scores").cost.bytes - op(flash.prefill, "attn_scores").cost.bytes ==
        Bytes(scores * 2));
  CHECK(op(naive.prefill, "attn_softmax").cost.bytes.value() == 2 * scores * 2);
  CHECK(op(flash.prefill, "attn_values").cost.flops.value() == 32.0 * 32 * (512.0 * 513 / 2) * 2 * 128);
  CHECK(naive.prefill.time > flash.prefill.time);
}

TEST_CASE("Mixtral decode reads the experts its tokens pick: 2 of 8 at batch 1 - 8·(1 − 0.75⁴) at batch 4") {
  const ModelSpec m = test::mixtral_8x7b();
  const GpuSpec g = test::h100_sxm();
  const double expert_up = 32.0 * 4096 * 14336 * 2;  // one expert's up matrix over all layers, bf16
  const Report one = evaluate(m, g, test::default_workload(m, 1));
  CHECK_THAT(op(one.decode.step, "expert_up").cost.weight_bytes.value(), WithinRel(2 * expert_up, 1e-12));
  const Report four = evaluate(m, g, test::default_workload(m, 4));
  CHECK_THAT(op(four.decode.step, "expert_up").cost.weight_bytes.value(),
             WithinRel(8 * (1 - 0.31640625) * expert_up, 1e-12));
  // FLOPs follow top_k, not the experts read: 4 tokens × 2 experts.
  CHECK(op(four.decode.step, "expert_up").cost.flops.value() == 32.0 * 2 * (4 * 2) * 4096 * 14336);
}

TEST_CASE("tp 2 halves the weights per GPU and adds two all-reduces per layer") {
  const ModelSpec m = test::llama_2_70b();
  const GpuSpec g = test::a100_80gb();
  Workload w = test::default_workload(m);
  const Report one = evaluate(m, g, w);
  w.tp = 2;
  const Report two = evaluate(m, g, w);
  CHECK_THAT(op(two.decode.step, "ffn_up").cost.weight_bytes.value(),
             WithinRel(op(one.decode.step, "ffn_up").cost.weight_bytes.value() / 2, 1e-12));
  // Each all-reduce of 8192 × 2 B is bounded by in-network reduction's floor, (2−1)/2 · 16384 B /
  // 300 GB/s (a ring's two passes and the 5 us latency are the expected time's), 2 × 80 times and
  // once after the vocab-parallel embedding: 161 × 27.307 ns; and the head's 32,000 logits × 2 B
  // gathered, (2−1)/2 · 64,000 B / 300 GB/s = 106.67 ns. 4.3963 + 0.1067 = 4.5030 us.
  CHECK_THAT(two.decode.step.comm_time.value(), WithinRel(161 * (0.5 * 16384.0 / 300e9) + 0.5 * 64000.0 / 300e9, 1e-9));
  CHECK(op(two.decode.step, "allreduce_ffn").bound == Bound::interconnect);
}

TEST_CASE("fp8 KV cache halves the K/V read of a decode step") {
  const Llama7B s;
  Workload w = test::default_workload(s.model);
  const Report fp16 = evaluate(s.model, s.gpu, w);
  w.precision.kv = DType::fp8;
  const Report fp8 = evaluate(s.model, s.gpu, w);
  // attn_values reads V (640 · 4096 · bk) and writes the output (4096 · 2 B), per layer.
  CHECK(op(fp8.decode.step, "attn_values").cost.bytes.value() == 32.0 * (640.0 * 4096 * 1 + 4096 * 2));
  CHECK(op(fp16.decode.step, "attn_values").cost.bytes.value() == 32.0 * (640.0 * 4096 * 2 + 4096 * 2));
}
