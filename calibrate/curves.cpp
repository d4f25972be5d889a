#include "calibrate/curves.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::calibrate {

namespace {

// Today's widest dense shapes (Llama 3 8B's attention output and FFN): a square product, a wide
// one and a tall one, so the fit sees both the input and the output dimension grow.
constexpr long kSquare = 4096, kWide = 14336;

long copies_for(std::size_t cold_bytes, double product_bytes) {
  return std::max(1L, static_cast<long>(std::ceil(static_cast<double>(cold_bytes) / product_bytes)));
}

// Every other point of a doubling sequence, the first and the last always kept: the sizes then
// grow fourfold, and the ends the fit leans on (the fixed cost, the compute-bound rows) stay.
void thin_out(std::vector<GemmShape>& shapes) {
  std::vector<GemmShape> kept;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (i % 2 == 0 || i + 1 == shapes.size()) kept.push_back(shapes[i]);
  }
  shapes = std::move(kept);
}

}  // namespace

PointWork point_work(const GemmShape& s, DType dtype) {
  const double e = bytes_per_element(dtype);
  const auto rows = static_cast<double>(s.rows), in = static_cast<double>(s.in), out = static_cast<double>(s.out);
  return {2 * rows * in * out, in * out * e, rows * (in + out) * e};
}

CurvePlan plan_curves(std::size_t cold_bytes, double ridge_rows, DType dtype, CurveDensity density) {
  const double e = bytes_per_element(dtype);
  CurvePlan p;
  // 128² weights are 64 KiB in fp32, 32 KiB in fp16: small enough that the fixed cost shows. The
  // largest is a quarter of the cold bytes: a repetition streams four matrices or more, so none is
  // still in a cache from the last one.
  for (long k = 128; k <= 8192 && static_cast<double>(k * k) * e * 4 <= static_cast<double>(cold_bytes); k *= 2) {
    p.transfer.push_back({1, k, k, copies_for(cold_bytes, static_cast<double>(k * k) * e)});
  }
  // At least 256 rows, validate's largest batch by default, whatever ceilings a busy machine gave.
  long largest = 256;
  while (largest < 16 * ridge_rows && largest < 8192) largest *= 2;
  for (const auto& [in, out] : {std::pair{kSquare, kSquare}, std::pair{kSquare, kWide}, std::pair{kWide, kSquare}}) {
    const long copies = copies_for(cold_bytes, static_cast<double>(in * out) * e);
    for (long rows = 1; rows <= largest; rows *= 2) p.gemm.push_back({rows, in, out, copies});
  }
  if (density == CurveDensity::quick) {
    thin_out(p.transfer);
    // Each shape's rows on their own: 1, 4, 16, … and the largest, past the ridge.
    std::vector<GemmShape> gemm;
    for (auto first = p.gemm.begin(); first != p.gemm.end();) {
      const auto last = std::find_if(first, p.gemm.end(), [&](const GemmShape& s) { return s.in != first->in || s.out != first->out; });
      std::vector<GemmShape> shape(first, last);
      thin_out(shape);
      gemm.insert(gemm.end(), shape.begin(), shape.end());
      first = last;
    }
    p.gemm = std::move(gemm);
  }
  return p;
}

Curves measure_curves(CalibrationDevice& device, const CurvePlan& plan, int repetitions) {
  Curves c;
  for (const GemmShape& s : plan.transfer) c.transfer.push_back({s, {}});
  for (const GemmShape& s : plan.gemm) c.gemm.push_back({s, {}});
  const int passes = std::min(3, repetitions);
  for (int pass = 0; pass < passes; ++pass) {
    // Pass k takes its share of the repetitions: 10 become 4, 3 and 3.
    const int runs = repetitions / passes + (pass < repetitions % passes ? 1 : 0);
    for (auto* curve : {&c.transfer, &c.gemm}) {
      for (CurvePoint& p : *curve) {
        const std::vector<double> seconds = device.run_step({p.shape}, runs);
        p.seconds.insert(p.seconds.end(), seconds.begin(), seconds.end());
      }
    }
  }
  return c;
}

}  // namespace roofline::calibrate
