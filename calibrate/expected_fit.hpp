#pragma once
// The expected model's coefficients (hardware/expected_model.hpp) fitted to the curves measured
// on this device (calibrate/curves.hpp), through the very formula the engine prices operators
// with (ExpectedModel::kernel_time), relative to the ceilings the roofline uses, so that the
// engine's expected time of a product is what this device was seen to take for it.
#include <string_view>
#include <vector>

#include "calibrate/curves.hpp"
#include "hardware/expected_model.hpp"
#include "hardware/roofline.hpp"

namespace roofline::calibrate {

// One measured point beside the fit, per product (one weight matrix), in seconds.
struct FittedPoint {
  std::string_view curve;  // "transfer" or "gemm"
  GemmShape shape;
  double measured = 0;  // the median repetition
  double expected = 0;  // the fitted model
  double bound = 0;     // the roofline: max(FLOPs / peak, bytes / bandwidth)
  Regime regime = Regime::memory;
  // expected / measured − 1: positive where the model is slower than the device.
  [[nodiscard]] double error() const { return expected / measured - 1; }
};

struct CurveFit {
  // memory, compute, launch, overlap, skinny_rows and skinny_compute fitted; the spreads from every
  // repetition's distance to the fit, by regime. `source` is the caller's to write.
  ExpectedModel model;
  std::vector<FittedPoint> points;
  double median_abs_error = 0;  // median over the points of |error()|
};

// Minimises Σ log²(expected / measured median) over both curves (Levenberg–Marquardt, started
// from the transfer curve's straight line: time = launch + bytes / (memory · bandwidth)).
// The shares stay in (0, 1], overlap ≥ 1, launch and skinny_rows ≥ 0.
// Throws std::invalid_argument when a curve is empty or a repetition took no time.
[[nodiscard]] CurveFit fit_expected(const Curves& curves, const Ceilings& ceilings, DType dtype);

// The straight line t = a + b·x through (x, t) minimising Σ ((a + b·x) / t − 1)²: each point
// weighs by its own size, as a relative error does. {a, b}.
struct Line {
  double intercept = 0, slope = 0;
};
[[nodiscard]] Line relative_line_fit(const std::vector<double>& x, const std::vector<double>& t);

}  // namespace roofline::calibrate
