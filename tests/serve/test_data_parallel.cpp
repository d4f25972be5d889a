// Data-parallel attention in the simulator (DeepSeek-V3 at EP 8 over 8 H200s): each rank serves
// the requests dealt to it, with its own batch, token budget and share of the cache, and the
// ranks step together.
#include <catch2/catch.hpp>

#include <algorithm>

#include "model/capacity_plan.hpp"
#include "serve/kv_capacity.hpp"
#include "serve/simulator.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::serve;
using Catch::Matchers::WithinRel;

namespace {

struct Replica {
  ModelSpec model = test::deepseek_v3();
  GpuSpec gpu = test::h200_141gb();
  Workload base = test::expert_parallel_8(model, true);
  StepCost cost{model, gpu, base};
  ServerConfig config;
  Replica() { config.kv_blocks = cache_blocks(model, gpu, base, config.block_tokens, config.max_batched_tokens).blocks; }
};

}  // namespace

TEST_CASE("data-parallel attention: a request alone is prefilled on its rank, as the engine prefills one") {
  Replica r;
  REQUIRE(r.cost.ranks() == 8);
  REQUIRE(r.config.kv_blocks >= 8);
  const SimResult s = simulate({{0, 2048, 1, 0}}, r.cost, r.config, Timing::expected);
  REQUIRE(s.served.size() == 1);
  Workload w = r.base;
  w.prompt_tokens = 2048;
  CHECK_THAT(s.served[0].ttft, WithinRel(evaluate(r.model, r.gpu, w).prefill.expected.time.value(), 1e-12));
}

TEST_CASE("data-parallel attention: 16 prompts at once are dealt round robin, one a rank a step under a budget of one prompt") {
  // Each rank's budget holds one 1000-token prompt: the first step prefills 8 (one a rank), the
  // second the other 8; had they gone to one attention group, 8 steps of one prompt would.
  Replica r;
  r.config.max_batched_tokens = 1000;
  std::vector<Request> burst(16, Request{0, 1000, 2, 0});
  const SimResult s = simulate(burst, r.cost, r.config, Timing::expected);
  REQUIRE(s.served.size() == 16);
  const auto first_step = std::count_if(s.served.begin(), s.served.end(), [](const Outcome& o) { return o.queue_wait == 0; });
  CHECK(first_step == 8);
  std::vector<double> ttft;
  for (const Outcome& o : s.served) ttft.push_back(o.ttft);
  std::sort(ttft.begin(), ttft.end());
  CHECK(ttft[7] == ttft[0]);   // the first eight finish their prefill in the same step
  CHECK(ttft[8] > ttft[7]);    // the next eight a step later
  CHECK(ttft[15] == ttft[8]);
}

TEST_CASE("data-parallel attention: each rank holds an eighth of the blocks, and a request larger than a rank's share is dropped") {
  Replica r;
  const long share = r.config.kv_blocks / 8;
  const long fits = share * r.config.block_tokens;  // prompt + output + nothing drafted
  const SimResult s = simulate({{0, fits - 1, 1, 0}, {0, fits + r.config.block_tokens, 1, 0}}, r.cost, r.config,
                               Timing::bound);
  CHECK(s.served.size() == 1);
  CHECK(s.dropped_no_room == 1);
}

TEST_CASE("data-parallel attention: every rank's step is held beside its cache, as the plan holds it") {
  // 2048 + 512 tokens: the plan holds B caches beside one step of 2048 + ⌈B/8⌉ tokens on each GPU.
  // At its largest B a rank holds ⌈B/8⌉ sequences, and the simulator's cache at that step's budget
  // holds as many: each rank's step charged once for all eight held 2 more a rank.
  Replica r;
  r.base.prompt_tokens = 2048;
  r.base.gen_tokens = 512;
  r.base.context_tokens = 2560;
  const Report one = evaluate(r.model, r.gpu, r.base);
  const std::optional<long> most = steady_max_batch(r.model, r.gpu, r.base, one.memory, true);
  REQUIRE(most);
  const long rank = (*most + 7) / 8;
  const CacheBlocks c = cache_blocks(r.model, r.gpu, r.base, 16, step_token_budget(2048, rank));
  const long held = c.blocks / 8 * 16 / 2560;  // a rank's blocks, in whole sequences of 2560 tokens
  CHECK(held == rank);
}
