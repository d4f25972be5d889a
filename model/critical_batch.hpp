#pragma once
// The critical batch B*: the decode batch at which a step turns from memory- to compute-bound.
#include <optional>

#include "model/operators.hpp"
#include "model/parameters.hpp"
#include "hardware/roofline.hpp"
#include "model/workload.hpp"

namespace roofline {

struct CriticalBatch {
  // The classic formula, weights only: each step reads W bytes and does 2·N_active FLOPs per
  // sequence, so B* = (W / BW) · FLOPS / (2 · N_active).
  double weights_only = 0;
  // With the KV cache at the workload's context: B* = (W/BW) / (F_seq/FLOPS − Bytes_seq/BW),
  // with F_seq and Bytes_seq the per-sequence FLOPs and non-weight bytes of a decode step.
  // Empty when per-sequence KV traffic takes longer than per-sequence compute: no crossover.
  std::optional<double> at_context;
};

// From the parameters, the bytes of every weight as stored, and the decode step of one sequence
// with every expert read, its operators' sums (the engine works out all three once per point).
[[nodiscard]] CriticalBatch critical_batch(const ParameterCount& params, Bytes weights,
                                           const OpTotals& one_sequence_all_experts, const Ceilings& c);

}  // namespace roofline
