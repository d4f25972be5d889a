#pragma once
// How many KV blocks a replica's memory leaves, from the memory ledger: the group's capacity less
// the reserve, the weights as stored, and the activations of a step of the token budget.
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
  // Layers that keep only a window (or a chunk) of each sequence, as ServerConfig::limited_layers
  // holds them: {the tokens they keep, their share of a block's bytes}. Empty: none.
  std::vector<std::pair<long, double>> limited{};
};

// draft: a speculative draft held beside the target, in the same formats: its weights (each
// module's, less the tables it shares with the target) come off the free memory and its K/V
// rides in every block.
[[nodiscard]] CacheBlocks cache_blocks(const ModelSpec& m, const GpuSpec& g, const Workload& base, long block_tokens,
                                       long max_batched_tokens, const Draft* draft = nullptr);

}  // namespace roofline::serve
