// plan --disaggregate --percentile's search (planner/disaggregated_search.hpp): the pools grown
// and brought down on a check worked by hand, then on the simulation of both pools.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "llama_8b_h100.hpp"
#include "planner/disaggregated_search.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::test;
using planner::PoolCounts;
using planner::PoolPoint;

TEST_CASE("search_pools: from 1+5 the pools grow to 4+8 and come down to the fewest, 3 prefill and 7 decode") {
  // A check worked by hand: prompts wait 1 s for a prefill step below 3 prefill replicas, caches
  // 0.5 s for a decode slot below 7 decode replicas; TTFT 0.1 s plus both, target 0.5 s.
  LoadTarget t;
  t.ttft = Seconds(0.5);
  t.tpot = Seconds(0.05);
  std::vector<PoolCounts> asked;
  const auto check = [&](PoolCounts n) {
    asked.push_back(n);
    const double prefill = n.prefill < 3 ? 1.0 : 0, decode = n.decode < 7 ? 0.5 : 0;
    return PoolPoint{{0.1 + prefill + decode, 0.02, 0, 0}, prefill, decode};
  };
  const planner::PoolSearch s = planner::search_pools({1, 5}, t, check);
  CHECK(s.counts == PoolCounts{3, 7});
  CHECK(s.at.client.ttft == Approx(0.1));
  // Up, each miss growing the side that waited longer by steps of 1, 2, 4 a pool: 1+5 (the
  // prefill waits 1 s > 0.5 s) -> 2+5 -> 4+5 (now the decode side waits) -> 4+6 -> 4+8, which
  // meets. Down, decode with 4 prefill: 4+6 missed, so only 4+7 is asked (meets). Prefill with 7
  // decode: 3+7 meets, 1+7 misses, bisection asks 2+7 (misses): 3 it is. Each pair asked once.
  const std::vector<PoolCounts> expected{{1, 5}, {2, 5}, {4, 5}, {4, 6}, {4, 8}, {4, 7}, {3, 7}, {1, 7}, {2, 7}};
  CHECK(asked == expected);
}

TEST_CASE("search_pools: a P99 TPOT that misses grows the decode pool even when the prefill side waits longer") {
  // TPOT 60 ms over its 50 ms target below 4 decode replicas; the prefill side waits 0.3 s always
  // (within the 0.5 s TTFT), the decode side nothing. 2+2 -> 2+3 -> 2+5 (meets) -> 2+4 (meets)
  // -> 2+3 known to miss: 4 decode; prefill 1+4 meets too (TTFT is within), so 1+4.
  LoadTarget t;
  t.ttft = Seconds(0.5);
  t.tpot = Seconds(0.05);
  const auto check = [](PoolCounts n) { return PoolPoint{{0.4, n.decode < 4 ? 0.06 : 0.04, 0, 0}, 0.3, 0}; };
  CHECK(planner::search_pools({2, 2}, t, check).counts == PoolCounts{1, 4});
}

TEST_CASE("search_pools: requests dropped at the start are the answer, not a reason to grow") {
  LoadTarget t;
  long asked = 0;
  const auto check = [&](PoolCounts) {
    ++asked;
    return PoolPoint{{0, 0, 3, 0}, 0, 0};
  };
  const planner::PoolSearch s = planner::search_pools({2, 3}, t, check);
  CHECK(s.counts == PoolCounts{});
  CHECK(s.at.client.too_long == 3);
  CHECK(asked == 1);
}

TEST_CASE("DisaggregatedCheck: its pools reserve decode blocks in the scenario's engine's order") {
  // Llama-3.1-8B on an H100, 10 req/s of 1000 + 100 tokens, disaggregated: SGLang's decode server
  // reserves at the arrival, before the prefill; vLLM's and TensorRT-LLM's (and no engine) once
  // the prefill ends.
  const Llama8bOnH100 c({10, Seconds(1), Seconds(0.05), 1000, 100, true});
  const auto& [m, g, t, steady] = c;
  REQUIRE(steady.plan.feasible);
  REQUIRE(steady.plan.prefill_replicas > 0);
  for (const std::optional<serve::Engine> e :
       {std::optional<serve::Engine>{}, std::optional(serve::Engine::vllm), std::optional(serve::Engine::trtllm),
        std::optional(serve::Engine::sglang)}) {
    planner::PercentileScenario s;
    s.engine = e;
    const planner::DisaggregatedCheck check(m, steady, t, s);
    INFO((e ? serve::engine_name(*e) : "no engine"));
    CHECK(check.reserves_at_arrival() == (e == serve::Engine::sglang));
  }
}

