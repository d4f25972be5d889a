#include "model/memory_ledger.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <variant>

#include "model/parameters.hpp"

namespace roofline {

namespace {

// Peak live activations of one prefill sequence on one GPU: the residual stream and its normed
// copy, plus the widest intermediate (linears that read one input and whose outputs live together,
// such as Q/K/V or gate and up; or attention's queries with decompressed K and V), plus a naive
// kernel's n×n scores, plus the fp32 logits of the last token.
Bytes prefill_activations_per_sequence(const LayerStack& stack, const Workload& w) {
  const double ab = bytes_per_element(w.precision.activations);
  const auto n = static_cast<double>(w.prompt_tokens);
  double widest = 0, together = 0, scores = 0, logits = 0;
  for (const Block& block : stack.blocks) {
    for (const PhasedStep& s : block.steps) {
      if (!s.runs_in(Phase::prefill)) continue;
      if (const auto* l = std::get_if<LinearStep>(&s.step)) {
        if (l->to_residual) continue;
        const double width = l->out * l->rows_per_token;
        together = l->joins_previous ? together + width : width;
        if (l->last_token) logits = l->out * 4.0;
        else widest = std::max(widest, together);
      } else if (const auto* a = std::get_if<AttentionStep>(&s.step)) {
        widest = std::max(widest, a->heads * a->qk_dim + (a->reads_cache ? 0 : a->k_width + a->v_width));
        if (w.attention == AttentionKernel::naive) scores = a->heads * n * n * ab;
      }
    }
  }
  return Bytes((n * ab * (2.0 * stack.hidden + widest) + scores + logits) * stack.cache_holders());
}

}  // namespace

Bytes group_cache_bytes_per_sequence(const LayerStack& stack, double tokens, const Workload& w) {
  // Every GPU of the group caches what its own shard writes: the whole latent (latent attention)
  // or at least one K/V head, so replicated heads count once per copy.
  return Bytes(cache_elements(stack, tokens).bytes(w.precision.kv) * stack.cache_holders());
}

Bytes group_cache_bytes_per_sequence(const ModelSpec& m, double tokens, const Workload& w) {
  if (!m.architecture) return Bytes(0);
  return group_cache_bytes_per_sequence(describe_layers(*m.architecture, sharding(w)), tokens, w);
}

SequenceFootprint sequence_footprint(const LayerStack& shard, const Workload& w) {
  const auto tokens = static_cast<double>(held_tokens(w));
  return {group_cache_bytes_per_sequence(shard, tokens, w), prefill_activations_per_sequence(shard, w)};
}

MemoryLedger memory_ledger(const WeightPlacement& weights, const LayerStack* shard, const SequenceFootprint& sequence,
                           const GpuSpec& g, const Workload& w) {
  if (shard && shard->tp != w.tp) {
    throw std::invalid_argument(fmt::format("memory_ledger: layers described for tp {}, workload at tp {}", shard->tp, w.tp));
  }
  MemoryLedger l;
  const auto B = static_cast<double>(w.batch);
  const Bytes kv_per_seq = shard ? sequence.cache : Bytes(0), act_per_seq = shard ? sequence.activations : Bytes(0);

  l.gpus = gpus(w);
  const double n = l.gpus;
  // GPUs that split the sequences (data-parallel attention); the others share each sequence.
  const double d = shard ? shard->data_parallel : 1;
  // Each stage holds one micro-batch's activations at a time: pp micro-batches' worth live at once.
  const auto live = [&w](long m) { return static_cast<double>(w.pp) / static_cast<double>(m); };
  l.weights = weights.all;
  l.kv_cache = kv_per_seq * B;
  l.activations = act_per_seq * B * live(microbatches(w));
  l.capacity = g.memory_capacity * n;
  l.reserve = l.capacity * w.reserve_fraction;
  l.total = l.weights + l.kv_cache + l.activations + l.reserve;
  // A sequence's cache and activations are spread over the n / d GPUs that hold it; the fullest
  // GPU holds ⌈B / d⌉ sequences.
  const Bytes reserve = g.memory_capacity * w.reserve_fraction;
  const Bytes per_seq = (kv_per_seq + act_per_seq * live(microbatches(w))) / (n / d);
  l.fullest_gpu = weights.fullest + per_seq * std::ceil(B / d) + reserve;
  l.fixed_fullest = weights.fullest + reserve;
  l.cache_per_sequence_fullest = kv_per_seq / (n / d);
  l.activations_per_sequence_fullest = act_per_seq * live(microbatches(w)) / (n / d);
  l.attention_ranks = static_cast<long>(d);
  l.fits = l.fullest_gpu <= g.memory_capacity;

  // At the largest batches a pipeline runs its --microbatches (pp by default).
  const long most_microbatches = w.pp > 1 ? (w.microbatches > 0 ? w.microbatches : w.pp) : 1;
  const Bytes per_seq_at_most = (kv_per_seq + act_per_seq * live(most_microbatches)) / (n / d);
  if (per_seq_at_most > Bytes(0)) {
    const Bytes free = g.memory_capacity - reserve - weights.fullest;
    // Clamped so that a tiny per-sequence footprint cannot overflow the count, where a long has
    // 32 bits too (WebAssembly): past 10^9 sequences no batch is limited by memory anyway.
    l.max_batch = free > Bytes(0) ? static_cast<long>(std::min(d * std::floor(free / per_seq_at_most), 1e9)) : 0L;
  }
  return l;
}

}  // namespace roofline
