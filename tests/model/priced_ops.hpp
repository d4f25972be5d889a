#pragma once
// A phase's operators by name, with their expected times: what the kernel-class tests read an
// operator's price from (test_kernel_classes, test_block_scaled_gemm, test_experts_class,
// test_latent_delta_net_classes).
#include <catch2/catch.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

#include "model/engine.hpp"
#include "model/expected.hpp"
#include "model/phase.hpp"
#include "specs.hpp"

namespace roofline::test {

struct Priced {
  const PhaseResult& phase;
  std::vector<Seconds> expected;
  [[nodiscard]] std::size_t at(std::string_view name) const {
    for (std::size_t i = 0; i < phase.ops.size(); ++i) {
      if (phase.ops[i].cost.name == name) return i;
    }
    FAIL("no operator " << name);
    return 0;
  }
  [[nodiscard]] double seconds(std::string_view name) const { return expected[at(name)].value(); }
};

// The expected model with the default kernel classes: what the engine prices a preset GPU by.
inline ExpectedModel with_kernel_classes() {
  ExpectedModel em;
  em.kernels.emplace();
  return em;
}

// A point evaluated on a GPU whose expected model is `em`, and its phases priced by it.
struct ClassPriced {
  ExpectedModel em;
  Report report;
  // A phase of `report` with its operators' expected times; `report` must outlive it.
  [[nodiscard]] Priced priced(const PhaseResult& phase) const {
    return {phase, expected_op_times(phase, em, report.gpu.ceilings)};
  }
  [[nodiscard]] Priced decode() const { return priced(report.decode.step); }
  [[nodiscard]] Priced prefill() const { return priced(report.prefill); }
};

inline ClassPriced price_by_classes(const ModelSpec& m, GpuSpec g, const Workload& w,
                                    const ExpectedModel& em = with_kernel_classes()) {
  g.expected = em;
  return {em, evaluate(m, g, w)};
}

// Llama-3.1-8B's decode step at batch 8 on an H100, its block linears' weights in one fp8 format
// and computed in fp8: the fp8 GEMM classes' engine tests.
inline ClassPriced llama_fp8_step(WeightFormat weights) {
  const ModelSpec m = llama_3_1_8b();
  Workload w = default_workload(m, 8);
  w.precision.weights.fill(weights);
  w.precision.compute = DType::fp8;
  return price_by_classes(m, h100_sxm(), w);
}
// The H100 SXM's 16-bit and fp8 peaks and its bandwidth, as the classes read them.
inline constexpr KernelCeilings kH100Ceilings{989e12, 1979e12, 3.35e12, 0};

}  // namespace roofline::test
