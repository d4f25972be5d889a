// The scheduling policies behind serve::Server's seam, alone and in a run worked by hand: two
// requests of 16 prompt and 40 output tokens on a cache of 5 blocks of 16 tokens.
#include <catch2/catch.hpp>

#include <algorithm>

#include "replica.hpp"
#include "serve/scheduling_policy.hpp"
#include "serve/simulator.hpp"

using namespace roofline;
using namespace roofline::serve;

namespace {

RunningList running(std::size_t n) {
  RunningList out;
  for (std::size_t i = 0; i < n; ++i) out.push_back({.req = i});
  return out;
}

const Outcome& outcome(const SimResult& r, std::size_t request) {
  const auto it = std::find_if(r.served.begin(), r.served.end(), [&](const Outcome& o) { return o.request == request; });
  REQUIRE(it != r.served.end());
  return *it;
}

// The worked run: 5 blocks of 16 tokens, unchunked, room for any batch.
struct Small : test::Replica {
  Small() {
    config.kv_blocks = 5;
    config.block_tokens = 16;
    config.max_batch = 64;
  }
};

std::vector<Request> two() { return {Request{0, 16, 40, 0}, Request{0, 16, 40, 0}}; }

}  // namespace

TEST_CASE("running list: admission order kept through finishes and preemptions, slots reused") {
  RunningList r = running(5);
  for (std::size_t i = 0; i < r.size(); ++i) r[i].computed = 100 + static_cast<long>(i);
  // Finish 0 and 3: the rest keep their order.
  r.remove_if([](const Seq& s) { return s.req == 0 || s.req == 3; });
  REQUIRE(r.size() == 3);
  CHECK(r[0].req == 1);
  CHECK(r[1].req == 2);
  CHECK(r[2].req == 4);
  // Preempt the middle one; later admissions go last, into the freed slots, whole.
  r.erase(1);
  r.push_back({.req = 7, .computed = 12});
  r.push_back({.req = 8});
  r.push_back({.req = 9});
  REQUIRE(r.size() == 5);
  const std::size_t order[] = {1, 4, 7, 8, 9};
  for (std::size_t i = 0; i < 5; ++i) CHECK(r[i].req == order[i]);
  CHECK(r[1].computed == 104);  // a kept sequence's own state
  CHECK(r[2].computed == 12);
  // The reused slots held 0, 3 and 2 (computed 100, 103, 102): they hold the new sequences whole.
  CHECK(r[3].computed == 0);
  CHECK(r[4].computed == 0);
  r[4].generated = 3;  // a reference reaches the sequence in its slot
  CHECK(r[4].generated == 3);
}

TEST_CASE("policies: recompute picks the latest admitted running sequence, the needy one when it is last") {
  const auto p = recompute_policy();
  const RunningList r = running(3);
  CHECK(p->victim(r, 0) == 2);
  CHECK(p->victim(r, 1) == 2);
  CHECK(p->victim(r, 2) == 2);  // the last one needing a block waits itself
  // Arrivals queue behind, a preempted sequence goes first.
  std::deque<Seq> waiting;
  p->arrive(waiting, {.req = 1});
  p->arrive(waiting, {.req = 2});
  p->requeue(waiting, {.req = 7});
  REQUIRE(waiting.size() == 3);
  CHECK(waiting[0].req == 7);
  CHECK(waiting[1].req == 1);
  CHECK(waiting[2].req == 2);
  // Growing: blocks for this step's tokens only (10 computed, a chunk of 6).
  CHECK(p->admission_tokens({.computed = 10, .chunk = 6}, Request{0, 100, 50, 0}, 1) == 16);
}

TEST_CASE("policies: reserve holds a request's whole length at admission, a last verify's drafts with it") {
  const auto p = reserve_policy();
  CHECK(p->admission_tokens({.computed = 10, .chunk = 6}, Request{0, 100, 50, 0}, 1) == 150);
  CHECK(p->admission_tokens({}, Request{0, 100, 50, 0}, 4) == 153);  // K = 3: three drafts past the end
  ServerConfig c;
  CHECK(make_policy(c)->admission_tokens({.computed = 10, .chunk = 6}, Request{0, 100, 50, 0}, 1) == 16);
  c.reserve_whole = true;
  CHECK(make_policy(c)->admission_tokens({.computed = 10, .chunk = 6}, Request{0, 100, 50, 0}, 1) == 150);
}

TEST_CASE("policies: recompute preempts the latest admitted request once, worked by hand") {
  // Both prompts take a block each, and a second with their first decode (1 free). At 33 tokens
  // the first takes the last block and the second, the latest admitted, needs one too: it is
  // preempted with 17 tokens made (33 in the cache), its 2 blocks freed. Its 33 tokens need 3
  // blocks, 2 are free: it waits until the first finishes (55 tokens in 4 blocks), comes back as
  // a 33-token prefill, and grows to 4 blocks with no one left to preempt.
  Small s;
  const SimResult r = s.run(two());
  REQUIRE(r.served.size() == 2);
  CHECK(r.preemptions == 1);
  CHECK(outcome(r, 0).preemptions == 0);
  CHECK(outcome(r, 1).preemptions == 1);
  // Prefilled 16 + 16 + 33 tokens; the 33 of the second pass were computed again.
  CHECK(r.recomputed_tokens == 33);
  CHECK(r.peak_running == 2);
  // The first finished first: the second waited for its blocks.
  CHECK(r.served.front().request == 0);
}

TEST_CASE("policies: reserve never preempts the same cache-filling pair, one request at a time") {
  // 16 + 40 tokens are 4 blocks each: 5 blocks hold one request's whole length, not two.
  Small s;
  s.config.reserve_whole = true;
  const SimResult r = s.run(two());
  REQUIRE(r.served.size() == 2);
  CHECK(r.preemptions == 0);
  CHECK(r.recomputed_tokens == 0);
  CHECK(r.peak_running == 1);
  CHECK(outcome(r, 1).queue_wait > 0);
}

TEST_CASE("policies: reserve never preempts a cache-filling stream where growing blocks thrashes") {
  // 60 requests of 1000 prompt and 1000 output tokens at once on a cache of 400 blocks of 16
  // (6400 tokens): growing, 6 start and all outgrow the cache; reserving, 3 run at a time
  // (2000 tokens are 125 blocks).
  test::Replica t;
  t.config.kv_blocks = 400;
  t.config.chunked_prefill = true;
  const std::vector<Request> burst(60, Request{0, 1000, 1000, 0});
  const SimResult grow = t.run(burst);
  CHECK(grow.preemptions > 0);
  t.config.reserve_whole = true;
  const SimResult reserve = t.run(burst);
  REQUIRE(reserve.served.size() == 60);
  CHECK(reserve.preemptions == 0);
  CHECK(reserve.recomputed_tokens == 0);
  CHECK(reserve.peak_running == 3);
  for (const Outcome& o : reserve.served) CHECK(o.preemptions == 0);
}

TEST_CASE("policies: a preempted request's cached prompt stays cached unless the server says it does not survive") {
  // The worked run above with 15 of each prompt's 16 tokens cached: each first pass computes one
  // prompt token, and the second is preempted at 33 tokens all the same (blocks follow tokens
  // held, not computed). Its cache surviving, it recomputes tokens 15 to 33: 18; freed with its
  // blocks (a disaggregated decode replica's), all 33. Counted: prefilled 1 + 1 + 18 (or 33),
  // less the 32 - 30 prompt tokens not cached, computed once.
  Small s;
  const std::vector<Request> cached{Request{0, 16, 40, 15}, Request{0, 16, 40, 15}};
  const SimResult kept = s.run(cached);
  REQUIRE(kept.served.size() == 2);
  CHECK(kept.preemptions == 1);
  CHECK(kept.recomputed_tokens == 18);
  s.config.cached_survives_preemption = false;
  const SimResult lost = s.run(cached);
  REQUIRE(lost.served.size() == 2);
  CHECK(lost.preemptions == 1);
  CHECK(lost.recomputed_tokens == 33);
}

TEST_CASE("steps: SGLang's unmixed steps run a prompt's chunk alone, the decodes waiting it, worked by hand") {
  // Chunked, a budget of 10 tokens; at t = 0 A (4 prompt, 3 out) and B (14 prompt, 1 out).
  // Mixed (vLLM, TensorRT-LLM, SGLang --enable-mixed-chunk): step 1 prefills A's 4 and B's first
  // 6; step 2 A's decode and B's last 8 (B done); step 3 A's last decode. 3 steps.
  // Unmixed (SGLang's default): step 1 the same (prompts only); step 2 B's last 8 alone, A waiting;
  // steps 3 and 4 A's decodes. 4 steps, and A's last token a step later.
  test::Replica r;
  r.config.chunked_prefill = true;
  r.config.max_batched_tokens = 10;
  const std::vector<Request> ab{{0, 4, 3, 0}, {0, 14, 1, 0}};
  REQUIRE(r.config.mixed_steps);  // the default: without --engine
  const SimResult mixed = r.run(ab);
  r.config.mixed_steps = false;
  const SimResult apart = r.run(ab);
  REQUIRE(mixed.served.size() == 2);
  REQUIRE(apart.served.size() == 2);
  CHECK(mixed.steps == 3);
  CHECK(apart.steps == 4);
  CHECK(mixed.served.front().request == 1);
  CHECK(apart.served.front().request == 1);
  CHECK(outcome(apart, 0).e2e > outcome(mixed, 0).e2e);
  // B's last chunk ran without A's decode beside it: its TTFT is no later than mixed.
  CHECK(outcome(apart, 1).ttft <= outcome(mixed, 1).ttft);
}

TEST_CASE("steps: unmixed, a prompt whose blocks are not free leaves the step to the decodes") {
  // 5 blocks of 16 tokens: A (16 prompt, 40 out) holds 2 blocks from its 17th token, some 7 ms
  // in. B's 64-token prompt arrives at 50 ms and needs 4 blocks, 3 free: no prompt can be taken,
  // so the step is A's decode (a step of nothing would throw), until A finishes (55 tokens in 4
  // blocks) and frees its blocks; then B runs.
  Small s;
  s.config.mixed_steps = false;
  const SimResult r = s.run({Request{0, 16, 40, 0}, Request{0.05, 64, 1, 0}});
  REQUIRE(r.served.size() == 2);
  CHECK(r.served.front().request == 0);
  CHECK(r.preemptions == 0);
}
