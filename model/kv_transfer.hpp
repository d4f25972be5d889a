#pragma once
// Disaggregated serving moves each request's KV cache from the prefill pool to the decode pool
// (Splitwise, DistServe, Mooncake): the prompt's K/V (and recurrent state) in the cache format,
// each GPU of the prefill replica sending its own shard to its peer over its own link: the GPU's
// interconnect when both replicas fit one domain (NVLink within a node), else its network.
#include <optional>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "model/workload.hpp"

namespace roofline {

struct KvTransfer {
  std::optional<Bytes> bytes;   // one request's prompt cache, whole group; empty: a model known only by its size
  std::optional<Seconds> time;  // empty: no bytes, or the GPU names no interconnect
  // Of `time`, the link's latency (the rest is each GPU's shard at the link's bandwidth, the time
  // a transfer holds the link), and whether the link is the network rather than the interconnect.
  std::optional<Seconds> latency;
  bool network = false;
};

// bytes / (tp · pp) over each GPU's link (or NIC), plus its latency.
[[nodiscard]] KvTransfer kv_transfer(const ModelSpec& m, const GpuSpec& g, const Workload& w);

}  // namespace roofline
