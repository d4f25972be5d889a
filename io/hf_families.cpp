#include "io/hf_families.hpp"

#include <algorithm>
#include <array>

namespace roofline::io {

namespace {

// transformers' defaults (the config classes' __init__ arguments) for the fields that published
// configs leave out: Gemma 3's text config gives neither `vocab_size` nor its sliding pattern.
constexpr std::array kMistralDefaults = {HfDefault{"sliding_window", 4096}};
constexpr std::array kGemma2Defaults = {
    HfDefault{"vocab_size", 256'000},     HfDefault{"hidden_size", 2304},
    HfDefault{"intermediate_size", 9216}, HfDefault{"num_hidden_layers", 26},
    HfDefault{"num_attention_heads", 8},  HfDefault{"num_key_value_heads", 4},
    HfDefault{"head_dim", 256},           HfDefault{"max_position_embeddings", 8192},
    HfDefault{"sliding_window", 4096}};
constexpr std::array kGemma3Defaults = {
    HfDefault{"vocab_size", 262'208},     HfDefault{"hidden_size", 2304},
    HfDefault{"intermediate_size", 9216}, HfDefault{"num_hidden_layers", 26},
    HfDefault{"num_attention_heads", 8},  HfDefault{"num_key_value_heads", 4},
    HfDefault{"head_dim", 256},           HfDefault{"max_position_embeddings", 131'072},
    HfDefault{"sliding_window", 4096},    HfDefault{"sliding_window_pattern", 6}};
// Llama 4: whether the checkpoint was laid out for llm-compressor (a loading switch).
constexpr std::array<std::string_view, 1> kLlama4Harmless = {"for_llm_compressor"};
constexpr std::array kLlama4Defaults = {HfDefault{"vocab_size", 202'048},
                                        HfDefault{"hidden_size", 5120},
                                        HfDefault{"intermediate_size", 8192},
                                        HfDefault{"intermediate_size_mlp", 16'384},
                                        HfDefault{"num_hidden_layers", 48},
                                        HfDefault{"num_attention_heads", 40},
                                        HfDefault{"num_key_value_heads", 8},
                                        HfDefault{"head_dim", 128},
                                        HfDefault{"max_position_embeddings", 131'072},
                                        HfDefault{"num_experts_per_tok", 1},
                                        HfDefault{"num_local_experts", 16},
                                        HfDefault{"interleave_moe_layer_step", 1},
                                        HfDefault{"attention_chunk_size", 8192},
                                        HfDefault{"no_rope_layer_interval", 4}};
// A shared expert's width left out is its config class's default (hf_ffn.cpp's shared_of_width
// refuses the gap in a family whose table holds none): 0 where the class has no shared expert at
// all. From huggingface/transformers, src/transformers/models/<family>/configuration_<family>.py:
// Qwen3NextConfig.shared_expert_intermediate_size 512.
constexpr std::array kQwen3NextDefaults = {
    HfDefault{"full_attention_interval", 4}, HfDefault{"linear_conv_kernel_dim", 4},
    HfDefault{"linear_key_head_dim", 128},   HfDefault{"linear_value_head_dim", 128},
    HfDefault{"linear_num_key_heads", 16},   HfDefault{"linear_num_value_heads", 32},
    HfDefault{"decoder_sparse_step", 1},     HfDefault{"shared_expert_intermediate_size", 512}};
// Qwen2MoeConfig.shared_expert_intermediate_size 5632 (Qwen1.5-MoE-A2.7B's: 4 experts of 1408).
constexpr std::array kQwen2MoeDefaults = {HfDefault{"decoder_sparse_step", 1},
                                          HfDefault{"shared_expert_intermediate_size", 5632}};
// Qwen3MoeConfig and Qwen3VLMoeTextConfig have no shared expert (Qwen3MoeSparseMoeBlock: the
// routed experts alone): none when left out.
constexpr std::array kQwen3MoeDefaults = {HfDefault{"decoder_sparse_step", 1},
                                          HfDefault{"shared_expert_intermediate_size", 0}};
// LagunaConfig.shared_expert_intermediate_size 512. It has no decoder_sparse_step: its MoE layers
// are mlp_layer_types' (hf_ffn.cpp's laguna_moe_layers).
constexpr std::array kLagunaDefaults = {HfDefault{"shared_expert_intermediate_size", 512}};
// transformers' Qwen3_5MoeTextConfig and Qwen3_5TextConfig: Qwen3-Next's linear attention.
constexpr std::array kQwen35Defaults = {
    HfDefault{"full_attention_interval", 4}, HfDefault{"linear_conv_kernel_dim", 4},
    HfDefault{"linear_key_head_dim", 128},   HfDefault{"linear_value_head_dim", 128},
    HfDefault{"linear_num_key_heads", 16},   HfDefault{"linear_num_value_heads", 32},
    HfDefault{"decoder_sparse_step", 1}};
// Qwen3_5MoeTextConfig.shared_expert_intermediate_size 512, beside the linear attention's.
constexpr std::array kQwen35MoeDefaults = {
    HfDefault{"full_attention_interval", 4}, HfDefault{"linear_conv_kernel_dim", 4},
    HfDefault{"linear_key_head_dim", 128},   HfDefault{"linear_value_head_dim", 128},
    HfDefault{"linear_num_key_heads", 16},   HfDefault{"linear_num_value_heads", 32},
    HfDefault{"decoder_sparse_step", 1},     HfDefault{"shared_expert_intermediate_size", 512}};
// MiniMaxM2Config has no shared_intermediate_size, and MiniMaxM2SparseMoeBlock no shared expert
// (configuration_minimax_m2.py, modular_minimax_m2.py): none when left out.
constexpr std::array kMiniMaxDefaults = {HfDefault{"shared_intermediate_size", 0}};
// Step3p7TextConfig.share_expert_dim 1280 (configuration_step3p7.py).
constexpr std::array kStepDefaults = {HfDefault{"share_expert_dim", 1280}};
// transformers' DeepseekV3Config (vLLM's copy: docs.vllm.ai/en/v0.11.0/api/vllm/transformers_utils/
// configs/deepseek_v3.html): three dense layers first, one shared expert, a 1536-wide Q latent.
constexpr std::array kDeepSeekV3Defaults = {HfDefault{"first_k_dense_replace", 3}, HfDefault{"n_shared_experts", 1},
                                            HfDefault{"q_lora_rank", 1536}};
// transformers' GlmMoeDsaConfig: DeepSeek-V3.2's indexer at GLM-5's widths.
constexpr std::array kGlmDsaDefaults = {HfDefault{"index_topk", 2048}, HfDefault{"index_head_dim", 128},
                                        HfDefault{"index_n_heads", 32}};
// transformers' Gemma4TextConfig.
constexpr std::array kGemma4Defaults = {HfDefault{"sliding_window_pattern", 6}};
// ERNIE-4.5's MoE layers: from layer 1 to the last, every layer (Ernie4_5_MoeConfig).
constexpr std::array kErnieDefaults = {HfDefault{"moe_layer_start_index", 1}, HfDefault{"moe_layer_interval", 1}};
constexpr std::array kGptOssDefaults = {HfDefault{"sliding_window", 128}, HfDefault{"num_local_experts", 128},
                                        HfDefault{"num_experts_per_tok", 4}, HfDefault{"head_dim", 64}};
constexpr std::array kMambaDefaults = {HfDefault{"state_size", 16}, HfDefault{"conv_kernel", 4},
                                       HfDefault{"expand", 2}};
constexpr std::array kMamba2Defaults = {HfDefault{"state_size", 128}, HfDefault{"conv_kernel", 4},
                                        HfDefault{"expand", 2},       HfDefault{"n_groups", 8},
                                        HfDefault{"num_heads", 128},  HfDefault{"head_dim", 64}};

// Fields of one family that change nothing rooflineplan prices (see each entry).
// GPT-2: n_ctx is n_positions again; the attention's scaling switches; the summary_* fields
// configure the double-heads model's classifier, which is not part of the language model.
constexpr std::array<std::string_view, 8> kGpt2Harmless = {
    "n_ctx",        "scale_attn_weights", "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn",
    "summary_type", "summary_activation", "summary_proj_to_labels",          "summary_use_proj"};
// Multimodal wrappers: how images become tokens and the vision tower's own settings, none of
// which the text decoder's pricing reads (the vision tower is stated as not modelled).
constexpr std::array<std::string_view, 9> kWrapperHarmless = {
    "mm_tokens_per_image", "projector_hidden_act", "multimodal_projector_bias",
    "spatial_merge_size",  "vision_feature_layer", "vision_feature_select_strategy",
    "image_seq_length",    "downsample_ratio",     "vision_config"};
// Mamba: the Δ initialisation range and scheme.
constexpr std::array<std::string_view, 5> kMambaHarmless = {"time_step_scale", "time_step_min", "time_step_max",
                                                            "time_step_init_scheme", "time_step_floor"};
// Mamba-2 and Nemotron-H: the scan's chunk (a kernel's tiling), Δ's initialisation and clamp, a
// Δ rank that Mamba-2 does not use (Δ is one value per head), the activations' names, and
// `expand`, which Nemotron-H's mixer does not read (its width is heads × head width); Nemotron 3
// Super's switch that overlaps the shared expert with the dispatch (a schedule), and the layers of
// its MTP module (`mtp_hybrid_override_pattern`; the module is not priced, and said so).
constexpr std::array<std::string_view, 11> kMamba2Harmless = {
    "chunk_size",       "time_step_min",  "time_step_max", "time_step_floor",           "time_step_limit",
    "time_step_rank",   "mamba_hidden_act", "mlp_hidden_act", "expand", "moe_shared_expert_overlap",
    "mtp_hybrid_override_pattern"};
// ERNIE-4.5: its MoE's training capacity and gate kind, the bias-corrected routing, a bias on the
// tied head (one per vocabulary entry, under 0.001 % of the model), and kernel switches.
constexpr std::array<std::string_view, 9> kErnieHarmless = {
    "moe_capacity", "moe_gate", "moe_use_aux_free", "weight_share_add_bias", "use_rmsnorm",
    "fuse_rms_norm", "use_flash_attention", "compression_ratio", "moe_gate_act"};
// Laguna: the routed experts' output scale (routing, not size).
constexpr std::array<std::string_view, 1> kLagunaHarmless = {"moe_routed_scaling_factor"};
// SmolLM3: which layers skip RoPE (positions are not priced).
constexpr std::array<std::string_view, 2> kSmolLm3Harmless = {"no_rope_layers", "no_rope_layer_interval"};
// Qwen3.5: the MTP module's own embeddings (it is not priced), and multimodal RoPE.
constexpr std::array<std::string_view, 2> kQwen35Harmless = {"mtp_use_dedicated_embeddings", "mrope_section"};
// Wrappers of 2026: how images, video and audio become tokens.
constexpr std::array<std::string_view, 12> kWrapper26Harmless = {
    "vision_config", "audio_config", "vision_soft_tokens_per_image", "mm_tokens_per_image", "spatial_merge_size",
    "image_seq_length", "projector_hidden_act", "multimodal_projector_bias", "vision_feature_layer",
    "vision_feature_select_strategy", "downsample_ratio", "audio_soft_tokens_per_image"};
// MiniMax-M2: residual scales per sublayer.
constexpr std::array<std::string_view, 4> kMiniMaxHarmless = {"layernorm_full_attention_beta",
                                                              "layernorm_linear_attention_beta", "layernorm_mlp_beta",
                                                              "layernorm_full_attention_alpha"};

constexpr std::array kFamilies = {
    HfFamily{.architecture = "LlamaForCausalLM", .model_type = "llama"},
    HfFamily{.architecture = "MistralForCausalLM",
             .model_type = "mistral",
             .layers = HfLayers::sliding_when_set,
             .defaults = kMistralDefaults},
    HfFamily{.architecture = "MixtralForCausalLM",
             .model_type = "mixtral",
             .moe = HfMoe::mixtral,
             .layers = HfLayers::sliding_when_set},
    HfFamily{
        .architecture = "Qwen2ForCausalLM", .model_type = "qwen2", .layers = HfLayers::qwen, .attention_bias = true},
    HfFamily{.architecture = "Qwen2MoeForCausalLM",
             .model_type = "qwen2_moe",
             .moe = HfMoe::qwen,
             .layers = HfLayers::qwen,
             .attention_bias = true,
             .defaults = kQwen2MoeDefaults},
    HfFamily{.architecture = "Qwen3ForCausalLM",
             .model_type = "qwen3",
             .layers = HfLayers::qwen,
             .qk_norm = HfQkNorm::always},
    HfFamily{.architecture = "Qwen3MoeForCausalLM",
             .model_type = "qwen3_moe",
             .moe = HfMoe::qwen,
             .layers = HfLayers::qwen,
             .qk_norm = HfQkNorm::always,
             .defaults = kQwen3MoeDefaults},
    HfFamily{.architecture = "Qwen3NextForCausalLM",
             .model_type = "qwen3_next",
             .moe = HfMoe::qwen,
             .layers = HfLayers::qwen3_next,
             .qk_norm = HfQkNorm::always,
             .attention_gate = true,
             .defaults = kQwen3NextDefaults},
    HfFamily{.architecture = "Qwen3_5ForCausalLM",
             .model_type = "qwen3_5_text",
             .layers = HfLayers::qwen3_next,
             .qk_norm = HfQkNorm::always,
             .attention_gate = true,
             .gate_key = "attn_output_gate",
             .defaults = kQwen35Defaults,
             .harmless = kQwen35Harmless},
    HfFamily{.architecture = "Qwen3_5MoeForCausalLM",
             .model_type = "qwen3_5_moe_text",
             .moe = HfMoe::qwen,
             .layers = HfLayers::qwen3_next,
             .qk_norm = HfQkNorm::always,
             .attention_gate = true,
             .gate_key = "attn_output_gate",
             .defaults = kQwen35MoeDefaults,
             .harmless = kQwen35Harmless},
    HfFamily{.architecture = "Qwen3_5ForConditionalGeneration",
             .model_type = "qwen3_5",
             .text_model_type = "qwen3_5_text",
             .tower = HfTower::qwen3_5,
             .harmless = kWrapper26Harmless},
    HfFamily{.architecture = "Qwen3_5MoeForConditionalGeneration",
             .model_type = "qwen3_5_moe",
             .text_model_type = "qwen3_5_moe_text",
             .tower = HfTower::qwen3_5,
             .harmless = kWrapper26Harmless},
    HfFamily{.architecture = "Qwen3VLTextModel",
             .model_type = "qwen3_vl_text",
             .layers = HfLayers::qwen,
             .qk_norm = HfQkNorm::always},
    HfFamily{.architecture = "Qwen3VLMoeTextModel",
             .model_type = "qwen3_vl_moe_text",
             .moe = HfMoe::qwen,
             .layers = HfLayers::qwen,
             .qk_norm = HfQkNorm::always,
             .defaults = kQwen3MoeDefaults},
    HfFamily{.architecture = "Qwen3VLForConditionalGeneration",
             .model_type = "qwen3_vl",
             .text_model_type = "qwen3_vl_text",
             .tower = HfTower::qwen3_vl,
             .harmless = kWrapper26Harmless},
    HfFamily{.architecture = "Qwen3VLMoeForConditionalGeneration",
             .model_type = "qwen3_vl_moe",
             .text_model_type = "qwen3_vl_moe_text",
             .tower = HfTower::qwen3_vl,
             .harmless = kWrapper26Harmless},
    HfFamily{.architecture = "GemmaForCausalLM", .model_type = "gemma", .tied = true},
    HfFamily{.architecture = "Gemma2ForCausalLM",
             .model_type = "gemma2",
             .layers = HfLayers::alternating,
             .tied = true,
             .defaults = kGemma2Defaults},
    HfFamily{.architecture = "Gemma3ForCausalLM",
             .model_type = "gemma3_text",
             .layers = HfLayers::gemma3,
             .qk_norm = HfQkNorm::always,
             .tied = true,
             .defaults = kGemma3Defaults},
    HfFamily{.architecture = "Gemma3ForConditionalGeneration",
             .model_type = "gemma3",
             .text_model_type = "gemma3_text",
             .harmless = kWrapperHarmless},
    HfFamily{.architecture = "Gemma4ForCausalLM",
             .model_type = "gemma4_text",
             .moe = HfMoe::gemma4,
             .layers = HfLayers::gemma3,
             .qk_norm = HfQkNorm::always,
             .tied = true,
             .global_attention = true,
             .defaults = kGemma4Defaults},
    HfFamily{.architecture = "Gemma4ForConditionalGeneration",
             .model_type = "gemma4",
             .text_model_type = "gemma4_text",
             .harmless = kWrapper26Harmless},
    HfFamily{.architecture = "Phi3ForCausalLM", .model_type = "phi3", .layers = HfLayers::sliding_when_set},
    HfFamily{.architecture = "GPT2LMHeadModel",
             .model_type = "gpt2",
             .shape = HfShape::gpt2,
             .tied = true,
             .harmless = kGpt2Harmless},
    HfFamily{
        .architecture = "DeepseekV2ForCausalLM", .model_type = "deepseek_v2", .moe = HfMoe::deepseek, .latent = true},
    HfFamily{.architecture = "DeepseekV3ForCausalLM",
             .model_type = "deepseek_v3",
             .moe = HfMoe::deepseek,
             .latent = true,
             .defaults = kDeepSeekV3Defaults},
    HfFamily{.architecture = "DeepseekV32ForCausalLM",
             .model_type = "deepseek_v32",
             .moe = HfMoe::deepseek,
             .latent = true,
             .sparse = true,
             .defaults = kDeepSeekV3Defaults},
    HfFamily{.architecture = "GlmMoeDsaForCausalLM",
             .model_type = "glm_moe_dsa",
             .moe = HfMoe::deepseek,
             .latent = true,
             .sparse = true,
             .defaults = kGlmDsaDefaults},
    HfFamily{.architecture = "Ernie4_5ForCausalLM", .model_type = "ernie4_5", .harmless = kErnieHarmless},
    HfFamily{.architecture = "Ernie4_5_MoeForCausalLM",
             .model_type = "ernie4_5_moe",
             .moe = HfMoe::ernie,
             .defaults = kErnieDefaults,
             .harmless = kErnieHarmless},
    HfFamily{.architecture = "LagunaForCausalLM",
             .model_type = "laguna",
             .moe = HfMoe::laguna,
             .qk_norm = HfQkNorm::when_asked,
             .qk_norm_default = true,
             .head_gate = true,
             .defaults = kLagunaDefaults,
             .harmless = kLagunaHarmless},
    HfFamily{.architecture = "SmolLM3ForCausalLM", .model_type = "smollm3", .tied = true, .harmless = kSmolLm3Harmless},
    HfFamily{.architecture = "Step3p7FlashForCausalLM",
             .model_type = "step3p7",
             .moe = HfMoe::step,
             .defaults = kStepDefaults},
    HfFamily{.architecture = "Glm4MoeForCausalLM",
             .model_type = "glm4_moe",
             .moe = HfMoe::deepseek,
             .qk_norm = HfQkNorm::when_asked},
    HfFamily{.architecture = "Glm4MoeLiteForCausalLM",
             .model_type = "glm4_moe_lite",
             .moe = HfMoe::deepseek,
             .latent = true},
    HfFamily{.architecture = "MiniMaxM2ForCausalLM",
             .model_type = "minimax_m2",
             .moe = HfMoe::minimax,
             .layers = HfLayers::minimax,
             .qk_norm = HfQkNorm::when_asked,
             .defaults = kMiniMaxDefaults,
             .harmless = kMiniMaxHarmless},
    HfFamily{.architecture = "GptOssForCausalLM",
             .model_type = "gpt_oss",
             .moe = HfMoe::gpt_oss,
             .layers = HfLayers::alternating,
             .attention_bias = true,
             .sinks = true,
             .defaults = kGptOssDefaults},
    HfFamily{.architecture = "Llama4ForCausalLM",
             .model_type = "llama4_text",
             .moe = HfMoe::llama4,
             .layers = HfLayers::llama4,
             .qk_norm = HfQkNorm::when_asked,
             .qk_norm_default = true,
             .defaults = kLlama4Defaults,
             .harmless = kLlama4Harmless},
    HfFamily{.architecture = "Llama4ForConditionalGeneration",
             .model_type = "llama4",
             .text_model_type = "llama4_text",
             .harmless = kWrapperHarmless},
    HfFamily{.architecture = "Mistral3ForConditionalGeneration",
             .model_type = "mistral3",
             .text_model_type = "mistral",
             .harmless = kWrapperHarmless},
    HfFamily{.architecture = "NemotronHForCausalLM",
             .model_type = "nemotron_h",
             .shape = HfShape::nemotron_h,
             .harmless = kMamba2Harmless},
    HfFamily{.architecture = "MambaForCausalLM",
             .model_type = "mamba",
             .shape = HfShape::mamba,
             .tied = true,
             .defaults = kMambaDefaults,
             .harmless = kMambaHarmless},
    HfFamily{.architecture = "Mamba2ForCausalLM",
             .model_type = "mamba2",
             .shape = HfShape::mamba2,
             .defaults = kMamba2Defaults,
             .harmless = kMamba2Harmless},
};

}  // namespace

const HfFamily* hf_family(std::string_view architecture) {
  const auto f = std::find_if(kFamilies.begin(), kFamilies.end(),
                              [&](const HfFamily& x) { return x.architecture == architecture; });
  return f == kFamilies.end() ? nullptr : &*f;
}

const HfFamily* hf_family_of_type(std::string_view model_type) {
  const auto f =
      std::find_if(kFamilies.begin(), kFamilies.end(), [&](const HfFamily& x) { return x.model_type == model_type; });
  return f == kFamilies.end() ? nullptr : &*f;
}

std::span<const HfFamily> hf_families() { return kFamilies; }

}  // namespace roofline::io
