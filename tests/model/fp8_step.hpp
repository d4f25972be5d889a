#pragma once
// Llama-3.1-8B's decode step at batch 8 on an H100 priced by the default kernel classes, its block
// linears' weights in one fp8 format and computed in fp8: what the fp8 GEMM classes' engine tests
// (test_kernel_classes, test_block_scaled_gemm) price an operator from.
#include "model/engine.hpp"
#include "model/expected.hpp"
#include "priced_ops.hpp"
#include "specs.hpp"

namespace roofline::test {

struct Fp8Step {
  ExpectedModel em;
  Report report;
  // Its operators with their expected times; reads `report`, which must outlive it.
  [[nodiscard]] Priced priced() const {
    const PhaseResult& step = report.decode.step;
    return {step, expected_op_times(step, em, report.gpu.ceilings)};
  }
  // The H100 SXM's 16-bit and fp8 peaks and its bandwidth, as the classes read them.
  static constexpr KernelCeilings kCeilings{989e12, 1979e12, 3.35e12, 0};
};

inline Fp8Step llama_fp8_step(WeightFormat weights) {
  const ModelSpec m = llama_3_1_8b();
  GpuSpec g = h100_sxm();
  ExpectedModel em;
  em.kernels.emplace();
  g.expected = em;
  Workload w = default_workload(m, 8);
  w.precision.weights.fill(weights);
  w.precision.compute = DType::fp8;
  return {em, evaluate(m, g, w)};
}

}  // namespace roofline::test
