// A mixed step priced from the engine's operators agrees with the engine on the batches it prices
// itself, and a prefill chunk's attention is worked by hand.
#include <catch2/catch.hpp>

#include "model/engine.hpp"
#include "serve/step_cost.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::serve;
using Catch::Matchers::WithinRel;

namespace {

Workload at(const ModelSpec& m, long batch, long prompt, long context) {
  Workload w = test::default_workload(m, batch);
  w.prompt_tokens = prompt;
  w.context_tokens = context;
  return w;
}

}  // namespace

TEST_CASE("a uniform decode step of 32 sequences at context 640 costs what the engine's decode step costs") {
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::h100_sxm();
  const Report r = evaluate(m, g, at(m, 32, 512, 640));
  StepCost cost(m, g, at(m, 1, 512, 640));
  AttentionWork a;
  for (int i = 0; i < 32; ++i) a += cost.decode_attention(640);
  const StepTime t = cost.time(32, 32, a);
  CHECK_THAT(t.bound.value(), WithinRel(r.decode.step.time.value(), 1e-12));
  CHECK_THAT(t.expected.value(), WithinRel(r.decode.step.expected.time.value(), 1e-12));
}

TEST_CASE("at tp 2 and on Mixtral-8x7B (experts routed by the step's tokens) the step still costs the engine's decode step") {
  const GpuSpec g = test::h100_sxm();
  for (const ModelSpec& m : {test::llama_3_1_8b(), test::mixtral_8x7b()}) {
    Workload w = at(m, 48, 512, 900);
    w.tp = 2;
    const Report r = evaluate(m, g, w);
    w.batch = 1;
    StepCost cost(m, g, w);
    AttentionWork a;
    for (int i = 0; i < 48; ++i) a += cost.decode_attention(900);
    const StepTime t = cost.time(48, 48, a);
    CHECK_THAT(t.bound.value(), WithinRel(r.decode.step.time.value(), 1e-12));
    CHECK_THAT(t.expected.value(), WithinRel(r.decode.step.expected.time.value(), 1e-12));
  }
}

TEST_CASE("a whole prefill of 512 tokens costs what the engine's prefill costs, and the expected time is above it") {
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::h100_sxm();
  const Report r = evaluate(m, g, at(m, 1, 512, 640));
  StepCost cost(m, g, at(m, 1, 512, 640));
  const StepTime t = cost.time(512, 1, cost.prefill_attention(0, 512));
  CHECK_THAT(t.bound.value(), WithinRel(r.prefill.time.value(), 1e-12));
  CHECK_THAT(t.expected.value(), WithinRel(r.prefill.expected.time.value(), 1e-12));
  CHECK(t.expected > t.bound);
}

TEST_CASE("Llama-3.1-8B: a second chunk of 256 tokens after 256 does 52110688256 attention FLOPs and reads 33554432 cached K/V bytes more") {
  // Its queries see 256·256 cached pairs and 256·257/2 among themselves: 98432 a head and layer;
  // scores 2·128 + 5 FLOPs a pair (softmax fused), values 2·128: 517 · 98432 · 32 heads · 32 layers.
  // The cached 256 tokens' K and V: 256 · 32 layers · (1024 + 1024) · 2 bytes (bf16).
  const ModelSpec m = test::llama_3_1_8b();
  StepCost cost(m, test::h100_sxm(), at(m, 1, 512, 640));
  const AttentionWork second = cost.prefill_attention(256, 256);
  const AttentionWork fresh = cost.prefill_attention(0, 256);
  CHECK(second.flops == 52110688256.0);
  CHECK(second.bytes - fresh.bytes == 33554432.0);
  // Two chunks do the pairs of the whole prompt.
  CHECK(second.flops + fresh.flops == cost.prefill_attention(0, 512).flops);
}

TEST_CASE("a mixed step costs less than its prefill and its decodes run as two steps") {
  // The weights are read once for both: that is why servers mix them.
  const ModelSpec m = test::llama_3_1_8b();
  StepCost cost(m, test::h100_sxm(), at(m, 1, 512, 640));
  AttentionWork decodes;
  for (int i = 0; i < 16; ++i) decodes += cost.decode_attention(1000);
  const AttentionWork prefill = cost.prefill_attention(0, 300);
  AttentionWork both = decodes;
  both += prefill;
  const StepTime mixed = cost.time(316, 17, both);
  const StepTime apart_p = cost.time(300, 1, prefill), apart_d = cost.time(16, 16, decodes);
  CHECK(mixed.bound < apart_p.bound + apart_d.bound);
  CHECK(mixed.expected < apart_p.expected + apart_d.expected);
  CHECK(mixed.bound > apart_p.bound);
}

TEST_CASE("a model known only by its size, or with latent attention, is refused by name") {
  CHECK(unsupported(test::teaching_7b()).has_value());
  CHECK_FALSE(unsupported(test::llama_3_1_8b()).has_value());
  CHECK_THROWS_AS(StepCost(test::teaching_7b(), test::h100_sxm(), test::default_workload(test::teaching_7b())),
                  std::invalid_argument);
}
