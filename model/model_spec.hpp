#pragma once
// One generic decoder-only transformer description covers the families (Llama, Mistral, Qwen,
// Mixtral, ...). A model known only by its size (the teaching form) has no architecture.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hardware/dtype.hpp"
#include "model/spec_error.hpp"
#include "model/weight_format.hpp"

namespace roofline {

enum class FfnType { gated, plain };  // gated: SwiGLU/GeGLU, 3 matrices; plain: up, act, down
enum class NormType { rmsnorm, layernorm };  // LayerNorm has a bias beside its scale: 2 × width

struct MoeSpec {
  int experts = 0;
  int top_k = 0;
  long ffn = 0;            // width of one expert
  int shared_experts = 0;  // always-active experts of the same width (DeepSeek, Qwen-MoE style)
  int dense_layers = 0;    // leading layers with a dense FFN of width Architecture::ffn (DeepSeek)
  long latent = 0;         // routed experts run in this width, projected from and to hidden (Nemotron 3 Super); 0: hidden
  bool operator==(const MoeSpec&) const = default;
};

// Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434 §2.1): K and V are decompressed
// from one latent of kv_lora_rank per token, plus one RoPE key shared by all heads; the cache
// holds only those two.
struct LatentAttention {
  long q_lora_rank = 0;  // Q through a low-rank bottleneck of this width; 0: projected directly
  long kv_lora_rank = 0;
  long nope_dim = 0;  // per-head Q/K width without position encoding
  long rope_dim = 0;  // per-head Q/K width with RoPE
  long v_dim = 0;     // per-head V width
  [[nodiscard]] long cache_width() const { return kv_lora_rank + rope_dim; }
  bool operator==(const LatentAttention&) const = default;
};

// What mixes tokens in one layer. full: attends to every earlier token; sliding: to the last
// `sliding_window` tokens (Mistral v0.1, Gemma 2/3, gpt-oss); chunked: to the earlier tokens of its
// own `attention_chunk`-token chunk (Llama 4); linear and ssm: a recurrent layer (`recurrent`) that
// keeps a fixed state per sequence instead of a cache (Gated DeltaNet, Mamba); none: the layer
// has no token mixer, only an FFN (Nemotron-H's MLP layers).
enum class Mixer { full, sliding, chunked, linear, ssm, none };
inline constexpr int kMixerCount = 6;
// What follows the mixer: a dense FFN of width `ffn`, the mixture of experts, or nothing
// (Nemotron-H's Mamba and attention layers).
enum class FfnKind { dense, moe, none };
inline constexpr int kFfnKindCount = 3;

// The recurrent layers a `linear` or `ssm` mixer runs, each with its own projections.
// mamba: Mamba-1 (arXiv 2312.00752); mamba2: Mamba-2 (arXiv 2405.21060); gated_deltanet: Gated
// DeltaNet (arXiv 2412.06464), Qwen3-Next's linear attention.
enum class RecurrentKind { mamba, mamba2, gated_deltanet };

struct Recurrent {
  RecurrentKind kind = RecurrentKind::mamba2;
  long inner = 0;        // width into the output projection: Mamba's d_inner; Gated DeltaNet's value heads × width
  long state = 0;        // Mamba: the state per channel (d_state); Gated DeltaNet: the key head width
  int heads = 0;         // Mamba-2 heads; Gated DeltaNet value heads; 0 for Mamba-1
  int groups = 0;        // Mamba-2 groups sharing B and C; Gated DeltaNet key heads; 0 for Mamba-1
  long conv_kernel = 4;  // taps of the causal convolution before the scan
  long dt_rank = 0;      // Mamba-1: width of the Δ projection; 0 otherwise
  bool conv_bias = true;
  // The state kept in fp32 whatever the KV cache's format, as the checkpoint asks engines to keep
  // it (Qwen3.5's mamba_ssm_dtype, Nemotron's mamba_ssm_cache_dtype: float32; NVIDIA's model
  // cards tell vLLM users to pass --mamba-ssm-cache-dtype float32).
  bool fp32_state = false;
  [[nodiscard]] bool is_linear_attention() const { return kind == RecurrentKind::gated_deltanet; }
  bool operator==(const Recurrent&) const = default;
};

// DeepSeek-V3.2's sparse attention (DSA): a lightning indexer of index_heads × index_dim scores
// every cached token through its own cached key, and attention reads only the top_k best.
struct SparseAttention {
  long top_k = 0;
  int index_heads = 0;
  long index_dim = 0;
  bool operator==(const SparseAttention&) const = default;
};

// The full-attention layers' own shape, where a model whose other layers slide gives them one
// (Gemma 4: 512-wide heads and 2 K/V heads on its global layers, 256 and 8 on its sliding ones;
// Laguna: 48 query heads on its full layers, 64 on its sliding ones).
struct FullAttention {
  int heads = 0;  // query heads; 0: the model's
  int kv_heads = 0;
  long head_dim = 0;
  // One projection gives both K and V (Gemma 4's attention_k_eq_v): one matrix of weights, but K
  // (normed, rotated) and V (normed) differ, so the cache keeps both.
  bool shared_kv = false;
  bool operator==(const FullAttention&) const = default;
};

struct Architecture {
  int layers = 0;
  long hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  long head_dim = 0;  // hidden / heads unless the model says otherwise (Gemma)
  long ffn = 0;
  FfnType ffn_type = FfnType::gated;
  long vocab = 0;
  bool tied_embeddings = false;
  bool attention_bias = false;  // Q/K/V biases (Qwen2)
  bool linear_bias = false;     // a bias on every linear layer, Q/K/V/O and FFN (GPT-2)
  NormType norm = NormType::rmsnorm;
  long position_embeddings = 0;  // rows of a learned absolute position table (GPT-2); 0: none (RoPE)
  std::optional<MoeSpec> moe;
  // With latent attention, head_dim is the Q/K head width (nope + rope) and kv_heads = heads:
  // prefill decompresses K and V and attends as multi-head attention.
  std::optional<LatentAttention> mla;
  // Per-layer kinds, each list repeated over the layers from the first (a list as long as the
  // stack gives each layer its own kind). Empty: every layer full attention; every layer MoE
  // after moe.dense_layers when `moe` is given, else dense.
  std::vector<Mixer> mixer_pattern;
  std::vector<FfnKind> ffn_pattern;
  long sliding_window = 0;    // tokens a sliding layer sees, itself included
  long attention_chunk = 0;   // tokens of a chunked layer's chunk
  bool attention_sinks = false;  // a learned sink logit per head and layer (gpt-oss): parameters, no cache
  bool qk_norm = false;          // an RMSNorm of head_dim on each query and key head (Qwen3, Gemma 3)
  // The Q/K norms each over all the heads, not one a head (MiniMax-M2's `qk_norm_type: per_layer`):
  // priced as qk_norm's, but tensor parallelism all-reduces each token's two variances a layer.
  bool qk_norm_per_layer = false;
  bool attention_gate = false;   // Q projects a sigmoid gate on the output too (Qwen3-Next): Q twice as wide
  bool head_gate = false;        // one gate a query head on the output, from the hidden state (Laguna's g_proj)
  std::optional<Recurrent> recurrent;
  std::optional<SparseAttention> sparse;
  std::optional<FullAttention> full_attention;  // empty: full layers as the others
  // Weights of encoders shipped in the checkpoint beside the decoder (a multimodal wrapper's vision
  // and audio towers): held in memory in the activation format, never run. Image and audio tokens
  // are not priced.
  double tower_params = 0;
  // Gemma 4 E2B/E4B: the last `kv_shared_layers` layers read the cache of the last earlier layer of
  // their kind (no K/V projections, no cache of their own), their dense FFN `kv_shared_ffn` wide
  // (0: `ffn`; E2B's double-wide MLP: 2 × ffn).
  int kv_shared_layers = 0;
  long kv_shared_ffn = 0;
  // Per-layer inputs (Gemma 4 E2B/E4B's PLE): each token gathers a row of `layers` × `per_layer_input`
  // from a table of `per_layer_vocab` rows (0: vocab), adds a projection of its embedding, and each
  // layer gates its share in and projects it back to the residual stream. 0: none.
  long per_layer_input = 0;
  long per_layer_vocab = 0;
  // Multi-token-prediction modules shipped beside the stack (DeepSeek-V3's num_nextn_predict_layers,
  // arXiv 2412.19437 §2.2): each one block of the last layer's kind on the model's embedding and
  // head. Not in the model's weights or steps; they draft for `--speculative K:ACCEPT:mtp`.
  int mtp_modules = 0;
  // Set on an MTP module drafting (serve/draft.cpp), never read from a file: its block starts by
  // normalising the next token's embedding and the target's hidden state (enorm, hnorm) and
  // projecting the two joined back to hidden (eh_proj, 2·hidden × hidden).
  bool mtp_input = false;

  [[nodiscard]] Mixer mixer(int layer) const;
  [[nodiscard]] FfnKind ffn_kind(int layer) const;
  // Layers of each kind, by the enums' order.
  [[nodiscard]] std::array<int, kMixerCount> mixer_counts() const;
  [[nodiscard]] std::array<int, kFfnKindCount> ffn_counts() const;
  // The same among the first `first` layers.
  [[nodiscard]] std::array<int, kMixerCount> mixers_before(int first) const;
  [[nodiscard]] std::array<int, kFfnKindCount> ffns_before(int first) const;
  [[nodiscard]] int attention_layers() const;  // full, sliding and chunked: the layers with heads

  [[nodiscard]] long q_dim() const { return heads * head_dim; }
  [[nodiscard]] long kv_dim() const { return kv_heads * head_dim; }
  [[nodiscard]] double norm_params_per_element() const { return norm == NormType::layernorm ? 2 : 1; }
  [[nodiscard]] bool qkv_bias() const { return attention_bias || linear_bias; }
  [[nodiscard]] int moe_layers() const { return ffn_counts()[static_cast<int>(FfnKind::moe)]; }
  [[nodiscard]] int dense_ffn_layers() const { return ffn_counts()[static_cast<int>(FfnKind::dense)]; }
  bool operator==(const Architecture&) const = default;
};

// What a reader assumed for a field its source left out, or left out of the model: stated in
// every output beside the numbers it changes.
enum class Assumption {
  dtype_bf16,          // a config without torch_dtype: priced in bf16, as serving engines load it
  vision_not_modelled, // a multimodal wrapper whose tower configs give no dimensions: not priced at all
  mtp_not_modelled,    // multi-token-prediction layers shipped beside the model are not priced
  towers_in_memory,    // a multimodal wrapper's towers: weights estimated from their configs and held, never run
  quantization_beside, // the formats read from ModelOpt's hf_quant_config.json beside config.json
  dtype_fp32_as_bf16,  // a config whose torch_dtype is float32: priced in bf16, as serving engines load it
};
inline constexpr int kAssumptionCount = 6;

struct ModelSpec {
  std::string name;
  std::string source;
  std::optional<Architecture> architecture;
  double declared_params = 0;  // the teaching form's `params:`; 0 when the architecture is given
  DType dtype = DType::fp16;
  std::optional<long> max_context;
  // The formats the checkpoint stores its weights in, per tensor class, where they are not all
  // `dtype` (a quantized checkpoint); empty: every weight in `dtype`.
  std::optional<Quantization> quantization;
  std::vector<Assumption> assumptions;
};

// The first rule the spec breaks, naming the field so the loader can point at it.
[[nodiscard]] std::optional<SpecError> validate(const ModelSpec& m);

// Whether the layers hold weights of a block class: attention (and recurrent) projections in
// every model, dense FFNs, routed and shared experts where layers have them; the LM head and the
// embedding always. What a quantizer converts, and what a format may be given for.
[[nodiscard]] bool holds(const Architecture& a, TensorClass c);

// Drops what no layer of a model cut from another uses (an MTP draft's one layer, validate's
// budgeted layers): a window without sliding layers, a chunk, a recurrent or moe section, the
// formats of classes it no longer holds. validate() refuses them in a model as given.
void drop_unused(ModelSpec& m);

// The Hugging Face id a `source` names: `HF Qwen/Qwen3-8B config.json, bf16 …` is Qwen/Qwen3-8B
// (from "HF " to the first space or comma, an organisation and a name); empty otherwise.
[[nodiscard]] std::optional<std::string> hf_id_of_source(std::string_view source);

}  // namespace roofline
