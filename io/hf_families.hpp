#pragma once
// The Hugging Face families rooflineplan reads, one row each: what distinguishes a family's
// config.json from the generic decoder (its experts, its layer kinds, its defaults), so that the
// reading code is one set of functions switched by these columns.
#include <span>
#include <string_view>

#include "io/hf_fields.hpp"

namespace roofline::io {

// The layer stack's overall shape. decoder: attention (or a recurrent mixer) then an FFN in every
// layer, Llama's field names; gpt2: GPT-2's names, LayerNorm, biases, learned positions;
// mamba / mamba2: recurrent layers with no FFN; nemotron_h: one mixer or one FFN per layer, by
// `hybrid_override_pattern`.
enum class HfShape { decoder, gpt2, mamba, mamba2, nemotron_h };

// How a family names its experts (see hf_ffn.cpp). laguna: Qwen's experts, its MoE layers by
// `mlp_layer_types` (transformers' LagunaConfig).
enum class HfMoe { none, mixtral, qwen, deepseek, llama4, gpt_oss, minimax, ernie, step, gemma4, laguna };

// How a family says which layers attend how (see hf_layer_kinds.cpp). full: every layer (a
// `layer_types` list, where a config has one, is read in every family); sliding_when_set: every
// layer slides when `sliding_window` is not null (Mistral, Mixtral, Phi-3); qwen: Qwen's
// `use_sliding_window`, refused when on; alternating: sliding, full, ... (Gemma 2, gpt-oss);
// gemma3: 5 sliding to 1 full (`sliding_window_pattern`); gemma4: 5 sliding to 1 full whatever
// `sliding_window_pattern` says, the last layer full (Gemma4TextConfig); llama4: chunked but every
// 4th (`no_rope_layers`); qwen3_next: linear attention but every 4th (`full_attention_interval`);
// minimax: `attn_type_list`, 1 for full attention.
enum class HfLayers { full, sliding_when_set, qwen, alternating, gemma3, gemma4, llama4, qwen3_next, minimax };

enum class HfQkNorm { none, always, when_asked };  // when_asked: `use_qk_norm`

// How a wrapper's vision tower is counted (see hf_towers.cpp). encoder: a plain transformer
// encoder estimated from its config; qwen3_vl: transformers' Qwen3VLVisionModel counted weight by
// weight, its DeepStack mergers included; qwen3_5: the same model without them (Qwen3_5VisionModel
// deletes its deepstack_merger_list); pixtral: Mistral 3's PixtralVisionModel and
// Mistral3MultiModalProjector counted weight by weight, from the vision config and the wrapper's own
// `spatial_merge_size`, `vision_feature_layer` and `multimodal_projector_bias`.
enum class HfTower { encoder, qwen3_vl, qwen3_5, pixtral };

// What a DeepSeek-style config leaves out of first_k_dense_replace, n_shared_experts and
// q_lora_rank differs by reader: the family table holds transformers' DeepseekV3Config's for
// deepseek_v3 and deepseek_v32 (3, 1, 1536), the reader vLLM and SGLang load these with; other
// families refuse the gap (HfFields::count_or_none).
inline constexpr std::string_view kDeepSeekLeftOut =
    "its default differs between readers (transformers' config classes, the checkpoints' own code), and "
    "this family's table holds none";

struct HfFamily {
  std::string_view architecture;  // architectures[0]
  std::string_view model_type;    // for a config that names only its model_type
  HfShape shape = HfShape::decoder;
  HfMoe moe = HfMoe::none;
  HfLayers layers = HfLayers::full;
  HfQkNorm qk_norm = HfQkNorm::none;
  bool qk_norm_default = false;  // use_qk_norm's default
  bool qk_norm_per_layer = false;  // qk_norm_type's default is per_layer: one norm over all the heads (MiniMax-M2)
  bool attention_bias = false;   // attention_bias's default (Qwen2 always has Q/K/V biases)
  bool tied = false;             // tie_word_embeddings' default
  bool latent = false;           // multi-head latent attention (DeepSeek-V2/V3)
  bool sparse = false;           // DeepSeek-V3.2's indexer
  bool sinks = false;            // a learned sink per head (gpt-oss)
  bool attention_gate = false;   // Q also projects an output gate (Qwen3-Next)
  std::string_view gate_key = {};  // the field that turns the gate on or off (Qwen3.5's attn_output_gate)
  bool head_gate = false;          // `gating`'s default: a gate a query head on the output (Laguna's g_proj)
  // Full-attention layers of their own shape: global_head_dim, num_global_key_value_heads and
  // attention_k_eq_v (Gemma 4).
  bool global_attention = false;
  // A multimodal wrapper: its decoder is read from `text_config`, of this model_type unless the
  // text config names its own.
  std::string_view text_model_type = {};
  HfTower tower = HfTower::encoder;                  // how its vision_config is counted
  std::span<const HfDefault> defaults = {};         // transformers' defaults for fields left out
  // What a config that leaves out num_key_value_heads, or the head width, means: where the
  // family's transformers config class derives it (LlamaConfig: as many K/V heads as query heads
  // when None; head_dim = hidden_size // num_attention_heads), the derivation; where the class has a
  // number, that number in `defaults` (Qwen3Config's head_dim 128). Neither: the gap is refused
  // naming the key (hf_attention.cpp), never derived on a guess. JSON's null, written, derives.
  bool derives_kv_heads = false;
  bool derives_head_dim = false;
  std::span<const std::string_view> harmless = {};  // the family's own fields that change nothing priced
};

// The family of an `architectures` entry, or of a `model_type` (the text config of a wrapper).
[[nodiscard]] const HfFamily* hf_family(std::string_view architecture);
[[nodiscard]] const HfFamily* hf_family_of_type(std::string_view model_type);
[[nodiscard]] std::span<const HfFamily> hf_families();

}  // namespace roofline::io
