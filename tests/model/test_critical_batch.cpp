// B*: where decode turns from memory- to compute-bound.
#include <catch2/catch.hpp>

#include <cmath>

#include "model/engine.hpp"
#include "specs.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

TEST_CASE("Llama-2-7B on A100-80GB: B* = (13.48 GB / 2039 GB/s) × 312e12 / (2 × 6.738e9) = 153.0") {
  const ModelSpec m = test::llama_2_7b();
  const GpuSpec g = test::a100_80gb();
  const Report r = evaluate(m, g, test::default_workload(m));
  CHECK_THAT(r.critical_batch.weights_only, WithinRel(13'476'831'232.0 / 2039e9 * 312e12 / (2 * 6'738'415'616.0), 1e-12));
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
