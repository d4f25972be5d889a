#pragma once
// Per-operator FLOP and byte accounting for one prefill pass and one decode step, as run on one
// GPU of a tensor-parallel group. Each operator is summed over all layers.
#include <string>
#include <string_view>
#include <vector>

#include "model/layers.hpp"
#include "model/model_spec.hpp"
#include "model/parameters.hpp"
#include "model/warning.hpp"
#include "hardware/quantity.hpp"
#include "model/workload.hpp"

namespace roofline {

// The matrix product behind a linear op, per layer: [rows × in] · [in × out], `count` times
// (layers × weight copies). Empty for ops that are not matrix products.
struct MatmulShape {
  double rows = 0, in = 0, out = 0, count = 0;
};

// The kernel class that prices an operator's expected time where the GPU has kernel coefficients
// (hardware/kernel_classes.hpp); `other` (Mamba's scans, a naive attention, an indexer, experts in
// formats the expert classes do not take, shapes no table measured) keeps the end-to-end model's
// pricing. `experts`, `experts_fp8`: routed experts' gate/up, activation and down, one fused MoE a
// layer; latent_attention: an MLA layer's attention core at the measured DeepSeek shapes;
// delta_net: a Gated DeltaNet layer's convolution and delta rule.
enum class KernelKind {
  other, linear, linear_fp8,
  linear_fp8_block,  // fp8 weights scaled in 128 × 128 blocks, fp8 arithmetic (DeepSeek-V3's format)
  attention, elementwise, experts, experts_fp8, latent_attention, delta_net
};

struct OpCost {
  std::string_view name;
  std::string_view layers;  // the kind of layer it runs in (sliding, linear, moe...), or empty: the model's one kind
  Flops flops;
  Bytes bytes;         // memory traffic: weights + activations + KV cache
  Bytes weight_bytes;  // the part of `bytes` that is weights: read once per pass, whatever the batch
  Bytes comm_bytes;    // a collective's buffers, summed; such an op is timed on the interconnect
  double comm_calls = 0;  // calls those bytes are split into: each pays the link latency
  MatmulShape shape{};    // what a benchmark must multiply to reproduce this op
  double launches = 0;    // kernels it runs as in a pass: one a layer (an all-reduce: none counted)
  Dequant dequant = Dequant::none;  // what its weights cost to unpack (model/expected.hpp)
  Collective collective = Collective::all_reduce;  // what its comm_bytes are, over `group` GPUs
  int group = 1;
  bool across = false;    // a send between domains (a pipeline boundary at a node's edge)
  KernelKind kernel = KernelKind::other;
  // Runs inside the previous operator's kernel, as engines run them: K and V in Q's GEMM, up in
  // gate's, an attention's values in its scores' kernel. FLOPs and bytes stay its own; one launch.
  bool fused = false;
  // Its products may run on the fp8 tensor cores whatever the GEMMs compute in: an attention over
  // an fp8 cache (TensorRT-LLM's context FMHA multiplies in fp8 there, 1262 TFLOP/s measured on an
  // H100 past its 989 at 16 bits; FlashAttention-3 likewise) and DeepSeek-V3.2's indexer, whose
  // keys are fp8. Its bound takes the fp8 peak where the GPU has one (model/phase.hpp).
  bool fp8_arithmetic = false;
  // An attention's shape, for its kernel class: sequences in the pass, query heads and their
  // width, the queries a sequence brings (decode: 1; prefill: the prompt) and the keys it holds.
  // A recurrent layer's core sets sequences and queries.
  double sequences = 0, heads = 0, head_dim = 0, queries = 0;
  // Decode attention's kernel: the KV heads its query heads share, the keys a sequence reads and
  // holds (a window reads fewer), and its cache's format (an fp8 cache runs another path).
  double kv_heads = 0, keys = 0, context = 0;
  DType kv_format = DType::bf16;
  // A chunked recurrent prefill computes its last chunk whole: its kernel's FLOPs over the
  // operator's (1: the same), which the class is priced on.
  double kernel_work = 1;
  // A windowed prefill's window (0: none): its kernel computes more keys than the window's, which
  // its class prices (hardware/kernel_classes.hpp PrefillAttentionCoefficients::window_keys).
  double window = 0;
};

using OpList = std::vector<OpCost>;

// Σ over a prompt's queries i = 1..n of the keys each sees: n(n+1)/2 for causal attention; chunks
// restart the sum, a window or an indexer's top_k caps it per query.
[[nodiscard]] double pairs_seen(double n, const AttentionStep& a);

// uniform: tokens pick top_k experts independently and uniformly, so a decode step at batch B
// reads E·(1 − (1 − top_k/E)^B) experts; all: every expert is read (the large-batch limit).
enum class ExpertRouting { uniform, all };

[[nodiscard]] OpList build_ops(Phase phase, const ModelSpec& m, const Workload& w,
                               ExpertRouting routing = ExpertRouting::uniform);
// The same from a layer stack already described for w.tp (the engine describes it once per point).
[[nodiscard]] OpList build_ops(Phase phase, const LayerStack& stack, const Workload& w, ExpertRouting routing);
// The same with the weights' pricing under w.precision, which the engine works out once per point.
[[nodiscard]] OpList build_ops(Phase phase, const LayerStack& stack, const Workload& w, ExpertRouting routing,
                               const WeightPricing& pricing);
// The same into `ops`, replacing what it held: the engine prices its passes one after another in
// one buffer, an allocation a point rather than one a pass.
void build_ops(OpList& ops, Phase phase, const LayerStack& stack, const Workload& w, ExpertRouting routing,
               const WeightPricing& pricing);
// The same into a phase's results (model/phase.hpp), each operator's cost built where it is then
// timed (time_phase): copying each operator from a list into its result was a sixth of a point.
struct OpResult;
void build_ops(std::vector<OpResult>& ops, Phase phase, const LayerStack& stack, const Workload& w,
               ExpertRouting routing, const WeightPricing& pricing);

// A pass's sums that the critical batch reads (model/critical_batch.hpp), each taken over its
// operators in the order a list holds them: FLOPs, the bytes that are not weights (each
// operator's bytes − weight_bytes) and the weights' bytes; and of the FLOPs, those whose products
// may run at the fp8 peak (OpCost::fp8_arithmetic), which a phase times at that peak
// (model/phase.cpp).
struct OpTotals {
  Flops flops;
  Bytes other_bytes;
  Bytes weight_bytes;
  Flops fp8_flops{0};
};
[[nodiscard]] OpTotals totals_of(const OpList& ops);
// The same of a pass never kept: each operator priced as build_ops prices it and added to the
// sums (the engine's one-sequence step was a third list built a point, for three sums).
[[nodiscard]] OpTotals build_totals(Phase phase, const LayerStack& stack, const Workload& w, ExpertRouting routing,
                                    const WeightPricing& pricing);

// The operators of the model's layer kinds that no kernel class prices (KernelKind::other), whose
// expected times keep the end-to-end coefficients: Mamba's convolutions and scans, Gated DeltaNet's
// at shapes the tables did not measure, DeepSeek-V3.2's indexer, and a latent layer's attention
// core where it is sparse, of other widths or of more than 128 heads a GPU (in either phase). Not
// those the workload's formats or kernel choices leave unclassed (int8 GEMMs, naive attention).
// Empty for a model of measured kinds only.
[[nodiscard]] OperatorNames unclassed_operators(const Architecture& a, const Workload& w);

}  // namespace roofline
