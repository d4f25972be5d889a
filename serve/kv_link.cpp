#include "serve/kv_link.hpp"

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

}  // namespace roofline::serve
