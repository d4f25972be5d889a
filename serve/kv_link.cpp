#include "serve/kv_link.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "model/kv_transfer.hpp"

namespace roofline::serve {

namespace {

// What stops a cache being priced, as std::invalid_argument.
void check_priced(const KvTransfer& probe) {
  if (!probe.bytes) throw std::invalid_argument("the model gives no architecture: its cache's bytes are unknown");
  if (probe.refused) throw std::invalid_argument(*probe.refused);
  if (!probe.time || !probe.latency) throw std::invalid_argument("the GPU names no interconnect to send the cache over");
}

}  // namespace

KvLink kv_link(const ModelSpec& m, const GpuSpec& g, const Workload& w) {
  const KvTransfer probe = kv_transfer(m, g, w);
  check_priced(probe);
  // A trace holds thousands of lengths, a run millions of requests: each length priced once.
  auto seen = std::make_shared<std::unordered_map<long, LinkTime>>();
  KvLink link;
  link.network = probe.network;
  link.time = [m, g, w, seen](long prompt) {
    if (const auto at = seen->find(prompt); at != seen->end()) return at->second;
    Workload one = w;
    one.prompt_tokens = prompt;
    const KvTransfer t = kv_transfer(m, g, one);
    // A replica whose ranks each send their own sequences' caches (data-parallel attention) holds
    // a `links`-th of its links for a cache's time; the cache lands its whole time later.
    const Seconds busy = (*t.time - *t.latency) / static_cast<double>(t.links);
    const LinkTime lt{busy.value(), (*t.time - busy).value()};
    seen->emplace(prompt, lt);
    return lt;
  };
  return link;
}

KvLink kv_link(const ModelSpec& m, const GpuSpec& g, const Workload& prefill, const Workload& decode) {
  if (prefill.tp == decode.tp && prefill.pp == decode.pp) return kv_link(m, g, decode);
  // The pair as it is (the decode layout's own pair may leave the domain where this one does not).
  if (const auto why = pair_refusal(g, gpus(prefill), gpus(decode))) throw std::invalid_argument(*why);
  KvTransfer probe = kv_transfer(m, g, decode);
  probe.refused.reset();
  if (probe.bytes && g.interconnect) probe.time = probe.latency = Seconds(0);  // priced below
  check_priced(probe);
  if (prefill.dp_attention || decode.dp_attention) {
    throw std::invalid_argument("pools of different layouts under data-parallel attention: the cache would be "
                                "resharded between ranks, not modelled");
  }
  const int p = cache_senders(prefill), d = cache_senders(decode);
  const bool network = g.network && gpus(prefill) + gpus(decode) > g.interconnect->domain;
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
