#include "model/memory_ledger.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <variant>

#include "model/bisect.hpp"
#include "model/contract_error.hpp"
#include "model/parameters.hpp"
#include "model/pipeline.hpp"

namespace roofline {

namespace {

// Peak live activations of one prefill sequence on one GPU: the residual stream and its normed
// copy, plus the widest intermediate (linears that read one input and whose outputs live together,
// such as Q/K/V or gate and up; or attention's queries with decompressed K and V), plus a naive
// kernel's n×n scores, plus the fp32 logits of the last token (the whole vocabulary's, gathered
// from a vocab-parallel head).
// Under data-parallel attention a GPU holds its own sequences, but its experts (the `Rows::all`
// steps) run the picks of every rank's: data_parallel × top_k·imbalance/ep rows a token of its
// own, top_k·imbalance at ep = tp, as many as one GPU holding every expert runs. The tokens the
// dispatch brings in are not counted beside them, as no fused MoE's working buffers are
// (docs/model.md: DeepSeek-V3's 37.9 kB a token beside the 159.7 kB counted).
Bytes prefill_activations_per_sequence(const LayerStack& stack, const Workload& w) {
  const double ab = bytes_per_element(w.precision.activations);
  const auto n = static_cast<double>(w.prompt_tokens);
  const auto ranks = static_cast<double>(stack.data_parallel);
  double widest = 0, together = 0, scores = 0, logits = 0;
  for (const Block& block : stack.blocks) {
    for (const PhasedStep& s : block.steps) {
      if (!s.runs_in(Phase::prefill)) continue;
      if (const auto* l = std::get_if<LinearStep>(&s.step)) {
        if (l->to_residual) continue;
        const double width = l->out * l->rows_per_token * (s.rows == Rows::all ? ranks : 1.0);
        together = l->joins_previous ? together + width : width;
        if (l->last_token) logits = std::max(logits, l->out * 4.0);
        else widest = std::max(widest, together);
      } else if (const auto* c = std::get_if<CollectiveStep>(&s.step); c && c->last_token) {
        // The vocab-parallel head's slices gathered (model/layers.cpp gather_logits): the sampler
        // holds every column of the last token's logits on a GPU, not its 1/tp.
        logits = std::max(logits, c->width * 4.0);
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
  std::vector<LayerStack> stages(static_cast<std::size_t>(w.pp), LayerStack{{}, shard.hidden, shard.tp, shard.data_parallel, 0, 0});
  stages.front().tower_params = shard.tower_params;  // the towers feed the first stage's embedding
  bool tied = false;
  deal_stages(a, shard, w.pp, [&](const Block& b, std::span<const int> held) {
    for (std::size_t i = 0; i < stages.size(); ++i) {
      if (held[i] == 0) continue;
      stages[i].blocks.push_back(b);
      stages[i].blocks.back().layers = held[i];
    }
    for (const PhasedStep& s : b.steps) {
      if (const auto* l = std::get_if<LinearStep>(&s.step); l && l->last_token && !l->counted) tied = true;
    }
  });
  // The embedding is the first block (describe_layers); the last stage holds its token table again
  // as its head, not a table of learned positions beside it (GPT-2's wpe lies on the first alone).
  if (tied && stages.size() > 1) {
    Block table = shard.blocks.front();
    for (PhasedStep& s : table.steps) {
      if (auto* g = std::get_if<GatherStep>(&s.step)) {
        g->rows = static_cast<double>(a.vocab);
        g->tables = 1 / g->split;  // one table, vocab-parallel as the embedding's
      }
    }
    stages.back().blocks.push_back(std::move(table));
  }
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
  const long most = most_microbatches(w);
  l.weights = weights.all;
  l.kv_cache = kv_per_seq * B;
  l.capacity = g.memory_capacity * static_cast<double>(l.gpus);
  l.reserve = l.capacity * w.reserve_fraction;
  const Bytes reserve = g.memory_capacity * w.reserve_fraction;

  // Each stage on its own where a pipeline's stages are known (weights and sequence from the same
  // split); else every GPU alike. A stage holds one micro-batch's activations at a time, a
  // sequence's prefill peak over its layers: an m-th of the batch's.
  const bool staged = shard && w.pp > 1;
  const auto stages = static_cast<std::size_t>(w.pp);
  if (staged && (weights.stages.size() != stages || sequence.stages.size() != stages)) {
    throw ContractError(fmt::format("memory_ledger: {} stages, but {} weighed and {} footprints", stages,
                                    weights.stages.size(), sequence.stages.size()));
  }
  const auto each_stage = [&](auto&& f) {
    if (!staged) return f(weights.fullest, kv_per_seq / static_cast<double>(w.pp), act_per_seq);
    for (std::size_t i = 0; i < weights.stages.size(); ++i) {
      f(weights.stages[i], sequence.stages[i].cache, sequence.stages[i].activations);
    }
  };
  // What one GPU of a stage holding `held` holds at a batch of b in m micro-batches: the caches of
  // its ⌈b/d⌉ sequences, and the activations of its share of the largest micro-batch in flight
  // (⌈⌈b/m⌉/d⌉ sequences: a micro-batch of fewer sequences than ranks still leaves one a rank).
  const auto on_gpu = [&](Bytes held, Bytes cache, Bytes act, double b, double micro) {
    const double sequences = std::ceil(b / d), in_flight = std::ceil(std::ceil(b / micro) / d);
    // One stage (micro = 1): each sequence's cache and activations alike.
    if (in_flight == sequences) return held + (cache + act) / holders * sequences;
    return held + cache / holders * sequences + act / holders * in_flight;
  };
  Bytes fullest, activations;
  std::optional<double> fewest;  // the sequences the stage that fills first has room for
  bool first = true;
  each_stage([&](Bytes held, Bytes cache, Bytes act) {
    activations += act;
    fullest = std::max(fullest, on_gpu(held, cache, act, B, static_cast<double>(m)));
    // The room counted as if each sequence held an m-th of its activations: exact at one stage
    // (m = 1), above the batch that fits in a pipeline (its micro-batches hold whole sequences).
    const Bytes per_seq_at_most = (cache + act / static_cast<double>(most)) / holders;
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
  // A pipeline's micro-batches hold whole sequences: at fewer sequences than micro-batches each
  // stage holds a whole sequence's activations (Llama-3.1-8B at pp 2 and a 500k-token prompt: room
  // for 1.35 sequences at half a prefill's each, but one whole prefill does not fit), and the
  // largest micro-batch holds ⌈B/m⌉. The room above bounds the batch from above; the largest that
  // fits below it, by bisection (what a GPU holds grows with the batch).
  if (l.max_batch && w.pp > 1) {
    const auto fits_at = [&](long b) {
      bool fits = true;
      const auto n = static_cast<double>(b), micro = static_cast<double>(std::min(most, b));
      each_stage([&](Bytes held, Bytes cache, Bytes act) {
        fits = fits && on_gpu(held, cache, act, n, micro) + reserve <= g.memory_capacity;
      });
      return fits;
    };
    l.max_batch = last_holding(0, *l.max_batch, fits_at);
  }
  return l;
}

}  // namespace roofline
