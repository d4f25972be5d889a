#pragma once
// The curves the expected model is fitted on (hardware/expected_model.hpp), measured with the
// device's own synthetic step (run_step), so that every backend measures them the same way and
// with the kernels validate later runs:
//   transfer: single-row products over square weights from 64 KiB up, each size repeated until
//             the weights far exceed the caches: a kernel's time against the bytes it moves, whose
//             intercept is the fixed cost per kernel and whose slope the bandwidth reached;
//   gemm:     rows 1, 2, 4, … well past the ridge point, over three weight shapes of today's
//             models: the compute share reached, and how it falls for skinny M.
#include <cstddef>
#include <vector>

#include "calibrate/calibration_device.hpp"
#include "hardware/dtype.hpp"

namespace roofline::calibrate {

// One point: the products of `shape` (`count` weight matrices, one after another) and the
// seconds each timed repetition took for all of them.
struct CurvePoint {
  GemmShape shape;
  std::vector<double> seconds;
};

struct Curves {
  std::vector<CurvePoint> transfer;
  std::vector<CurvePoint> gemm;
};

struct CurvePlan {
  std::vector<GemmShape> transfer;
  std::vector<GemmShape> gemm;
};

// How finely the curves are sampled. quick (`calibrate --quick`): every fourth size and row
// count (128², 512², …; M = 1, 4, 16, …, the largest always included), for a first look or a
// test in a fraction of the time; the fit has fewer points to stand on, and says how many.
enum class CurveDensity { full, quick };

// The shapes to measure. `cold_bytes`: the weights each point cycles through, far beyond the
// device's caches; `ridge_rows`: the rows at which a product turns compute-bound at the ceilings
// (peak / bandwidth · element bytes / 2), which sets the largest M (16 × it, a power of two in
// 256 … 8192); `dtype`: the format the device multiplies in.
[[nodiscard]] CurvePlan plan_curves(std::size_t cold_bytes, double ridge_rows, DType dtype,
                                    CurveDensity density = CurveDensity::full);

// Runs every shape of the plan on its own, `repetitions` timed runs each, in up to three passes
// through the whole plan: on a shared machine other work comes in bursts of seconds, and a burst
// then slows one pass's runs of a point, not all of them, so its median stays clean.
[[nodiscard]] Curves measure_curves(CalibrationDevice& device, const CurvePlan& plan, int repetitions);

// What one point's products ask of the device, in the units its curves are fitted in.
struct PointWork {
  double flops = 0;        // per product
  double weight_bytes = 0;  // per product
  double activation_bytes = 0;
};
[[nodiscard]] PointWork point_work(const GemmShape& s, DType dtype);

}  // namespace roofline::calibrate
