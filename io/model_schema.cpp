// The model YAML, field by field: what `--model file.yaml` reads, `convert` writes and the
// docs/inputs.md lists. An architecture's fields sit at the top of the file beside `name` and `dtype`.
#include <fmt/format.h>

#include <array>
#include <utility>

#include "io/schema.hpp"

namespace roofline::io {

namespace {

struct InModel {
  using Spec = ModelSpec;
  static auto& of(auto& m) { return m; }
};
struct InArchitecture {
  using Spec = ModelSpec;
  static auto& of(auto& m) { return *m.architecture; }
};
struct InMoe {
  using Spec = ModelSpec;
  static auto& of(auto& m) { return *m.architecture->moe; }
};
struct InMla {
  using Spec = ModelSpec;
  static auto& of(auto& m) { return *m.architecture->mla; }
};
struct InRecurrent {
  using Spec = ModelSpec;
  static auto& of(auto& m) { return *m.architecture->recurrent; }
};
struct InSparse {
  using Spec = ModelSpec;
  static auto& of(auto& m) { return *m.architecture->sparse; }
};
struct InFullAttention {
  using Spec = ModelSpec;
  static auto& of(auto& m) { return *m.architecture->full_attention; }
};

// A choice is stored as its word's index: the words follow the enums' order.
static_assert(static_cast<int>(FfnType::gated) == 0 && static_cast<int>(FfnType::plain) == 1);
static_assert(static_cast<int>(NormType::rmsnorm) == 0 && static_cast<int>(NormType::layernorm) == 1);
constexpr std::array kFfnTypes = {Word{"gated", "SwiGLU/GeGLU, 3 matrices"}, Word{"plain", "2 matrices"}};
constexpr std::array kNorms = {Word{"rmsnorm", "a scale"}, Word{"layernorm", "a scale and a bias"}};
static_assert(static_cast<int>(Mixer::none) == 5 && static_cast<int>(FfnKind::none) == 2);
static_assert(static_cast<int>(RecurrentKind::gated_deltanet) == 2);
// ModelSpec::assumptions by name, in Assumption's order: a converted config keeps its caveats as
// fields, so the YAML priced later warns as the config did.
constexpr std::array kAssumptions = {
    Word{"dtype_bf16", "no torch_dtype: priced in bf16"},
    Word{"vision_not_modelled", "a multimodal wrapper's towers not priced"},
    Word{"mtp_not_modelled", "multi-token-prediction layers not priced"},
    Word{"towers_in_memory", "towers held in memory, never run"},
    Word{"quantization_beside", "formats read from hf_quant_config.json"},
    Word{"dtype_fp32_as_bf16", "torch_dtype float32: priced in bf16"}};
static_assert(kAssumptions.size() == kAssumptionCount);
constexpr Range kAssumptionList{1, kAssumptionCount};
constexpr std::array kMixers = {Word{"full", "attends to every earlier token"},
                                Word{"sliding", "to the last `sliding_window` tokens"},
                                Word{"chunked", "to its own `attention_chunk`"},
                                Word{"linear", "linear attention: `recurrent` gated_deltanet"},
                                Word{"ssm", "state space: `recurrent` mamba or mamba2"},
                                Word{"none", "no mixer: an FFN-only layer"}};
constexpr std::array kFfnKinds = {Word{"dense", "an FFN of width `ffn`"}, Word{"moe", "the `moe` experts"},
                                  Word{"none", "no FFN"}};
constexpr std::array kRecurrentKinds = {Word{"mamba", "Mamba-1"}, Word{"mamba2", "Mamba-2"},
                                        Word{"gated_deltanet", "Gated DeltaNet linear attention"}};

using F = Field<ModelSpec>;

// Physical ranges, ten to a thousand times past the largest models published (hidden 16,384 and
// 126 layers in Llama 3.1 405B, a 256k vocabulary in Gemma, 256 routed experts in DeepSeek-V3).
// Inside them every product the engine and the readers form of two or three values fits 64 bits
// (heads × head_dim < 10^11); the int members (layers, heads, experts) fit 32 bits.
constexpr Range kLayers{1, 100'000};
constexpr Range kLayersOrNone{0, 100'000};
constexpr Range kHeads{1, 100'000};
constexpr Range kHeadsOrNone{0, 100'000};
constexpr Range kWidth{1, 1'000'000};  // hidden, ffn, head_dim, an expert's and the latents' widths
constexpr Range kWidthOrNone{0, 1'000'000};
constexpr Range kVocab{1, 100'000'000};
constexpr Range kVocabOrNone{0, 100'000'000};
constexpr Range kExperts{1, 10'000'000};
constexpr Range kConvKernel{1, 1'000};  // PEER (arXiv 2407.04202) routes among 1,048,576 experts
constexpr Range kExpertsOrNone{0, 10'000'000};
constexpr Range kTokens{1, 1'000'000'000};
constexpr Range kTokensOrNone{0, 1'000'000'000};
constexpr Range kParams{1, 1e15};
constexpr Range kTowerParams{0, 1e15};
constexpr Range kPattern{1, 100'000};  // a kind per layer at most

bool has_attention(const Architecture& a) { return a.attention_layers() > 0; }

// A stack without attention layers (Mamba) has no heads.
std::optional<Value> heads_default(const ModelSpec& m) {
  if (!has_attention(*m.architecture)) return Value{0L};
  return std::nullopt;
}

// Latent attention decompresses a K and a V for every query head.
std::optional<Value> kv_heads_default(const ModelSpec& m) {
  const Architecture& a = *m.architecture;
  if (a.mla || !has_attention(a)) return Value{static_cast<long>(a.heads)};
  return std::nullopt;
}

// hidden / heads; with latent attention the Q/K head is its unrotated and rotated parts.
// Heads that do not divide hidden are refused by the rules below; 0 heads by validate().
std::optional<Value> head_dim_default(const ModelSpec& m) {
  const Architecture& a = *m.architecture;
  if (a.mla) return Value{a.mla->nope_dim + a.mla->rope_dim};
  if (a.heads > 0 && a.hidden % a.heads == 0) return Value{a.hidden / a.heads};
  return Value{0L};
}

// `ffn` is the width of the dense layers, so a MoE model has it only with some.
std::optional<Value> ffn_default(const ModelSpec& m) {
  if (m.architecture->dense_ffn_layers() == 0) return Value{0L};
  return std::nullopt;
}

void check(const MapReader& r, const ModelSpec& m) {
  if (m.architecture && r.has("params")) {
    r.fail("params", "give either `params` (a model known by its size) or the architecture, not both");
  }
  if (!m.architecture && !r.has("params")) {
    r.fail_here("missing field `layers` (give the architecture: layers, hidden, heads, kv_heads, ffn, "
                "ffn_type, vocab; or `params` for a model known only by its size)");
  }
  if (!m.architecture) return;
  const Architecture& a = *m.architecture;
  if (a.mla && r.has("head_dim")) r.fail("head_dim", "with mla the head width is mla.nope_dim + mla.rope_dim");
  // A pattern repeats from the first layer; one longer than the stack has kinds no layer takes.
  for (const auto& [key, size] : {std::pair<std::string_view, std::size_t>{"mixer_pattern", a.mixer_pattern.size()},
                                  {"ffn_pattern", a.ffn_pattern.size()}}) {
    if (size > static_cast<std::size_t>(a.layers)) {
      r.fail(key, fmt::format("has {} kinds for {} layers: a pattern is at most one kind a layer", size, a.layers));
    }
  }
  if (!a.mla && !r.has("head_dim") && a.heads > 0 && a.hidden % a.heads != 0) {
    r.fail("heads", fmt::format("heads {} does not divide hidden {}; give head_dim if the model's head "
                                "width is not hidden / heads",
                                a.heads, a.hidden));
  }
  if (a.dense_ffn_layers() == 0 && r.has("ffn")) {
    r.fail("ffn", a.moe ? "a MoE model gives its expert width as moe.ffn, not ffn (ffn is for its dense layers: "
                          "moe.dense_layers or `dense` in ffn_pattern)"
                        : "no layer has a dense FFN (ffn_pattern), so `ffn` is not used");
  }
  if (!has_attention(a) && (r.has("heads") || r.has("kv_heads") || r.has("head_dim"))) {
    r.fail(r.has("heads") ? "heads" : r.has("kv_heads") ? "kv_heads" : "head_dim",
           "no layer attends (mixer_pattern), so attention heads are not used");
  }
}

}  // namespace

const Schema<ModelSpec>& model_schema() {
  static const std::array moe = {
      F{"experts", Kind::small_count, Need::required, "experts in each MoE layer", member<InMoe, &MoeSpec::experts>(),
        kExperts},
      F{"top_k", Kind::small_count, Need::required, "experts each token is routed to",
        member<InMoe, &MoeSpec::top_k>(), kExperts},
      F{"ffn", Kind::count, Need::required, "width of one expert", member<InMoe, &MoeSpec::ffn>(), kWidth},
      F{.key = "shared_experts", .kind = Kind::small_count, .need = Need::optional,
        .doc = "always-active experts of the same width (DeepSeek, Qwen-MoE)",
        .access = member<InMoe, &MoeSpec::shared_experts>(), .range = kExpertsOrNone, .fallback = 0L},
      F{.key = "dense_layers", .kind = Kind::small_count, .need = Need::optional,
        .doc = "leading layers with a dense FFN of width `ffn` (DeepSeek)",
        .access = member<InMoe, &MoeSpec::dense_layers>(), .range = kLayersOrNone, .fallback = 0L},
      F{.key = "latent", .kind = Kind::count, .need = Need::optional,
        .doc = "the width the routed experts run in, projected down from hidden before dispatch and back up after "
               "the combine (Nemotron 3 Super: 1024); 0: hidden",
        .access = member<InMoe, &MoeSpec::latent>(), .range = kWidthOrNone, .fallback = 0L},
  };
  static const std::array mla = {
      F{.key = "q_lora_rank", .kind = Kind::count, .need = Need::optional,
        .doc = "Q through a low-rank bottleneck of this width; 0: projected directly",
        .access = member<InMla, &LatentAttention::q_lora_rank>(), .range = kWidthOrNone, .fallback = 0L},
      F{"kv_lora_rank", Kind::count, Need::required, "width of the K/V latent cached per token",
        member<InMla, &LatentAttention::kv_lora_rank>(), kWidth},
      F{"nope_dim", Kind::count, Need::required, "per-head Q/K width without position encoding",
        member<InMla, &LatentAttention::nope_dim>(), kWidth},
      F{"rope_dim", Kind::count, Need::required, "per-head Q/K width with RoPE (one such key is cached per token)",
        member<InMla, &LatentAttention::rope_dim>(), kWidth},
      F{"v_dim", Kind::count, Need::required, "per-head V width", member<InMla, &LatentAttention::v_dim>(), kWidth},
  };
  static const std::array recurrent = {
      F{.key = "kind", .kind = Kind::choice, .need = Need::required, .doc = "the recurrent layer",
        .access = member<InRecurrent, &Recurrent::kind>(), .words = kRecurrentKinds},
      F{"inner", Kind::count, Need::required,
        "width into the output projection: Mamba's d_inner; Gated DeltaNet's value heads × value width",
        member<InRecurrent, &Recurrent::inner>(), kWidth},
      F{"state", Kind::count, Need::required, "Mamba: state per channel (d_state); Gated DeltaNet: key head width",
        member<InRecurrent, &Recurrent::state>(), kWidth},
      F{.key = "heads", .kind = Kind::small_count, .need = Need::optional,
        .doc = "Mamba-2 heads; Gated DeltaNet value heads (required for both)",
        .access = member<InRecurrent, &Recurrent::heads>(), .range = kExpertsOrNone, .fallback = 0L},
      F{.key = "groups", .kind = Kind::small_count, .need = Need::optional,
        .doc = "Mamba-2 groups sharing B and C; Gated DeltaNet key heads (required for both)",
        .access = member<InRecurrent, &Recurrent::groups>(), .range = kExpertsOrNone, .fallback = 0L},
      F{.key = "conv_kernel", .kind = Kind::count, .need = Need::optional, .doc = "taps of the causal convolution",
        .access = member<InRecurrent, &Recurrent::conv_kernel>(), .range = kConvKernel, .fallback = 4L},
      F{.key = "dt_rank", .kind = Kind::count, .need = Need::optional,
        .doc = "Mamba-1: width of the step-size projection (required for it)",
        .access = member<InRecurrent, &Recurrent::dt_rank>(), .range = kWidthOrNone, .fallback = 0L},
      F{.key = "conv_bias", .kind = Kind::boolean, .need = Need::optional, .doc = "the convolution has a bias",
        .access = member<InRecurrent, &Recurrent::conv_bias>(), .fallback = true},
      F{.key = "fp32_state", .kind = Kind::boolean, .need = Need::optional,
        .doc = "the state is held in fp32 whatever the KV format, as the checkpoint asks (Qwen3.5, Nemotron 3)",
        .access = member<InRecurrent, &Recurrent::fp32_state>(), .fallback = false},
  };
  static const std::array sparse = {
      F{"top_k", Kind::count, Need::required, "cached tokens each query attends to, of those the indexer scores",
        member<InSparse, &SparseAttention::top_k>(), kTokens},
      F{"index_heads", Kind::small_count, Need::required, "the indexer's query heads",
        member<InSparse, &SparseAttention::index_heads>(), kHeads},
      F{"index_dim", Kind::count, Need::required,
        "the indexer's head width (one such key is cached per token, in fp8 with an fp32 scale a 128 whatever --kv, "
        "as the engines keep it)",
        member<InSparse, &SparseAttention::index_dim>(), kWidth},
  };
  static const std::array full_attention = {
      F{.key = "heads", .kind = Kind::small_count, .need = Need::optional,
        .doc = "the full layers' query heads; 0: `heads` (Laguna: 48 beside 64 on its sliding layers)",
        .access = member<InFullAttention, &FullAttention::heads>(), .range = kHeadsOrNone, .fallback = 0L},
      F{"kv_heads", Kind::small_count, Need::required, "the full layers' K/V heads",
        member<InFullAttention, &FullAttention::kv_heads>(), kHeads},
      F{"head_dim", Kind::count, Need::required, "the full layers' per-head width",
        member<InFullAttention, &FullAttention::head_dim>(), kWidth},
      F{.key = "shared_kv", .kind = Kind::boolean, .need = Need::optional,
        .doc = "one projection gives K and V (Gemma 4's attention_k_eq_v): one matrix, both cached",
        .access = member<InFullAttention, &FullAttention::shared_kv>(), .fallback = false},
  };
  static const std::array architecture = {
      F{"layers", Kind::small_count, Need::required, "transformer blocks",
        member<InArchitecture, &Architecture::layers>(), kLayers},
      F{"hidden", Kind::count, Need::required, "width of the residual stream",
        member<InArchitecture, &Architecture::hidden>(), kWidth},
      F{.key = "heads", .kind = Kind::small_count, .need = Need::derived,
        .doc = "query heads; required, except when no layer attends (`mixer_pattern`)",
        .access = member<InArchitecture, &Architecture::heads>(), .range = kHeads, .derive = heads_default},
      F{.key = "kv_heads", .kind = Kind::small_count, .need = Need::derived,
        .doc = "K/V heads (fewer than `heads`: grouped-query attention); required, except with `mla`, where it is `heads`",
        .access = member<InArchitecture, &Architecture::kv_heads>(), .range = kHeads, .derive = kv_heads_default},
      F{.key = "head_dim", .kind = Kind::count, .need = Need::derived,
        .doc = "per-head width; absent: hidden / heads, or with `mla` `mla.nope_dim + mla.rope_dim` (then not given)",
        .access = member<InArchitecture, &Architecture::head_dim>(), .range = kWidth, .derive = head_dim_default},
      F{.key = "ffn", .kind = Kind::count, .need = Need::derived,
        .doc = "width of the dense FFN layers; required when any layer has one (every layer without `moe` "
               "or `ffn_pattern`; `moe.dense_layers` leading ones with it)",
        .access = member<InArchitecture, &Architecture::ffn>(), .range = kWidth, .derive = ffn_default},
      F{.key = "ffn_type", .kind = Kind::choice, .need = Need::required, .doc = "FFN shape",
        .access = member<InArchitecture, &Architecture::ffn_type>(), .words = kFfnTypes},
      F{"vocab", Kind::count, Need::required, "vocabulary size", member<InArchitecture, &Architecture::vocab>(),
        kVocab},
      F{.key = "tied_embeddings", .kind = Kind::boolean, .need = Need::optional,
        .doc = "the output projection shares the embedding matrix",
        .access = member<InArchitecture, &Architecture::tied_embeddings>(), .fallback = false},
      F{.key = "attention_bias", .kind = Kind::boolean, .need = Need::optional, .doc = "Q/K/V biases (Qwen2)",
        .access = member<InArchitecture, &Architecture::attention_bias>(), .fallback = false},
      F{.key = "linear_bias", .kind = Kind::boolean, .need = Need::optional,
        .doc = "a bias on every linear layer, Q/K/V/O and FFN (GPT-2)",
        .access = member<InArchitecture, &Architecture::linear_bias>(), .fallback = false},
      F{.key = "norm", .kind = Kind::choice, .need = Need::optional, .doc = "normalisation before each block",
        .access = member<InArchitecture, &Architecture::norm>(), .fallback = Choice{0}, .words = kNorms},
      F{.key = "position_embeddings", .kind = Kind::count, .need = Need::optional,
        .doc = "rows of a learned absolute position table (GPT-2); 0: none (RoPE)",
        .access = member<InArchitecture, &Architecture::position_embeddings>(), .range = kTokensOrNone, .fallback = 0L},
      F{.key = "moe", .kind = Kind::section, .need = Need::optional,
        .doc = "a mixture of experts in place of the dense FFN", .fields = moe,
        .present = [](const ModelSpec& m) { return m.architecture->moe.has_value(); },
        .create = [](ModelSpec& m) { m.architecture->moe.emplace(); }, .flow = true},
      F{.key = "mla", .kind = Kind::section, .need = Need::optional,
        .doc = "multi-head latent attention (DeepSeek-V2): the cache holds a latent and one RoPE key", .fields = mla,
        .present = [](const ModelSpec& m) { return m.architecture->mla.has_value(); },
        .create = [](ModelSpec& m) { m.architecture->mla.emplace(); }, .flow = true},
      F{.key = "mixer_pattern", .kind = Kind::choices, .need = Need::optional,
        .doc = "each layer's token mixer, the list repeated from the first layer: `[sliding, sliding, sliding, full]` "
               "makes every fourth layer full; absent: all full",
        .access = member<InArchitecture, &Architecture::mixer_pattern>(), .range = kPattern, .words = kMixers},
      F{.key = "ffn_pattern", .kind = Kind::choices, .need = Need::optional,
        .doc = "each layer's FFN, repeated the same way; absent: `moe` after `moe.dense_layers` with `moe`, else dense",
        .access = member<InArchitecture, &Architecture::ffn_pattern>(), .range = kPattern, .words = kFfnKinds},
      F{.key = "sliding_window", .kind = Kind::count, .need = Need::optional,
        .doc = "tokens a sliding layer sees and keeps, itself included",
        .access = member<InArchitecture, &Architecture::sliding_window>(), .range = kTokensOrNone, .fallback = 0L},
      F{.key = "attention_chunk", .kind = Kind::count, .need = Need::optional,
        .doc = "tokens of a chunked layer's chunk (Llama 4)",
        .access = member<InArchitecture, &Architecture::attention_chunk>(), .range = kTokensOrNone, .fallback = 0L},
      F{.key = "attention_sinks", .kind = Kind::boolean, .need = Need::optional,
        .doc = "a learned sink logit per head and layer (gpt-oss)",
        .access = member<InArchitecture, &Architecture::attention_sinks>(), .fallback = false},
      F{.key = "qk_norm", .kind = Kind::boolean, .need = Need::optional,
        .doc = "an RMSNorm of head_dim on every query and key head (Qwen3, Gemma 3)",
        .access = member<InArchitecture, &Architecture::qk_norm>(), .fallback = false},
      F{.key = "qk_norm_per_layer", .kind = Kind::boolean, .need = Need::optional,
        .doc = "the Q/K norms each over all the heads (MiniMax-M2's `qk_norm_type: per_layer`): tensor parallelism "
               "all-reduces each token's two fp32 variances a layer",
        .access = member<InArchitecture, &Architecture::qk_norm_per_layer>(), .fallback = false},
      F{.key = "attention_gate", .kind = Kind::boolean, .need = Need::optional,
        .doc = "Q also projects a gate on the attention output (Qwen3-Next): Q twice as wide",
        .access = member<InArchitecture, &Architecture::attention_gate>(), .fallback = false},
      F{.key = "head_gate", .kind = Kind::boolean, .need = Need::optional,
        .doc = "a gate per query head on the attention output, projected from the hidden state (Laguna's g_proj)",
        .access = member<InArchitecture, &Architecture::head_gate>(), .fallback = false},
      F{.key = "recurrent", .kind = Kind::section, .need = Need::optional,
        .doc = "the recurrent layer that `linear` and `ssm` layers run, with a fixed state per sequence",
        .fields = recurrent, .present = [](const ModelSpec& m) { return m.architecture->recurrent.has_value(); },
        .create = [](ModelSpec& m) { m.architecture->recurrent.emplace(); }, .flow = true},
      F{.key = "sparse", .kind = Kind::section, .need = Need::optional,
        .doc = "DeepSeek-V3.2 sparse attention: an indexer picks `top_k` cached tokens for each query",
        .fields = sparse, .present = [](const ModelSpec& m) { return m.architecture->sparse.has_value(); },
        .create = [](ModelSpec& m) { m.architecture->sparse.emplace(); }, .flow = true},
      F{.key = "full_attention", .kind = Kind::section, .need = Need::optional,
        .doc = "the full-attention layers' own K/V heads and head width, where they differ from the sliding "
               "layers' (Gemma 4)",
        .fields = full_attention,
        .present = [](const ModelSpec& m) { return m.architecture->full_attention.has_value(); },
        .create = [](ModelSpec& m) { m.architecture->full_attention.emplace(); }, .flow = true},
      F{.key = "tower_params", .kind = Kind::number, .need = Need::optional,
        .doc = "weights of the vision and audio encoders a multimodal checkpoint ships: held in memory in the "
               "activation format, never run (image and audio tokens are not priced)",
        .access = member<InArchitecture, &Architecture::tower_params>(), .range = kTowerParams, .fallback = 0.0},
      F{.key = "kv_shared_layers", .kind = Kind::small_count, .need = Need::optional,
        .doc = "the last layers, which read the cache of the last earlier layer of their kind: no K/V projections, "
               "no cache of their own (Gemma 4 E2B: 20 of 35)",
        .access = member<InArchitecture, &Architecture::kv_shared_layers>(), .range = kLayersOrNone, .fallback = 0L},
      F{.key = "kv_shared_ffn", .kind = Kind::count, .need = Need::optional,
        .doc = "the dense FFN width of those layers; 0: `ffn` (Gemma 4 E2B's double-wide MLP: 2 × ffn)",
        .access = member<InArchitecture, &Architecture::kv_shared_ffn>(), .range = kWidthOrNone, .fallback = 0L},
      F{.key = "per_layer_input", .kind = Kind::count, .need = Need::optional,
        .doc = "width of the input each layer takes from a per-layer embedding table (Gemma 4 E2B/E4B); 0: none",
        .access = member<InArchitecture, &Architecture::per_layer_input>(), .range = kWidthOrNone, .fallback = 0L},
      F{.key = "per_layer_vocab", .kind = Kind::count, .need = Need::optional,
        .doc = "rows of that table; 0: `vocab`",
        .access = member<InArchitecture, &Architecture::per_layer_vocab>(), .range = kVocabOrNone, .fallback = 0L},
      F{.key = "mtp_modules", .kind = Kind::small_count, .need = Need::optional,
        .doc = "multi-token-prediction modules shipped beside the model (DeepSeek-V3: 1), not priced in its "
               "weights; `--speculative K:ACCEPT:mtp` drafts with them",
        .access = member<InArchitecture, &Architecture::mtp_modules>(), .range = kLayersOrNone, .fallback = 0L},
  };
  using InQuantization = InOptional<ModelSpec, &ModelSpec::quantization>;
  static const std::array quantization = {
      F{.key = "attention", .kind = Kind::weight_format, .need = Need::optional,
        .doc = "format of the attention (and recurrent) projections; absent: `dtype`",
        .access = element<InQuantization, &Quantization::formats, TensorClass::attention>()},
      F{.key = "dense_ffn", .kind = Kind::weight_format, .need = Need::optional,
        .doc = "format of the dense FFN layers; absent: `dtype`",
        .access = element<InQuantization, &Quantization::formats, TensorClass::dense_ffn>()},
      F{.key = "experts", .kind = Kind::weight_format, .need = Need::optional,
        .doc = "format of the routed experts; absent: `dtype`",
        .access = element<InQuantization, &Quantization::formats, TensorClass::experts>()},
      F{.key = "shared_experts", .kind = Kind::weight_format, .need = Need::optional,
        .doc = "format of the always-on shared experts where it is not the routed ones' (Kimi-K2-Thinking: bf16 "
               "beside int4); absent: as `experts`",
        .access = element<InQuantization, &Quantization::formats, TensorClass::shared_experts>()},
      F{.key = "lm_head", .kind = Kind::weight_format, .need = Need::optional,
        .doc = "format of the LM head (with `tied_embeddings`, of the one table); absent: 16 bits beside quantized "
               "blocks, else the blocks' format",
        .access = element<InQuantization, &Quantization::formats, TensorClass::lm_head>()},
      F{.key = "embedding", .kind = Kind::weight_format, .need = Need::optional,
        .doc = "format of the embedding table (not with `tied_embeddings`: give `lm_head`); absent: as `lm_head`'s "
               "default",
        .access = element<InQuantization, &Quantization::formats, TensorClass::embedding>()},
      F{.key = "group_size", .kind = Kind::small_count, .need = Need::optional,
        .doc = "weights a scale of the int4, awq, gptq, fp4 and fp6 formats, as quantized (`--group-size` overrides); "
               "absent: 128",
        .access = member<InQuantization, &Quantization::group_size>(), .range = kWidth},
      F{.key = "compute", .kind = Kind::dtype, .need = Need::optional,
        .doc = "format the quantized linears compute in, the checkpoint quantizing their inputs at run time: fp8, "
               "int8, int4, fp6 or fp4 (fp8: DeepSeek-V3's `activation_scheme`; W8A8), with a block class quantized; "
               "on a GPU without its peak, the activation format (`--compute` overrides; stated in every output); "
               "absent: fp8 where every block class the model has is in an fp8 format (engines run them W8A8), else "
               "weight-only, the activation format",
        .access = member<InQuantization, &Quantization::compute>()},
      F{.key = "kv", .kind = Kind::dtype, .need = Need::optional,
        .doc = "format the checkpoint declares for its KV cache (ModelOpt's `kv_cache_quant_algo: FP8`, "
               "compressed-tensors' `kv_cache_scheme`: fp8), the one vLLM's default `--kv-cache-dtype auto` runs "
               "(`--kv` overrides; stated in every output); absent: the activation format",
        .access = member<InQuantization, &Quantization::kv>()},
  };
  static const std::array fields = {
      F{"name", Kind::text, Need::required, "the model's name", member<InModel, &ModelSpec::name>()},
      F{.key = "source", .kind = Kind::text, .need = Need::optional, .doc = "where the figures come from",
        .access = member<InModel, &ModelSpec::source>(), .fallback = std::string()},
      // No key: the architecture's fields sit in the document itself, present when any is given.
      F{.key = "", .kind = Kind::section, .need = Need::optional, .doc = "", .fields = architecture,
        .present = [](const ModelSpec& m) { return m.architecture.has_value(); },
        .create = [](ModelSpec& m) { m.architecture.emplace(); }},
      F{.key = "params", .kind = Kind::number, .need = Need::optional,
        .doc = "parameter count of a model known only by its size, instead of the architecture (`7e9`)",
        .access = {[](const ModelSpec& m) { return m.architecture ? Value{} : Value{m.declared_params}; },
                   [](ModelSpec& m, const Value& v) { m.declared_params = std::get<double>(v); }},
        .range = kParams},
      F{"dtype", Kind::dtype, Need::required, "weight format as published", member<InModel, &ModelSpec::dtype>()},
      F{.key = "quantization", .kind = Kind::section, .need = Need::optional,
        .doc = "a quantized checkpoint's formats per tensor class; norms, biases and routers stay in 16 bits",
        .fields = quantization, .present = [](const ModelSpec& m) { return m.quantization.has_value(); },
        .create = [](ModelSpec& m) { m.quantization.emplace(); }, .flow = true},
      F{.key = "max_context", .kind = Kind::count, .need = Need::optional,
        .doc = "longest context the model was trained for; a longer one is a warning",
        .access = member<InModel, &ModelSpec::max_context>(), .range = kTokens},
      F{.key = "assumptions", .kind = Kind::choices, .need = Need::optional,
        .doc = "what a config's reader assumed or left out (`convert` writes them), each a warning in every output",
        .access = member<InModel, &ModelSpec::assumptions>(), .range = kAssumptionList, .words = kAssumptions},
  };
  static const Schema<ModelSpec> schema{fields, check};
  return schema;
}

}  // namespace roofline::io
