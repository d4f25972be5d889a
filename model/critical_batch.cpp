#include "model/critical_batch.hpp"

#include "model/operators.hpp"
#include "model/parameters.hpp"

namespace roofline {

CriticalBatch critical_batch(const ParameterCount& params, Bytes weights, const OpList& one_sequence_all_experts,
                             const Ceilings& c) {
  CriticalBatch r;
  const Seconds weight_time = weights / c.bandwidth;
  r.weights_only = weight_time.value() * c.peak.value() / (2 * params.active());

  // One sequence with every expert read: weights are the fixed cost, the rest scales with B.
  Flops per_seq_flops;
  Bytes per_seq_bytes, fixed_bytes;
  for (const OpCost& op : one_sequence_all_experts) {
    per_seq_flops += op.flops;
    per_seq_bytes += op.bytes - op.weight_bytes;
    fixed_bytes += op.weight_bytes;
  }
  const Seconds gain = per_seq_flops / c.peak - per_seq_bytes / c.bandwidth;
  if (gain > Seconds(0)) r.at_context = (fixed_bytes / c.bandwidth) / gain;
  return r;
}

}  // namespace roofline
