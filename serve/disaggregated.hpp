#pragma once
// Disaggregated serving (Splitwise, DistServe; as NVIDIA Dynamo, llm-d and SGLang run it): P
// prefill replicas and D decode replicas, each a serve::Server with its own queue, cache and
// scheduler, and each request's prompt cache crossing a link between them.
//
// A request's path:
//   1. at its arrival the router picks a prefill replica and a decode replica (Dynamo, llm-d's
//      EPP and SGLang's router all pick the pair when the request comes in); a router that reads
//      loads reads each pool's: a decode replica's counts the requests sent to it still in
//      prefill or on the link;
//   2. the prefill replica runs its prompt (continuous batching of prompts under the token
//      budget, no decode) and computes its first token;
//   3. its prompt cache crosses the link (transfer_time): the prefill replica's GPUs send, the
//      decode replica's receive, one transfer at a time each way: a transfer starts when the
//      prefill ends, the sender has finished its previous one and the receiver its previous one
//      (first come first served by when the prefills ended), holds both for its bytes over the
//      bandwidth, and lands the link's latency later;
//   4. it arrives at the decode replica holding its prompt's cache but the last token's, which
//      the decode replica computes in its next step beside its decodes (vLLM's NIXL connector
//      pulls whole blocks and recomputes the rest; the prefill's own token is not returned),
//      admitted as any arrival is, when its blocks are free, and emits the first token the
//      client sees; it decodes the rest there.
// The client's tokens all come from the decode replica (Dynamo's and llm-d's proxies return the
// decode worker's stream; SGLang's decode server streams): TTFT is arrival to that first token,
// the prefill's queue, its compute, the link and the decode replica's admission and step in it.
//
// Simplifications, stated: the prefill replica frees a request's blocks when its prefill ends,
// not when the transfer has read them; the cache is sent when the prefill ends, whether or not
// the decode replica has room (SGLang reserves it before the prefill, vLLM's decode replica
// before it reads): a decode replica short of blocks holds the request after its transfer, not
// before, so the transfer overlaps that wait. Speculative decoding is not modelled here.
#include <cstdint>
#include <functional>
#include <vector>

#include "serve/router.hpp"
#include "serve/simulator.hpp"

namespace roofline::serve {

// One request's cache on the link: `busy` seconds holding the sender's and the receiver's links,
// then `latency` more before it lands.
struct LinkTime {
  double busy = 0;
  double latency = 0;
};

struct DisaggregatedConfig {
  std::size_t prefill_replicas = 1, decode_replicas = 1;
  Routing routing = Routing::round_robin;  // both pools' routers; a decode replica holds no prefix group
  // The link time of a prompt of this many tokens (serve/kv_link.hpp prices it from the model).
  std::function<LinkTime(long prompt_tokens)> transfer_time;
};

// Where one request went and when its cache moved; -1 where it never got there (dropped).
struct Handoff {
  std::uint32_t prefill_replica = 0, decode_replica = 0;
  double prefill_end = -1;  // its first token computed on the prefill replica
  double sent = -1;         // its transfer started (prefill_end, or later when the link was held)
  double landed = -1;       // its cache on the decode replica
};

struct DisaggregatedResult {
  // The requests as the client sees them: TTFT to the decode replica's first token, TPOT and the
  // gaps the decode replica's, e2e to the last token, queue_wait the prefill replica's (arrival
  // to the first prefill step), preemptions both pools'. Dropped: before the prefill when the
  // decode replica could never hold it (longer than the context, or more blocks than its whole
  // cache), else where a pool dropped it, each once, in the order they arrived. The tokens, steps
  // and recomputed tokens are both pools' (the decode replica's one recomputed token a request
  // aside); the batch and cache figures (running_seconds, peaks) the decode pool's; busy_seconds
  // both pools' summed; no samples.
  SimResult all;
  // Each pool's runs merged (as simulate_fleet's `all`): the prefill pool's requests end with
  // their first token, the decode pool's arrive when their cache lands.
  SimResult prefill, decode;
  std::vector<Handoff> handoffs;  // by request index
  std::vector<long> prefill_routed, decode_routed;  // requests sent to each replica
  double link_busy_seconds = 0;  // every transfer's busy time, summed
  // The share of the run (0 to the last token) each pool spent in steps, and a prefill replica's
  // sending link in transfers, on average over its replicas.
  [[nodiscard]] double prefill_utilisation() const;
  [[nodiscard]] double decode_utilisation() const;
  [[nodiscard]] double link_utilisation() const;
};

// The time from a request's prefill ending to its cache landing (a link's wait and the transfer),
// its wait for a free link alone, and its wait on the decode replica from landing to its first
// step there, for each request that reached the decode pool and was served.
struct HandoffTimes {
  std::vector<double> transfer, link_wait, decode_wait, prefill;  // prefill: arrival to prefill_end
};
[[nodiscard]] HandoffTimes handoff_times(const std::vector<Request>& requests, const DisaggregatedResult& r);

// Both pools run `config` on `cost` (the same GPUs and layout); the decode pool's routers draw
// from config.seed + 1, its replicas' speculative draws are not used. std::invalid_argument when a
// pool has no replica, there is no transfer time or config.speculation is set. config.progress
// hears the share of the work done, config.max_rows bounds each pool's sequence-steps.
[[nodiscard]] DisaggregatedResult simulate_disaggregated(const std::vector<Request>& requests, StepCost& cost,
                                                         const ServerConfig& config, const DisaggregatedConfig& pools,
                                                         Timing timing);

}  // namespace roofline::serve
