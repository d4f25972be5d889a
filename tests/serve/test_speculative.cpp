// Speculative decoding: the expected tokens of a verify step, gpt-fast's published 70B + 7B row
// inside the bound, the batch past which it stops paying, and the simulator running it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "serve/kv_capacity.hpp"
#include "serve/server.hpp"
#include "serve/speculative.hpp"
#include "serve/summary.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::serve;

namespace {

// gpt-fast's int4 (G = 32, a bf16 scale and zero per 32 weights: 0.625 B a weight), entered as
// int4 with a group of 16 as tests/data/measurements/training.csv enters it.
Workload int4(const ModelSpec& m) {
  PrecisionOverrides o;
  o.weights = WeightFormat::int4;
  o.group_size = 16;
  Workload w = test::default_workload(m);
  w.precision = resolve_precision(m, o);
  return w;
}

}  // namespace

TEST_CASE("a verify step yields (1 - a^(K+1))/(1 - a) tokens: 3.68928 at K 5 and a 0.8, 6 at a 1, 1 at a 0") {
  CHECK(expected_tokens({5, 0.8}) == Approx(3.68928).epsilon(1e-12));
  CHECK(expected_tokens({5, 1.0}) == 6);
  CHECK(expected_tokens({5, 0.0}) == 1);
}

TEST_CASE("gpt-fast's Llama-2-70B int4 with a Llama-2-7B int4 draft on an A100 (48.4 tok/s, 25.25 without) lies inside the bound") {
  // pytorch-labs/gpt-fast README @32971d3: batch 1, a 5-token prompt, 200 new tokens (context
  // ~105 on average), speculate_k 5. The bound is an upper limit on tokens/s: both rows must be
  // below it. With every draft accepted (the loosest bound) and at a = 0.8.
  const ModelSpec target = test::llama_2_70b(), draft = test::llama_2_7b();
  const GpuSpec gpu = test::a100_80gb();
  StepCost t(target, gpu, int4(target)), d(draft, gpu, int4(draft));
  const SpeculativeRate all = speculative_rate(t, &d, 1, 105, {5, 1.0}, false);
  const SpeculativeRate most = speculative_rate(t, &d, 1, 105, {5, 0.8}, false);
  CHECK(all.plain_per_s(true) > 25.25);
  CHECK(all.speculative_per_s(true) > 48.4);
  CHECK(most.speculative_per_s(true) > 48.4);
  // The bound says what the run implies: with no draft accepted (one token per 5 drafts and a
  // verify) speculation would be slower than plain decode, so the 48.4 needs acceptance.
  const SpeculativeRate none = speculative_rate(t, &d, 1, 105, {5, 0.0}, false);
  CHECK(none.speculative_per_s(true) < none.plain_per_s(true));
  // And it pays by a factor the measured ratio (1.92) does not exceed.
  CHECK(most.speculative_per_s(true) / most.plain_per_s(true) > 48.4 / 25.25);
}

TEST_CASE("speculation pays at batch 1 and stops paying past a batch: Llama-3.1-8B on H100, K 4, a 0.7, free drafts, context 128") {
  // Past the ridge the verify's 5 rows a sequence cost 5 times the linears' compute, and 2.77
  // tokens do not repay it unless attention's reads (shared by the 5 queries) dominate: at 128
  // tokens a sequence reads 16.8 MB of K/V (5 us) against 16 GFLOP of linears (16 us at peak).
  // At 1024 tokens (40 us of reads) it would pay at every batch.
  const ModelSpec m = test::llama_3_1_8b();
  StepCost cost(m, test::h100_sxm(), test::default_workload(m));
  const Speculation s{4, 0.7};
  const auto at = [&](long b) { return speculative_rate(cost, nullptr, b, 128, s, false); };
  CHECK(at(1).speculative_per_s(false) > 2 * at(1).plain_per_s(false));
  const std::vector<BatchRange> paying = paying_batches(cost, nullptr, 128, s, 4096, Timing::expected, false);
  // A dense model: one range from batch 1, as the verify's rows reach the compute roof.
  REQUIRE(paying.size() == 1);
  CHECK(paying[0].from == 1);
  const std::optional<long> stop = stops_paying(paying, 4096);
  REQUIRE(stop.has_value());
  CHECK(*stop == paying[0].to + 1);
  CHECK(at(*stop).speculative_per_s(false) <= at(*stop).plain_per_s(false));
  CHECK(at(*stop - 1).speculative_per_s(false) > at(*stop - 1).plain_per_s(false));
  CHECK_FALSE(stops_paying(paying_batches(cost, nullptr, 1024, s, 4096, Timing::expected, false), 4096).has_value());
}

TEST_CASE("speculation with experts: it can pay again past a batch where it stopped, so every batch is scanned") {
  // Mixtral-8x7B at tp 2, K 4 at acceptance 0.4 ((1 - 0.4^5)/0.6 = 1.65 tokens a verify), drafts
  // free, context 128. At batch 1 plain decode reads 2 of the 8 experts a layer and the verify's
  // 5 rows 1 - (6/8)^5 = 76% of them (6.1): 3 times the expert weights, for 1.65 tokens. As the
  // batch grows plain decode touches most experts too and the verify's rows come nearly free,
  // until they reach the compute roof: it pays at batches 3-152 on the expected times.
  const ModelSpec m = test::mixtral_8x7b();
  Workload w = test::default_workload(m);
  w.tp = 2;
  StepCost cost(m, test::h100_sxm(), w);
  const Speculation s{4, 0.4};
  const std::vector<BatchRange> paying = paying_batches(cost, nullptr, 128, s, 256, Timing::expected, false);
  REQUIRE(paying.size() == 1);
  CHECK(paying.front().from > 1);  // not at batch 1
  CHECK(paying.front().to < 256);
  for (const BatchRange& r : paying) {
    for (long b : {r.from, r.to}) {
      const SpeculativeRate at = speculative_rate(cost, nullptr, b, 128, s, false);
      CHECK(at.speculative_per_s(false) > at.plain_per_s(false));
    }
    if (r.from > 1) {
      const SpeculativeRate before = speculative_rate(cost, nullptr, r.from - 1, 128, s, false);
      CHECK(before.speculative_per_s(false) <= before.plain_per_s(false));
    }
  }
}

TEST_CASE("the simulator speculating at low load cuts TPOT, and serves every output token") {
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::h100_sxm();
  const Workload w = test::default_workload(m);
  StepCost cost(m, g, w);
  ServerConfig c;
  c.kv_blocks = cache_blocks(m, g, w, c.block_tokens, c.max_batched_tokens).blocks;
  const LengthDistribution n{LengthDistribution::Kind::fixed, 200, 0};
  const auto requests = generate({}, 1, 120, n, n, 0, 16, 3);
  const SimResult plain = simulate(requests, cost, c, Timing::expected);
  c.speculation = Speculation{4, 0.7};
  const SimResult fast = simulate(requests, cost, c, Timing::expected);
  CHECK(fast.output_tokens == plain.output_tokens);
  CHECK(fast.output_tokens == 200.0 * static_cast<double>(requests.size()));
  // At a ~ 0.7 a verify yields (1 - 0.7^5)/0.3 = 2.77 tokens for little more than one step's time.
  CHECK(summarize(fast, {}).tpot.mean < 0.5 * summarize(plain, {}).tpot.mean);
}

TEST_CASE("a speculating server prefills each prompt through the draft too: a lone request's TTFT is both prefills") {
  // Llama-3.1-8B verifying, Llama-2-7B drafting, one prompt of 1000 tokens: its only step runs
  // the target's prefill and the draft's (no sequence decodes yet, so no draft steps follow).
  const ModelSpec m = test::llama_3_1_8b(), small = test::llama_2_7b();
  const GpuSpec g = test::h100_sxm();
  const Workload w = test::default_workload(m);
  StepCost cost(m, g, w), draft(small, g, w);
  ServerConfig c;
  c.kv_blocks = 4096;
  c.speculation = Speculation{4, 0.7};
  const SimResult s = simulate({{0, 1000, 1, 0}}, cost, c, Timing::expected, &draft);
  REQUIRE(s.served.size() == 1);
  const double both = cost.time({1000, 0, 1, cost.prefill_attention(0, 1000)}).expected.value() +
                      draft.time({1000, 0, 0, draft.prefill_attention(0, 1000)}).expected.value();
  CHECK_THAT(s.served[0].ttft, Catch::Matchers::WithinRel(both, 1e-12));
}

TEST_CASE("a replica's draft acceptances are not the traffic's draws: replica 0's seed is the run's") {
  // Seeded alike, replica 0's i-th acceptance was the uniform behind the traffic's i-th gap: short
  // gaps came with rejected drafts. Each replica's stream now starts elsewhere, and not the
  // traffic's a few draws on either (a seed XORed with splitmix64's increment was, for seed 0).
  for (std::uint64_t seed = 0; seed <= 300; ++seed) {
    Rng traffic(seed);
    std::vector<double> drawn(32);
    for (double& u : drawn) u = traffic.uniform();
    for (std::uint64_t replica = 0; replica < 8; ++replica) {
      Rng acceptances(acceptance_seed(seed + replica));
      for (int i = 0; i < 4; ++i) CHECK(std::find(drawn.begin(), drawn.end(), acceptances.uniform()) == drawn.end());
    }
  }
}
