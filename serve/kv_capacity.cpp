#include "serve/kv_capacity.hpp"

#include <algorithm>
#include <cmath>

#include "model/layers.hpp"
#include "model/memory_ledger.hpp"
#include "model/parameters.hpp"

namespace roofline::serve {

namespace {

Bytes stored_weights(const LayerStack& whole, const Workload& w) {
  return weigh(whole, WeightPricing(w.precision, whole)).bytes.total();
}

}  // namespace

CacheBlocks cache_blocks(const ModelSpec& m, const GpuSpec& g, const Workload& base, long block_tokens,
                         long max_batched_tokens, const ModelSpec* draft) {
  const LayerStack whole = describe_layers(*m.architecture, 1);
  const LayerStack shard = describe_layers(*m.architecture, base.tp);
  const Bytes weights = stored_weights(whole, base);
  // The activations of the largest step: one sequence of the whole token budget.
  Workload w = base;
  w.batch = 1;
  w.prompt_tokens = max_batched_tokens;
  w.gen_tokens = 0;
  const MemoryLedger l = memory_ledger(weights, &shard, g, w);
  CacheBlocks c;
  c.free = l.capacity - l.reserve - l.weights - l.activations;
  c.per_block = group_cache_bytes_per_sequence(shard, static_cast<double>(block_tokens), w);
  if (draft && draft->architecture) {
    const LayerStack draft_shard = describe_layers(*draft->architecture, base.tp);
    c.free -= stored_weights(describe_layers(*draft->architecture, 1), base);
    c.per_block += group_cache_bytes_per_sequence(draft_shard, static_cast<double>(block_tokens), w);
  }
  if (c.free > Bytes(0) && c.per_block > Bytes(0)) c.blocks = static_cast<long>(std::min(std::floor(c.free / c.per_block), 1e12));
  for (const Block& b : shard.blocks) c.windowed = c.windowed || b.window > 0 || b.chunk > 0;
  return c;
}

}  // namespace roofline::serve
