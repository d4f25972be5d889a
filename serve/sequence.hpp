#pragma once
// A request as a replica's scheduler holds it, waiting or running: what its cache holds and what
// this step computes. Shared by the server (serve/server.hpp) and its scheduling policies
// (serve/scheduling_policy.hpp), which order, admit and preempt these.
#include <cstddef>
#include <cstdint>

namespace roofline::serve {

struct Seq {
  std::size_t req = 0;
  long target = 0;     // tokens in the cache when its prefill emits a token: the prompt (+ output, recomputed)
  long computed = 0;   // tokens whose K/V is in the cache
  long generated = 0;  // output tokens so far
  long gen = 0;        // output tokens it makes: its request's, here because a step reads it for every sequence
  long blocks = 0;
  long chunk = 0;      // tokens this step computes for it
  double first_step = -1, first_token = -1;
  double last_token = -1;  // its latest emission (a step's tokens arrive together)
  long preemptions = 0;
  long accepted = 0;   // draft tokens its last verify kept
  long cached = 0;     // prompt tokens the prefix cache held for it here
  long routed_prefill = 0;  // the prefill blocks a KV router counted for it when it was routed here
  bool remote = false;  // a decode replica's, its cache (`cached`) still to cross the link into blocks not yet reserved
  // Preempted under a prefix cache: its rank's BlockPool ticket for the full blocks it freed and
  // the cache still holds (BlockPool::retain); -1: none.
  std::int64_t ticket = -1;
  [[nodiscard]] bool prefilling() const { return computed < target; }
};

}  // namespace roofline::serve
