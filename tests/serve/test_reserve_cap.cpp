// A reserving admission (TensorRT-LLM's GUARANTEED_NO_EVICT) reserves the blocks of prompt +
// max_tokens, the client's cap on the output (ServerConfig::max_tokens): the engine cannot know
// the output a request will make, and getRemainingBlocksToCompletion counts prompt +
// mMaxNewTokens. Without a cap it reserves the request's own output, as before.
#include <catch2/catch.hpp>

#include "replica.hpp"
#include "serve/scheduling_policy.hpp"
#include "serve/simulator.hpp"

using namespace roofline;
using namespace roofline::serve;

namespace {

// 200 blocks of 16 tokens (3200 tokens), and 20 requests at once of 100 prompt and 50 output tokens.
struct Tight : test::Replica {
  Tight() {
    config.kv_blocks = 200;
    config.max_batch = 64;
    config.reserve_whole = true;
  }
};

std::vector<Request> burst() { return std::vector<Request>(20, Request{0, 100, 50, 0}); }

}  // namespace

TEST_CASE("reserve cap: the reservation is prompt plus max_tokens, within the context less the drafts") {
  ServerConfig c;
  c.reserve_whole = true;
  c.max_tokens = 700;
  const Request r{0, 100, 50, 0};
  // 100 + 700 = 800, not the 100 + 50 = 150 the request will make.
  CHECK(make_policy(c)->admission_tokens({}, r, 1) == 800);
  // A verify of K = 2 drafts reserves its 2 drafts past it: 802.
  CHECK(make_policy(c)->admission_tokens({}, r, 3) == 802);
  // A request making more than the cap (not cut here) still reserves its own: 100 + 900.
  CHECK(make_policy(c)->admission_tokens({}, Request{0, 100, 900, 0}, 1) == 1000);
  // The context bounds it, as TensorRT-LLM cuts max_new_tokens to max_seq_len - prompt - drafts:
  // min(800, 500) = 500; with 2 drafts min(800, 500 - 2) + 2 = 500.
  c.max_context = 500;
  CHECK(make_policy(c)->admission_tokens({}, r, 1) == 500);
  CHECK(make_policy(c)->admission_tokens({}, r, 3) == 500);
  // No cap: the request's own length, as before (150).
  c.max_tokens = 0;
  CHECK(make_policy(c)->admission_tokens({}, r, 1) == 150);
  // A growing admission never reads it: this step's tokens, 10 computed + 6.
  c.reserve_whole = false;
  c.max_tokens = 700;
  CHECK(make_policy(c)->admission_tokens({.computed = 10, .chunk = 6}, r, 1) == 16);
}

TEST_CASE("reserve cap: max_tokens 300 holds 8 requests at once where their own 50-token outputs held 20") {
  // Uncapped: 150 tokens a request, ceil(150 / 16) = 10 blocks; 200 / 10 = 20, the whole burst.
  Tight own;
  const SimResult uncapped = own.run(burst());
  REQUIRE(uncapped.served.size() == 20);
  CHECK(uncapped.peak_running == 20);
  // max_tokens 300: 400 tokens a request, 25 blocks; 200 / 25 = 8 at once, none preempted.
  Tight capped;
  capped.config.max_tokens = 300;
  const SimResult cap = capped.run(burst());
  REQUIRE(cap.served.size() == 20);
  CHECK(cap.peak_running == 8);
  CHECK(cap.preemptions == 0);
  // Each still makes its own 50 tokens: the cap reserves, it does not lengthen.
  CHECK(cap.output_tokens == 20 * 50);
}
