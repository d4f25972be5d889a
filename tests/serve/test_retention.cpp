// A prefix cache keeps a preempted sequence's full blocks (serve/block_pool.hpp): freed but
// remembered, evicted least recently freed first (a run's tail first), reclaimed on its return so
// that only what was evicted is recomputed. Worked by hand on a cache of 5 blocks of 16 tokens.
#include <catch2/catch.hpp>

#include <algorithm>

#include "replica.hpp"
#include "serve/block_pool.hpp"
#include "serve/engine_defaults.hpp"
#include "serve/simulator.hpp"

using namespace roofline;
using namespace roofline::serve;

namespace {

const Outcome& outcome(const SimResult& r, std::size_t request) {
  const auto it = std::find_if(r.served.begin(), r.served.end(), [&](const Outcome& o) { return o.request == request; });
  REQUIRE(it != r.served.end());
  return *it;
}

// 5 blocks of 16 tokens, unchunked, room for any batch (test_policies.cpp's worked run).
struct Small : test::Replica {
  explicit Small(Retention kept) {
    config.kv_blocks = 5;
    config.block_tokens = 16;
    config.max_batch = 64;
    config.retention = kept;
  }
};

// A: 16 prompt, 20 output; B: 20 prompt, 20 output; both at 0. The prefill step gives A 1 block
// and B 2 (2 free). Decode step k computes A's token 16 + k and B's 20 + k: A takes its 2nd block
// at k = 1 (1 free), B its 3rd at k = 13 (tokens 33; none free). At k = 17 A needs its 3rd (tokens
// 33) and B, the latest admitted, is preempted: 36 tokens computed (blocks 0 and 1 full, 4 tokens
// in block 2), 17 made, so it returns as a prefill to 37 tokens. Its partial block is free at once
// and A takes it; A ends at 35 tokens in those 3 blocks, taking none of B's two full ones.
std::vector<Request> untouched() { return {Request{0, 16, 20, 0}, Request{0, 20, 20, 0}}; }

}  // namespace

TEST_CASE("retention: the pool evicts the least recently freed run first, a run's tail first, worked by hand") {
  BlockPool p(10);
  REQUIRE(p.take(10));
  const auto a = p.retain(3);  // a preemption's 3 full blocks
  p.give_uncached(1);          // its partial block: plain
  const auto b = p.retain(2);  // a later preemption's 2
  p.give(2);                   // a finished sequence's 2, freed behind them
  CHECK(p.free() == 8);
  CHECK(p.retained() == 5);
  CHECK(p.held(a) == 3);
  // The plain block first, then a's tail.
  REQUIRE(p.take(2));
  CHECK(p.held(a) == 2);
  CHECK(p.held(b) == 2);
  // a's last 2 before any of b's; then b's tail.
  REQUIRE(p.take(3));
  CHECK(p.held(a) == 0);
  CHECK(p.held(b) == 1);
  CHECK(p.free() == 3);
  // b's block is b's again; with nothing retained the finished sequence's 2 are plain.
  CHECK(p.reclaim(b) == 1);
  CHECK(p.free() == 2);
  CHECK(p.retained() == 0);
  CHECK(p.reclaim(a) == 0);  // evicted whole: nothing to reclaim
  CHECK_FALSE(p.take(3));
  REQUIRE(p.take(2));
  CHECK(p.free() == 0);
}

TEST_CASE("retention: a preempted sequence whose blocks were not taken recomputes its partial block only") {
  // B returns once A has finished: its 2 full blocks still held, it recomputes tokens 32 to 36
  // (the 4 of its partial block and the last one it made, whose K/V was never computed): 5.
  // Counted: prefilled 16 + 20 + 5, less the 36 prompt tokens computed once.
  Small s(Retention::computed);
  const SimResult r = s.run(untouched());
  REQUIRE(r.served.size() == 2);
  CHECK(r.preemptions == 1);
  CHECK(outcome(r, 1).preemptions == 1);
  CHECK(r.recomputed_tokens == 5);
  // SGLang's radix cache keeps the prompt's full blocks only (1 of B's 20 tokens' 2): B recomputes
  // tokens 16 to 36, 21.
  Small g(Retention::prompt);
  const SimResult sg = g.run(untouched());
  REQUIRE(sg.served.size() == 2);
  CHECK(sg.preemptions == 1);
  CHECK(sg.recomputed_tokens == 21);
}

TEST_CASE("retention: a preempted sequence whose tail blocks were taken recomputes exactly those") {
  // test_policies.cpp's worked pair (16 prompt, 40 output each): B is preempted at 32 tokens
  // computed, 17 made, its 2 full blocks retained (no partial one). A, growing to 55 tokens, takes
  // a 4th block at 49: none plain, so B's tail block is evicted. B returns holding block 0 and
  // recomputes tokens 16 to 32 (the evicted block's 16 and its last token): 17, where without the
  // prefix cache it recomputed all 33.
  Small s(Retention::computed);
  const SimResult r = s.run({Request{0, 16, 40, 0}, Request{0, 16, 40, 0}});
  REQUIRE(r.served.size() == 2);
  CHECK(r.preemptions == 1);
  CHECK(r.recomputed_tokens == 17);
  CHECK(r.served.front().request == 0);
}

TEST_CASE("retention: without a prefix cache, or where the cache came over a link, the whole sequence is recomputed") {
  // The untouched pair: B recomputes its 37 tokens from nothing.
  Small none(Retention::none);
  const SimResult r = none.run(untouched());
  REQUIRE(r.served.size() == 2);
  CHECK(r.preemptions == 1);
  CHECK(r.recomputed_tokens == 37);
  // A disaggregated decode replica's (cached_survives_preemption false) keeps nothing either.
  Small decode(Retention::computed);
  decode.config.cached_survives_preemption = false;
  CHECK(decode.run(untouched()).recomputed_tokens == 37);
}

TEST_CASE("retention: each engine's prefix cache keeps what its source says") {
  CHECK(engine_defaults(Engine::vllm, 80).retention == Retention::computed);
  CHECK(engine_defaults(Engine::sglang, 80).retention == Retention::prompt);
  CHECK(engine_defaults(Engine::trtllm, 80).retention == Retention::none);
  CHECK(ServerConfig{}.retention == Retention::none);  // no --engine: as before
}
