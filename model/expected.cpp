#include "model/expected.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

namespace {

// A ring all-reduce call: 2(tp−1) hops each paying hop_latency, and 2(tp−1)/tp of the buffer over
// each link; never faster than the bound's one latency per call.
Seconds allreduce(const OpResult& o, const ExpectedModel& m, const Interconnect& link, int tp) {
  const double calls = o.cost.comm_calls, hops = 2.0 * (tp - 1);
  const Seconds transfer = (o.cost.comm_bytes / calls) * (hops / tp) / link.bandwidth;
  return std::max(o.time, (m.hop_latency * hops + transfer) * calls);
}

}  // namespace

Expected expected_phase(const PhaseResult& bound, const ExpectedModel& m, const Ceilings& c,
                        const std::optional<Interconnect>& link, int tp) {
  Expected e;
  Seconds memory;
  for (const OpResult& o : bound.ops) {
    if (o.cost.comm_bytes > Bytes(0) && link) {
      e.comm += allreduce(o, m, *link, tp);
      continue;
    }
    const Bytes weights = o.cost.weight_bytes;
    const KernelTime k = m.kernel_time(
        {o.cost.flops, o.cost.bytes - weights, weights, o.cost.shape.rows, o.cost.launches, o.cost.dequant}, c);
    if (k.total() <= o.time) {
      // The bound binds (rare: an op its fixed costs do not reach): its time, split as it is.
      (o.bound == Bound::compute ? e.compute : memory) += o.time;
      continue;
    }
    e.compute += k.compute;
    memory += k.memory;
    e.overhead += k.fixed;
  }
  e.overhead += m.step;
  e.time = e.overhead + e.comm + e.compute + memory;
  if (e.time > Seconds(0)) {
    const double fixed_share = (e.overhead + e.comm) / e.time, compute_share = e.compute / e.time;
    e.regime = fixed_share >= 0.3 ? Regime::overhead : compute_share >= 0.2 ? Regime::compute : Regime::memory;
  }
  const double spread = std::exp(kZ90 * m.spread(e.regime));
  e.low = std::max(bound.time, e.time / spread);
  e.high = e.time * spread;
  return e;
}

}  // namespace roofline
