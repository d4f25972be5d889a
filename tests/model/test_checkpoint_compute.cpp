// The compute format a checkpoint implies: one that quantizes its activations as it runs (W8A8:
// DeepSeek-V3's fp8 `activation_scheme`) computes in that format where the GPU has its peak, so the
// compute bound is that peak's and no fp8 run can beat it; on a GPU without it the weights are
// unpacked (weight-only). Either way the report says so.
#include <catch2/catch.hpp>

#include <algorithm>
#include <variant>

#include "model/engine.hpp"
#include "model/expected.hpp"
#include "specs.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

TEST_CASE("checkpoint compute: DeepSeek-V3 computes in fp8 on an H200, in bf16 on an A100 - flags win") {
  const ModelSpec m = test::deepseek_v3();  // fp8 blocks, quantization.compute fp8
  const Precision h200 = resolve_precision(m, {}, test::h200_141gb());
  CHECK(h200.compute == DType::fp8);
  CHECK(h200.compute_source == ComputeSource::checkpoint);
  // The A100 has no fp8 peak: weight-only in the activation format, the checkpoint's format kept.
  const Precision a100 = resolve_precision(m, {}, test::a100_80gb());
  CHECK(a100.compute == DType::bf16);
  CHECK(a100.compute_source == ComputeSource::no_peak);
  CHECK(a100.checkpoint_compute == DType::fp8);
  // --compute wins; --weights in the checkpoint's own format keeps its compute, another drops it.
  const GpuSpec g = test::h200_141gb();
  CHECK(resolve_precision(m, {.compute = DType::bf16}, g).compute_source == ComputeSource::asked);
  CHECK(resolve_precision(m, {.compute = DType::bf16}, g).compute == DType::bf16);
  CHECK(resolve_precision(m, {.weights = WeightFormat::fp8_block}, g).compute == DType::fp8);
  CHECK(resolve_precision(m, {.weights = WeightFormat::int4}, g).compute == DType::bf16);
  CHECK(resolve_precision(m, {.weights = WeightFormat::int4}, g).compute_source == ComputeSource::activations);
  // fp8 formats the checkpoint names without a compute, on the classes the model has (no experts
  // in a dense model), run W8A8 as engines run fp8 weights; an int4 class beside them does not.
  ModelSpec dense = test::llama_3_1_8b();
  dense.quantization = Quantization{};
  dense.quantization->of(TensorClass::attention) = WeightFormat::fp8;
  dense.quantization->of(TensorClass::dense_ffn) = WeightFormat::fp8_channel;
  CHECK(resolve_precision(dense, {}, g).compute_source == ComputeSource::fp8_weights);
  CHECK(resolve_precision(dense, {}, g).compute == DType::fp8);
  CHECK(resolve_precision(dense, {}, test::a100_80gb()).compute_source == ComputeSource::no_peak);
  dense.quantization->of(TensorClass::dense_ffn) = WeightFormat::int4;
  CHECK(resolve_precision(dense, {}, g).compute == DType::bf16);
  // fp8 attention beside a bf16 FFN the checkpoint leaves alone: weight-only, not W8A8.
  dense.quantization->of(TensorClass::dense_ffn).reset();
  CHECK(resolve_precision(dense, {}, g).compute == DType::bf16);
  // A model whose dtype is fp8 has fp8 blocks without a quantization section.
  ModelSpec fp8_dtype = test::llama_3_1_8b();
  fp8_dtype.dtype = DType::fp8;
  CHECK(resolve_precision(fp8_dtype, {}, g).compute_source == ComputeSource::fp8_weights);
  // A checkpoint that names no compute (weight-only, or none) computes in its activations.
  CHECK(resolve_precision(test::gpt_oss_like(), {}, g).compute_source == ComputeSource::activations);
  CHECK(resolve_precision(test::llama_3_1_8b(), {}, g).compute == DType::bf16);
}

TEST_CASE("checkpoint compute: DeepSeek-V3's prefill bound is its FLOPs at the fp8 peak, 1979 TFLOP/s, and says why") {
  const ModelSpec m = test::deepseek_v3();
  const GpuSpec g = test::h200_141gb();
  Workload w = test::expert_parallel_8(m, false, 32);
  w.prompt_tokens = 512;
  w.context_tokens = 640;
  w.precision = resolve_precision(m, {}, g);
  const Report r = evaluate(m, g, w);
  // Every operator's arithmetic at the fp8 peak: the phase's compute time is its FLOPs over it,
  // half what bf16's 989 TFLOP/s gives.
  CHECK_THAT(r.prefill.compute_time.value(), WithinRel(r.prefill.flops.value() / 1979e12, 1e-9));
  Workload bf16 = w;
  bf16.precision = resolve_precision(m, {.compute = DType::bf16}, g);
  const Report slow = evaluate(m, g, bf16);
  CHECK_THAT(slow.prefill.compute_time.value(), WithinRel(r.prefill.flops.value() / 989e12, 1e-9));
  CHECK(r.prefill.time < slow.prefill.time);
  // The report states the choice; --compute's own choice needs no word.
  const auto said = [](const Report& x) {
    for (const Warning& warning : x.warnings) {
      if (const auto* c = std::get_if<ComputeFromCheckpoint>(&warning)) return std::optional(*c);
    }
    return std::optional<ComputeFromCheckpoint>();
  };
  REQUIRE(said(r));
  CHECK(said(r)->source == ComputeSource::checkpoint);
  CHECK(said(r)->compute == DType::fp8);
  CHECK_FALSE(said(slow));
  // On an A100: weight-only, said so with the GPU named.
  const GpuSpec a100 = test::a100_80gb();
  Workload on_a100 = test::default_workload(m, 1);
  on_a100.tp = 8;
  on_a100.precision = resolve_precision(m, {}, a100);
  const auto fallback = said(evaluate(m, a100, on_a100));
  REQUIRE(fallback);
  CHECK(fallback->source == ComputeSource::no_peak);
  CHECK(fallback->compute == DType::bf16);
  CHECK(fallback->gpu == "NVIDIA A100 80GB SXM");
}

TEST_CASE("checkpoint compute: a 16-bit GEMM beside fp8 arithmetic is priced at the 16-bit peak in the expected time") {
  // Llama-3.1-8B's bf16 weights under --compute fp8: the bound's arithmetic is at the fp8 peak,
  // but its GEMMs run the 16-bit class, at 989 TFLOP/s, as under --compute bf16.
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::h100_sxm();
  Workload w = test::default_workload(m, 1);
  w.prompt_tokens = 8192;
  w.context_tokens = 8192 + 256;
  w.precision = resolve_precision(m, {.compute = DType::fp8}, g);
  const Report fp8 = evaluate(m, g, w);
  w.precision = resolve_precision(m, {.compute = DType::bf16}, g);
  const Report bf16 = evaluate(m, g, w);
  // ffn_down of 8192 rows: compute-bound, its bound 989/1979 of bf16's at the fp8 peak; its expected
  // time the same.
  const auto down = [](const Report& r) {
    const auto& ops = r.prefill.ops;
    const auto at = static_cast<std::size_t>(std::find_if(ops.begin(), ops.end(), [](const OpResult& o) {
                                                return o.cost.name == "ffn_down";
                                              }) - ops.begin());
    REQUIRE(at < ops.size());
    const std::vector<Seconds> expected = expected_op_times(r.prefill, r.gpu.spec.expected_model(), r.gpu.ceilings);
    return std::pair{ops[at].time.value(), expected.at(at).value()};
  };
  const auto [fp8_bound, fp8_expected] = down(fp8);
  const auto [bf16_bound, bf16_expected] = down(bf16);
  CHECK_THAT(fp8_bound, WithinRel(bf16_bound * 989 / 1979, 1e-9));
  CHECK_THAT(fp8_expected, WithinRel(bf16_expected, 1e-12));
}
