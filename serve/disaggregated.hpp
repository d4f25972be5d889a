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
//   3. its decode replica queues it as its prefill ends (the proxy sends the decode request once
//      the prefill's returns) and, first come first served with the replica's own waiting
//      requests, reserves its prompt's blocks when they are free: a decode pool short of blocks
//      holds the request at its queue's head, before its transfer;
//   4. its prompt cache crosses the link into those blocks (transfer_time): the prefill replica's
//      GPUs send, the decode replica's receive, one transfer at a time each way: a transfer
//      starts when its blocks are reserved, the sender has finished its previous one and the
//      receiver its previous one (first come first served by when the blocks were reserved),
//      holds both for its bytes over the bandwidth, and lands the link's latency later; the
//      blocks count against the decode replica's cache all the while;
//   5. it lands holding its prompt's cache but the last token's, which the decode replica
//      computes in its next step beside its decodes (vLLM's NIXL connector pulls whole blocks and
//      recomputes the rest; the prefill's own token is not returned), and emits the first token
//      the client sees; it decodes the rest there.
// The client's tokens all come from the decode replica (Dynamo's and llm-d's proxies return the
// decode worker's stream; SGLang's decode server streams): TTFT is arrival to that first token,
// the prefill's queue, its compute, the wait for decode blocks, the link and the decode
// replica's step in it.
//
// When the decode side reserves, engine by engine (read December 2026):
//   - vLLM (0.11, v1 KV connectors: NixlConnector, P2pNcclConnector): the decode scheduler meets
//     the request in its waiting queue, allocates its blocks (allocate_slots with the external
//     tokens get_num_new_matched_tokens counts) and parks it WAITING_FOR_REMOTE_KVS while the
//     worker pulls into them; with no blocks it stops at that request (first come first served).
//     vllm/v1/core/sched/scheduler.py, vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py.
//   - TensorRT-LLM (disaggregated serving, docs/source/features/disagg-serving.md): the generation
//     server's capacity scheduler admits the request (its blocks allocated) before its cache
//     transceiver requests the context server's cache.
//   - Dynamo and llm-d in front of vLLM or TensorRT-LLM: the engine's (Dynamo's current flow:
//     the prefill router runs the prefill, then routes to a decode worker that pulls over NIXL;
//     docs.nvidia.com/dynamo, design-docs/disaggregated-serving).
//   - SGLang (python/sglang/srt/disaggregation/decode.py, PreallocQueue): the decode server
//     pre-allocates when the request arrives, before the prefill server runs it (the prefill
//     waits in its bootstrap queue for the allocation): DisaggregatedConfig::reserve_at_arrival.
//     Steps 2 and 3 then swap: the decode replica queues the request at its arrival and
//     reserves its blocks first come first served, and only then does its prefill replica
//     queue it; the cache crosses the link once the prefill ends, into blocks already held.
// Either way both pools are advanced together, every replica's steps in the order they start,
// since each pool's queue waits on the other's.
//
// The prefill replica holds a request's blocks until its transfer has read them (vLLM's and
// TensorRT-LLM's prefill workers free them then), so a prefill pool short of blocks waits on
// the link, and after the prefill on the decode pool's reservations. Speculative decoding is
// not modelled here.
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
  // The prefill pool's own layout (Dynamo's and TensorRT-LLM's deployments run prefill at a
  // smaller tp than decode): its step cost and its KV blocks. Null and 0: the decode pool's.
  StepCost* prefill_cost = nullptr;
  long prefill_kv_blocks = 0;
  // Its windowed layers' shares of a block (ServerConfig::limited_layers), with prefill_kv_blocks:
  // past tp 4 Gemma 4's full-attention K/V heads are copied, and the shares move with the layout.
  std::vector<std::pair<long, double>> prefill_limited_layers{};
  // SGLang's order (above): the decode blocks reserved before the prefill runs, not after it.
  bool reserve_at_arrival = false;
};

// Where one request went and when its cache moved; -1 where it never got there (dropped).
struct Handoff {
  std::uint32_t prefill_replica = 0, decode_replica = 0;
  double queued = -1;       // taken by its decode replica: its prefill's end, or (reserve_at_arrival) its arrival
  double prefill_end = -1;  // its first token computed on the prefill replica
  double reserved = -1;     // its blocks reserved on the decode replica (queued, or later when they were short)
  double sent = -1;         // its transfer started (the later of reserved and prefill_end, or later when the link was held)
  double landed = -1;       // its cache on the decode replica
};

struct DisaggregatedResult {
  // The requests as the client sees them: TTFT to the decode replica's first token, TPOT and the
  // gaps the decode replica's, e2e to the last token, queue_wait arrival to the first prefill
  // step (under reserve_at_arrival the wait for decode blocks in it), preemptions both pools'.
  // Dropped: before the prefill when the decode replica could never hold it (longer than the
  // context, or more blocks than its whole cache; under reserve_at_arrival also a prompt the
  // prefill replica could never hold), else where a pool dropped it, each once, in the order
  // they arrived. The tokens, steps
  // and recomputed tokens are both pools' (the decode replica's one recomputed token a request
  // aside); the batch and cache figures (running_seconds, peaks) the decode pool's; busy_seconds
  // both pools' summed; no samples.
  SimResult all;
  // Each pool's runs merged (as simulate_fleet's `all`): the prefill pool's requests end with
  // their first token, the decode pool's arrive when their prefill ends (their queue wait runs
  // from then to their first step there, the blocks' and the link's waits and the transfer in it).
  // Under reserve_at_arrival the prefill pool's arrive when their decode blocks are reserved and
  // the decode pool's when they arrive (their queue wait spans the prefill).
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

// The time from a request's prefill ending to its cache landing (the waits for blocks, after the
// prefill only, and the link, and the transfer), its wait for decode blocks alone (queued to reserved: after its
// prefill, or under reserve_at_arrival before it), its wait for a free link alone (the later of
// reserved and prefill end, to sent), and its wait on the decode replica from landing to its
// first step there, for each request that reached the decode pool and was served.
struct HandoffTimes {
  std::vector<double> transfer, block_wait, link_wait, decode_wait, prefill;  // prefill: arrival to prefill_end
};
[[nodiscard]] HandoffTimes handoff_times(const std::vector<Request>& requests, const DisaggregatedResult& r);

// Both pools run `config` on `cost`, the prefill pool on pools.prefill_cost and its blocks where
// given (a layout of its own, the same GPUs and scheduler); the decode pool's routers draw
// from config.seed + 1, its replicas' speculative draws are not used. std::invalid_argument when a
// pool has no replica, there is no transfer time or config.speculation is set. config.progress
// hears the share of the work done, config.max_rows bounds each pool's sequence-steps.
[[nodiscard]] DisaggregatedResult simulate_disaggregated(const std::vector<Request>& requests, StepCost& cost,
                                                         const ServerConfig& config, const DisaggregatedConfig& pools,
                                                         Timing timing);

}  // namespace roofline::serve
