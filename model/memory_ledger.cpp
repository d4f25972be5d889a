#include "model/memory_ledger.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <variant>

#include "model/parameters.hpp"
#include "model/pipeline.hpp"

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
  return {group_cache_bytes_per_sequence(shard, tokens, w), prefill_activations_per_sequence(shard, w), {}};
}

SequenceFootprint sequence_footprint(const Architecture& a, const LayerStack& shard, const Workload& w) {
  SequenceFootprint f = sequence_footprint(shard, w);
  if (w.pp == 1) return f;
  const auto tokens = static_cast<double>(held_tokens(w));
  for (const LayerStack& stage : pipeline_stages(a, shard, w)) {
    f.stages.push_back({group_cache_bytes_per_sequence(stage, tokens, w), prefill_activations_per_sequence(stage, w)});
  }
  return f;
}

std::vector<LayerStack> pipeline_stages(const Architecture& a, const LayerStack& shard, const Workload& w) {
  const std::vector<int> split = stage_split(a.layers, w.pp);
  std::vector<LayerStack> stages(split.size(), LayerStack{{}, shard.hidden, shard.tp, shard.data_parallel, 0, 0});
  stages.front().tower_params = shard.tower_params;  // the towers feed the first stage's embedding
  bool past_layers = false, tied = false;
  for (const Block& b : shard.blocks) {
    if (b.selection.of == LayerSelection::Of::none) {
      (past_layers ? stages.back() : stages.front()).blocks.push_back(b);
      for (const PhasedStep& s : b.steps) {
        if (const auto* l = std::get_if<LinearStep>(&s.step); l && l->last_token && !l->counted) tied = true;
      }
      continue;
    }
    past_layers = true;
    int begin = 0;
    for (std::size_t i = 0; i < split.size(); ++i) {
      const int held = layers_in(a, b, begin, begin + split[i]);
      begin += split[i];
      if (held == 0) continue;
      stages[i].blocks.push_back(b);
      stages[i].blocks.back().layers = held;
    }
  }
  // The embedding is the first block (describe_layers); the last stage holds its table again.
  if (tied && stages.size() > 1) stages.back().blocks.push_back(shard.blocks.front());
  return stages;
}

WeightPlacement stage_weights(std::span<const LayerStack> stages, const WeightBytes& one_gpu,
                              const WeightPricing& pricing, const Workload& w) {
  WeightPlacement p{one_gpu.total() * static_cast<double>(w.tp), Bytes(0), {}};
  WeightBytes last;
  for (const LayerStack& stage : stages) {
    last = weigh(stage, pricing).bytes;
    p.stages.push_back(last.total());
    p.fullest = std::max(p.fullest, p.stages.back());
  }
  // The stages hold every weight once, but for a tied table, which the last holds again as its
  // head's (pipeline_stages): that copy on each of its tp GPUs.
  if (stages.size() > 1) p.all += last.of(TensorClass::embedding) * static_cast<double>(w.tp);
  return p;
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
  // GPUs that split the sequences (data-parallel attention); the others share each sequence.
  const double d = shard ? shard->data_parallel : 1;
  // A stage's GPUs that hold some of each of its sequences.
  const double holders = static_cast<double>(w.tp) / d;
  const long m = microbatches(w);
  // At the largest batches a pipeline runs its --microbatches (pp by default).
  const long most_microbatches = w.pp > 1 ? (w.microbatches > 0 ? w.microbatches : w.pp) : 1;
  l.weights = weights.all;
  l.kv_cache = kv_per_seq * B;
  l.capacity = g.memory_capacity * static_cast<double>(l.gpus);
  l.reserve = l.capacity * w.reserve_fraction;
  const Bytes reserve = g.memory_capacity * w.reserve_fraction;

  // Each stage on its own where a pipeline's stages are known (weights and sequence from the same
  // split); else every GPU alike, holding a pp-th of each sequence's cache. A stage holds one
  // micro-batch's activations at a time, a sequence's prefill peak over its layers: an m-th of
  // the batch's.
  const bool staged = shard && !weights.stages.empty() && weights.stages.size() == sequence.stages.size();
  const auto each_stage = [&](auto&& f) {
    if (!staged) return f(weights.fullest, kv_per_seq / static_cast<double>(w.pp), act_per_seq);
    for (std::size_t i = 0; i < weights.stages.size(); ++i) {
      f(weights.stages[i], sequence.stages[i].cache, sequence.stages[i].activations);
    }
  };
  Bytes fullest, activations;
  std::optional<double> fewest;  // the sequences the stage that fills first has room for
  bool first = true;
  each_stage([&](Bytes held, Bytes cache, Bytes act) {
    activations += act;
    // The fullest GPU holds ⌈B / d⌉ sequences.
    const Bytes per_seq = (cache + act / static_cast<double>(m)) / holders;
    fullest = std::max(fullest, held + per_seq * std::ceil(B / d));
    const Bytes per_seq_at_most = (cache + act / static_cast<double>(most_microbatches)) / holders;
    const Bytes free = g.memory_capacity - reserve - held;
    const double room = per_seq_at_most > Bytes(0) ? (free > Bytes(0) ? free / per_seq_at_most : 0.0) : -1;
    if (!(first || (room >= 0 && (!fewest || room < *fewest)))) return;
    first = false;
    if (room >= 0) fewest = room;
    l.fixed_fullest = held + reserve;
    l.cache_per_sequence_fullest = cache / holders;
    l.activations_per_sequence_fullest = act / static_cast<double>(m) / holders;
  });
  l.activations = staged ? activations * B / static_cast<double>(m)
                         : act_per_seq * B * (static_cast<double>(w.pp) / static_cast<double>(m));
  l.total = l.weights + l.kv_cache + l.activations + l.reserve;
  l.fullest_gpu = fullest + reserve;
  l.attention_ranks = static_cast<long>(d);
  l.fits = l.fullest_gpu <= g.memory_capacity;
  // Clamped so that a tiny per-sequence footprint cannot overflow the count, where a long has
  // 32 bits too (WebAssembly): past 10^9 sequences no batch is limited by memory anyway.
  if (fewest) l.max_batch = static_cast<long>(std::min(d * std::floor(*fewest), 1e9));
  // The room above is counted at the most micro-batches; fewer sequences than that run one a
  // micro-batch, each stage holding a whole sequence's activations (Llama-3.1-8B at pp 2 and a
  // 500k-token prompt: room for 1.35 sequences at half a prefill's activations each, but one whole
  // prefill does not fit). Below that count the footprint grows with the batch: the largest that
  // fits, by bisection.
  if (l.max_batch && *l.max_batch < most_microbatches) {
    const auto fits_at = [&](long b) {  // b ≥ 1
      bool fits = true;
      const auto per_stage = static_cast<double>(std::min(most_microbatches, b));
      each_stage([&](Bytes held, Bytes cache, Bytes act) {
        const Bytes per_seq = (cache + act / per_stage) / holders;
        fits = fits && held + per_seq * std::ceil(static_cast<double>(b) / d) + reserve <= g.memory_capacity;
      });
      return fits;
    };
    long lo = 0, hi = *l.max_batch;  // fits_at(lo) always: no sequence
    while (lo < hi) {
      const long mid = lo + (hi - lo + 1) / 2;
      if (fits_at(mid)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    l.max_batch = lo;
  }
  return l;
}

}  // namespace roofline
