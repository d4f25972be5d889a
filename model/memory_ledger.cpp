#include "model/memory_ledger.hpp"

#include <algorithm>
#include <cmath>

#include "model/parameters.hpp"

namespace roofline {

namespace {

// Peak live activations of one prefill sequence on one GPU: the residual stream and its normed
// copy, plus the widest intermediate (gate and up outputs, or Q/K/V), plus a naive kernel's
// n×n scores, plus the fp32 logits of the last token.
Bytes prefill_activations_per_sequence(const Architecture& a, const Workload& w) {
  const double ab = bytes_per_element(w.precision.activations);
  const auto n = static_cast<double>(w.prompt_tokens);
  const double heads = static_cast<double>(a.heads) / w.tp;
  const double kv_heads = std::max(1.0, static_cast<double>(a.kv_heads) / w.tp);
  const double intermediates = a.ffn_type == FfnType::gated ? 2 : 1;
  double ffn_width = static_cast<double>(a.ffn);
  if (a.moe) ffn_width = std::max(ffn_width, static_cast<double>(a.moe->ffn) * std::max(a.moe->top_k, a.moe->shared_experts));
  const double ffn = intermediates * ffn_width / w.tp;
  const double qkv = (heads + 2 * kv_heads) * static_cast<double>(a.head_dim);
  double bytes = n * ab * (2.0 * static_cast<double>(a.hidden) + std::max(ffn, qkv));
  if (w.attention == AttentionKernel::naive) bytes += heads * n * n * ab;
  bytes += static_cast<double>(a.vocab) / w.tp * 4.0;
  return Bytes(bytes * w.tp);
}

}  // namespace

Bytes group_kv_bytes_per_token(const ModelSpec& m, const Workload& w) {
  if (!m.architecture) return Bytes(0);
  const Architecture& a = *m.architecture;
  // Every GPU of the group needs the whole latent (latent attention) or at least one K/V head.
  const double copies = a.mla ? w.tp : std::max(1.0, static_cast<double>(w.tp) / a.kv_heads);
  return kv_bytes_per_token(m, w.precision) * copies;
}

MemoryLedger memory_ledger(const ModelSpec& m, const GpuSpec& g, const Workload& w) {
  MemoryLedger l;
  const auto tokens = static_cast<double>(w.prompt_tokens + w.gen_tokens);
  const auto B = static_cast<double>(w.batch);
  const Bytes kv_per_seq = group_kv_bytes_per_token(m, w) * tokens;
  const Bytes act_per_seq = m.architecture ? prefill_activations_per_sequence(*m.architecture, w) : Bytes(0);

  l.weights = weight_bytes(count_parameters(m), w.precision);
  l.kv_cache = kv_per_seq * B;
  l.activations = act_per_seq * B;
  l.capacity = g.memory_capacity * w.tp;
  l.reserve = l.capacity * w.reserve_fraction;
  l.total = l.weights + l.kv_cache + l.activations + l.reserve;
  l.fits = l.total <= l.capacity;

  const Bytes per_seq = kv_per_seq + act_per_seq;
  if (per_seq > Bytes(0)) {
    const Bytes free = l.capacity - l.reserve - l.weights;
    // Clamped so that a tiny per-sequence footprint cannot overflow the count.
    l.max_batch = free > Bytes(0) ? static_cast<long>(std::min(std::floor(free / per_seq), 1e15)) : 0L;
  }
  return l;
}

}  // namespace roofline
