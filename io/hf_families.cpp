#include "io/hf_families.hpp"

#include <algorithm>
#include <array>

namespace roofline::io {

namespace {

// transformers' defaults (the config classes' __init__ arguments, or their dataclass fields) for
// the fields that published configs leave out: Gemma 3's text config gives neither `vocab_size` nor
// its sliding pattern. From huggingface/transformers, src/transformers/models/<family>/
// configuration_<family>.py (or modular_<family>.py), class named beside each table.
//
// num_key_value_heads and head_dim left out (hf_attention.cpp): a class that derives them (as
// LlamaConfig does: K/V heads = query heads when None, head_dim = hidden_size // num_attention_heads,
// or a modeling class's `getattr(config, "head_dim", hidden_size // num_attention_heads)` where the
// config class has no head_dim) says so in its row (derives_kv_heads, derives_head_dim); a class with
// a number gives it here. Read as the generic derivation, gpt-oss-20b without num_key_value_heads
// cached 393,216 bytes a token for GptOssConfig's 49,152, and Qwen3-32B without head_dim had heads
// of 80 for Qwen3Config's 128.
//
// MistralConfig (configuration_mistral.py): num_key_value_heads 8, head_dim None → derived.
constexpr std::array kMistralDefaults = {HfDefault{"sliding_window", 4096}, HfDefault{"num_key_value_heads", 8}};
// MixtralConfig: num_key_value_heads 8, head_dim None → derived.
constexpr std::array kMixtralDefaults = {HfDefault{"num_key_value_heads", 8}};
// Qwen2Config: num_key_value_heads 32; no head_dim (Qwen2Attention derives it).
constexpr std::array kQwen2Defaults = {HfDefault{"num_key_value_heads", 32}};
// Qwen3Config: num_key_value_heads 32, head_dim 128.
constexpr std::array kQwen3Defaults = {HfDefault{"num_key_value_heads", 32}, HfDefault{"head_dim", 128}};
// Qwen3VLTextConfig (configuration_qwen3_vl.py): num_key_value_heads 32, head_dim 128.
constexpr std::array kQwen3VlDefaults = {HfDefault{"num_key_value_heads", 32}, HfDefault{"head_dim", 128}};
// GemmaConfig: num_key_value_heads 16, head_dim 256.
constexpr std::array kGemmaDefaults = {HfDefault{"num_key_value_heads", 16}, HfDefault{"head_dim", 256}};
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
// all. Qwen3NextConfig: shared_expert_intermediate_size 512, num_key_value_heads 2, head_dim 256.
constexpr std::array kQwen3NextDefaults = {
    HfDefault{"full_attention_interval", 4}, HfDefault{"linear_conv_kernel_dim", 4},
    HfDefault{"linear_key_head_dim", 128},   HfDefault{"linear_value_head_dim", 128},
    HfDefault{"linear_num_key_heads", 16},   HfDefault{"linear_num_value_heads", 32},
    HfDefault{"decoder_sparse_step", 1},     HfDefault{"shared_expert_intermediate_size", 512},
    HfDefault{"num_key_value_heads", 2},     HfDefault{"head_dim", 256}};
// Qwen2MoeConfig.shared_expert_intermediate_size 5632 (Qwen1.5-MoE-A2.7B's: 4 experts of 1408);
// num_key_value_heads 16; no head_dim (derived).
constexpr std::array kQwen2MoeDefaults = {HfDefault{"decoder_sparse_step", 1},
                                          HfDefault{"shared_expert_intermediate_size", 5632},
                                          HfDefault{"num_key_value_heads", 16}};
// Qwen3MoeConfig has no shared expert (Qwen3MoeSparseMoeBlock: the routed experts alone): none when
// left out; num_key_value_heads 4; no head_dim (Qwen3MoeAttention, Qwen3Attention's, derives it:
// Qwen3-30B-A3B without its head_dim has heads of 2048 / 32 = 64 in transformers and vLLM alike).
constexpr std::array kQwen3MoeDefaults = {HfDefault{"decoder_sparse_step", 1},
                                          HfDefault{"shared_expert_intermediate_size", 0},
                                          HfDefault{"num_key_value_heads", 4}};
// Qwen3VLMoeTextConfig (configuration_qwen3_vl_moe.py): no shared expert; num_key_value_heads 16;
// head_dim None → hidden_size // num_attention_heads.
constexpr std::array kQwen3VlMoeDefaults = {HfDefault{"decoder_sparse_step", 1},
                                            HfDefault{"shared_expert_intermediate_size", 0},
                                            HfDefault{"num_key_value_heads", 16}};
// LagunaConfig.shared_expert_intermediate_size 512. It has no decoder_sparse_step: its MoE layers
// are mlp_layer_types' (hf_ffn.cpp's laguna_moe_layers). num_key_value_heads 8, head_dim 128,
// sliding_window 512.
constexpr std::array kLagunaDefaults = {HfDefault{"shared_expert_intermediate_size", 512},
                                        HfDefault{"num_key_value_heads", 8}, HfDefault{"head_dim", 128},
                                        HfDefault{"sliding_window", 512}};
// transformers' Qwen3_5TextConfig (configuration_qwen3_5.py): Qwen3-Next's linear attention;
// num_key_value_heads 4, head_dim 256.
constexpr std::array kQwen35Defaults = {
    HfDefault{"full_attention_interval", 4}, HfDefault{"linear_conv_kernel_dim", 4},
    HfDefault{"linear_key_head_dim", 128},   HfDefault{"linear_value_head_dim", 128},
    HfDefault{"linear_num_key_heads", 16},   HfDefault{"linear_num_value_heads", 32},
    HfDefault{"decoder_sparse_step", 1},     HfDefault{"num_key_value_heads", 4},
    HfDefault{"head_dim", 256}};
// Qwen3_5MoeTextConfig (configuration_qwen3_5_moe.py): shared_expert_intermediate_size 512,
// num_key_value_heads 2, head_dim 256, beside the linear attention's.
constexpr std::array kQwen35MoeDefaults = {
    HfDefault{"full_attention_interval", 4}, HfDefault{"linear_conv_kernel_dim", 4},
    HfDefault{"linear_key_head_dim", 128},   HfDefault{"linear_value_head_dim", 128},
    HfDefault{"linear_num_key_heads", 16},   HfDefault{"linear_num_value_heads", 32},
    HfDefault{"decoder_sparse_step", 1},     HfDefault{"shared_expert_intermediate_size", 512},
    HfDefault{"num_key_value_heads", 2},     HfDefault{"head_dim", 256}};
// MiniMaxM2Config (configuration_minimax_m2.py): num_key_value_heads 8, head_dim 128. It has no
// shared_intermediate_size, and MiniMaxM2SparseMoeBlock no shared expert (hf_ffn.cpp).
constexpr std::array kMiniMaxDefaults = {HfDefault{"num_key_value_heads", 8}, HfDefault{"head_dim", 128}};
// Step3p7TextConfig (configuration_step3p7.py): share_expert_dim 1280, num_key_value_heads 8
// (num_attention_groups is its alias there), head_dim 128.
constexpr std::array kStepDefaults = {HfDefault{"share_expert_dim", 1280}, HfDefault{"num_key_value_heads", 8},
                                      HfDefault{"head_dim", 128}};
// transformers' DeepseekV3Config (vLLM's copy: docs.vllm.ai/en/v0.11.0/api/vllm/transformers_utils/
// configs/deepseek_v3.html): three dense layers first, one shared expert, a 1536-wide Q latent.
constexpr std::array kDeepSeekV3Defaults = {HfDefault{"first_k_dense_replace", 3}, HfDefault{"n_shared_experts", 1},
                                            HfDefault{"q_lora_rank", 1536}};
// transformers' GlmMoeDsaConfig: DeepSeek-V3.2's indexer at GLM-5's widths.
constexpr std::array kGlmDsaDefaults = {HfDefault{"index_topk", 2048}, HfDefault{"index_head_dim", 128},
                                        HfDefault{"index_n_heads", 32}};
// Glm4MoeConfig (configuration_glm4_moe.py): num_key_value_heads 8; no head_dim (Glm4MoeAttention
// and vLLM's derive it).
constexpr std::array kGlm4MoeDefaults = {HfDefault{"num_key_value_heads", 8}};
// transformers' Gemma4TextConfig (configuration_gemma4.py): num_key_value_heads 4, head_dim 256, the
// full layers' global_head_dim 512, per-layer inputs 256 wide from a 262,144-row table, a 512-token
// window. Its layer_types default is 5 sliding to 1 full whatever sliding_window_pattern says (the
// 6 is fixed in __post_init__; hf_layer_kinds.cpp).
constexpr std::array kGemma4Defaults = {
    HfDefault{"num_key_value_heads", 4},           HfDefault{"head_dim", 256},
    HfDefault{"global_head_dim", 512},             HfDefault{"hidden_size_per_layer_input", 256},
    HfDefault{"vocab_size_per_layer_input", 262'144}, HfDefault{"sliding_window", 512}};
// Ernie4_5Config (configuration_ernie4_5.py): num_key_value_heads 2, head_dim 128.
constexpr std::array kErnieDenseDefaults = {HfDefault{"num_key_value_heads", 2}, HfDefault{"head_dim", 128}};
// Ernie4_5_MoeConfig (configuration_ernie4_5_moe.py): MoE layers from layer 1 to the last, every
// layer; 2 shared experts (Ernie4_5_MoeSparseMoeBlock: one MLP of 2 × moe_intermediate_size);
// num_key_value_heads 4; no head_dim (Ernie4_5_MoeAttention, LlamaAttention's, derives it). Read
// as none, ERNIE-4.5-21B-A3B without moe_num_shared_experts lost 637,009,920 weights.
constexpr std::array kErnieDefaults = {HfDefault{"moe_layer_start_index", 1}, HfDefault{"moe_layer_interval", 1},
                                       HfDefault{"moe_num_shared_experts", 2}, HfDefault{"num_key_value_heads", 4}};
// GptOssConfig (configuration_gpt_oss.py): num_key_value_heads 8, head_dim 64.
constexpr std::array kGptOssDefaults = {HfDefault{"sliding_window", 128}, HfDefault{"num_local_experts", 128},
                                        HfDefault{"num_experts_per_tok", 4}, HfDefault{"head_dim", 64},
                                        HfDefault{"num_key_value_heads", 8}};
// SmolLM3Config (configuration_smollm3.py): num_key_value_heads 4; no head_dim (derived).
constexpr std::array kSmolLm3Defaults = {HfDefault{"num_key_value_heads", 4}};
// NemotronHConfig (configuration_nemotron_h.py): num_key_value_heads 8, head_dim 128, which the
// older configs (and their own code) name attention_head_dim.
constexpr std::array kNemotronHDefaults = {HfDefault{"num_key_value_heads", 8}, HfDefault{"head_dim", 128},
                                           HfDefault{"attention_head_dim", 128}};
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
    // LlamaConfig (configuration_llama.py): num_key_value_heads None → the query heads, head_dim None
    // → hidden_size // num_attention_heads.
    HfFamily{.architecture = "LlamaForCausalLM",
             .model_type = "llama",
             .derives_kv_heads = true,
             .derives_head_dim = true},
    HfFamily{.architecture = "MistralForCausalLM",
             .model_type = "mistral",
             .layers = HfLayers::sliding_when_set,
             .defaults = kMistralDefaults,
             .derives_head_dim = true},
    HfFamily{.architecture = "MixtralForCausalLM",
             .model_type = "mixtral",
             .moe = HfMoe::mixtral,
             .layers = HfLayers::sliding_when_set,
             .defaults = kMixtralDefaults,
             .derives_head_dim = true},
    HfFamily{.architecture = "Qwen2ForCausalLM",
             .model_type = "qwen2",
             .layers = HfLayers::qwen,
             .attention_bias = true,
             .defaults = kQwen2Defaults,
             .derives_head_dim = true},
    HfFamily{.architecture = "Qwen2MoeForCausalLM",
             .model_type = "qwen2_moe",
             .moe = HfMoe::qwen,
             .layers = HfLayers::qwen,
             .attention_bias = true,
             .defaults = kQwen2MoeDefaults,
             .derives_head_dim = true},
    HfFamily{.architecture = "Qwen3ForCausalLM",
             .model_type = "qwen3",
             .layers = HfLayers::qwen,
             .qk_norm = HfQkNorm::always,
             .defaults = kQwen3Defaults},
    HfFamily{.architecture = "Qwen3MoeForCausalLM",
             .model_type = "qwen3_moe",
             .moe = HfMoe::qwen,
             .layers = HfLayers::qwen,
             .qk_norm = HfQkNorm::always,
             .defaults = kQwen3MoeDefaults,
             .derives_head_dim = true},
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
             .qk_norm = HfQkNorm::always,
             .defaults = kQwen3VlDefaults},
    HfFamily{.architecture = "Qwen3VLMoeTextModel",
             .model_type = "qwen3_vl_moe_text",
             .moe = HfMoe::qwen,
             .layers = HfLayers::qwen,
             .qk_norm = HfQkNorm::always,
             .defaults = kQwen3VlMoeDefaults,
             .derives_head_dim = true},
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
    HfFamily{.architecture = "GemmaForCausalLM", .model_type = "gemma", .tied = true, .defaults = kGemmaDefaults},
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
             .layers = HfLayers::gemma4,
             .qk_norm = HfQkNorm::always,
             .tied = true,
             .global_attention = true,
             .defaults = kGemma4Defaults},
    HfFamily{.architecture = "Gemma4ForConditionalGeneration",
             .model_type = "gemma4",
             .text_model_type = "gemma4_text",
             .harmless = kWrapper26Harmless},
    // Phi3Config: num_key_value_heads None → the query heads; no head_dim (Phi3Attention derives it).
    HfFamily{.architecture = "Phi3ForCausalLM",
             .model_type = "phi3",
             .layers = HfLayers::sliding_when_set,
             .derives_kv_heads = true,
             .derives_head_dim = true},
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
    // Ernie4_5Config and Ernie4_5_MoeConfig tie the embeddings by default (tie_word_embeddings True):
    // read untied, ERNIE-4.5-21B-A3B without the field counted a second 103,424 × 2560 table.
    HfFamily{.architecture = "Ernie4_5ForCausalLM",
             .model_type = "ernie4_5",
             .tied = true,
             .defaults = kErnieDenseDefaults,
             .harmless = kErnieHarmless},
    HfFamily{.architecture = "Ernie4_5_MoeForCausalLM",
             .model_type = "ernie4_5_moe",
             .moe = HfMoe::ernie,
             .tied = true,
             .defaults = kErnieDefaults,
             .derives_head_dim = true,
             .harmless = kErnieHarmless},
    HfFamily{.architecture = "LagunaForCausalLM",
             .model_type = "laguna",
             .moe = HfMoe::laguna,
             .qk_norm = HfQkNorm::when_asked,
             .qk_norm_default = true,
             .head_gate = true,
             .defaults = kLagunaDefaults,
             .harmless = kLagunaHarmless},
    HfFamily{.architecture = "SmolLM3ForCausalLM",
             .model_type = "smollm3",
             .tied = true,
             .defaults = kSmolLm3Defaults,
             .derives_head_dim = true,
             .harmless = kSmolLm3Harmless},
    HfFamily{.architecture = "Step3p7FlashForCausalLM",
             .model_type = "step3p7",
             .moe = HfMoe::step,
             .defaults = kStepDefaults},
    HfFamily{.architecture = "Glm4MoeForCausalLM",
             .model_type = "glm4_moe",
             .moe = HfMoe::deepseek,
             .qk_norm = HfQkNorm::when_asked,
             .defaults = kGlm4MoeDefaults,
             .derives_head_dim = true},
    HfFamily{.architecture = "Glm4MoeLiteForCausalLM",
             .model_type = "glm4_moe_lite",
             .moe = HfMoe::deepseek,
             .latent = true},
    HfFamily{.architecture = "MiniMaxM2ForCausalLM",
             .model_type = "minimax_m2",
             .moe = HfMoe::minimax,
             .layers = HfLayers::minimax,
             .qk_norm = HfQkNorm::when_asked,
             .qk_norm_per_layer = true,
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
             .tower = HfTower::pixtral,
             .harmless = kWrapperHarmless},
    HfFamily{.architecture = "NemotronHForCausalLM",
             .model_type = "nemotron_h",
             .shape = HfShape::nemotron_h,
             .defaults = kNemotronHDefaults,
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
