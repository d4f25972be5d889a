#include "model/phase.hpp"

namespace roofline {

PhaseResult evaluate_phase(const OpList& ops, const Ceilings& c, const std::optional<Interconnect>& link,
                           const std::optional<Network>& network) {
  PhaseResult r;
  r.ops.reserve(ops.size());
  for (const OpCost& op : ops) r.ops.emplace_back(op);  // built from its cost, not zeroed and overwritten
  time_phase(r, c, link, network);
  return r;
}

void time_phase(PhaseResult& r, const Ceilings& c, const std::optional<Interconnect>& link,
                const std::optional<Network>& network) {
  std::vector<OpResult> ops = std::move(r.ops);
  r = PhaseResult{};
  Flops fp8_flops{0};  // of r.flops, those at the fp8 peak
  for (OpResult& o : ops) {
    const OpCost& op = o.cost;
    // Each timed field set afresh, whatever the results held before.
    o.compute_time = o.memory_time = Seconds(0);
    o.comm = {};
    if (op.comm_bytes > Bytes(0) && link) {
      o.comm = collective_cost(op.collective, op.comm_bytes / op.comm_calls, Group{op.group, op.across}, *link, network);
      o.time = o.comm.bound() * op.comm_calls;
      o.bound = Bound::interconnect;
      r.comm_time += o.time;
    } else {
      const FlopsPerSecond peak = arithmetic_peak(op, c);
      if (peak != c.peak) fp8_flops += op.flops;
      const RooflineTime t{op.flops / peak, op.bytes / c.bandwidth};
      o.compute_time = t.compute;
      o.memory_time = t.memory;
      o.time = t.time();
      o.bound = t.bound();
    }
    r.flops += op.flops;
    r.bytes += op.bytes;
    r.weight_bytes += op.weight_bytes;
    r.time += o.time;
  }
  r.ops = std::move(ops);
  r.compute_time = fp8_flops > Flops(0) ? (r.flops - fp8_flops) / c.peak + fp8_flops / c.peak_fp8 : r.flops / c.peak;
  r.memory_time = r.bytes / c.bandwidth;
  r.bound = r.compute_time > r.memory_time ? Bound::compute : Bound::memory;
  if (r.comm_time > r.compute_time && r.comm_time > r.memory_time) r.bound = Bound::interconnect;
}

}  // namespace roofline
