// The expected model's coefficients fitted back from curves made with known ones. The curves here
// are synthetic, worked from the formula by hand, so no timing is asserted.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "calibrate/curves.hpp"
#include "calibrate/expected_fit.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

// A device of 40 GB/s and 300 GFLOP/s whose kernels reach 90% of the bandwidth and 80% of the
// peak, pay 3 us each, hide memory under compute as a 2.5-norm does, and run a GEMM's first 12
// rows at 30% of the peak.
constexpr double kBandwidth = 40e9, kPeak = 300e9;
constexpr double kMemory = 0.9, kCompute = 0.8, kLaunch = 3e-6, kOverlap = 2.5, kSkinnyRows = 12, kSkinny = 0.3;

// One product's seconds, from the formula written out (not through ExpectedModel::kernel_time).
double product_seconds(const calibrate::GemmShape& s) {
  const double m = static_cast<double>(s.rows), k = static_cast<double>(s.in), n = static_cast<double>(s.out);
  const double flops = 2 * m * k * n, bytes = 4 * (k * n + m * (k + n));
  const double skinny = std::min(m, kSkinnyRows);
  const double compute = 2 * k * n * (skinny / (kSkinny * kPeak) + (m - skinny) / (kCompute * kPeak));
  const double memory = bytes / (kMemory * kBandwidth);
  const double t = std::pow(std::pow(compute, kOverlap) + std::pow(memory, kOverlap), 1 / kOverlap) + kLaunch;
  return std::max({t, flops / kPeak, bytes / kBandwidth});
}

// Three repetitions each, 1% either side of the formula: the medians are exact.
std::vector<calibrate::CurvePoint> measured(const std::vector<calibrate::GemmShape>& shapes) {
  std::vector<calibrate::CurvePoint> points;
  for (const calibrate::GemmShape& s : shapes) {
    const double t = product_seconds(s) * static_cast<double>(s.count);
    points.push_back({s, {0.99 * t, t, 1.01 * t}});
  }
  return points;
}

}  // namespace

TEST_CASE("curves: a straight line through times 3 us + bytes / 40 GB/s gives back 3 us and 1/40 GB/s") {
  const std::vector<double> bytes{65536, 262144, 1048576, 4194304};
  std::vector<double> seconds;
  for (double b : bytes) seconds.push_back(3e-6 + b / 40e9);
  const calibrate::Line line = calibrate::relative_line_fit(bytes, seconds);
  CHECK_THAT(line.intercept, WithinRel(3e-6, 1e-9));
  CHECK_THAT(line.slope, WithinRel(1 / 40e9, 1e-9));
  CHECK_THROWS(calibrate::relative_line_fit({1}, {1}));
}

TEST_CASE("curves: the plan spans 64 KiB to a quarter of the cold bytes, and rows to 16 × the ridge") {
  // 256 MiB cold, fp32: 128² … 4096² weights (64 KiB … 64 MiB), 4096 … 4 copies of each.
  // Ridge 300/40 FLOP/B × 4 B / 2 = 15 rows: M = 1 … 256 (16 × 15 = 240) over three shapes.
  const calibrate::CurvePlan p = calibrate::plan_curves(std::size_t{256} << 20, 15, DType::fp32);
  REQUIRE(p.transfer.size() == 6);
  CHECK(p.transfer.front().in == 128);
  CHECK(p.transfer.front().count == 4096);
  CHECK(p.transfer.back().in == 4096);
  CHECK(p.transfer.back().count == 4);
  REQUIRE(p.gemm.size() == 3 * 9);
  CHECK(p.gemm[8].rows == 256);
  // 4096 × 14336 fp32 is 224 MiB: two copies exceed the cold bytes.
  CHECK(p.gemm[9].out == 14336);
  CHECK(p.gemm[9].count == 2);
}

TEST_CASE("curves: launch, shares, overlap and skinny rows of a known device are fitted back from its curves") {
  const calibrate::CurvePlan plan = calibrate::plan_curves(std::size_t{256} << 20, 15, DType::fp32);
  const calibrate::Curves curves{measured(plan.transfer), measured(plan.gemm)};
  const Ceilings ceilings{FlopsPerSecond(kPeak), BytesPerSecond(kBandwidth)};
  const calibrate::CurveFit fit = calibrate::fit_expected(curves, ceilings, DType::fp32);
  CHECK_THAT(fit.model.memory, WithinRel(kMemory, 1e-3));
  CHECK_THAT(fit.model.compute, WithinRel(kCompute, 1e-3));
  CHECK_THAT(fit.model.launch.value(), WithinRel(kLaunch, 1e-2));
  CHECK_THAT(fit.model.overlap, WithinRel(kOverlap, 1e-2));
  CHECK_THAT(fit.model.skinny_rows, WithinRel(kSkinnyRows, 1e-2));
  CHECK_THAT(fit.model.skinny_compute, WithinRel(kSkinny, 1e-2));
  CHECK(fit.median_abs_error < 1e-3);
  REQUIRE(fit.points.size() == 6 + 27);
  // Repetitions at 0.99, 1 and 1.01 of the fit: a spread of sqrt((ln² 0.99 + ln² 1.01) / 3) = 0.00817.
  CHECK_THAT(fit.model.spread_compute, WithinRel(0.00817, 2e-2));
  // 64 KiB at 36 GB/s is 1.8 us beside the 3 us launch: the smallest transfer is launch-bound.
  CHECK(fit.points.front().regime == Regime::overhead);
}
