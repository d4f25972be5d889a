// Issue 25, the engines' admission policies on a cache-filling workload: growing blocks as tokens
// come (vLLM, SGLang) preempts the latest admitted sequence and recomputes it; reserving a
// request's whole length at admission (TensorRT-LLM's GUARANTEED_NO_EVICT) never preempts.
#include <catch2/catch.hpp>

#include <algorithm>

#include "replica.hpp"
#include "serve/server.hpp"
#include "serve/simulator.hpp"
#include "serve/summary.hpp"

using namespace roofline;
using namespace roofline::serve;

namespace {

// A small cache of 200 blocks of 16 tokens (3200 tokens): 20 requests at once of 100 prompt and
// 300 output tokens need 25 blocks each at the end, 500 in all; they start at 7 (100 tokens).
struct Tight : test::Replica {
  Tight() {
    config.kv_blocks = 200;
    config.max_batch = 64;
  }
};

std::vector<Request> burst() { return std::vector<Request>(20, Request{0, 100, 300, 0}); }

}  // namespace

TEST_CASE("admission: growing blocks preempts the latest admitted sequence on a filling cache") {
  Tight t;
  const SimResult grow = t.run(burst());
  REQUIRE(grow.served.size() == 20);
  CHECK(grow.preemptions > 0);
  CHECK(grow.recomputed_tokens > 0);
  // The latest admitted is the one preempted: the first request (admitted first) never is.
  const auto first = std::find_if(grow.served.begin(), grow.served.end(), [](const Outcome& o) { return o.request == 0; });
  REQUIRE(first != grow.served.end());
  CHECK(first->preemptions == 0);
  const auto last = std::find_if(grow.served.begin(), grow.served.end(), [](const Outcome& o) { return o.request == 19; });
  REQUIRE(last != grow.served.end());
  CHECK(last->preemptions > 0);
}

TEST_CASE("admission: reserving the whole length at admission never preempts, 8 at a time") {
  Tight t;
  t.config.reserve_whole = true;
  const SimResult reserve = t.run(burst());
  REQUIRE(reserve.served.size() == 20);
  CHECK(reserve.preemptions == 0);
  CHECK(reserve.recomputed_tokens == 0);
  // 400 tokens a request are 25 blocks: 200 blocks hold 8 such requests at once, never more.
  CHECK(reserve.peak_running == 8);
  for (const Outcome& o : reserve.served) CHECK(o.preemptions == 0);
}

TEST_CASE("admission: unchunked, a prompt longer than the token budget runs alone in the next step, not after every decode") {
  // A decodes 2000 tokens from t = 0 (some 7 ms a step: 14 s). B's 9000-token prompt arrives at
  // 0.1 s, past the 8192-token budget: it runs in a step of its own while A waits that step, then
  // C's short prompt follows. B waited for A to finish, and C behind it.
  test::Replica r;
  REQUIRE_FALSE(r.config.chunked_prefill);
  REQUIRE(r.config.max_batched_tokens == 8192);
  const SimResult out = r.run({{0, 100, 2000, 0}, {0.1, 9000, 10, 0}, {0.2, 100, 10, 0}});
  REQUIRE(out.served.size() == 3);
  const auto of = [&](std::size_t i) {
    return *std::find_if(out.served.begin(), out.served.end(), [i](const Outcome& o) { return o.request == i; });
  };
  // B's first step is the one after its arrival: it waits at most the step in flight.
  CHECK(of(1).queue_wait < 0.01);
  // Its prefill (about half a second for 9000 tokens) is its TTFT, less than a second; C's first
  // token follows it within a second, long before A's 14 s end.
  CHECK(of(1).ttft < 1.0);
  CHECK(of(2).ttft < 1.5);
  CHECK(of(0).e2e > 10);
}

TEST_CASE("admission: unchunked, a prompt past what the budget leaves beside the decodes runs alone too") {
  // A's one decode takes one of the 8192 tokens: an 8192-token prompt fits no step beside it. It
  // runs alone in the next step, as 8191 tokens run beside A; it had waited for A's 14 s.
  test::Replica r;
  for (const long prompt : {8191L, 8192L}) {
    INFO("prompt " << prompt);
    const SimResult out = r.run({{0, 100, 2000, 0}, {0.1, prompt, 10, 0}});
    REQUIRE(out.served.size() == 2);
    const auto b = std::find_if(out.served.begin(), out.served.end(), [](const Outcome& o) { return o.request == 1; });
    REQUIRE(b != out.served.end());
    CHECK(b->queue_wait < 0.01);
    CHECK(b->ttft < 1.0);
  }
}

TEST_CASE("admission: unchunked prompts past the budget that outgrow the free blocks wait, the decodes running") {
  // 40 prompts of 20000 tokens half a second apart, 2000 tokens each out: the cache (some 460k
  // tokens) fills, and a prompt
  // whose whole length no longer has blocks waits while the decodes run and free them. Counted
  // on its stale chunk, such a prompt was taken to run alone, and the step held nothing.
  test::Replica r;
  std::vector<Request> long_prompts;
  for (int i = 0; i < 40; ++i) long_prompts.push_back({0.5 * i, 20000, 2000, 0});
  SimResult out;
  REQUIRE_NOTHROW(out = r.run(long_prompts));
  CHECK(out.served.size() == 40);
  CHECK(out.preemptions > 0);  // the cache did fill
}

TEST_CASE("blocks: a windowed layer holds its window's blocks only, a share of each block, as engines free the rest") {
  // Gemma 3's 52 sliding layers of 62, each as wide, keep 1024 tokens: a share 52/62 of every
  // block. At 33792 tokens (32k + 1k) every layer would hold 2112 blocks of 16; the sliding ones
  // keep 1024/16 + 1 = 65 (a window straddles a block's edge): 2112 − 52/62 · (2112 − 65) =
  // 395.1, so 396 blocks. Counted whole, Gemma 3 on an H200 ran 5 sequences where its plan ran 24.
  ServerConfig c;
  c.block_tokens = 16;
  CHECK(blocks_for(c, 33792) == 2112);  // no window: every layer keeps every token
  CHECK(blocks_for(c, 17) == 2);
  c.limited_layers = {{1024, 52.0 / 62.0}};
  CHECK(blocks_for(c, 33792) == 396);
  // Within the window, and at its edge, every layer still holds every token.
  CHECK(blocks_for(c, 1024) == 64);
  CHECK(blocks_for(c, 1040) == 65);
  CHECK(blocks_for(c, 17) == 2);
  // A request of that length fits a cache of 396 blocks, not of 395.
  const Request r{0, 32768, 1024, 0};
  CHECK(serve::holds(r, c, 396) == Holds::yes);
  CHECK(serve::holds(r, c, 395) == Holds::no_room);
}
