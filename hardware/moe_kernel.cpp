#include "hardware/moe_kernel.hpp"

#include "hardware/kernel_classes.hpp"

namespace roofline {

ExpertsTime experts_time(const ExpertsCoefficients& k, const ExpertsWork& w, const ExpertsArithmetic& a,
                         double bandwidth) {
  // Half a tile of empty rows an expert on average: its rows fill ⌈r / tile⌉ tiles.
  const double padded = w.rows > 0 ? (w.rows + w.experts * k.tile / 2) / w.rows : 1;
  const double narrow = w.width > 0 ? w.width / (w.width + a.half_width) : 1;
  const double compute = w.flops * padded / (a.share * narrow * a.peak);
  const double stream = w.weights / (k.memory * bandwidth);
  const double both = overlap_norm(compute, stream, k.overlap), sum = compute + stream;
  const double passes = w.activations / (k.memory * bandwidth);
  if (sum <= 0) return {0, passes, k.launch};
  return {both * compute / sum, both * stream / sum + passes, k.launch};
}

}  // namespace roofline
