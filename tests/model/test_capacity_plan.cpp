// Capacity plans worked by hand on the teaching example: 7e9 fp16 parameters on an A100 with
// 2 TB/s and 312 TFLOP/s, 512 tokens in, 256 out, TPOT ≤ 50 ms, 100 requests/s.
#include <catch2/catch.hpp>

#include <cmath>

#include "model/capacity_plan.hpp"
#include "specs.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

struct Teaching : test::TeachingExample {
  CapacityPlan plan(LoadTarget t) const { return plan_capacity(model, gpu, test::default_workload(model), t); }
};

// Prefill of one 512-token prompt: 2·512·7e9 / 312e12 = 22.97 ms. Decode at batch B:
// max(7 ms, B · 44.87 us). Colocated, each token also waits B/256 prefills: B · 89.74 us.
constexpr double kPrefill = 2.0 * 512 * 7e9 / 312e12;
constexpr double kComputePerSequence = 2.0 * 7e9 / 312e12;
// The plans worked on the bound size on it; a plan sizes on the expected times by default.
constexpr Sizing kBound{.bound = true};

}  // namespace

TEST_CASE("plan: colocated - the largest batch is 371 and 100 requests/s need 4 GPUs") {
  // Past B* = 156 compute binds: B · (44.87 + 89.74) us ≤ 50 ms → B ≤ 371.4.
  const CapacityPlan p = Teaching().plan({.requests_per_s = 100, .ttft = Seconds(1), .tpot = Seconds(0.05),
                                          .price_per_gpu_hour = 2.0, .sizing = kBound});
  REQUIRE(p.feasible);
  CHECK(p.batch == 371);
  CHECK_THAT(p.tpot.value(), WithinRel(371 * (kComputePerSequence + kPrefill / 256), 1e-9));
  // 371 tokens per 49.94 ms = 7428.6 tokens/s = 29.02 requests/s per GPU → ceil(100 / 29.02) = 4.
  CHECK_THAT(p.decode_tokens_per_s, WithinRel(1 / (kComputePerSequence + kPrefill / 256), 1e-9));
  CHECK(p.replicas == 4);
  CHECK(p.gpus == 4);
  // Prefill takes 89.74 of every 134.6 us: two thirds of the GPU's time.
  CHECK_THAT(p.prefill_share, WithinRel(2.0 / 3.0, 1e-9));
  // 4 GPUs × $2/h for 100 · 256 · 3600 tokens an hour: $0.0868 per million.
  CHECK_THAT(*p.cost_per_million_tokens, WithinRel(4 * 2.0 * 1e6 / (100 * 256 * 3600.0), 1e-12));
  // The teaching A100 states no power: no energy, rather than a guess.
  CHECK_FALSE(p.kwh_per_million_tokens.has_value());
}

TEST_CASE("plan: energy - 4 GPUs at 400 W for 1e6 / 25,600 = 39.06 s per million tokens = 0.0174 kWh") {
  Teaching t;
  t.gpu.power = Watts(400);
  const CapacityPlan p = t.plan({.requests_per_s = 100, .ttft = Seconds(1), .tpot = Seconds(0.05), .sizing = kBound});
  REQUIRE(p.gpus == 4);
  // 4 × 400 W × 39.0625 s = 62,500 J = 62,500 / 3.6e6 kWh = 0.01736 kWh.
  REQUIRE(p.kwh_per_million_tokens.has_value());
  CHECK_THAT(*p.kwh_per_million_tokens, WithinRel(62'500.0 / 3.6e6, 1e-12));
  // Disaggregated, the prefill pool draws power too: 5 GPUs, 78,125 J.
  const CapacityPlan d = t.plan({.requests_per_s = 100, .ttft = Seconds(1), .tpot = Seconds(0.05), .disaggregate = true,
                                 .sizing = kBound});
  REQUIRE(d.gpus == 5);
  CHECK_THAT(*d.kwh_per_million_tokens, WithinRel(78'125.0 / 3.6e6, 1e-12));
}

TEST_CASE("plan: disaggregated - 3 prefill GPUs and 2 decode GPUs") {
  // Prefill pool: 100 requests/s × 22.97 ms = 2.3 GPUs → 3. Decode pool: B · 44.87 us ≤ 50 ms →
  // B = 1114, 22,286 tokens/s = 87.05 requests/s per GPU → 2.
  const CapacityPlan p = Teaching().plan({.requests_per_s = 100, .ttft = Seconds(1), .tpot = Seconds(0.05),
                                          .disaggregate = true, .sizing = kBound});
  REQUIRE(p.feasible);
  CHECK(p.batch == 1114);
  CHECK(p.prefill_replicas == 3);
  CHECK(p.replicas == 2);
  CHECK(p.gpus == 5);
  CHECK_THAT(p.ttft.value(), WithinRel(kPrefill, 1e-9));
}

TEST_CASE("plan: targets that no batch can meet say why") {
  const Teaching t;
  const CapacityPlan tpot = t.plan({.requests_per_s = 1, .ttft = Seconds(1), .tpot = Seconds(0.005), .sizing = kBound});
  CHECK_FALSE(tpot.feasible);
  // Batch 1 takes 7 ms a step plus 1/256 of a 23 ms prefill: 7.0897 ms per token.
  const auto* slow = std::get_if<TpotUnreachable>(&*tpot.why_not);
  REQUIRE(slow != nullptr);
  CHECK(slow->target.value() == 0.005);
  CHECK_THAT(slow->at_batch_1.value(), WithinRel(7e-3 + kPrefill / 256, 1e-9));
  const CapacityPlan ttft = t.plan({.requests_per_s = 1, .ttft = Seconds(0.010), .tpot = Seconds(0.05), .sizing = kBound});
  CHECK_FALSE(ttft.feasible);
  const auto* late = std::get_if<TtftUnreachable>(&*ttft.why_not);
  REQUIRE(late != nullptr);
  CHECK(late->target.value() == 0.010);
  CHECK_THAT(late->at_batch_1.value(), WithinRel(kPrefill + 7e-3, 1e-9));
  const ModelSpec big = test::llama_2_70b();
  const GpuSpec l4 = test::l4();
  const CapacityPlan nofit = plan_capacity(big, l4, test::default_workload(big), {});
  CHECK_FALSE(nofit.feasible);
  const auto* big_weights = std::get_if<WeightsDoNotFit>(&*nofit.why_not);
  REQUIRE(big_weights != nullptr);
  CHECK(big_weights->capacity.value() == 23034.0 * 1024 * 1024);  // 23034 MiB, as nvidia-smi reports an L4
  CHECK(big_weights->needed > big_weights->capacity);
}

TEST_CASE("plan: requests longer than the model's context are refused, as the serving simulation drops them") {
  // Llama-2-7B holds 4096 tokens: 3840 + 256 = 4096 is served, 3841 + 256 is not (vLLM's max_model_len).
  const ModelSpec m = test::llama_2_7b();
  REQUIRE(m.max_context == 4096);
  Workload w = test::default_workload(m);
  w.prompt_tokens = 3840;
  w.context_tokens = 3840 + 128;
  const LoadTarget relaxed{.requests_per_s = 1, .ttft = Seconds(100), .tpot = Seconds(1)};
  CHECK(plan_capacity(m, test::a100_80gb(), w, relaxed).feasible);
  w.prompt_tokens = 3841;
  const CapacityPlan longer = plan_capacity(m, test::a100_80gb(), w, relaxed);
  CHECK_FALSE(longer.feasible);
  const auto* beyond = std::get_if<BeyondContext>(&*longer.why_not);
  REQUIRE(beyond != nullptr);
  CHECK(beyond->tokens == 4097);
  CHECK(beyond->max_context == 4096);
}

TEST_CASE("plan: a row refused for its length still gives the max batch continuous batching holds") {
  // Llama-2-7B on A100-80GB at 8192 + 10 tokens, past its 4096: refused, and its max_batch the
  // steady one as on every other row (below): 8202 × 0.5 MiB = 4,300,210,176 bytes of cache a
  // sequence beside one step of the 8192-token prompt and a token a sequence, 60,416 bytes each,
  // and the logits' 128,000: (63,832,580,096 free − 8192 × 60,416 − 128,000) / (4,300,210,176 +
  // 60,416) = 14.73, so 14. The point's ledger, B whole prompts prefilled at once, holds 13.
  const ModelSpec m = test::llama_2_7b();
  const GpuSpec g = test::a100_80gb();
  Workload w = test::default_workload(m);
  w.prompt_tokens = 8192;
  w.gen_tokens = 10;
  const LoadTarget relaxed{.requests_per_s = 1, .ttft = Seconds(1), .tpot = Seconds(0.05)};
  const CapacityPlan p = plan_capacity(m, g, w, relaxed);
  CHECK_FALSE(p.feasible);
  REQUIRE(std::get_if<BeyondContext>(&*p.why_not) != nullptr);
  const double free = 81920.0 * 1024 * 1024 * 0.9 - 2.0 * 6738415616;
  CHECK(std::floor((free - 8192 * 60416.0 - 128000) / (8202 * 524288.0 + 60416)) == 14);
  CHECK(p.max_batch == 14L);
  CHECK(evaluate(m, g, w).memory.max_batch == 13L);
}

TEST_CASE("plan: memory bounds the batch when the KV cache is modelled") {
  const ModelSpec m = test::llama_2_7b();
  const GpuSpec g = test::a100_80gb();
  const CapacityPlan p = plan_capacity(m, g, test::default_workload(m), {.tpot = Seconds(1)});
  REQUIRE(p.feasible);
  // In steady state B caches of 768 × 0.5 MiB = 402,653,184 bytes sit beside one step's
  // activations: the token budget of a 512-token prompt and a token a sequence, each 2 bytes × (2
  // × 4096 + 2 × 11008 gate and up) = 60,416 bytes, plus the last token's fp32 logits (128,000).
  // 85.90 GB − 8.59 reserve − 13.48 weights = 63.83 GB: B ≤ (63.83e9 − 512 × 60,416 − 128,000) /
  // (402,653,184 + 60,416) = 158.4. The point's ledger, which holds B whole prompts' activations
  // (a batch prefilled at once), stops at 147.
  CHECK(p.batch == 158);
  CHECK(p.max_batch == 158L);
  const double free = 81920.0 * 1024 * 1024 * 0.9 - 2.0 * 6738415616;
  CHECK(std::floor((free - 512 * 60416.0 - 128000) / (402653184.0 + 60416)) == 158);
  const Report point = evaluate(m, g, test::default_workload(m));
  CHECK(point.memory.max_batch == 147L);
  CHECK(p.step_activations.value() == (512 + 158) * 60416.0 + 128000);
}

TEST_CASE("plan: on the expected times by default - 194 sequences, 7 GPUs where the bound says 371 and 4") {
  // The published fit (hardware/expected_model.hpp): the teaching model is known by its size only,
  // one operator outside the kernel classes: a step at batch B is B · 2·7e9 / (312e12 · 0.75)
  // + 14e9 / (2e12 · 0.819) + one launch of 2.63 us + the engine's 26.7 us a pass = 8.5763 ms
  // + B · 59.83 us; a 512-token prefill 39.21 ms. Colocated: 8.5763 ms + B · (59.83 + 39.21 ms /
  // 256) us ≤ 50 ms → B = 194 (194.49).
  const CapacityPlan p = Teaching().plan({.requests_per_s = 100, .ttft = Seconds(1), .tpot = Seconds(0.05)});
  REQUIRE(p.feasible);
  CHECK_FALSE(p.sizing.bound);
  const double step = 14e9 / (2e12 * 0.819) + 2.63e-6 + 26.7e-6, per_sequence = 2 * 7e9 / (312e12 * 0.75);
  const double prefill = 512 * per_sequence + step;
  CHECK_THAT(p.prefill.value(), WithinRel(prefill, 1e-12));
  CHECK(p.batch == 194);
  CHECK_THAT(p.tpot.value(), WithinRel(step + 194 * (per_sequence + prefill / 256), 1e-12));
  // 194 / 49.89 ms = 3888 tokens/s = 15.19 requests/s a GPU → ceil(100 / 15.19) = 7.
  CHECK(p.replicas == 7);
  // The 90th percentile: × e^(1.2816 · 0.145) = 1.2042 on the compute-bound prefill and on decode
  // steps whose compute share passes 20%: (8.5763 + B · 0.05983) · 1.2042 + B · 47.216 / 256
  // = 10.3277 + B · 0.25648 ms ≤ 50 ms → 154 sequences (49.83 ms; 155: 50.08 ms).
  const CapacityPlan p90 = Teaching().plan({.requests_per_s = 100, .ttft = Seconds(1), .tpot = Seconds(0.05),
                                            .sizing = {.confidence = 0.9}});
  CHECK(p90.batch == 154);
  CHECK_THAT(p90.prefill.value(), WithinRel(prefill * std::exp(1.2815515655446004 * 0.145), 1e-9));
}

TEST_CASE("plan: a disaggregated data-parallel prefill pool - each prompt's first token waits for a pass of tp prompts") {
  // Mixtral-8x7B on two H100s, experts over ep 2, attention data-parallel: the prefill pool is
  // sized on passes of one prompt a rank, each costing the pool half a pass; at that load every
  // rank is busy, so a prompt's first token comes when its pass ends, not when one prompt alone
  // would have (the plan said so until session 45: DeepSeek-V3 on 8 H200s 0.33 s, its pass 0.46 s).
  const ModelSpec m = test::mixtral_8x7b();
  const GpuSpec g = test::h100_sxm();
  Workload w = test::default_workload(m);
  w.tp = 2;
  w.ep = 2;
  w.dp_attention = true;
  Workload one = w, pass = w;
  one.batch = 1;
  pass.batch = 2;
  const Seconds alone = evaluate(m, g, one).prefill.time, both = evaluate(m, g, pass).prefill.time;
  REQUIRE(both > alone * 1.01);  // the shared experts make a pass of two slower than one prompt
  const CapacityPlan p = plan_capacity(
      m, g, w, {.requests_per_s = 10, .ttft = Seconds(10), .tpot = Seconds(0.1), .disaggregate = true, .sizing = kBound});
  REQUIRE(p.feasible);
  CHECK_THAT(p.prefill.value(), WithinRel(alone.value(), 1e-12));
  CHECK_THAT(p.prefill_per_request.value(), WithinRel(both.value() / 2, 1e-12));
  CHECK_THAT(p.ttft.value(), WithinRel(both.value(), 1e-12));
  // A TTFT target between the two is out of reach.
  const CapacityPlan tight = plan_capacity(m, g, w,
                                           {.requests_per_s = 10, .ttft = (alone + both) / 2, .tpot = Seconds(0.1),
                                            .disaggregate = true, .sizing = kBound});
  CHECK_FALSE(tight.feasible);
}
