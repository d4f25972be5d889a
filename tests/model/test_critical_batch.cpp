// B*: where decode turns from memory- to compute-bound.
#include <catch2/catch.hpp>

#include <cmath>

#include "model/critical_batch.hpp"
#include "model/engine.hpp"
#include "model/operators.hpp"
#include "specs.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

TEST_CASE("Llama-2-7B on A100-80GB: B* = (13.21 GB / 2039 GB/s) × 312e12 / (2 × 6.607e9) = 153.0 - the embedding neither streamed nor multiplied") {
  // A decode step streams the 32 layers' 6,476,005,376 weights, their 65 norms' 266,240 and the
  // head's 131,072,000 in fp16, 13,214,687,232 B, and gathers one row a token of the embedding;
  // a token multiplies the layers' and the head's weights, 6,607,077,376. With the table counted
  // in both (13.48 GB, 6.738e9 active parameters) it was 153.016, a 16-bit model's ratio alike.
  const ModelSpec m = test::llama_2_7b();
  const GpuSpec g = test::a100_80gb();
  const Report r = evaluate(m, g, test::default_workload(m));
  CHECK_THAT(r.critical_batch.weights_only, WithinRel(13'214'687'232.0 / 2039e9 * 312e12 / (2 * 6'607'077'376.0), 1e-12));
}

TEST_CASE("gpt-oss-like on H100: B* = (12.59 GB / 3.35 TB/s) × 989e12 / (2 × 3.607e9) = 515.2, as its decode operators stream and multiply") {
  // MXFP4 experts beside bf16 attention, head and embedding (tests/model/test_weight_formats.cpp
  // weighs them): a step streams 13,747,605,120 B less the 1,158,266,880 B table it gathers rows
  // of, 12,589,338,240 B; a token multiplies attention 637,009,920 + 4 of 32 experts 2,388,787,200
  // + the head 579,133,440 + the routers 24 × 2880 × 32 = 2,211,840 weights, 3,607,142,400. With
  // the 16-bit table in both, as W / (2 N_active), B* was 13.75 GB / 3.35 TB/s × 989e12 /
  // (2 × 4.186e9) = 484.7.
  const ModelSpec m = test::gpt_oss_like();
  const GpuSpec g = test::h100_sxm();
  const Workload w = test::default_workload(m);
  const Report r = evaluate(m, g, w);
  const double b = 12'589'338'240.0 / 3.35e12 * 989e12 / (2 * 3'607'142'400.0);
  CHECK_THAT(r.critical_batch.weights_only, WithinRel(b, 1e-12));
  CHECK(b == Approx(515.15).epsilon(1e-4));
  // The same from the engine's own decode operators, every expert read: their weight bytes, and
  // the FLOPs of their matrix products a token.
  double streamed = 0, matmul = 0;
  for (const OpCost& op : build_ops(Phase::decode, m, w, ExpertRouting::all)) {
    streamed += op.weight_bytes.value();
    if (op.shape.count > 0) matmul += op.flops.value();
  }
  CHECK_THAT(r.critical_batch.weights_only, WithinRel(streamed / 3.35e12 * 989e12 / matmul, 1e-12));
}

TEST_CASE("a head tied to the embedding streams the table once, as the head: tied Llama-2-7B's B* is the untied one's") {
  // Tied, the model stores one table (13,214,687,232 B in all): the step streams it as the head
  // and gathers rows of it, so it streams 13,214,687,232 B, and a token multiplies the head's
  // 131,072,000 weights beside the layers', as untied.
  ModelSpec tied = test::llama_2_7b();
  tied.architecture->tied_embeddings = true;
  const GpuSpec g = test::a100_80gb();
  const Report r = evaluate(tied, g, test::default_workload(tied));
  CHECK(r.model.weight_bytes.value() == 13'214'687'232.0);
  CHECK_THAT(r.critical_batch.weights_only, WithinRel(13'214'687'232.0 / 2039e9 * 312e12 / (2 * 6'607'077'376.0), 1e-12));
}

TEST_CASE("MHA Llama-2-7B at 640 tokens has no crossover: 335 MB of KV per sequence take 164 us - compute 44 us") {
  const ModelSpec m = test::llama_2_7b();
  const GpuSpec gpu = test::a100_80gb();
  const Report r = evaluate(m, gpu, test::default_workload(m));
  CHECK_FALSE(r.critical_batch.at_context.has_value());
}

TEST_CASE("GQA Llama-3.1-8B at 640 tokens crosses over at B*: memory-bound below - compute-bound above") {
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::a100_80gb();
  const Report r = evaluate(m, g, test::default_workload(m));
  REQUIRE(r.critical_batch.at_context.has_value());
  const double b = *r.critical_batch.at_context;
  // KV per sequence: 640 × 128 KiB = 84 MB → 41 us, compute 16 GFLOP → 52 us: a crossover exists,
  // later than the weights-only B* because KV reads eat part of each sequence's compute.
  CHECK(b > r.critical_batch.weights_only);
  const Report below = evaluate(m, g, test::default_workload(m, static_cast<long>(std::floor(b))));
  const Report above = evaluate(m, g, test::default_workload(m, static_cast<long>(std::ceil(b)) + 1));
  CHECK(below.decode.step.bound == Bound::memory);
  CHECK(above.decode.step.bound == Bound::compute);
}

namespace {

// Llama-2-70B at tp 4 on H100 at context 640, `pp` stages and `microbatches` (0: pp).
Report llama_2_70b_tp4(int pp, long batch, int microbatches = 0) {
  const ModelSpec m = test::llama_2_70b();
  Workload w = test::default_workload(m, batch);
  w.tp = 4;
  w.pp = pp;
  w.microbatches = microbatches;
  return evaluate(m, test::h100_sxm(), w);
}

}  // namespace

TEST_CASE("a pipeline reads the weights once a micro-batch, so Llama-2-70B at tp 4, pp 2 has twice the B*") {
  // One weight read, weights only: the 80 layers' 855,638,016 weights (q and o 8192², k and v
  // 8192 × 1024 each, gate, up, down 8192 × 28672 each) and the head's 32000 × 8192, N =
  // 68,713,185,280, streamed in fp16 with the 161 norms' 1,318,912: W = 137,429,008,384 B. B₁ =
  // 137.43 GB / 3.35 TB/s × 989e12 / (2 × 6.871e10) = 295.23.
  const double weights_one_read = 137'429'008'384.0 / 3.35e12 * 989e12 / (2 * 68'713'185'280.0);
  CHECK(weights_one_read == Approx(295.23).epsilon(1e-4));
  // At 640 tokens, one GPU of a stage (the JSON at batches 1 and 2, tp 4, pp 1): 34,359,230,464 B
  // of weights (a quarter of the matrices, every norm whole), and a sequence adds 34,789,580,800
  // FLOPs (2N/4 = 34,356,592,640, its attention over 640 tokens 419,430,400, the rest norms and
  // activations) and 80,481,920 B (52,428,800 of them its K/V): B₁ = 10.2565 ms / (35.1765 us −
  // 24.0245 us) = 919.69.
  const double context_one_read =
      (34'359'230'464.0 / 3.35e12) / (34'789'580'800.0 / 989e12 - 80'481'920.0 / 3.35e12);
  CHECK(context_one_read == Approx(919.69).epsilon(1e-4));
  // At pp 2 a step of B ≥ 2 runs 2 micro-batches, each reading its stage's weights again
  // (model/engine.cpp, pipeline_phase): compute B·F meets memory 2·W + B·Bytes at B = 2·B₁. The
  // single read said 295 and 920, where at batch 920 the step's 16.2 ms of compute sit under
  // 21.3 ms of memory.
  const Report pp2 = llama_2_70b_tp4(2, 16);
  CHECK_THAT(pp2.critical_batch.weights_only, WithinRel(2 * weights_one_read, 1e-12));
  REQUIRE(pp2.critical_batch.at_context.has_value());
  CHECK_THAT(*pp2.critical_batch.at_context, WithinRel(2 * context_one_read, 1e-6));
  // And the step crosses there: memory-bound at 1839 (32.345 ms of compute, 32.347 of memory),
  // compute-bound at 1840 (32.362 against 32.359).
  const Report below = llama_2_70b_tp4(2, 1839), above = llama_2_70b_tp4(2, 1840);
  CHECK(below.decode.step.compute_time < below.decode.step.memory_time);
  CHECK(above.decode.step.compute_time > above.decode.step.memory_time);
  // --microbatches is what a step at large batches runs: 1 reads the weights once (B₁), 4 four times.
  CHECK_THAT(llama_2_70b_tp4(2, 16, 1).critical_batch.weights_only, WithinRel(weights_one_read, 1e-12));
  CHECK_THAT(llama_2_70b_tp4(2, 16, 4).critical_batch.weights_only, WithinRel(4 * weights_one_read, 1e-12));
  // Without a pipeline, one read: unchanged.
  const Report pp1 = llama_2_70b_tp4(1, 16);
  CHECK_THAT(pp1.critical_batch.weights_only, WithinRel(weights_one_read, 1e-12));
  CHECK_THAT(*pp1.critical_batch.at_context, WithinRel(context_one_read, 1e-6));
}

TEST_CASE("B* over micro-batches, piecewise: m·B₁ where one read crosses at a sequence or more, else B₁") {
  // 1 GB streamed at 1 TB/s is 1 ms; a token multiplies N weights at 1 PFLOP/s. B₁ = 1 ms ·
  // 1e15 / (2N): 1.5 at N = 3.33e11, 0.5 at N = 1e12.
  const Ceilings c{FlopsPerSecond(1e15), BytesPerSecond(1e12)};
  const auto weights = [](double n) { return DecodeWeights{Bytes(1e9), n}; };
  const OpTotals none{};
  // B₁ = 1.5: up to 4 sequences each micro-batch holds one and every batch is memory-bound
  // (each reads the weights in 1 ms and computes for 0.67 ms); from 4 on the 4 reads take 4 ms,
  // which 6 sequences' compute (6 × 0.67 ms) meets.
  CHECK_THAT(critical_batch(weights(1e12 / 3), none, c, 4).weights_only, WithinRel(6.0, 1e-12));
  CHECK_THAT(critical_batch(weights(1e12 / 3), none, c, 1).weights_only, WithinRel(1.5, 1e-12));
  // B₁ = 0.5: one sequence's 2 ms of compute outlasts its micro-batch's read already, and so at
  // every batch: compute-bound from one sequence on, as on one stage.
  CHECK_THAT(critical_batch(weights(1e12), none, c, 4).weights_only, WithinRel(0.5, 1e-12));
  // At context alike: a sequence's 1 ms of weights against 2/3 ms of gain is 1.5; over 4, 6.
  const OpTotals seq{Flops(1e12), Bytes(1e9 / 3), Bytes(1e9)};  // 1 ms of compute, 1/3 ms of cache
  REQUIRE(critical_batch(weights(1e12), seq, c, 4).at_context.has_value());
  CHECK_THAT(*critical_batch(weights(1e12), seq, c, 4).at_context, WithinRel(6.0, 1e-12));
}
