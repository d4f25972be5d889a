#pragma once
// How many KV blocks a replica's memory leaves, from the memory ledger: the group's capacity less
// the reserve, the weights as stored, and the activations of the largest step (largest_step).
#include <utility>
#include <vector>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "model/workload.hpp"
#include "serve/draft.hpp"

namespace roofline::serve {

struct CacheBlocks {
  long blocks = 0;         // 0: the weights and one step's activations leave no room
  Bytes per_block;         // K/V of block_tokens tokens, whole group
  Bytes free;              // what the blocks share
  long step_tokens = 0;    // the step whose activations it was sized beside (largest_step)
  // Layers that keep only a window (or a chunk) of each sequence, as ServerConfig::limited_layers
  // holds them: {the tokens they keep, their share of a block's bytes}. Empty: none.
  std::vector<std::pair<long, double>> limited{};
};

// The most tokens one step of a replica computes, the step its cache is sized beside (the memory
// ledger's activations, cache_blocks' max_batched_tokens): the token budget, or without chunked
// prefill the longest prompt past it, which runs whole in a step of its own (serve/server.cpp). An
// engine profiles the step it will run: vLLM its max_num_batched_tokens, raised to max_model_len
// when chunking is off. Sized for the budget alone, Gemma-3-27B on an H100 kept 2611 blocks where a
// 32000-token prompt's step leaves 2296.
[[nodiscard]] long largest_step(long max_batched_tokens, bool chunked_prefill, long longest_prompt);

// draft: a speculative draft held beside the target, in the same formats: its weights (each
// module's, less the tables it shares with the target) come off the free memory and its K/V
// rides in every block.
[[nodiscard]] CacheBlocks cache_blocks(const ModelSpec& m, const GpuSpec& g, const Workload& base, long block_tokens,
                                       long max_batched_tokens, const Draft* draft = nullptr);

}  // namespace roofline::serve
