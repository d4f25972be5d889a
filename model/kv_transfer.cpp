#include "model/kv_transfer.hpp"

#include <fmt/format.h>

#include "model/memory_ledger.hpp"

namespace roofline {

int cache_senders(const Workload& w) { return (w.dp_attention ? 1 : w.tp) * w.pp; }

std::optional<std::string> pair_refusal(const GpuSpec& g, int prefill_gpus, int decode_gpus) {
  if (!g.interconnect || g.network) return std::nullopt;
  const int pair = prefill_gpus + decode_gpus;
  if (pair <= g.interconnect->domain) return std::nullopt;
  return fmt::format("a prefill replica of {} GPUs and a decode replica of {} ({} GPUs) leave {}'s {}-GPU interconnect "
                     "domain, so the cache would cross between domains: its description needs "
                     "`network: {{bandwidth, latency}}` between domains",
                     prefill_gpus, decode_gpus, pair, g.name, g.interconnect->domain);
}

KvTransfer kv_transfer(const ModelSpec& m, const GpuSpec& g, const Workload& w) {
  KvTransfer t;
  if (!m.architecture) return t;
  t.bytes = group_cache_bytes_per_sequence(m, static_cast<double>(w.prompt_tokens), w);
  if (!g.interconnect) return t;
  if ((t.refused = pair_refusal(g, gpus(w), gpus(w)))) return t;
  // group_cache_bytes_per_sequence counts every copy a holder keeps (a tp above the KV heads), so
  // each sender's shard is the total over the senders; under data-parallel attention it is one
  // rank's whole cache (a stage's layers of it).
  const Bytes each = *t.bytes / static_cast<double>(cache_senders(w));
  t.links = attention_ranks(w);
  // A prefill and a decode replica that do not fit one domain between them sit on different
  // nodes: the network.
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
