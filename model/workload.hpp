#pragma once
// What is asked of the model: how many sequences, how long, in which formats, over how many GPUs.
#include <algorithm>
#include <optional>

#include "model/model_spec.hpp"
#include "model/precision.hpp"
#include "model/spec_error.hpp"
#include "hardware/gpu_spec.hpp"

namespace roofline {

// flash: scores stay on chip (FlashAttention); naive: the n×n score matrix is written to memory,
// masked half included, as eager PyTorch attention does.
enum class AttentionKernel { flash, naive };

struct Workload {
  long batch = 1;
  long prompt_tokens = 512;
  long gen_tokens = 256;
  long context_tokens = 640;  // tokens in the KV cache during the decode step that is evaluated
  // Where the model runs: pp pipeline stages of tp GPUs each (model/layers.hpp, Sharding, says
  // how a stage shares its layers).
  int tp = 1;
  int pp = 1;                   // stages, each with its own layers and their cache
  int ep = 1;                   // GPUs of a stage the routed experts are sharded over; tp a multiple of it
  bool dp_attention = false;    // attention data-parallel over the stage's GPUs, experts over ep = tp
  int microbatches = 0;         // the batch split through the pipeline; 0: pp (at most the batch)
  double expert_imbalance = 1;  // the busiest GPU's expert rows over the mean, under ep > 1
  AttentionKernel attention = AttentionKernel::flash;
  Precision precision;
  double reserve_fraction = 0.1;  // capacity held back (CUDA context, allocator, workspace)
  bool operator==(const Workload&) const = default;
};

// GPUs one replica uses.
[[nodiscard]] inline int gpus(const Workload& w) { return w.tp * w.pp; }
// The ranks a stage's sequences are spread over: its tp GPUs under data-parallel attention (each
// runs its own sequences), else one group running them all.
[[nodiscard]] inline int attention_ranks(const Workload& w) { return w.dp_attention ? w.tp : 1; }
// Micro-batches a pipeline runs at its largest batches: --microbatches (pp by default); 1 without.
[[nodiscard]] inline long most_microbatches(const Workload& w) {
  if (w.pp <= 1) return 1;
  return w.microbatches > 0 ? w.microbatches : w.pp;
}
// Micro-batches a pass is split into: most_microbatches, never more than the batch.
[[nodiscard]] inline long microbatches(const Workload& w) {
  return w.pp <= 1 ? 1 : std::min<long>(most_microbatches(w), w.batch);
}

// The tokens a sequence's cache holds at its longest: its prompt and output, or the decode step's
// context where that is longer (--context past prompt + gen: the step reads that many, so the
// sequence holds them). The memory ledger, the cache a sequence and max_context are sized on it.
[[nodiscard]] inline long held_tokens(const Workload& w) {
  return std::max(w.context_tokens, w.prompt_tokens + w.gen_tokens);
}

// The decode step is evaluated mid-generation by default: context = prompt + gen / 2.
[[nodiscard]] inline long default_context(long prompt, long gen) { return prompt + gen / 2; }

// The first rule the workload breaks on this model and GPU, naming the option.
[[nodiscard]] std::optional<SpecError> validate(const Workload& w, const ModelSpec& m, const GpuSpec& g);

}  // namespace roofline
