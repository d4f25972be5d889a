#pragma once
// Where the GPU memory of a tensor-parallel group goes, and how many sequences fit.
#include <optional>
#include <span>
#include <vector>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "model/parameters.hpp"
#include "hardware/quantity.hpp"
#include "model/workload.hpp"

namespace roofline {

// Every row is the replica's: the sum over its tp × pp GPUs. Whether it fits, and how many
// sequences do, is decided on its fullest GPU: a pipeline's stages hold what their own layers
// weigh and cache (a hybrid's Mamba, attention and MoE layers differ), the first the embedding,
// the last the head, so each stage is weighed on its own; otherwise all GPUs hold alike.
struct MemoryLedger {
  Bytes weights;      // as held: every expert once, replicated tensors once per copy
  Bytes kv_cache;     // B × the cache of a sequence of held_tokens(w): K/V in what each layer keeps, recurrent state
  Bytes activations;  // peak live activations of the prefill pass
  Bytes reserve;      // reserve_fraction × capacity
  Bytes total;
  Bytes capacity;     // per-GPU capacity × GPUs
  int gpus = 1;
  Bytes fullest_gpu;  // the fullest GPU's weights, its share of the cache and activations, and its reserve
                      // (a pipeline's: the stage whose sum is the largest at this batch)
  bool fits = false;  // fullest_gpu within one GPU's capacity
  // Largest batch whose KV cache and activations fit beside the weights at held_tokens(w) tokens;
  // empty when nothing per sequence is modelled (a model known only by its size).
  std::optional<long> max_batch;
  // The fullest GPU's parts, for a ledger of another shape (a plan's steady state: B caches beside
  // one step's activations, model/capacity_plan.cpp): its weights and reserve; what one sequence's
  // cache and its prefill's activations add to it, each GPU holding ⌈B / attention_ranks⌉ of them.
  // A pipeline's are those of the stage that fills first as the batch grows (the one max_batch is
  // decided on), which at small batches need not be the fullest.
  Bytes fixed_fullest;
  Bytes cache_per_sequence_fullest;
  Bytes activations_per_sequence_fullest;
  long attention_ranks = 1;
};

// The weights a replica's GPUs hold: all together, and the most any one holds.
struct WeightPlacement {
  Bytes all;
  Bytes fullest;
  // A pipeline's: what one GPU of each stage holds, first to last (stage_weights); empty where
  // every GPU holds alike (`fullest`).
  std::vector<Bytes> stages;
};

// The layers one GPU of each of a pipeline's w.pp stages holds, first to last, from `shard` (the
// layers described for one GPU of a stage, all of them): each block's layers that lie on the stage
// (stage_split, layers_in: a stage of Nemotron-H holds the Mamba, attention and MoE layers its
// place in the pattern gives it), the ends before the layers (the embedding, the towers) on the
// first stage and those after them (the final norm, the head) on the last. A head tied to the
// embedding is the last stage's own copy of the table: vLLM builds embed_tokens on the last rank
// too when tie_word_embeddings (`is_first_rank or (tie_word_embeddings and is_last_rank)`, e.g.
// vllm/model_executor/models/llama.py), and loads the table into it.
[[nodiscard]] std::vector<LayerStack> pipeline_stages(const Architecture& a, const LayerStack& shard,
                                                      const Workload& w);
// Where a pipeline's weights lie: `one_gpu` (what `shard` weighs) on tp GPUs a stage, with the
// last stage's copy of a tied table beside it, each stage as weigh() prices its layers.
[[nodiscard]] WeightPlacement stage_weights(std::span<const LayerStack> stages, const WeightBytes& one_gpu,
                                            const WeightPricing& pricing, const Workload& w);

// What one sequence of held_tokens(w) (prompt + gen, or a longer --context) holds on the GPUs of
// its group, from the layers described for one of them: its cache
// (group_cache_bytes_per_sequence) and its prefill's peak live activations. Not the batch's: the
// engine keeps it from point to point of a batch sweep.
struct SequenceFootprint {
  Bytes cache;
  Bytes activations;
  // A pipeline's: the same on each stage's group, first to last, from that stage's layers (its
  // K/V and recurrent state; the widest intermediate among its layers, and the logits on the last
  // stage only). Empty at pp 1.
  struct Stage {
    Bytes cache;
    Bytes activations;
  };
  std::vector<Stage> stages;
};
[[nodiscard]] SequenceFootprint sequence_footprint(const LayerStack& shard, const Workload& w);
// The same with a pipeline's stages (pipeline_stages(a, shard, w)) where w.pp > 1.
[[nodiscard]] SequenceFootprint sequence_footprint(const Architecture& a, const LayerStack& shard, const Workload& w);

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
