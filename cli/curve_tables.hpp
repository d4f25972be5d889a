#pragma once
// What `calibrate` prints of the curves it measured for the expected model and of the
// coefficients fitted to them: each point measured beside the fit, and each coefficient with
// what it means on this device.
#include "calibrate/expected_fit.hpp"
#include "report/text_table.hpp"

namespace roofline::cli {

// Single-row products by size: time per kernel, the bandwidth it reached, the fit.
[[nodiscard]] report::TextTable transfer_table(const calibrate::CurveFit& fit, DType dtype);
// The GEMM grid: rows × shape, the share of the peak reached, the fit.
[[nodiscard]] report::TextTable gemm_table(const calibrate::CurveFit& fit, const Ceilings& ceilings, DType dtype);
// The fitted coefficients, as the GPU YAML's `expected:` section gets them.
[[nodiscard]] report::TextTable coefficient_table(const ExpectedModel& m);

}  // namespace roofline::cli
