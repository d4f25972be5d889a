#include "model/precision.hpp"

#include <algorithm>

namespace roofline {

std::optional<WeightFormat> Precision::block_format() const {
  const WeightFormat first = of(kBlockClasses[0]);
  for (TensorClass c : kBlockClasses) {
    if (of(c) != first) return std::nullopt;
  }
  return first;
}

namespace {

// `--weights` absent, or the format the checkpoint already stores its quantized blocks in.
bool keeps_checkpoint_blocks(const Quantization& q, const PrecisionOverrides& o) {
  if (!o.weights) return true;
  return std::all_of(kBlockClasses.begin(), kBlockClasses.end(),
                     [&](TensorClass c) { return !q.of(c) || *q.of(c) == *o.weights; });
}

}  // namespace

Precision resolve_precision(DType model_dtype, const std::optional<Quantization>& checkpoint,
                            const PrecisionOverrides& o) {
  const Quantization q = checkpoint.value_or(Quantization{});
  Precision p;
  const WeightFormat dtype = weight_format_of(model_dtype);
  for (TensorClass c : kBlockClasses) p.set(c, o.weights.value_or(q.of(c).value_or(dtype)));
  const auto& routed = q.of(TensorClass::experts);
  p.set(TensorClass::shared_experts,
        o.weights.value_or(q.of(TensorClass::shared_experts).value_or(routed.value_or(dtype))));
  p.activations = o.activations.value_or(is_wide_float(model_dtype) ? model_dtype : DType::fp16);
  // The checkpoint's declared KV format (an fp8 cache beside NVFP4 or fp8 weights) is what an
  // engine left to its default runs: vLLM's --kv-cache-dtype auto takes it (io/hf_quantization.cpp).
  // --kv wins; other --weights price another checkpoint, which declares nothing.
  if (o.kv) {
    p.kv = *o.kv;
  } else if (q.kv && keeps_checkpoint_blocks(q, o)) {
    p.kv = *q.kv;
    p.kv_from_checkpoint = true;
  } else {
    p.kv = p.activations;
  }
  if (o.compute) {
    p.compute = *o.compute;
    p.compute_source = ComputeSource::asked;
  } else if (q.compute && keeps_checkpoint_blocks(q, o)) {
    p.compute = p.checkpoint_compute = *q.compute;
    p.compute_source = ComputeSource::checkpoint;
  } else {
    p.compute = p.activations;
  }
  p.group_size = o.group_size.value_or(q.group_size.value_or(p.group_size));
  p.group_size_asked = o.group_size.has_value();
  // The tables stay in 16 bits (the activation format) beside quantized blocks, and follow wide
  // block weights (fp32 blocks, fp32 tables).
  const std::optional<WeightFormat> block = p.block_format();
  const WeightFormat table = block && is_wide_float(*block) ? *block : weight_format_of(p.activations);
  p.set(TensorClass::embedding, q.of(TensorClass::embedding).value_or(table));
  p.set(TensorClass::lm_head, o.lm_head.value_or(q.of(TensorClass::lm_head).value_or(table)));
  return p;
}

namespace {

// Every block class this model has weights in is fp8 (a dense model has no experts, whose
// format, the dtype's, says nothing of how its blocks run; a model known by its size is all blocks).
bool blocks_all_fp8(const ModelSpec& m, const Precision& p) {
  const auto fp8 = [&](TensorClass c) { return element_of(p.of(c)) == DType::fp8; };  // fp8, -channel, -block
  if (!m.architecture) return std::all_of(kBlockClasses.begin(), kBlockClasses.end(), fp8);
  return std::all_of(kBlockClasses.begin(), kBlockClasses.end(),
                     [&](TensorClass c) { return !holds(*m.architecture, c) || fp8(c); });
}

}  // namespace

Precision resolve_precision(const ModelSpec& m, const PrecisionOverrides& o) {
  Precision p = resolve_precision(m.dtype, m.quantization, o);
  // fp8 weights the checkpoint names no compute for, or `--weights` gives: engines run them W8A8.
  if (p.compute_source == ComputeSource::activations && blocks_all_fp8(m, p)) {
    p.compute = p.checkpoint_compute = DType::fp8;
    p.compute_source = ComputeSource::fp8_weights;
  }
  return p;
}

Precision resolve_precision(const ModelSpec& m, const PrecisionOverrides& o, const GpuSpec& g) {
  Precision p = resolve_precision(m, o);
  const bool chosen = p.compute_source == ComputeSource::checkpoint || p.compute_source == ComputeSource::fp8_weights;
  if (chosen && !g.effective_peak(p.compute)) {
    p.compute = p.activations;
    p.compute_source = ComputeSource::no_peak;
  }
  return p;
}

}  // namespace roofline
