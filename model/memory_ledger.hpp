#pragma once
// Where the GPU memory of a tensor-parallel group goes, and how many sequences fit.
#include <optional>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "model/parameters.hpp"
#include "hardware/quantity.hpp"
#include "model/workload.hpp"

namespace roofline {

// Every row is the replica's: the sum over its tp × pp GPUs. Whether it fits, and how many
// sequences do, is decided on its fullest GPU (a pipeline's first or last stage holds the
// embedding or the head beside its layers; otherwise all GPUs hold alike).
struct MemoryLedger {
  Bytes weights;      // as held: every expert once, replicated tensors once per copy
  Bytes kv_cache;     // B × the cache of a sequence of held_tokens(w): K/V in what each layer keeps, recurrent state
  Bytes activations;  // peak live activations of the prefill pass
  Bytes reserve;      // reserve_fraction × capacity
  Bytes total;
  Bytes capacity;     // per-GPU capacity × GPUs
  int gpus = 1;
  Bytes fullest_gpu;  // the fullest GPU's weights, its share of the cache and activations, and its reserve
  bool fits = false;  // fullest_gpu within one GPU's capacity
  // Largest batch whose KV cache and activations fit beside the weights at held_tokens(w) tokens;
  // empty when nothing per sequence is modelled (a model known only by its size).
  std::optional<long> max_batch;
  // The fullest GPU's parts, for a ledger of another shape (a plan's steady state: B caches beside
  // one step's activations, model/capacity_plan.cpp): its weights and reserve; what one sequence's
  // cache and its prefill's activations add to it, each GPU holding ⌈B / attention_ranks⌉ of them.
  Bytes fixed_fullest;
  Bytes cache_per_sequence_fullest;
  Bytes activations_per_sequence_fullest;
  long attention_ranks = 1;
};

// The weights a replica's GPUs hold: all together, and the most any one holds.
struct WeightPlacement {
  Bytes all;
  Bytes fullest;
};

// What one sequence of held_tokens(w) (prompt + gen, or a longer --context) holds on the GPUs of
// its group, from the layers described for one of them: its cache
// (group_cache_bytes_per_sequence) and its prefill's peak live activations. Not the batch's: the
// engine keeps it from point to point of a batch sweep.
struct SequenceFootprint {
  Bytes cache;
  Bytes activations;
};
[[nodiscard]] SequenceFootprint sequence_footprint(const LayerStack& shard, const Workload& w);

// The ledger from the weights as placed, the layers described for one GPU of a stage and what a
// sequence holds on them (null: a model known only by its size, with nothing per sequence to hold).
// std::invalid_argument when the shard was described for another tp than w.tp.
[[nodiscard]] MemoryLedger memory_ledger(const WeightPlacement& weights, const LayerStack* shard,
                                         const SequenceFootprint& sequence, const GpuSpec& g, const Workload& w);
// The cache (K/V and recurrent state) of one sequence of `tokens` tokens held by the whole group,
// from the layers described for one GPU of it: replicated K/V heads (kv_heads < tp) count once
// per copy; under data-parallel attention one GPU holds it all.
[[nodiscard]] Bytes group_cache_bytes_per_sequence(const LayerStack& shard, double tokens, const Workload& w);
[[nodiscard]] Bytes group_cache_bytes_per_sequence(const ModelSpec& m, double tokens, const Workload& w);

}  // namespace roofline
