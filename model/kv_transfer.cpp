#include "model/kv_transfer.hpp"

#include "model/memory_ledger.hpp"

namespace roofline {

KvTransfer kv_transfer(const ModelSpec& m, const GpuSpec& g, const Workload& w) {
  KvTransfer t;
  if (!m.architecture) return t;
  t.bytes = group_cache_bytes_per_sequence(m, static_cast<double>(w.prompt_tokens), w);
  if (!g.interconnect) return t;
  const Bytes each = *t.bytes / static_cast<double>(gpus(w));
  // Two pools that do not fit one domain between them sit on different nodes: the network.
  if (g.network && 2 * gpus(w) > g.interconnect->domain) {
    t.time = each / g.network->bandwidth + g.network->latency;
    t.latency = g.network->latency;
    t.network = true;
  } else {
    t.time = each / g.interconnect->bandwidth + g.interconnect->latency;
    t.latency = g.interconnect->latency;
  }
  return t;
}

}  // namespace roofline
