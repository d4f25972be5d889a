#include "serve/kv_link.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "model/kv_transfer.hpp"

namespace roofline::serve {

KvLink kv_link(const ModelSpec& m, const GpuSpec& g, const Workload& w) {
  const KvTransfer probe = kv_transfer(m, g, w);
  if (!probe.bytes) throw std::invalid_argument("the model gives no architecture: its cache's bytes are unknown");
  if (!probe.time || !probe.latency) throw std::invalid_argument("the GPU names no interconnect to send the cache over");
  // A trace holds thousands of lengths, a run millions of requests: each length priced once.
  auto seen = std::make_shared<std::unordered_map<long, LinkTime>>();
  KvLink link;
  link.network = probe.network;
  link.time = [m, g, w, seen](long prompt) {
    if (const auto at = seen->find(prompt); at != seen->end()) return at->second;
    Workload one = w;
    one.prompt_tokens = prompt;
    const KvTransfer t = kv_transfer(m, g, one);
    const LinkTime lt{(*t.time - *t.latency).value(), t.latency->value()};
    seen->emplace(prompt, lt);
    return lt;
  };
  return link;
}

KvLink kv_link(const ModelSpec& m, const GpuSpec& g, const Workload& prefill, const Workload& decode) {
  if (prefill.tp == decode.tp && prefill.pp == decode.pp) return kv_link(m, g, decode);
  const KvTransfer probe = kv_transfer(m, g, decode);
  if (!probe.bytes) throw std::invalid_argument("the model gives no architecture: its cache's bytes are unknown");
  if (!probe.time || !probe.latency) throw std::invalid_argument("the GPU names no interconnect to send the cache over");
  const int p = gpus(prefill), d = gpus(decode);
  const bool network = g.network && p + d > g.interconnect->domain;
  const BytesPerSecond bandwidth = network ? g.network->bandwidth : g.interconnect->bandwidth;
  const Seconds latency = network ? g.network->latency : g.interconnect->latency;
  auto seen = std::make_shared<std::unordered_map<long, LinkTime>>();
  KvLink link;
  link.network = network;
  link.time = [m, g, prefill, decode, p, d, bandwidth, latency, seen](long prompt) {
    if (const auto at = seen->find(prompt); at != seen->end()) return at->second;
    Workload sent = prefill, received = decode;
    sent.prompt_tokens = received.prompt_tokens = prompt;
    // Each layout's whole cache (a tp above the KV heads holds copies), over its GPUs: the larger shard.
    const Bytes out = *kv_transfer(m, g, sent).bytes / static_cast<double>(p);
    const Bytes in = *kv_transfer(m, g, received).bytes / static_cast<double>(d);
    const LinkTime lt{(std::max(out, in) / bandwidth).value(), latency.value()};
    seen->emplace(prompt, lt);
    return lt;
  };
  return link;
}

}  // namespace roofline::serve
