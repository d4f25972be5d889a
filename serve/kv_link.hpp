#pragma once
// The link a disaggregated fleet's caches cross (serve/disaggregated.hpp), priced per prompt
// length by model/kv_transfer: each GPU of the prefill replica sends its shard of the prompt's
// cache over its own link (NVLink within a domain, else the network), holding it for the shard
// over the bandwidth, then the link's latency.
#include <functional>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "model/workload.hpp"
#include "serve/disaggregated.hpp"

namespace roofline::serve {

struct KvLink {
  std::function<LinkTime(long prompt_tokens)> time;  // remembers each length it priced
  bool network = false;  // the pools sit on different domains: the network, not the interconnect
};

// std::invalid_argument when the model is known only by its size (no cache to count) or the GPU
// names no interconnect (no link to price).
[[nodiscard]] KvLink kv_link(const ModelSpec& m, const GpuSpec& g, const Workload& w);

// Pools of different layouts (`prefill`'s tp beside `decode`'s, the same GPU): the cache is
// resharded on the way, each prefill GPU sending its shard of the prefill layout's cache, each
// decode GPU receiving its shard of its own (TensorRT-LLM's cache transceiver and vLLM's
// NixlConnector split or gather heads between tp sizes), so a transfer holds the links for the
// larger shard over the bandwidth, then the latency; the network when the two replicas' GPUs
// together do not fit one domain. Equal layouts price as kv_link(m, g, decode) does.
[[nodiscard]] KvLink kv_link(const ModelSpec& m, const GpuSpec& g, const Workload& prefill, const Workload& decode);

}  // namespace roofline::serve
