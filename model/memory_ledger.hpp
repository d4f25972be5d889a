#pragma once
// Where the GPU memory of a tensor-parallel group goes, and how many sequences fit.
#include <optional>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "model/parameters.hpp"
#include "hardware/quantity.hpp"
#include "model/workload.hpp"

namespace roofline {

struct MemoryLedger {
  Bytes weights;      // every expert, all GPUs of the group
  Bytes kv_cache;     // B × the cache of a (prompt + gen)-token sequence: K/V in what each layer keeps, recurrent state
  Bytes activations;  // peak live activations of the prefill pass
  Bytes reserve;      // reserve_fraction × capacity
  Bytes total;
  Bytes capacity;     // per-GPU capacity × tp
  bool fits = false;
  // Largest batch whose KV cache and activations fit beside the weights at prompt + gen tokens;
  // empty when nothing per sequence is modelled (a model known only by its size).
  std::optional<long> max_batch;
};

// The ledger from the bytes of every weight as stored and the layers described for one GPU of
// w.tp (null: a model known only by its size, with nothing per sequence to hold).
// std::invalid_argument when the shard was described for another tp than w.tp.
[[nodiscard]] MemoryLedger memory_ledger(Bytes weights, const LayerStack* shard, const GpuSpec& g, const Workload& w);
// The cache (K/V and recurrent state) of one sequence of `tokens` tokens held by the whole group,
// from the layers described for one GPU of it: replicated K/V heads (kv_heads < tp) count once
// per copy.
[[nodiscard]] Bytes group_cache_bytes_per_sequence(const LayerStack& shard, double tokens, const Workload& w);
[[nodiscard]] Bytes group_cache_bytes_per_sequence(const ModelSpec& m, double tokens, const Workload& w);

}  // namespace roofline
