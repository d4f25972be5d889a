// A mixed step priced from the engine's operators agrees with the engine on the batches it prices
// itself, and a prefill chunk's attention is worked by hand.
#include <catch2/catch.hpp>

#include "model/engine.hpp"
#include "serve/step_cost.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::serve;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// The engine's decode step with its attention operators (model/operators.cpp: scores, softmax,
// values; not the norm before them) merged into one roofline, as a step's bound merges them
// (FlashMLA's fused kernel reads the latent once for scores, memory-bound, and values,
// compute-bound: no bytes of their own). `apart`: what they took as separate operators.
struct Merged {
  double step = 0, apart = 0, merged = 0;
};
Merged attention_merged(const Report& r, const GpuSpec& g) {
  double apart = 0, flops = 0, bytes = 0;
  for (const OpResult& o : r.decode.step.ops) {
    const std::string_view n = o.cost.name;
    if (n != "attn_scores" && n != "attn_softmax" && n != "attn_values") continue;
    apart += o.time.value();
    flops += o.cost.flops.value();
    bytes += o.cost.bytes.value();
  }
  const double merged =
      std::max(flops / g.effective_peak(r.workload.precision.compute)->value(), bytes / g.memory_bandwidth.value());
  return {r.decode.step.time.value() - apart + merged, apart, merged};
}

Workload at(const ModelSpec& m, long batch, long prompt, long context) {
  Workload w = test::default_workload(m, batch);
  w.prompt_tokens = prompt;
  w.context_tokens = context;
  return w;
}

// DeepSeek-V3 over 8 GPUs at EP 8, with or without data-parallel attention.
Workload ep8(long batch, long prompt, long context, bool dp_attention) {
  Workload w = test::expert_parallel_8(test::deepseek_v3(), dp_attention, batch);
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
  const StepTime t = cost.time({0, 32, 32, cost.decode_attention(640).times(32)});
  CHECK_THAT(t.bound.value(), WithinRel(r.decode.step.time.value(), 1e-12));
  // The step's decode queries are priced as the engine prices the batch (640 is a point of the
  // contexts' grid): exactly its time.
  CHECK_THAT(t.expected.value(), WithinRel(r.decode.step.expected.time.value(), 1e-12));
}

TEST_CASE("at 32 sequences of 8192 tokens, where one sequence alone would split into 24 blocks, the step still costs the engine's decode step") {
  // The decode class is not additive over sequences (hardware/kernel_classes.hpp): a lone sequence
  // of 8192 tokens on 8 KV heads splits into min(8192 / 341, 642 / 8) = 24 blocks a head, the
  // batch's 256 items into max(1, 642 / 256) = 2.5. Priced one sequence at a time and summed, the
  // step came out 17.7% above the engine's on Llama-3.1-8B and 38.9% on gpt-oss-20b (a reviewer's
  // simulate against sweep). gpt-oss's half sliding layers (window 128) too.
  const GpuSpec g = test::h100_sxm();
  ModelSpec oss = test::gpt_oss_like();
  oss.architecture->mixer_pattern = {Mixer::sliding, Mixer::full};
  oss.architecture->sliding_window = 128;
  for (const ModelSpec& m : {test::llama_3_1_8b(), oss}) {
    const Report r = evaluate(m, g, at(m, 32, 512, 8192));
    StepCost cost(m, g, at(m, 1, 512, 8192));
    const StepTime t = cost.time({0, 32, 32, cost.decode_attention(8192).times(32)});
    CHECK_THAT(t.bound.value(), WithinRel(r.decode.step.time.value(), 1e-12));
    CHECK_THAT(t.expected.value(), WithinRel(r.decode.step.expected.time.value(), 1e-12));
    // Between the grid's points (8192 and 8320: 128 apart in this octave) the time is
    // interpolated: at 8288, three quarters of the way, within 0.1% of the engine's there.
    StepMix mixed{0, 32, 32, cost.decode_attention(8192 + 64).times(16)};
    mixed.attention += cost.decode_attention(8192 + 128).times(16);
    mixed.attention.flops = cost.decode_attention(8192 + 96).flops * 32;
    mixed.attention.bytes = cost.decode_attention(8192 + 96).bytes * 32;
    const Report between = evaluate(m, g, at(m, 32, 512, 8192 + 96));
    CHECK_THAT(cost.time(mixed).expected.value(), WithinRel(between.decode.step.expected.time.value(), 1e-3));
  }
}

TEST_CASE("at tp 2 and on Mixtral-8x7B (experts routed by the step's tokens) the step still costs the engine's decode step") {
  const GpuSpec g = test::h100_sxm();
  for (const ModelSpec& m : {test::llama_3_1_8b(), test::mixtral_8x7b()}) {
    Workload w = at(m, 48, 512, 900);
    w.tp = 2;
    const Report r = evaluate(m, g, w);
    w.batch = 1;
    StepCost cost(m, g, w);
    const StepTime t = cost.time({0, 48, 48, cost.decode_attention(900).times(48)});
    CHECK_THAT(t.bound.value(), WithinRel(r.decode.step.time.value(), 1e-12));
    // 900 lies between the grid's points 896 and 904: interpolated.
    CHECK_THAT(t.expected.value(), WithinRel(r.decode.step.expected.time.value(), 1e-3));
  }
}

TEST_CASE("a whole prefill of 512 tokens costs what the engine's prefill costs, and the expected time is above it") {
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::h100_sxm();
  const Report r = evaluate(m, g, at(m, 1, 512, 640));
  StepCost cost(m, g, at(m, 1, 512, 640));
  const StepTime t = cost.time({512, 0, 1, cost.prefill_attention(0, 512)});
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
  const StepTime mixed = cost.time({300, 16, 17, both});
  const StepTime apart_p = cost.time({300, 0, 1, prefill}), apart_d = cost.time({0, 16, 16, decodes});
  CHECK(mixed.bound < apart_p.bound + apart_d.bound);
  CHECK(mixed.expected < apart_p.expected + apart_d.expected);
  CHECK(mixed.bound > apart_p.bound);
}

TEST_CASE("a model known only by its size is refused by name, and latent attention is priced") {
  CHECK(unsupported(test::teaching_7b()).has_value());
  CHECK_FALSE(unsupported(test::llama_3_1_8b()).has_value());
  CHECK_FALSE(unsupported(test::deepseek_v3()).has_value());
  CHECK_THROWS_AS(StepCost(test::teaching_7b(), test::h100_sxm(), test::default_workload(test::teaching_7b())),
                  std::invalid_argument);
}

TEST_CASE("DeepSeek-V3 at EP 8: a uniform decode step of 64 at context 5000, and a prefill of 2048, cost what the engine's do") {
  // Latent attention decodes through the absorbed projections and prefills through kv_b_proj:
  // each uniform step runs only its own phase's steps.
  const ModelSpec m = test::deepseek_v3();
  const GpuSpec g = test::h200_141gb();
  Workload w = ep8(64, 2048, 5000, false);
  const Report r = evaluate(m, g, w);
  StepCost cost(m, g, w);
  CHECK(cost.split_phases());
  const StepTime d = cost.time({0, 64, 64, cost.decode_attention(5000).times(64)});
  const Merged bound = attention_merged(r, g);
  CHECK(bound.merged < 0.99 * bound.apart);
  CHECK_THAT(d.bound.value(), WithinRel(bound.step, 1e-12));
  CHECK_THAT(d.expected.value(), WithinRel(r.decode.step.expected.time.value(), 1e-12));
  w.batch = 1;
  const Report one = evaluate(m, g, w);
  const StepTime p = cost.time({2048, 0, 1, cost.prefill_attention(0, 2048)});
  CHECK_THAT(p.bound.value(), WithinRel(one.prefill.time.value(), 1e-12));
  CHECK_THAT(p.expected.value(), WithinRel(one.prefill.expected.time.value(), 1e-12));
}

TEST_CASE("DeepSeek-V3: a step mixing a prefill with decodes reads kv_b_proj's 1 GB once, not in both its forms") {
  // kv_b_proj at tp 1: 61 layers x 512 x 128 heads x (128 + 128) in fp8 with one fp32 scale a
  // 128 x 128 block: 1023660032 bytes, 213 us at 4.8 TB/s. Decode's absorbed q_absorb and
  // v_absorb are the same matrices, and a step with decodes has read them. Turning 16 of 32
  // decode rows into prompt tokens keeps the shared rows, the head and the attention; it adds
  // kv_b_proj on 16 rows without its weights, compute-bound at the fp8 peak (the checkpoint's
  // activations are fp8), 1979 TFLOP/s:
  //   2 x 16 x 512 x 32768 x 61 = 32749125632 FLOPs (its 64962560 activation bytes take 13.5 us),
  // and takes off 16 tokens of the absorbed products' activations, memory-bound (their weights
  // are read at 16 rows as at 32): 2 ops x 16 x 128 heads x (128 + 512) x 2 bytes x 61 = 319815680.
  const ModelSpec m = test::deepseek_v3();
  const GpuSpec g = test::h200_141gb();
  StepCost cost(m, g, at(m, 1, 512, 640));
  const AttentionWork a = cost.decode_attention(1000).times(32);
  const StepTime decodes = cost.time({0, 32, 32, a}), mixed = cost.time({16, 16, 32, a});
  const double by_hand = 32749125632.0 / 1979e12 - 319815680.0 / 4.8e12;  // -50.1 us
  CHECK_THAT((mixed.bound - decodes.bound).value(), WithinAbs(by_hand, 1e-12));
  // A prefill alone reads the matrices: 16 prompt tokens cost them, memory-bound at 1.089 GB.
  const StepTime alone = cost.time({16, 0, 1, cost.prefill_attention(0, 16)});
  CHECK(alone.bound > Bytes(1023660032.0) / g.memory_bandwidth);
}

TEST_CASE("DeepSeek-V3: a verify of 2 tokens after 4000 runs decode's absorbed attention, the latent read once") {
  const ModelSpec m = test::deepseek_v3();
  StepCost cost(m, test::h200_141gb(), at(m, 1, 512, 640));
  const AttentionWork v = cost.verify_attention(4000, 2);
  CHECK(v.flops == cost.decode_attention(4001).flops + cost.decode_attention(4002).flops);
  CHECK(v.bytes == cost.decode_attention(4002).bytes);
  // A model whose phases run the same steps verifies as a prefill chunk.
  StepCost llama(test::llama_3_1_8b(), test::h100_sxm(), at(test::llama_3_1_8b(), 1, 512, 640));
  CHECK(llama.verify_attention(4000, 2).flops == llama.prefill_attention(4000, 2).flops);
  CHECK_FALSE(llama.split_phases());
}

TEST_CASE("DeepSeek-V3, EP 8 with data-parallel attention: 64 decodes spread over 8 ranks cost the engine's decode step") {
  // Each rank runs 8 sequences through everything but the routed experts, which run on all 64
  // tokens; the engine prices the fullest GPU the same way. The bound merges each rank's
  // attention operators into one roofline (attention_merged), as on one GPU.
  const ModelSpec m = test::deepseek_v3();
  const GpuSpec g = test::h200_141gb();
  Workload w = ep8(64, 2048, 5000, true);
  const Report r = evaluate(m, g, w);
  StepCost cost(m, g, w);
  REQUIRE(cost.ranks() == 8);
  const StepTime d = cost.uniform({0, 1, 1, cost.decode_attention(5000)}, 64);
  CHECK_THAT(d.bound.value(), WithinRel(attention_merged(r, g).step, 1e-12));
  // The decode queries' kernels are priced between the contexts' grid points 4992 and 5056.
  CHECK_THAT(d.expected.value(), WithinRel(r.decode.step.expected.time.value(), 1e-5));
  // 65 sequences: the ninth on one rank makes that rank the slowest, as the engine's fullest GPU.
  w.batch = 65;
  CHECK_THAT(cost.uniform({0, 1, 1, cost.decode_attention(5000)}, 65).expected.value(),
             WithinRel(evaluate(m, g, w).decode.step.expected.time.value(), 1e-5));
}

TEST_CASE("DeepSeek-V3 with data-parallel attention: a prompt alone runs on its rank, as the engine's prefill of one") {
  const ModelSpec m = test::deepseek_v3();
  const GpuSpec g = test::h200_141gb();
  Workload w = ep8(1, 2048, 2048, true);
  const Report r = evaluate(m, g, w);
  StepCost cost(m, g, w);
  std::vector<StepMix> ranks(8);
  ranks[3] = {2048, 0, 1, cost.prefill_attention(0, 2048)};
  const StepTime t = cost.time(ranks);
  CHECK_THAT(t.expected.value(), WithinRel(r.prefill.expected.time.value(), 1e-12));
  // At most the engine's (its attention merged into one roofline), to the last bit of a sum.
  CHECK(t.bound.value() <= r.prefill.time.value() * (1 + 1e-12));
  CHECK(t.bound > 0.99 * r.prefill.time);
  // Spread over the ranks, the same tokens take less: seven ranks no longer wait on one.
  for (StepMix& k : ranks) k = {256, 0, 0, cost.prefill_attention(0, 256)};
  CHECK(cost.time(ranks).expected < t.expected);
  // A step is one mix a rank.
  CHECK_THROWS_AS(cost.time(StepMix{1, 0, 1, {}}), std::logic_error);
}

TEST_CASE("DeepSeek-V3 at TP 8: a chunk after 57344 cached tokens decompresses their latents in the expected time only") {
  // Each GPU's kv_b_proj is 512 x 16 heads x (128 + 128) = 4096 wide, over 61 layers, run on the
  // cached rows without its weights (the chunk's own rows read them). Its fp8 weights unpacked in
  // a 16-bit GEMM put it outside the kernel classes: the end-to-end coefficients price it
  // (compute 0.75 of 989 TFLOP/s, memory 0.819 of 4.8 TB/s, 2.63 us a kernel, added):
  //   2 x 57344 x 512 x 4096 x 61 = 14671608283136 FLOPs: 19.779 ms
  //   57344 x (512 + 4096) x 2 bytes x 61 = 32237420544 bytes of activations: 8.200 ms
  //   61 launches: 0.160 ms; 28.141 ms in all. The bound adds nothing.
  // In bf16 arithmetic (--compute bf16): fp8 arithmetic runs kv_b_proj as a block-scaled fp8 GEMM,
  // a kernel class of its own.
  const ModelSpec m = test::deepseek_v3();
  Workload w = at(m, 1, 512, 640);
  w.precision = resolve_precision(m, {.compute = DType::bf16});
  w.tp = 8;
  StepCost cost(m, test::h200_141gb(), w);
  const AttentionWork a = cost.prefill_attention(57344, 8192);
  const StepTime read = cost.time({8192, 0, 1, a}), again = cost.time({8192, 0, 1, a, 57344});
  CHECK(again.bound == read.bound);
  const double by_hand = 14671608283136.0 / (989e12 * 0.75) + 32237420544.0 / (4.8e12 * 0.819) + 61 * 2.63e-6;
  CHECK(by_hand == Approx(28.141e-3).epsilon(1e-4));
  CHECK_THAT((again.expected - read.expected).value(), WithinRel(by_hand, 1e-9));
}

TEST_CASE("chunked layers: a step just past a chunk's end costs the engine's decode step there, not a blend across it") {
  // Llama-3.1-8B's widths with Llama 4's chunked attention (three layers of four see only their
  // own 8192-token chunk). At context 8200 a chunked layer reads 8 keys; at 8192 it read 8192. The
  // grid's points around 8200 are 8192 and 8320 (8192 and 128 keys): interpolating across the
  // chunk's end priced 32 sequences as if they read thousands of keys, 74% above the engine's step
  // (18.58 ms against 10.67). The ends are held inside the chunk.
  ModelSpec m = test::llama_3_1_8b();
  m.architecture->mixer_pattern = {Mixer::chunked, Mixer::chunked, Mixer::chunked, Mixer::full};
  m.architecture->attention_chunk = 8192;
  const GpuSpec g = test::h100_sxm();
  StepCost cost(m, g, at(m, 1, 512, 8200));
  for (const long context : {8200L, 8192L, 8191L, 16390L}) {
    INFO(context);
    const Report r = evaluate(m, g, at(m, 32, 512, context));
    const StepTime t = cost.time({0, 32, 32, cost.decode_attention(context).times(32)});
    CHECK_THAT(t.bound.value(), WithinRel(r.decode.step.time.value(), 1e-12));
    CHECK_THAT(t.expected.value(), WithinRel(r.decode.step.expected.time.value(), 1e-3));
  }
}

TEST_CASE("a verify's read of the cache is a decode of the step's batch: 32 verifies at 8192 cost what 32 decodes do, and their fresh queries") {
  // Before, a verify's cache read was one lone sequence's pricing, summed: at 32 x 8192 each
  // sequence took the 24 blocks a head a lone sequence splits into, and the verify step's
  // attention came out 35% above the decode step's (16.56 ms against 12.28), whose batch fills the
  // GPU with 2.5 blocks an item. Now both read the cache as one batch; the verify adds its 3 fresh
  // queries' own share.
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::h100_sxm();
  StepCost cost(m, g, at(m, 1, 512, 8192));
  const StepTime plain = cost.time({0, 0, 0, cost.decode_attention(8192).times(32)});
  const StepTime verify = cost.time({0, 0, 0, cost.verify_attention(8192, 3).times(32)});
  // The fresh queries add little beside the read (3 x 8192 pairs a sequence against the 8192 keys
  // streamed): within 10% of the decode batch.
  CHECK(verify.expected > plain.expected);
  CHECK(verify.expected.value() < 1.1 * plain.expected.value());
  CHECK(verify.bound >= plain.bound);
}
