#include "model/kv_transfer.hpp"

#include "model/memory_ledger.hpp"

namespace roofline {

KvTransfer kv_transfer(const ModelSpec& m, const GpuSpec& g, const Workload& w) {
  KvTransfer t;
  if (!m.architecture) return t;
  t.bytes = group_cache_bytes_per_sequence(m, static_cast<double>(w.prompt_tokens), w);
  if (g.interconnect) t.time = (*t.bytes / static_cast<double>(gpus(w))) / g.interconnect->bandwidth + g.interconnect->latency;
  return t;
}

}  // namespace roofline
