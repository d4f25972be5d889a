#include "model/expected.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

namespace {

// A collective call: each of its sequential steps (a ring all-reduce: 2(k−1)) pays hop_latency
// beside its transfer; never faster than a ring's transfer and one link latency a call (the
// bound, bandwidth alone at in-network reduction's floor, sits below both).
Seconds collective(const OpResult& o, const ExpectedModel& m) {
  return std::max(o.comm.floor(), m.hop_latency * o.comm.hops + o.comm.serial) * o.cost.comm_calls;
}

// What an operator asks of the kernels that run it.
KernelWork work_of(const OpResult& o) {
  const Bytes weights = o.cost.weight_bytes;
  return {o.cost.flops, o.cost.bytes - weights, weights, o.cost.shape.rows, o.cost.launches, o.cost.dequant};
}

}  // namespace

Seconds expected_op_time(const OpResult& o, const ExpectedModel& m, const Ceilings& c) {
  if (o.bound == Bound::interconnect) return collective(o, m);
  return std::max(o.time, m.kernel_time(work_of(o), c).total());
}

Regime regime_of(double fixed_share, double compute_share) {
  if (fixed_share >= 0.3) return Regime::overhead;
  if (compute_share >= 0.2) return Regime::compute;
  return Regime::memory;
}

Expected expected_phase(const PhaseResult& bound, const ExpectedModel& m, const Ceilings& c) {
  Expected e;
  for (const OpResult& o : bound.ops) {
    if (o.bound == Bound::interconnect) {
      e.comm += collective(o, m);
      continue;
    }
    const Bytes weights = o.cost.weight_bytes;
    const KernelTime k = m.kernel_time(work_of(o), c);
    if (k.total() <= o.time) {
      // The bound binds (rare: an op its fixed costs do not reach): its time, split as it is.
      (o.bound == Bound::compute ? e.compute : e.memory) += o.time;
      continue;
    }
    e.compute += k.compute;
    e.memory += k.memory;
    // What unpacking costs over a plain stream of the same weights (under overlap, before sharing).
    const Seconds plain = weights / (c.bandwidth * m.memory);
    e.dequant += plain / m.dequant(o.cost.dequant) - plain;
    e.overhead += k.fixed;
  }
  e.overhead += m.step;
  e.time = e.overhead + e.comm + e.compute + e.memory;
  if (e.time > Seconds(0)) {
    const double fixed_share = (e.overhead + e.comm) / e.time, compute_share = e.compute / e.time;
    e.regime = regime_of(fixed_share, compute_share);
  }
  e.spread = m.spread(e.regime);
  e.bound = bound.time;
  const double factor = std::exp(kZ90 * e.spread);
  e.low = std::max(e.bound, e.time / factor);
  e.high = e.time * factor;
  return e;
}

double normal_quantile(double p) {
  // Φ(z) = (1 + erf(z/√2)) / 2 is increasing: bisect it on [−10, 10] to below 1e−12.
  double lo = -10, hi = 10;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * (1 + std::erf(mid / std::sqrt(2.0))) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

Seconds Expected::quantile(double p) const {
  return std::max(bound, time * std::exp(normal_quantile(p) * spread));
}

}  // namespace roofline
