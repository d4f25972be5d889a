// The worked example every user tries: a 7B model in fp16 on an A100 (2 TB/s, 312 TFLOP/s).
#include <catch2/catch.hpp>

#include "model/engine.hpp"
#include "specs.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

using Seed = test::TeachingExample;

TEST_CASE("seed: 7e9 fp16 parameters are 14 GB of weights") {
  const Seed s;
  CHECK_THAT(s.at(1).model.weight_bytes.value(), WithinRel(14e9, 1e-12));
}

TEST_CASE("seed: one decode step reads 14 GB at 2 TB/s = 7.0 ms - so 142.9 tokens/s") {
  const Report r = Seed().at(1);
  CHECK_THAT(r.decode.step.time.value(), WithinRel(7.0e-3, 1e-9));
  CHECK_THAT(r.decode.tokens_per_s, WithinRel(1 / 7.0e-3, 1e-9));
  CHECK(r.decode.step.bound == Bound::memory);
}

TEST_CASE("seed: B* = 7 ms × 312e12 / (2 × 7e9) = 156") {
  CHECK_THAT(Seed().at(1).critical_batch.weights_only, WithinRel(156.0, 1e-9));
}

TEST_CASE("seed: prefill of 512 tokens is 7.17 TFLOP - 23.0 ms at 312 TFLOP/s - compute-bound") {
  const Report r = Seed().at(1);
  CHECK_THAT(r.prefill.flops.value(), WithinRel(2.0 * 512 * 7e9, 1e-12));
  CHECK_THAT(r.prefill.time.value(), WithinRel(2.0 * 512 * 7e9 / 312e12, 1e-9));
  CHECK(r.prefill.bound == Bound::compute);
  // Intensity 2·512·7e9 / 14e9 = 512 FLOP/B against a ridge of 312e12 / 2e12 = 156.
  CHECK_THAT(r.prefill.intensity().value(), WithinRel(512.0, 1e-12));
  CHECK_THAT(r.gpu.ridge_point().value(), WithinRel(156.0, 1e-12));
}

TEST_CASE("seed: at batch 64 the step is still 7.0 ms (compute 2.87 ms hides under memory)") {
  const Seed s;
  const Report r = s.at(64);
  CHECK_THAT(r.decode.step.compute_time.value(), WithinRel(2.0 * 64 * 7e9 / 312e12, 1e-9));
  CHECK_THAT(r.decode.step.time.value(), WithinRel(7.0e-3, 1e-9));
  CHECK_THAT(r.decode.tokens_per_s, WithinRel(64 / 7.0e-3, 1e-9));
}

TEST_CASE("seed: at batch 2·B* = 312 the step doubles to 14 ms and turns compute-bound") {
  const Report r = Seed().at(312);
  CHECK_THAT(r.decode.step.time.value(), WithinRel(14.0e-3, 1e-9));
  CHECK(r.decode.step.bound == Bound::compute);
}
