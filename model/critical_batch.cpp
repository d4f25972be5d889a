#include "model/critical_batch.hpp"

#include "model/operators.hpp"
#include "model/parameters.hpp"

namespace roofline {

CriticalBatch critical_batch(const ParameterCount& params, Bytes weights, const OpTotals& one_sequence_all_experts,
                             const Ceilings& c) {
  CriticalBatch r;
  const Seconds weight_time = weights / c.bandwidth;
  r.weights_only = weight_time.value() * c.peak.value() / (2 * params.active());

  // One sequence with every expert read: weights are the fixed cost, the rest scales with B.
  const OpTotals& seq = one_sequence_all_experts;
  const Seconds gain = seq.flops / c.peak - seq.other_bytes / c.bandwidth;
  if (gain > Seconds(0)) r.at_context = (seq.weight_bytes / c.bandwidth) / gain;
  return r;
}

}  // namespace roofline
