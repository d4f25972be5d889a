// B*: where decode turns from memory- to compute-bound.
#include <catch2/catch.hpp>

#include <cmath>

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
