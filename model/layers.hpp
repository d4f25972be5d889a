#pragma once
// One description of a model's layer stack as one GPU of a tensor-parallel group runs it: every
// linear (widths, weight copies, bias, storage class), norm, activation, attention core and
// all-reduce, in the order the kernels run. Parameter counts (described at tp = 1), operator
// costs and activation memory are all read from this one description, so a new kind of block
// is written once, here, and the three cannot disagree.
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "hardware/collectives.hpp"
#include "model/model_spec.hpp"
#include "model/workload.hpp"

namespace roofline {

enum class Phase { prefill, decode };
[[nodiscard]] std::string_view name(Phase p);

// The class a weight is stored as, each in its own format (model/weight_format.hpp): a quantized
// checkpoint picks a format per class, and leaves the small tensors (norms, biases, routers,
// convolutions, recurrent decays) in 16 bits. A recurrent layer's projections are its mixer's:
// attention. Each but `small` has the value of its TensorClass.
enum class WeightClass { attention, dense_ffn, experts, lm_head, small, shared_experts };

// Latent attention multiplies the same K/V up-projection weights in two forms: as one product
// in prefill, absorbed into the query and the output in decode. A step may run in one phase only.
enum class Phases { both, prefill_only, decode_only };

// DeepSeek-V3.2's indexer keys as vLLM, SGLang and TensorRT-LLM cache them whatever the KV cache's
// format: fp8 with one fp32 scale a 128 elements, 132 bytes a 128-wide key (vLLM's
// DeepseekV32IndexerCache: head_dim + head_dim / 128 · 4 bytes of uint8). Priced in the KV format,
// a bf16 cache held 9.7% more a token than the engines do.
inline constexpr double kIndexerKeyBytes = 1 + 4.0 / 128;

// y[rows, out] = x[rows, in] · W[in, out], for each of `copies` weight matrices.
struct LinearStep {
  std::string_view name;
  double in = 0, out = 0;     // widths on this GPU
  double copies = 1;          // weight matrices stored: every expert, or one per absorbed head
  double rows_per_token = 1;  // product rows per token: top_k for routed experts, heads when absorbed
  double bias = 0;            // bias elements on this GPU, stored in the activation format
  WeightClass weights = WeightClass::attention;
  bool to_cache = false;      // the output is written into the KV cache, in the cache's format
  double cache_outputs = 1;   // to_cache: tensors the cache keeps of the output (2: K and V from one projection;
                              // a sparse latent's fp8 record, 656 / 576: what it holds beyond the output's elements)
  bool indexer_keys = false;  // to_cache: kept at kIndexerKeyBytes an element whatever the cache's format
  bool last_token = false;    // run on each sequence's last token only (the LM head)
  bool counted = true;        // false: the weights are another step's (an LM head tied to the embedding)
  bool routed = false;        // experts: each token picks `picks` of the `pool`, of which this GPU holds `copies`
  double picks = 0, pool = 0; // routed: top_k and all experts
  // routed: the busiest GPU's picks over the mean (Sharding::imbalance under ep): its tokens reach
  // as many distinct experts as that many times the tokens would on a GPU of mean load.
  double busiest = 1;
  // Decode's absorbed form of a matrix another step stores (MLA's q_absorb and v_absorb, kv_b_proj
  // per head): priced as it runs, but not a tensor of its own that a format's groups or blocks tile.
  bool absorbed = false;
  bool joins_previous = false;  // reads the previous linear's input (Q/K/V, gate/up): their outputs live together
  bool to_residual = false;     // adds into the residual stream (O, down): no intermediate of its own
  // Kept in the activation format (16-bit unless --activations fp32) where its class is
  // fp8-block: Gated DeltaNet's gate projections (`in_proj_ba`; Qwen3.5's `in_proj_a` and
  // `in_proj_b`), 2 × value heads columns, narrower than one 128-wide scale block. Qwen's FP8 checkpoints (Qwen3-Next-80B-A3B-FP8,
  // Qwen3.5-397B-A17B-FP8) list them per layer in `modules_to_not_convert`, and engines load them
  // unquantized (TensorRT-LLM's test_qwen_image_bench_config_normalizes_top_level_quantization
  // asserts `model.layers.0.linear_attn.in_proj_ba` excluded from an fp8 [128, 128] config). Priced
  // 16-bit (WeightPricing::matrices), run as a 16-bit GEMM, never checked for splitting a block.
  bool block_exempt = false;
};

// A fused residual-add + norm over `width` elements; its weights are a scale (RMSNorm) or a
// scale and a bias (LayerNorm) per element.
struct NormStep {
  std::string_view name;
  double width = 0;
  double params_per_element = 1;
  double param_width = 0;  // weights shared across heads (Q/K norms: head_dim); 0: `width`
  bool residual = true;    // fused with the residual add, which reads and writes a second stream
};

// A causal depthwise convolution over `channels`, `kernel` taps (a recurrent layer's input).
// Its last kernel − 1 inputs are kept per sequence, with the recurrent state.
struct ConvStep {
  std::string_view name;
  double channels = 0, kernel = 0;
  bool bias = true;
  bool delta_net = false;  // a Gated DeltaNet layer's at the shapes its kernel class measured
};

// A recurrent layer's scan: per token, every element of the state decays, takes the token's
// update and is read out, at flops_per_element; decode reads and writes the whole state of each
// sequence, prefill writes it once. `params`: per-channel decays, skips and step biases.
struct RecurrentStep {
  std::string_view name;
  double state = 0;       // state elements per sequence on this GPU
  double conv_state = 0;  // the convolution's kept inputs per sequence
  double flops_per_element = 0;
  double inputs = 0, outputs = 0;  // activation elements a token brings in and takes out
  double params = 0;
  bool fp32_state = false;  // the state held in fp32 (Recurrent::fp32_state)
  bool delta_net = false;   // a Gated DeltaNet layer's at the shapes its kernel class measured
  // Bytes an element of the kept inputs, and of the state where not in fp32: the model's format
  // (Sharding::state_bytes), whatever the KV cache's.
  double element_bytes = 2;
  // What one sequence keeps on this GPU: the scan's state, and the convolution's kept inputs.
  [[nodiscard]] double state_bytes() const { return state * (fp32_state ? 4.0 : element_bytes); }
  [[nodiscard]] double conv_bytes() const { return conv_state * element_bytes; }
};

// The elementwise activation between an FFN's up and down products.
struct ActivationStep {
  std::string_view name;
  double width = 0;
  bool gated = true;          // SiLU(gate)·up reads two tensors; GELU one
  double rows_per_token = 1;  // top_k for routed experts
  bool routed = false;        // between routed experts' GEMMs: a step of the fused MoE
};

// Scores and the weighted sum of values, per head: queries and keys of qk_dim, values of v_dim;
// each cached token supplies k_width and v_width elements (all heads on this GPU), read from the
// cache in its format, or (latent attention's prefill) decompressed in the activation format.
// window: a query sees the last `window` tokens (itself included); chunk: the earlier tokens of its
// own chunk; both 0: every earlier token. top_k: of those, only the top_k an indexer picks
// (DeepSeek-V3.2). `params`: per-head sink logits (gpt-oss), stored in 16 bits.
// What computes an attention core: softmax attention over per-head K and V (the decode and
// prefill attention classes), a latent attention layer's (decode over the shared latent with
// FlashMLA, prefill over K and V decompressed from it: the latent classes), or a sparse indexer's
// scoring (no class).
enum class AttentionKind { heads, latent, indexer };

struct AttentionStep {
  std::string_view name = "attn";
  AttentionKind kind = AttentionKind::heads;
  double heads = 0, qk_dim = 0, v_dim = 0;
  double k_width = 0, v_width = 0;
  bool reads_cache = true;
  double window = 0, chunk = 0, top_k = 0;
  double params = 0;
};

// A row gather from the token embedding (and learned positions, where there are): only the rows
// of the tokens in the pass are read, never a whole table.
struct GatherStep {
  std::string_view name;
  double width = 0;
  double tables = 1;  // tables a token reads on this GPU, each vocab-parallel: 1/tp of its rows here
  double rows = 0;    // rows of all tables together (vocabulary + positions), for parameter counts
  double split = 1;   // GPUs the tables' rows are split over (vocab-parallel)
};

// A collective over `group` GPUs of a pipeline stage on `width` elements per row (a row: a token,
// or each of a token's `rows_per_token` copies): the all-reduce after a tensor-parallel block (the
// vocab-parallel embedding's included), the gather of the vocab-parallel head's logits, or
// the all-to-alls that send tokens to their experts and back, as the busiest GPU's link carries
// them (a token once to each GPU holding one of its experts, the busiest receiving `imbalance`
// times the mean's tokens, at most all of them: model/layers.cpp ffn_blocks).
struct CollectiveStep {
  std::string_view name;
  Collective kind = Collective::all_reduce;
  double width = 0;
  double rows_per_token = 1;
  int group = 1;
  // Sent in 8 bits where the experts compute from 8-bit weights or narrower (DeepEP's fp8
  // dispatch); else in the activation format.
  bool quantized = false;
  double element_bytes = 0;  // > 0: sent in elements of this many bytes whatever the formats (fp32 norm sums)
  bool last_token = false;   // on each sequence's last token only, as the LM head it follows (its logits)
};

using Step = std::variant<LinearStep, NormStep, ActivationStep, AttentionStep, GatherStep, CollectiveStep, ConvStep,
                          RecurrentStep>;

// Which rows of a pass a GPU runs a step on: every token of the stage (tensor parallelism splits
// widths, not tokens), or (data-parallel attention) the tokens of its own sequences.
enum class Rows { all, own };

struct PhasedStep {
  Step step;
  Phases phases = Phases::both;
  Rows rows = Rows::all;
  [[nodiscard]] bool runs_in(Phase p) const {
    return phases == Phases::both || (p == Phase::prefill ? phases == Phases::prefill_only : phases == Phases::decode_only);
  }
};

// Which of the model's layers a block's `layers` are: those of one mixer or FFN kind, in the whole
// stack, before the layers that read an earlier layer's cache or among them; every layer; or none
// (an end: the embedding, the head). A pipeline stage counts its share of each block by it
// (layers_in).
struct LayerSelection {
  enum class Of { none, every, mixer, ffn };
  enum class Part { all, owning, sharing };  // sharing: the last Architecture::kv_shared_layers
  Of of = Of::none;
  int kind = 0;  // a Mixer or an FfnKind
  Part part = Part::all;
};

// Steps repeated over `layers` layers (1 for the embedding and the head). A layer's cache keeps
// only what its queries can still see: the last `window` tokens, or the current `chunk`; both 0:
// every token. `label` tells blocks of one kind of layer from another's (sliding, moe).
struct Block {
  double layers = 1;
  std::vector<PhasedStep> steps;
  double window = 0, chunk = 0;
  std::string_view label;
  LayerSelection selection;
};

struct LayerStack {
  std::vector<Block> blocks;  // in the order the kernels run
  double hidden = 0;          // the residual stream's width (never split)
  int tp = 1;                 // the group whose one GPU this describes
  int data_parallel = 1;      // GPUs the `Rows::own` steps split the sequences over (1: none)
  double tower_params = 0;    // encoder weights this GPU holds and never runs (Architecture::tower_params / tp)
  // The number described_layers gave this description when it kept it (0: one it did not keep),
  // never given twice in a process; a copy carries it. Where a description is kept, one described
  // later takes a new number, so what a point works out of a kept description (model/engine.cpp:
  // its weights) can be kept beside it under the stack's address and this number.
  std::uint64_t serial = 0;
  // GPUs holding some of each sequence's cache: tp (each caches its heads, or a replica), or 1
  // when each GPU caches only its own sequences (data-parallel attention).
  [[nodiscard]] int cache_holders() const { return data_parallel > 1 ? 1 : tp; }
};

// How a pipeline stage's GPUs share the layers (Workload::tp, ep, dp_attention).
//   tp: attention, dense FFNs, shared experts, embedding and head split by width (Megatron-LM);
//   ep: the routed experts sharded over ep of the tp GPUs, each expert split by tp / ep;
//   dp_attention (DeepSeek-style, ep = tp): everything but the routed experts data-parallel, each
//     GPU on its own sequences with whole weights; tokens sent to their experts and back by
//     all-to-alls.
// imbalance: the busiest GPU's expert rows over the mean (EP's load imbalance).
// state_bytes: an element of a recurrent layer's state (where not fp32) and kept convolution
// inputs, in the model's format whatever the KV cache's: vLLM keeps them in mamba_cache_dtype and
// mamba_ssm_cache_dtype, the model's dtype unless asked (MambaStateDtypeCalculator), never in
// --kv-cache-dtype. Only a sequence's cache reads it (cache_elements).
struct Sharding {
  int tp = 1;
  int ep = 1;
  bool dp_attention = false;
  double imbalance = 1.0;
  double state_bytes = 2;
  DType kv = DType::bf16;  // the KV cache's format: a sparse latent layer's fp8 cache is a record of its own
  bool operator==(const Sharding&) const = default;
};

// The workload's layout of a stage, its recurrent state in the activation format.
[[nodiscard]] Sharding sharding(const Workload& w);
// The whole model (tp 1) as the workload keeps its recurrent state.
[[nodiscard]] Sharding whole_model(const Workload& w);

// Bytes a latent attention layer caches a token in the `kv` format: its latent and RoPE key
// (kv_lora_rank + rope_dim elements), except where the layer is sparse (DeepSeek-V3.2's and GLM-5's
// DSA indexer) and the cache fp8: FlashMLA's sparse kernels read their own record, vLLM's
// `fp8_ds_mla` (`--kv-cache-dtype fp8` is its alias there), the latent in fp8 with an fp32 scale a
// 128 of it and the RoPE key left in bf16: 512 + 4 · 4 + 64 · 2 = 656 bytes for DeepSeek-V3.2's
// 512 + 64, not 576 (vllm/v1/attention/backends/mla/flashmla_sparse.py). A dense layer's fp8 cache
// is 576 fp8 values under one per-tensor scale (FlashMLA's dense fp8 decode, flashmla.py). The
// one width the ledger, the decode attention's reads and the cache writes all take
// (latent_attention in model/layers.cpp). The indexer's keys are apart (kIndexerKeyBytes).
[[nodiscard]] double latent_cache_bytes(const LatentAttention& l, bool sparse, DType kv);

// Whether the kernel tables measured a Gated DeltaNet layer's kernels at its shapes: 128-wide key
// and value heads and a 4-tap convolution (every Qwen3.5 and Qwen3-Next).
[[nodiscard]] bool delta_net_measured(const Recurrent& r);

// The architecture as run by one GPU of a stage. tp = 1 describes the whole model.
[[nodiscard]] LayerStack describe_layers(const Architecture& a, const Sharding& sharding);
[[nodiscard]] LayerStack describe_layers(const Architecture& a, int tp);
// The same, kept: each thread keeps the two descriptions it asked for last (the engine asks for
// one or two at every point it evaluates, a sweep millions of points of one model), and describes
// again only what differs from both. A reference stays valid until this thread asks for two others.
[[nodiscard]] const LayerStack& described_layers(const Architecture& a, const Sharding& sharding);

// How many of block `b`'s layers lie among the model's layers [begin, end) (a pipeline stage's).
[[nodiscard]] int layers_in(const Architecture& a, const Block& b, int begin, int end);

}  // namespace roofline
