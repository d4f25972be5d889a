// Issue 25, the engines' admission policies on a cache-filling workload: growing blocks as tokens
// come (vLLM, SGLang) preempts the latest admitted sequence and recomputes it; reserving a
// request's whole length at admission (TensorRT-LLM's GUARANTEED_NO_EVICT) never preempts.
#include <catch2/catch.hpp>

#include <algorithm>

#include "replica.hpp"
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
