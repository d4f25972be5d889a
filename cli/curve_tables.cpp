#include "cli/curve_tables.hpp"

#include <fmt/format.h>

#include "report/human_units.hpp"

namespace roofline::cli {

using report::human;
using report::TextTable;

namespace {

std::string percent(double share) { return fmt::format("{:+.1f}%", 100 * share); }

}  // namespace

TextTable transfer_table(const calibrate::CurveFit& fit, DType dtype) {
  TextTable t{"bandwidth against transfer size: single-row products, each over its own weights",
              {"weights", "copies", "measured", "fit", "error", "reached"},
              {}};
  for (const calibrate::FittedPoint& p : fit.points) {
    if (p.curve != "transfer") continue;
    const calibrate::PointWork w = calibrate::point_work(p.shape, dtype);
    t.rows.push_back({human(Bytes(w.weight_bytes)), fmt::format("{}", p.shape.count), human(Seconds(p.measured)),
                      human(Seconds(p.expected)), percent(p.error()),
                      human(BytesPerSecond((w.weight_bytes + w.activation_bytes) / p.measured))});
  }
  return t;
}

TextTable gemm_table(const calibrate::CurveFit& fit, const Ceilings& ceilings, DType dtype) {
  TextTable t{fmt::format("GEMM efficiency: rows × weights, share of the {} peak reached", human(ceilings.peak)),
              {"rows", "in × out", "measured", "fit", "error", "reached", "regime"},
              {}};
  for (const calibrate::FittedPoint& p : fit.points) {
    if (p.curve != "gemm") continue;
    const calibrate::PointWork w = calibrate::point_work(p.shape, dtype);
    t.rows.push_back({fmt::format("{}", p.shape.rows), fmt::format("{} × {}", p.shape.in, p.shape.out),
                      human(Seconds(p.measured)), human(Seconds(p.expected)), percent(p.error()),
                      fmt::format("{:.1f}%", 100 * w.flops / p.measured / ceilings.peak.value()),
                      std::string(name(p.regime))});
  }
  return t;
}

TextTable coefficient_table(const ExpectedModel& m) {
  return {"expected: (what kernels reach on this device, relative to its calibrated ceilings)",
          {"coefficient", "value", "meaning"},
          {{"memory", fmt::format("{:.3f}", m.memory), "share of the bandwidth a long weight stream reaches"},
           {"compute", fmt::format("{:.3f}", m.compute), "share of the peak a large GEMM reaches"},
           {"launch", human(m.launch), "fixed time per kernel (launch or thread synchronisation, ramp, tail)"},
           {"overlap", fmt::format("{:.2f}", m.overlap), "memory and compute times combine as (c^p + m^p)^(1/p)"},
           {"skinny_rows", fmt::format("{:.1f}", m.skinny_rows), "a GEMM's first rows, each a matrix-vector product or a first tile"},
           {"skinny_compute", fmt::format("{:.3f}", m.skinny_compute), "share of the peak those rows reach"},
           {"spread_memory", fmt::format("{:.3f}", m.spread_memory), "log spread around the fit, memory-bound points"},
           {"spread_compute", fmt::format("{:.3f}", m.spread_compute), "the same, compute ≥ 20% of the time"},
           {"spread_overhead", fmt::format("{:.3f}", m.spread_overhead), "the same, launches ≥ 30% of the time"}}};
}

}  // namespace roofline::cli
