#include "serve/kv_capacity.hpp"

#include <algorithm>
#include <cmath>

#include "model/capacity_plan.hpp"
#include "model/engine.hpp"
#include "model/layers.hpp"
#include "model/memory_ledger.hpp"
#include "model/parameters.hpp"

namespace roofline::serve {

long largest_step(long max_batched_tokens, bool chunked_prefill, long longest_prompt) {
  return chunked_prefill ? max_batched_tokens : std::max(max_batched_tokens, longest_prompt);
}

CacheBlocks cache_blocks(const ModelSpec& m, const GpuSpec& g, const Workload& base, long block_tokens,
                         long max_batched_tokens, const Draft* draft) {
  // The weights as placed on the replica's GPUs, the activations of the largest step and the reserve.
  const MemoryLedger l = step_ledger(m, g, base, max_batched_tokens);
  CacheBlocks c;
  c.step_tokens = max_batched_tokens;
  // The budget is a rank's, and under data-parallel attention every rank runs a step of its own
  // beside the others: the ledger's one sequence is one rank's step, held on each (as the plan
  // holds it, model/capacity_plan.cpp). Charged once, DeepSeek-V3 on 8 H200s at 2239 tokens a step
  // kept 45 MB for activations where each rank holds 358 MB.
  c.free = l.capacity - l.reserve - l.weights - l.activations * static_cast<double>(attention_ranks(base));
  c.per_block = group_cache_bytes_per_sequence(m, static_cast<double>(block_tokens), base);
  if (draft) {
    Bytes weights = step_ledger(draft->model, g, base, 1).weights;
    if (draft->shares_tables) {
      // The target holds them as placed: split by vocabulary over a tensor-parallel group (one
      // copy in all), whole on every GPU under data-parallel attention.
      const WeightBytes w = weight_bytes(draft->model, base.precision);
      weights -= (w.of(TensorClass::embedding) + w.of(TensorClass::lm_head)) * attention_ranks(base);
    }
    const double modules = draft->modules;
    c.free -= weights * modules;
    c.per_block += group_cache_bytes_per_sequence(draft->model, static_cast<double>(block_tokens), base) * modules;
  }
  if (c.free > Bytes(0) && c.per_block > Bytes(0)) {
    c.blocks = static_cast<long>(std::min(std::floor(c.free / c.per_block), 1e12));
  }
  // A sequence's K/V grows by every layer's bytes a token until it passes the shortest window (or
  // chunk), then by fewer: the slope lost at each limit L is the share of a block those layers
  // hold (slope just below L less just above), taken from what a sequence holds at those lengths.
  // A draft's K/V rides in every block (its modules'), its windowed layers as the target's.
  std::vector<long> limits;
  for (const ModelSpec* model : {&m, draft ? &draft->model : nullptr}) {
    if (!model || !model->architecture) continue;
    for (const Block& b : describe_layers(*model->architecture, sharding(base)).blocks) {
      if (const double kept = b.window > 0 ? b.window : b.chunk; kept > 0) limits.push_back(static_cast<long>(kept));
    }
  }
  std::sort(limits.begin(), limits.end());
  limits.erase(std::unique(limits.begin(), limits.end()), limits.end());
  const auto held = [&](long tokens) {
    const auto t = static_cast<double>(tokens);
    Bytes bytes = group_cache_bytes_per_sequence(m, t, base);
    if (draft) bytes += group_cache_bytes_per_sequence(draft->model, t, base) * static_cast<double>(draft->modules);
    return bytes.value();
  };
  const double per_token = c.per_block.value() / static_cast<double>(block_tokens);  // the draft's too
  for (const long limit : limits) {
    const double lost = (held(limit) - held(limit - 1)) - (held(limit + 1) - held(limit));
    if (lost > 0 && per_token > 0) c.limited.emplace_back(limit, lost / per_token);
  }
  return c;
}

}  // namespace roofline::serve
