// Expert, data-parallel-attention and pipeline layouts, worked by hand on DeepSeek-V3 over 8 H200s.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>

#include "model/engine.hpp"
#include "model/layouts.hpp"
#include "model/pipeline.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::test;

namespace {

Workload layout(const ModelSpec& m, int tp, int ep, bool dp, long batch) {
  Workload w = default_workload(m, batch);
  w.prompt_tokens = 4096;
  w.gen_tokens = 1024;
  w.context_tokens = 4096;
  w.tp = tp;
  w.ep = ep;
  w.dp_attention = dp;
  return w;
}

const OpResult& op(const PhaseResult& p, std::string_view name) {
  const auto it = std::find_if(p.ops.begin(), p.ops.end(), [&](const OpResult& o) { return o.cost.name == name; });
  REQUIRE(it != p.ops.end());
  return *it;
}

}  // namespace

TEST_CASE("parallelism: DeepSeek-V3 fp8 on 8 H200 at EP 8 with data-parallel attention - each GPU's ledger") {
  const Report r = evaluate(deepseek_v3(), h200_141gb(), layout(deepseek_v3(), 8, 8, true, 256));
  // One GPU holds, in fp8 with an fp32 scale per 128 × 128 block (n + 4·⌈in/128⌉·⌈out/128⌉ bytes):
  //   attention, whole, 61 layers × 187,151,072 B (q_a 7168×1536, q_b 1536×24576, kv_a 7168×576,
  //     kv_b 512×32768, o 16384×7168)                                        = 11,416,215,392
  //   3 dense FFNs × 396,458,496 B (7168 × 18432, three matrices)             =  1,189,375,488
  //   58 MoE layers × (32 routed + 1 shared experts × 44,050,944 B)           = 84,313,506,816
  //   bf16: embedding and head 2 × 129,280 × 7168 × 2 B = 3,706,716,160; routers 58 × 7168 × 256
  //     × 2 B = 212,860,928; norms 61 × (7168 + 1536 + 512 + 7168) × 2 + 7168 × 2 = 2,013,184
  //                                                                    total 100,840,687,968 B
  // and eight GPUs 806.7 GB: 133 GB more than the 673.2 GB model, since attention, the dense
  // layers, the shared experts and the tables are on every GPU.
  CHECK(r.memory.gpus == 8);
  CHECK(r.memory.weights.value() == Approx(8 * 100'840'687'968.0).epsilon(1e-12));
  CHECK(r.model.weight_bytes.value() == Approx(673'150'552'416.0).epsilon(1e-12));
  // Each GPU caches its own 32 sequences: 5120 tokens × 61 layers × 576 latent × 2 B = 359.8 MB
  // each, 11.51 GB a GPU, 92.1 GB the eight.
  CHECK(r.memory.kv_cache.value() == Approx(256 * 5120 * 70'272.0).epsilon(1e-12));
  // Its reserve 14.1 GB, its prefill activations (4096 × 2 B × (2 · 7168 + 65,536 for Q, K and V
  // of 128 heads × 192, 192 and 128) + the fp32 logits 129,280 × 4 B) = 654.83 MB a sequence.
  const double activations = 4096 * 2.0 * (2 * 7168 + 65536) + 129280 * 4.0;
  CHECK(r.memory.activations.value() == Approx(256 * activations).epsilon(1e-12));
  CHECK(r.memory.fullest_gpu.value() ==
        Approx(100'840'687'968.0 + 32 * (5120 * 70'272.0 + activations) + 14.1e9).epsilon(1e-12));
  // 147.4 GB: 256 prompts of 4096 tokens prefilled at once do not fit beside the weights.
  CHECK_FALSE(r.memory.fits);
  // Free: 141 − 14.1 − 100.84 = 26.06 GB, for 25 whole sequences of (359.8 + 654.8) MB on each GPU:
  // 200 over the 8 (205 would put 26 on one of them).
  CHECK(r.memory.max_batch == 200);
}

TEST_CASE("parallelism: tensor parallelism replicates the latent cache on every GPU, data-parallel attention does not") {
  const Report tp = evaluate(deepseek_v3(), h200_141gb(), layout(deepseek_v3(), 8, 1, false, 64));
  const Report dp = evaluate(deepseek_v3(), h200_141gb(), layout(deepseek_v3(), 8, 8, true, 64));
  // Latent attention caches one 576-wide latent a token, which no GPU can split by heads.
  CHECK(tp.memory.kv_cache.value() == Approx(8 * dp.memory.kv_cache.value()).epsilon(1e-12));
  // Tensor parallelism holds each weight once (but the replicated latent projections and norms).
  CHECK(tp.memory.weights < dp.memory.weights);
}

TEST_CASE("parallelism: EP all-to-all of DeepSeek-V3 decode at batch 256 over NVLink") {
  const Report r = evaluate(deepseek_v3(), h200_141gb(), layout(deepseek_v3(), 8, 8, true, 256));
  // Each GPU sends each of its 32 sequences' tokens once to every GPU holding one of its 8 experts
  // (of 256, 32 a GPU): 8 · (1 − C(224, 8)/C(256, 8)) = 8 · (1 − 0.338168) = 5.2947 GPUs, itself
  // included; in fp8 (the experts' format, DeepEP's dispatch): 32 × 5.2947 × 7168 × 1 B =
  // 1,214,466 B a layer, 7/8 of it to other GPUs: 7/8 × 1,214,466 / 450e9 = 2.361 µs a call (the
  // bound charges no latency), 136.96 µs over 58 MoE layers. The combine brings bf16 back: twice
  // the bytes, 273.93 µs.
  const double reached = 8 * (1 - 0.33816849995218995);
  const OpResult& dispatch = op(r.decode.step, "moe_dispatch");
  CHECK(dispatch.cost.comm_bytes.value() == Approx(58 * 32 * reached * 7168).epsilon(1e-9));
  CHECK(dispatch.time.value() * 1e6 == Approx(136.96).epsilon(1e-4));
  CHECK(op(r.decode.step, "moe_combine").time.value() * 1e6 == Approx(273.93).epsilon(1e-4));
  // No all-reduce: attention runs whole on each GPU's own sequences.
  CHECK(std::none_of(r.decode.step.ops.begin(), r.decode.step.ops.end(),
                     [](const OpResult& o) { return o.cost.collective == Collective::all_reduce && o.bound == Bound::interconnect; }));
  // The busiest GPU's experts see 256 × 8 / 8 = 256 rows a layer; imbalance 1.5 makes it 384.
  CHECK(op(r.decode.step, "expert_up").cost.shape.rows == 256);
  Workload skewed = layout(deepseek_v3(), 8, 8, true, 256);
  skewed.expert_imbalance = 1.5;
  CHECK(op(evaluate(deepseek_v3(), h200_141gb(), skewed).decode.step, "expert_up").cost.shape.rows == 384);
}

TEST_CASE("parallelism: the busiest GPU of an imbalanced ep takes its tokens in the all-to-alls, at most every token once") {
  // DeepSeek-V3 at EP 8, batch 256, decode: a GPU of mean load receives its share of the 5.2947
  // GPUs a token reaches (136.96 µs of dispatch over 58 layers, above). At --expert-imbalance 1.5
  // the busiest GPU's experts take 1.5 times the picks, and it 1.5 times the tokens: 7.942 of a
  // sender's 8 rows' worth, 205.44 µs, and the combine sends as many back in bf16, 410.89 µs.
  const double reached = 8 * (1 - 0.33816849995218995);
  Workload w = layout(deepseek_v3(), 8, 8, true, 256);
  const auto decode = [&](double imbalance) {
    w.expert_imbalance = imbalance;
    return evaluate(deepseek_v3(), h200_141gb(), w).decode.step;
  };
  const PhaseResult skewed = decode(1.5);
  CHECK(op(skewed, "moe_dispatch").cost.comm_bytes.value() == Approx(58 * 32 * 1.5 * reached * 7168).epsilon(1e-9));
  CHECK(op(skewed, "moe_dispatch").time.value() * 1e6 == Approx(1.5 * 136.96).epsilon(1e-4));
  CHECK(op(skewed, "moe_combine").time.value() * 1e6 == Approx(1.5 * 273.93).epsilon(1e-4));
  // At 4 it would be 21.2 of 8: the busiest receives every token of the other 7 GPUs once (a token
  // goes once to a GPU, whichever of its experts it picks there), 7 × 32 × 7168 × 1 B = 1,605,632
  // B a layer at 450 GB/s, 3.568 µs, 206.95 µs over 58 layers; 413.90 µs back.
  const PhaseResult busiest = decode(4);
  CHECK(op(busiest, "moe_dispatch").cost.comm_bytes.value() == Approx(58 * 32 * 8 * 7168.0).epsilon(1e-12));
  CHECK(op(busiest, "moe_dispatch").time.value() * 1e6 == Approx(58 * 7 * 32 * 7168 / 450e3).epsilon(1e-9));
  CHECK(op(busiest, "moe_dispatch").time.value() * 1e6 == Approx(206.95).epsilon(1e-4));
  CHECK(op(busiest, "moe_combine").time.value() * 1e6 == Approx(413.90).epsilon(1e-4));
  // Mixtral-8x7B at EP 8, batch 64 (8 a GPU): a token's 2 picks reach 2 GPUs, each GPU a quarter of
  // the tokens; at 4 the busiest GPU's one expert is every token's pick, and it receives them all:
  // 8 × 8 × 4096 × 2 B a layer, 7/8 of it from the others, 32 layers: 32.62 µs, 4 times 8.16.
  Workload mixtral = layout(mixtral_8x7b(), 8, 8, true, 64);
  const Report balanced = evaluate(mixtral_8x7b(), h200_141gb(), mixtral);
  mixtral.expert_imbalance = 4;
  const Report hot = evaluate(mixtral_8x7b(), h200_141gb(), mixtral);
  CHECK(op(balanced.decode.step, "moe_dispatch").cost.comm_bytes.value() == Approx(32 * 8 * 2 * 4096 * 2.0).epsilon(1e-12));
  CHECK(op(hot.decode.step, "moe_dispatch").cost.comm_bytes.value() == Approx(32 * 8 * 8 * 4096 * 2.0).epsilon(1e-12));
  CHECK(op(hot.decode.step, "moe_dispatch").time.value() * 1e6 == Approx(32 * 7 * 8 * 4096 * 2 / 450e3).epsilon(1e-9));
  CHECK(op(hot.prefill, "moe_combine").time.value() ==
        Approx(4 * op(balanced.prefill, "moe_combine").time.value()).epsilon(1e-9));
}

TEST_CASE("parallelism: the imbalance is refused past the most a GPU's experts can take - Mixtral-8x7B at ep 8, 4") {
  // Each of 8 GPUs holds 1 of the 8 experts: a token sends it at most 1 of its 2 picks, against a
  // quarter row on a GPU of mean load, so the busiest runs at most 4 times the mean (min(ep,
  // experts / top_k)); --expert-imbalance 8 had been priced (246 TFLOP of expert_gate, TTFT 873 ms).
  const ModelSpec m = mixtral_8x7b();
  Workload w = layout(m, 8, 8, false, 64);
  w.expert_imbalance = 4;
  CHECK_FALSE(validate(w, m, h100_sxm()).has_value());
  w.expert_imbalance = 4.5;
  const auto e = validate(w, m, h100_sxm());
  REQUIRE(e);
  CHECK(e->field == "expert-imbalance");
  CHECK(e->message == "must be 1 … 4 at ep 8, got 4.5: each GPU holds 1 of the 8 experts, so a token sends the busiest "
                      "at most 1 of its 2 picks, 4 times the mean's 0.25");
  // At ep 2 each GPU holds 4, room for both picks: ep bounds it (2 × 2/2 = 2 rows a token).
  w = layout(m, 2, 2, false, 64);
  w.expert_imbalance = 2;
  CHECK_FALSE(validate(w, m, h100_sxm()).has_value());
  // DeepSeek-V3 at ep 8: 32 experts a GPU, room for all 8 picks, so up to ep, 8.
  w = layout(deepseek_v3(), 8, 8, true, 64);
  w.expert_imbalance = 8;
  CHECK_FALSE(validate(w, deepseek_v3(), h200_141gb()).has_value());
  // A plan's search skips such layouts, naming why.
  Workload base = default_workload(m, 64);
  base.expert_imbalance = 5;
  GpuSpec node = h100_sxm();
  node.network.reset();
  std::vector<RefusedLayout> refused;
  const std::vector<Workload> kept = candidate_layouts(m, node, base, nullptr, &refused);
  CHECK(std::none_of(kept.begin(), kept.end(), [](const Workload& k) { return k.ep == 8; }));
  CHECK(std::any_of(refused.begin(), refused.end(), [](const RefusedLayout& r) {
    return r.layout.ep == 8 && r.why.field == "expert-imbalance" && r.why.message.find("1 … 4 at ep 8") != std::string::npos;
  }));
}

TEST_CASE("parallelism: the busiest GPU of an imbalanced ep reads the experts its extra picks reach") {
  // Mixtral-8x7B at tp 2 and ep 2, batch 1: each GPU holds 4 of the 8 experts whole. A token's 2
  // picks reach 4 · (1 − (1 − 2/8)^1) = 1 of them on a GPU of mean load; the busiest, at imbalance
  // 2, runs twice the picks, which reach 4 · (1 − 0.75²) = 1.75: 32 layers × 1.75 × 4096 × 14336 ×
  // 2 B of gate weights (1.0 at imbalance 1). Its rows were doubled before its weights were.
  Workload w = layout(mixtral_8x7b(), 2, 2, false, 1);
  const auto gate = [&](double imbalance) {
    w.expert_imbalance = imbalance;
    return op(evaluate(mixtral_8x7b(), h200_141gb(), w).decode.step, "expert_gate").cost;
  };
  CHECK(gate(1).weight_bytes.value() == Approx(32 * 1.0 * 4096 * 14336 * 2.0).epsilon(1e-12));
  const OpCost skewed = gate(2);
  CHECK(skewed.weight_bytes.value() == Approx(32 * 1.75 * 4096 * 14336 * 2.0).epsilon(1e-12));
  CHECK(skewed.shape.rows == 2);
}

TEST_CASE("parallelism: a pipeline's bubble and its sends, worked from one micro-batch") {
  // One micro-batch takes 8 ms of kernels through 4 stages (2 ms a stage) and 0.3 ms of sends.
  PhaseResult micro;
  OpResult kernels{};
  kernels.time = Seconds(8e-3);
  kernels.cost.flops = Flops(4e12);
  kernels.bound = Bound::memory;
  OpResult sends{};
  sends.time = Seconds(0.3e-3);
  sends.bound = Bound::interconnect;
  sends.cost.collective = Collective::send;
  // One call, whose expected floor (a transfer and a latency) is its bound here.
  sends.cost.comm_calls = 1;
  sends.comm.transfer = sends.comm.overlapped = Seconds(0.3e-3);
  micro.ops = {kernels, sends};
  micro.time = Seconds(8.3e-3);
  micro.flops = Flops(4e12);
  micro.expected.time = Seconds(16.6e-3);
  Pipeline p;
  const MicroBatches four[] = {{&micro, 4, 1}};
  // Prefill, 4 micro-batches: (4 + 4 − 1) × 2 ms + 0.3 ms = 14.3 ms; busy 4 × 2 ms of it: bubble 44.1%.
  const PhaseResult prefill = pipelined(four, Phase::prefill, 4, p);
  CHECK(prefill.time.value() == Approx(14.3e-3).epsilon(1e-12));
  CHECK(p.bubble == Approx(1 - 8.0 / 14.3).epsilon(1e-12));
  CHECK(prefill.expected.time.value() == Approx(4 * 16.6e-3 * 14.3 / (4 * 8.3)).epsilon(1e-12));
  // Work is one GPU's: 4 micro-batches × 4 TFLOP through all stages, over 4 stages.
  CHECK(prefill.flops.value() == Approx(4e12).epsilon(1e-12));
  // Decode, 4 micro-batches in flight: a token comes round after 4 × 2 + 0.3 ms = 8.3 ms.
  CHECK(pipelined(four, Phase::decode, 4, p).time.value() == Approx(8.3e-3).epsilon(1e-12));
  // 8 in flight keep every stage busy: 8 × 2 ms = 16 ms for twice the tokens, no bubble.
  const MicroBatches eight[] = {{&micro, 8, 1}};
  CHECK(pipelined(eight, Phase::decode, 4, p).time.value() == Approx(16e-3).epsilon(1e-12));
  CHECK(p.bubble == 0);
}

TEST_CASE("parallelism: a batch the micro-batches do not divide is priced at its own size") {
  // Llama-2-70B on H100s, tp 2 × pp 4, 4 micro-batches: a batch of 5 runs one micro-batch of 2 and
  // three of 1, and its prefill does 5/4 of batch 4's work (not batch 8's).
  const ModelSpec m = llama_2_70b();
  Workload w = default_workload(m, 4);
  w.tp = 2;
  w.pp = 4;
  const Report four = evaluate(m, h100_sxm(), w);
  w.batch = 5;
  const Report five = evaluate(m, h100_sxm(), w);
  w.batch = 8;
  const Report eight = evaluate(m, h100_sxm(), w);
  CHECK(five.prefill.flops.value() == Approx(four.prefill.flops.value() * 5 / 4).epsilon(1e-9));
  CHECK(five.prefill.time < eight.prefill.time);
  CHECK(five.prefill.time > four.prefill.time);
  REQUIRE(five.prefill_pipeline);
  CHECK(five.prefill_pipeline->microbatches == 4);
  CHECK(five.prefill_pipeline->microbatch == 2);
}

TEST_CASE("parallelism: a pp that does not divide the layers is priced on its busiest stage, not the average") {
  // Llama-2-7B's layers cut to 3 and 4 at pp 2, batch 4 in 2 micro-batches, with a vocabulary of
  // 128 so that the ends weigh nothing: the 3-layer model's stages hold 2 and 1 layers, so its
  // busiest stage is the 4-layer model's (2 layers); on the even split it was a quarter faster
  // (1.5 layers).
  auto with_layers = [](int layers) {
    ModelSpec m = llama_2_7b();
    m.architecture = dense_gated(layers, 4096, 32, 32, 11008, 128);
    return m;
  };
  const ModelSpec three = with_layers(3), four = with_layers(4);
  Workload w = default_workload(three, 4);
  w.pp = 2;
  const Report r3 = evaluate(three, h100_sxm(), w);
  const Report r4 = evaluate(four, h100_sxm(), w);
  REQUIRE(r3.decode_pipeline);
  // A decode step: 2 micro-batches through the busiest stage's 2 layers, 4 layer-times, against a
  // trip of 3 (4 for the 4-layer model, whose stages hold 2 each: 4 too).
  CHECK(r3.decode.step.time.value() == Approx(r4.decode.step.time.value()).epsilon(0.01));
  // A prefill (GPipe): the busiest stage twice and the rest of one trip, 2 + 2 + 1 = 5 layer-times,
  // against 2 + 2 + 2 = 6: not pp trips of the busiest stage (2 + 2 + 2), which a batch of one
  // micro-batch never takes.
  CHECK(r3.prefill.time.value() == Approx(r4.prefill.time.value() * 5 / 6).epsilon(0.01));
  // At pp 1 the 3-layer model is 3/4 of the 4-layer one's layers.
  w.pp = 1;
  CHECK(evaluate(three, h100_sxm(), w).decode.step.time < 0.8 * evaluate(four, h100_sxm(), w).decode.step.time);
  // The expected time follows the bound's composition.
  w.pp = 2;
  CHECK(r3.decode.step.expected.time.value() == Approx(r4.decode.step.expected.time.value()).epsilon(0.02));
  CHECK(r3.decode.step.expected.time >= r3.decode.step.time);
  // One sequence in one micro-batch: its trip is the 3 layers, not 2 stages of 2.
  w.batch = 1;
  const Report one = evaluate(three, h100_sxm(), w);
  w.pp = 1;
  CHECK(one.decode.step.time.value() == Approx(evaluate(three, h100_sxm(), w).decode.step.time.value()).epsilon(0.01));
}

TEST_CASE("parallelism: the last stage holds the head beside its layers, and paces the pipeline") {
  // Llama-3.1-8B on H100s (3.35 TB/s) at pp 4, batch 4 in 4 micro-batches of one sequence at
  // context 640. The last stage reads, a micro-batch, 8 layers of 436,224,000 B (Q, O 4096²,
  // K, V 4096 × 1024, the FFN 3 × 4096 × 14336, two norms, at 2 B), the head 128,256 × 4096 × 2 =
  // 1,050,673,152 B and 8 layers' K and V of 640 tokens, 8 × 640 × 2 × 1024 × 2 = 20,971,520 B:
  // 4,561,436,672 B, 1.3616 ms; four micro-batches a step, 5.4465 ms (activations add 0.06%).
  // Spread over the stages, the head had made the pipeline faster than one GPU (4.51 ms, against
  // 4.59 at pp 1).
  const ModelSpec m = llama_3_1_8b();
  Workload w = default_workload(m, 4);
  w.pp = 4;
  const Report r = evaluate(m, h100_sxm(), w);
  const double stage = (8 * 436'224'000.0 + 1'050'673'152.0 + 20'971'520.0) / 3.35e12;
  CHECK_THAT(r.decode.step.time.value(), Catch::Matchers::WithinRel(4 * stage, 0.002));
  REQUIRE(r.decode_pipeline);
  CHECK_THAT(r.decode_pipeline->stage_time.value(), Catch::Matchers::WithinRel(stage, 0.002));
  w.pp = 1;
  CHECK(r.decode.step.time > evaluate(m, h100_sxm(), w).decode.step.time);
}

TEST_CASE("parallelism: the stages hold the layers as vLLM deals them, the remainder before the last") {
  // vllm/distributed/utils.py get_pp_indices: ⌊L/pp⌋ each, one more each for the stages before
  // the last, from the second-to-last back.
  CHECK(stage_split(32, 4) == std::vector<int>{8, 8, 8, 8});
  CHECK(stage_split(61, 4) == std::vector<int>{15, 15, 16, 15});
  CHECK(stage_split(61, 2) == std::vector<int>{31, 30});
  CHECK(stage_split(22, 4) == std::vector<int>{5, 6, 6, 5});
  CHECK(stage_split(4, 3) == std::vector<int>{1, 2, 1});
  CHECK(stage_split(5, 3) == std::vector<int>{2, 2, 1});
  CHECK(stage_split(3, 2) == std::vector<int>{2, 1});
}

TEST_CASE("parallelism: a stage of mixed layers is priced and weighed by the layers it holds") {
  // Four attention layers of Llama-3.1-8B's shape (Q, O 4096², K, V 4096 × 1024: 83,886,080 B
  // and an 8,192 B norm), of which only the last has an FFN (3 × 4096 × 14336: 352,321,536 B and
  // its norm), a vocabulary of 128 (the head 1,048,576 B and the final norm). At pp 2 the second
  // stage holds layers 2 and 3: both attentions, the one FFN and the head, 521,175,040 B; the
  // first only two attentions. Each layer reads K and V of 640 tokens, 640 × 2 × 1024 × 2 =
  // 2,621,440 B: the second stage's micro-batch of one sequence 526,417,920 B, 157.14 µs at
  // 3.35 TB/s, and 2 micro-batches a step 314.28 µs. Counted as ⌊L/pp⌋ of the cheapest layer
  // beside the head, or the even split's half, the stage had been 104.4 µs and the step the
  // trip's 208.9 µs.
  ModelSpec m = llama_3_1_8b();
  m.architecture = dense_gated(4, 4096, 32, 8, 14336, 128);
  m.architecture->ffn_pattern = {FfnKind::none, FfnKind::none, FfnKind::none, FfnKind::dense};
  Workload w = default_workload(m, 2);
  w.pp = 2;
  const Report r = evaluate(m, h100_sxm(), w);
  REQUIRE(r.decode_pipeline);
  const double stage = 526'417'920.0 / 3.35e12;
  CHECK_THAT(r.decode_pipeline->stage_time.value(), Catch::Matchers::WithinRel(stage, 0.002));
  CHECK_THAT(r.decode.step.time.value(), Catch::Matchers::WithinRel(2 * stage, 0.002));
  // The fullest GPU's weights: the second stage's, not ⌈L/pp⌉ = 2 layers each with an FFN.
  CHECK_THAT((r.memory.fixed_fullest - h100_sxm().memory_capacity * w.reserve_fraction).value(),
             Catch::Matchers::WithinRel(521'175'040.0, 1e-9));
}

TEST_CASE("parallelism: a layout the model or the fabric cannot take is refused, naming the flag") {
  const ModelSpec ds = deepseek_v3();
  Workload w = layout(ds, 8, 3, false, 1);
  CHECK(validate(w, ds, h200_141gb())->field == "ep");  // 3 divides neither tp 8 nor 256 experts
  w = layout(ds, 8, 4, true, 1);
  CHECK(validate(w, ds, h200_141gb())->field == "dp-attention");  // data-parallel attention needs ep = tp
  w = layout(llama_2_7b(), 1, 2, false, 1);
  CHECK(validate(w, llama_2_7b(), h200_141gb())->field == "ep");  // no experts
  w = layout(ds, 8, 1, false, 1);
  w.pp = 2;  // 16 GPUs, one 8-GPU NVLink domain, no network
  GpuSpec one_node = h200_141gb();
  one_node.network.reset();  // h100_sxm() has the preset's 400 Gb/s NIC a GPU
  CHECK(validate(w, ds, one_node)->field == "pp");
  GpuSpec two_nodes = h200_141gb();
  two_nodes.network = Network{GBps(50), us(10)};
  CHECK_FALSE(validate(w, ds, two_nodes).has_value());
  w.expert_imbalance = 2;  // above ep 1
  CHECK(validate(w, ds, two_nodes)->field == "expert-imbalance");
  // tp 6 × pp 2 on 8-GPU nodes: the second stage would sit on GPUs 6-11, across two nodes.
  Workload straddling = layout(llama_2_70b(), 6, 1, false, 1);
  straddling.pp = 2;
  const auto e = validate(straddling, llama_2_70b(), two_nodes);
  REQUIRE(e);
  CHECK(e->field == "tp");
  CHECK_THAT(e->message, Catch::Contains("straddle"));
}

TEST_CASE("parallelism: the layouts a plan searches - powers of two within the NVLink domain") {
  // Llama-2-7B on an A100 node (8 GPUs, no network): tp × pp ≤ 8 with tp, pp powers of two:
  // (1,1) (1,2) (1,4) (1,8) (2,1) (2,2) (2,4) (4,1) (4,2) (8,1).
  const ModelSpec m = llama_2_7b();
  GpuSpec node = a100_80gb();
  node.network.reset();
  const std::vector<Workload> dense = candidate_layouts(m, node, default_workload(m));
  REQUIRE(dense.size() == 10);
  CHECK(std::all_of(dense.begin(), dense.end(), [](const Workload& w) { return gpus(w) <= 8 && w.ep == 1; }));
  // With a network, up to 64 GPUs: tp 1, 2, 4 and 8 each with pp 1-8 (16), tp 16 with pp 1, 2, 4
  // and tp 32 with pp 1, 2; tp 64 does not divide the 32 heads: 21.
  CHECK(candidate_layouts(m, a100_80gb(), default_workload(m)).size() == 21);
  // Mixtral's 8 experts add ep = tp, with and without data-parallel attention, where tp > 1:
  // 4 single-GPU-stage layouts with tp 1, and 3 a layout for the 6 with tp > 1.
  const ModelSpec moe = mixtral_8x7b();
  int skipped = 0;
  const std::vector<Workload> sparse = candidate_layouts(moe, node, default_workload(moe), &skipped);
  CHECK(sparse.size() + static_cast<std::size_t>(skipped) == 4 + 3 * 6);
  CHECK(skipped == 1);  // 93 GB of bf16 weights on one 80 GB A100
}

namespace {

// The width of the first linear named `name` in a description (0: none).
double linear_out(const LayerStack& s, std::string_view name) {
  for (const Block& b : s.blocks) {
    for (const PhasedStep& p : b.steps) {
      if (const auto* l = std::get_if<LinearStep>(&p.step); l && l->name == name) return l->out;
    }
  }
  return 0;
}

}  // namespace

TEST_CASE("described_layers: a thread keeps its two latest descriptions, and describes a third anew") {
  // Llama-2-7B's shape: 32 layers, 32 heads of 128 (Q 4,096 wide; 2,048 on each of 2 GPUs).
  const Architecture a = dense_gated(32, 4096, 32, 32, 11008, 32000);
  Architecture b = a;
  b.layers = 16;  // equal but for one field: another description
  const LayerStack& whole = described_layers(a, Sharding{.tp = 1});
  const LayerStack& split = described_layers(a, Sharding{.tp = 2});
  CHECK(linear_out(whole, "q_proj") == 4096);
  CHECK(linear_out(split, "q_proj") == 2048);
  CHECK(&described_layers(a, Sharding{.tp = 1}) == &whole);  // kept, not described again
  // A third makes room in the older of the two (tp 2's): the one just asked for stays valid.
  const LayerStack& half = described_layers(b, Sharding{.tp = 1});
  CHECK(&half != &whole);
  CHECK(half.blocks[1].layers == 16);
  CHECK(whole.blocks[1].layers == 32);
  CHECK(&described_layers(a, Sharding{.tp = 1}) == &whole);
  // Each kept description has a serial of its own, and one described anew where another was kept
  // has a new one: the address alone does not name a description (what the engine keeps beside one).
  CHECK(whole.serial != 0);
  CHECK(half.serial != whole.serial);
  const LayerStack* const half_at = &half;
  const std::uint64_t half_serial = half.serial;
  // Each as describe_layers describes it (tp 2 again: described into the slot b's description held).
  CHECK(linear_out(described_layers(a, Sharding{.tp = 2}), "q_proj") == 2048);
  CHECK(&described_layers(a, Sharding{.tp = 2}) == half_at);
  CHECK(half_at->serial != half_serial);
  CHECK(half_at->serial != whole.serial);
  CHECK(described_layers(b, Sharding{.tp = 1}).blocks.size() == describe_layers(b, 1).blocks.size());
}
