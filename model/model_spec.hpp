#pragma once
// One generic decoder-only transformer description covers the families (Llama, Mistral, Qwen,
// Mixtral, ...). A model known only by its size (the teaching form) has no architecture.
#include <optional>
#include <string>

#include "hardware/dtype.hpp"
#include "model/spec_error.hpp"

namespace roofline {

enum class FfnType { gated, plain };  // gated: SwiGLU/GeGLU, 3 matrices; plain: up, act, down
enum class NormType { rmsnorm, layernorm };  // LayerNorm has a bias beside its scale: 2 × width

struct MoeSpec {
  int experts = 0;
  int top_k = 0;
  long ffn = 0;            // width of one expert
  int shared_experts = 0;  // always-active experts of the same width (DeepSeek, Qwen-MoE style)
  int dense_layers = 0;    // leading layers with a dense FFN of width Architecture::ffn (DeepSeek)
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

  [[nodiscard]] long q_dim() const { return heads * head_dim; }
  [[nodiscard]] long kv_dim() const { return kv_heads * head_dim; }
  [[nodiscard]] double norm_params_per_element() const { return norm == NormType::layernorm ? 2 : 1; }
  [[nodiscard]] bool qkv_bias() const { return attention_bias || linear_bias; }
  [[nodiscard]] int moe_layers() const { return moe ? layers - moe->dense_layers : 0; }
  [[nodiscard]] int dense_ffn_layers() const { return layers - moe_layers(); }
};

struct ModelSpec {
  std::string name;
  std::string source;
  std::optional<Architecture> architecture;
  double declared_params = 0;  // the teaching form's `params:`; 0 when the architecture is given
  DType dtype = DType::fp16;
  std::optional<long> max_context;
};

// The first rule the spec breaks, naming the field so the loader can point at it.
[[nodiscard]] std::optional<SpecError> validate(const ModelSpec& m);

}  // namespace roofline
