#pragma once
// The link a disaggregated fleet's caches cross (serve/disaggregated.hpp), priced per prompt
// length by model/kv_transfer: each GPU of the prefill replica that holds the prompt's cache sends
// its shard over its own link (NVLink within a domain, else the network), holding it for the shard
// over the bandwidth, then the link's latency. Under data-parallel attention one rank holds a
// request's whole cache and sends it over its one link while the replica's other ranks send
// theirs: the replica's tp links are priced as one, a transfer holding it for a tp-th of the
// cache's time and landing the whole time (the rest and the latency) after it is sent.
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

// std::invalid_argument when the model is known only by its size (no cache to count), the GPU
// names no interconnect (no link to price), or the two replicas leave its domain and it names no
// network (model/kv_transfer.hpp, pair_refusal).
[[nodiscard]] KvLink kv_link(const ModelSpec& m, const GpuSpec& g, const Workload& w);

// Pools of different layouts (`prefill`'s tp beside `decode`'s, the same GPU): the cache is
// resharded on the way, each prefill GPU sending its shard of the prefill layout's cache, each
// decode GPU receiving its shard of its own (TensorRT-LLM's cache transceiver and vLLM's
// NixlConnector split or gather heads between tp sizes), so a transfer holds the links for the
// larger shard over the bandwidth, then the latency; the network when the two replicas' GPUs
// together do not fit one domain. Equal layouts price as kv_link(m, g, decode) does; different
// ones under data-parallel attention are refused (std::invalid_argument).
[[nodiscard]] KvLink kv_link(const ModelSpec& m, const GpuSpec& g, const Workload& prefill, const Workload& decode);

}  // namespace roofline::serve
