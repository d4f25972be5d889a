#include "hardware/expected_model.hpp"

#include <algorithm>

namespace roofline {

KernelTime ExpectedModel::kernel_time(const KernelWork& w, const Ceilings& ceilings) const {
  Seconds c = w.flops / (ceilings.peak * compute);
  if (w.rows > 0 && skinny_rows > 0) {
    const Flops row = w.flops / w.rows;
    const double skinny = std::min(w.rows, skinny_rows), rest = w.rows - skinny;
    c = row * skinny / (ceilings.peak * skinny_compute) + row * rest / (ceilings.peak * compute);
  }
  const Seconds m = w.activations / (ceilings.bandwidth * memory) +
                    w.weights / (ceilings.bandwidth * (memory * dequant(w.dequant)));
  const Seconds fixed = launch * w.launches;
  // p = 1 is kept exact: the published fit's numbers do not move by a rounding.
  if (overlap == 1.0 || c <= Seconds(0) || m <= Seconds(0)) return {c, m, fixed};
  // The p-norm of the two times, shared in proportion to them: the larger one dominates as p grows.
  const double cs = c.value(), ms = m.value(), combined = overlap_norm(cs, ms, overlap);
  return {Seconds(combined * cs / (cs + ms)), Seconds(combined * ms / (cs + ms)), fixed};
}

std::string_view name(Regime r) {
  switch (r) {
    case Regime::memory: return "memory";
    case Regime::compute: return "compute";
    case Regime::overhead: return "overhead";
  }
  return "";
}

}  // namespace roofline
