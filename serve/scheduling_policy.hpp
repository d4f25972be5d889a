#pragma once
// How a replica's scheduler orders its waiting queue, admits a request and picks the running
// sequence to preempt: the seam between serve::Server (which steps, prices and counts) and an
// engine's policy. A new policy is one file (as recompute_policy.cpp and reserve_policy.cpp are)
// and one line in make_policy. The server calls a policy once an arrival, an admission or a
// preemption, never once a token: a step's grant of blocks to a running sequence stays inline.
#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "serve/running_list.hpp"
#include "serve/sequence.hpp"
#include "serve/traffic.hpp"

namespace roofline::serve {

struct ServerConfig;

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  // An arrival joins the waiting queue (the queue's order is the order admissions try).
  virtual void arrive(std::deque<Seq>& waiting, const Seq& s) const = 0;
  // A preempted sequence rejoins it.
  virtual void requeue(std::deque<Seq>& waiting, const Seq& s) const = 0;
  // The tokens whose blocks a sequence admitted now must hold: those this step computes, or more
  // (reserved at admission). `decode_tokens`: what a decode step computes (1, or K + 1 speculating).
  [[nodiscard]] virtual long admission_tokens(const Seq& s, const Request& r, long decode_tokens) const = 0;
  // The running sequence to preempt while running[needy] lacks blocks: an index in [needy, size),
  // needy itself when it is to wait (the ones before it already hold this step's blocks).
  [[nodiscard]] virtual std::size_t victim(const RunningList& running, std::size_t needy) const = 0;
};

// Blocks taken as tokens are computed, the latest admitted preempted and recomputed: vLLM's V1
// scheduler (and SGLang's retraction, approximately). First come first served.
[[nodiscard]] std::unique_ptr<SchedulingPolicy> recompute_policy();
// A request's whole length reserved when it is admitted, so none is ever preempted: TensorRT-LLM's
// GUARANTEED_NO_EVICT. First come first served. Its output is `max_tokens` (ServerConfig::max_tokens;
// 0: the request's own), within `max_context` (0: none).
[[nodiscard]] std::unique_ptr<SchedulingPolicy> reserve_policy(long max_tokens = 0, long max_context = 0);
// The policy a server config names (ServerConfig::reserve_whole).
[[nodiscard]] std::unique_ptr<SchedulingPolicy> make_policy(const ServerConfig& config);

}  // namespace roofline::serve
