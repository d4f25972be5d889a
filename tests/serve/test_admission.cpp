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

namespace {

// The requests served, in the order they finished.
std::vector<std::size_t> finish_order(const SimResult& r) {
  std::vector<std::size_t> order;
  for (const Outcome& o : r.served) order.push_back(o.request);
  return order;
}

}  // namespace

TEST_CASE("admission: unchunked, a prompt past the budget's rest runs alone (own), waits with those behind (TensorRT-LLM), "
          "or is passed over (vLLM 0.11)") {
  // A budget of 10 tokens; at t = 0 A (4 prompt, 5 out), B (10 prompt, 1 out), C (2 prompt, 1 out).
  // Step 1 prefills A (4 tokens); B's 10 pass the 6 left.
  //  - alone (the simulator's own): step 2 runs B alone, A waiting it; step 3 A's decode and C;
  //    A decodes to its 5th token at step 6. Finished B, C, A in 6 steps.
  //  - stop (TensorRT-LLM's micro-batch scheduler breaks at the first prompt that does not fit):
  //    B's 10 pass the 9 A's decode leaves until A ends at step 5; B runs at step 6, C (behind
  //    it) at step 7. Finished A, B, C in 7 steps.
  //  - skip (vLLM 0.11's V1 passes over it): C's 2 tokens join A's prefill at step 1; B waits for
  //    A's end as under stop, at step 6. Finished C, A, B in 6 steps.
  test::Replica r;
  r.config.max_batched_tokens = 10;
  REQUIRE_FALSE(r.config.chunked_prefill);
  const std::vector<Request> abc{{0, 4, 5, 0}, {0, 10, 1, 0}, {0, 2, 1, 0}};
  const auto run = [&](UnchunkedFit fit) {
    r.config.unchunked_fit = fit;
    return r.run(abc);
  };
  REQUIRE(r.config.unchunked_fit == UnchunkedFit::alone);  // the default: without --engine
  const SimResult alone = run(UnchunkedFit::alone), stop = run(UnchunkedFit::stop), skip = run(UnchunkedFit::skip);
  CHECK(finish_order(alone) == std::vector<std::size_t>{1, 2, 0});
  CHECK(alone.steps == 6);
  CHECK(finish_order(stop) == std::vector<std::size_t>{0, 1, 2});
  CHECK(stop.steps == 7);
  CHECK(finish_order(skip) == std::vector<std::size_t>{2, 0, 1});
  CHECK(skip.steps == 6);
  // Under TensorRT-LLM's rule A runs alone, then B, then C; the others hold two at once.
  CHECK(stop.peak_running == 1);
  CHECK(skip.peak_running == 2);
  CHECK(alone.peak_running == 2);
}

TEST_CASE("admission: unchunked under TensorRT-LLM's rule, decodes hold the budget and a prompt waits for room beside them") {
  // A budget of 1000 and prompts of 900: a prompt fits beside 100 decodes at most (100 + 900 =
  // 1000). 300 requests at once of 900 prompt and 200 out, a cache and batch that hold them all:
  // step k prefills one prompt beside k - 1 decodes while k - 1 + 900 <= 1000, so step 101 holds
  // 101, and none is admitted again until the first finishes (step 201). The simulator's own rule
  // ran each prompt alone once the decodes passed 100, and kept admitting.
  test::Replica r;
  r.config.max_batched_tokens = 1000;
  r.config.max_batch = 400;
  const std::vector<Request> burst(300, Request{0, 900, 200, 0});
  r.config.unchunked_fit = UnchunkedFit::stop;
  const SimResult stop = r.run(burst);
  REQUIRE(stop.served.size() == 300);
  CHECK(stop.peak_running == 101);
  r.config.unchunked_fit = UnchunkedFit::alone;
  const SimResult alone = r.run(burst);
  REQUIRE(alone.served.size() == 300);
  CHECK(alone.peak_running > 101);
}

TEST_CASE("admission: the cache is sized beside the largest step, an unchunked prompt past the budget's") {
  CHECK(largest_step(8192, false, 32000) == 32000);  // whole, in a step of its own
  CHECK(largest_step(8192, false, 4000) == 8192);
  CHECK(largest_step(8192, true, 32000) == 8192);  // chunked: no step past the budget
  CHECK(largest_step(8192, false, 0) == 8192);
  // Llama-3.1-8B on an H100: a 30000-token step's activations leave fewer blocks than 8192's.
  test::Replica r;
  CHECK(cache_blocks(r.model, r.gpu, r.base, 16, largest_step(8192, false, 30000)).blocks <
        cache_blocks(r.model, r.gpu, r.base, 16, 8192).blocks);
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
