#include "model/critical_batch.hpp"

#include <variant>

#include "model/operators.hpp"
#include "model/parameters.hpp"

namespace roofline {

DecodeWeights decode_weights(const LayerStack& whole, const WeightBytes& stored, const WeightPricing& pricing) {
  // A gathered table is the embedding class's (the token table, learned positions, Gemma 4's
  // per-layer inputs); a tied head reads the table as its own matrix, which weigh() counts once,
  // as the embedding's.
  DecodeWeights d{stored.run() - stored.of(TensorClass::embedding), 0};
  for (const Block& block : whole.blocks) {
    for (const PhasedStep& s : block.steps) {
      const auto* l = std::get_if<LinearStep>(&s.step);
      if (!l || !s.runs_in(Phase::decode)) continue;
      d.multiplied += block.layers * l->in * l->out * l->rows_per_token;
      if (!l->counted) d.streamed += Bytes(block.layers * pricing.matrices(*l, l->copies));
    }
  }
  return d;
}

DecodeWeights decode_weights(const ParameterCount& params, const WeightBytes& stored) {
  return {stored.run(), params.active()};
}

namespace {

// The batch at which a step of `m` micro-batches at most turns compute-bound, from B₁, that of
// one weight read (model/critical_batch.hpp says why): below one sequence a step runs one
// micro-batch, and up to m sequences the ratio of compute to memory does not move with the batch.
double over_microbatches(double single_read, long m) {
  return single_read >= 1 ? static_cast<double>(m) * single_read : single_read;
}

}  // namespace

CriticalBatch critical_batch(const DecodeWeights& weights, const OpTotals& one_sequence_all_experts, const Ceilings& c,
                             long most_microbatches) {
  CriticalBatch r;
  const Seconds weight_time = weights.streamed / c.bandwidth;
  r.weights_only =
      over_microbatches(weight_time.value() * c.peak.value() / (2 * weights.multiplied), most_microbatches);

  // One sequence with every expert read: weights are the fixed cost, the rest scales with B. Its
  // FLOPs are timed as the step's are (model/phase.cpp, time_phase): an attention over an fp8
  // cache at the fp8 peak where the GPU's is higher. At the compute format's peak alone, gpt-oss-120b
  // with an fp8 cache at 640 tokens on an H100 said 6689 where its step turns compute-bound at 6975.
  const OpTotals& seq = one_sequence_all_experts;
  const Seconds compute = c.peak_fp8 > c.peak && seq.fp8_flops > Flops(0)
                              ? (seq.flops - seq.fp8_flops) / c.peak + seq.fp8_flops / c.peak_fp8
                              : seq.flops / c.peak;
  const Seconds gain = compute - seq.other_bytes / c.bandwidth;
  if (gain > Seconds(0)) r.at_context = over_microbatches((seq.weight_bytes / c.bandwidth) / gain, most_microbatches);
  return r;
}

}  // namespace roofline
