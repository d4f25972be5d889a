#pragma once
// The critical batch B*: the decode batch at which a step turns from memory- to compute-bound.
#include <optional>

#include "model/layers.hpp"
#include "model/operators.hpp"
#include "model/parameters.hpp"
#include "hardware/roofline.hpp"
#include "model/workload.hpp"

namespace roofline {

// What a decode step's weights cost, over the whole model, as its operators price them
// (model/operators.cpp; tests/cli/test_layer_description.cpp holds B* from these equal to B* from
// the decode operators for every preset and config the tests carry):
struct DecodeWeights {
  // The bytes a step streams at large batches: every weight as stored, every expert, but the
  // embedding tables (a step gathers one row a token of them, which scales with the batch as the
  // cache does) and the towers (never run); a head tied to the embedding streams the table once,
  // as the head.
  Bytes streamed;
  // The weights each token multiplies, 2 FLOPs each: every linear of the decode pass (routed
  // experts at top_k, the routers, the head, latent attention in its absorbed form); not the
  // embedding, a lookup, nor norms, convolutions and recurrent decays, which do no matrix product.
  double multiplied = 0;
};
// From the layers described at tp = 1 and what they weigh as stored.
[[nodiscard]] DecodeWeights decode_weights(const LayerStack& whole, const WeightBytes& stored,
                                           const WeightPricing& pricing);
// A model known only by its size: every parameter a weight of a large matrix, each streamed and
// multiplied (the seed example: 14 GB, 7e9).
[[nodiscard]] DecodeWeights decode_weights(const ParameterCount& params, const WeightBytes& stored);

struct CriticalBatch {
  // The classic formula, weights only: each step streams W bytes and each sequence's token does
  // 2·N FLOPs, N the weights it multiplies, so B* = (W / BW) · FLOPS / (2 · N).
  double weights_only = 0;
  // With the KV cache at the workload's context: B* = (W/BW) / (F_seq/FLOPS − Bytes_seq/BW),
  // with F_seq and Bytes_seq the per-sequence FLOPs and non-weight bytes of a decode step, F_seq/FLOPS
  // timed as the step times it (an attention over an fp8 cache at the fp8 peak: OpTotals::fp8_flops).
  // Empty when per-sequence KV traffic takes longer than per-sequence compute: no crossover.
  std::optional<double> at_context;
};

// Both under a pipeline: a decode step runs M(B) = min(m, B) micro-batches (m its --microbatches,
// pp by default; model/workload.hpp, microbatches), each reading its stage's weights again, so the
// step reads the weights M(B) times (model/engine.cpp, pipeline_phase). Its compute B·F_seq/FLOPS
// meets its memory M(B)·W/BW + B·Bytes_seq/BW where B·g = M(B)·W/BW, g = F_seq/FLOPS −
// Bytes_seq/BW, and with B₁ = (W/BW)/g, the single-read B* above:
//   - up to m sequences each micro-batch holds one, M(B) = B: compute and memory grow together and
//     the step is compute-bound at every such batch if B₁ < 1, memory-bound if B₁ > 1;
//   - from m on, M(B) = m: they meet at B = m·B₁, a batch of m or more where B₁ ≥ 1.
// So B* = m·B₁ where B₁ ≥ 1, else B₁ (compute-bound from one sequence on, as without a pipeline):
// Llama-2-70B at tp 4, pp 2 on H100 is 2 × 295 = 590 weights only, 2 × 920 = 1839 at 640 tokens.

// From the decode step's weights, and the decode step of one sequence with every expert read, its
// operators' sums (the engine works out both once per point); `most_microbatches` is m above, 1
// without a pipeline (model/workload.hpp, most_microbatches).
[[nodiscard]] CriticalBatch critical_batch(const DecodeWeights& weights, const OpTotals& one_sequence_all_experts,
                                           const Ceilings& c, long most_microbatches);

}  // namespace roofline
