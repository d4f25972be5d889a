// The model YAML, field by field: what `--model file.yaml` reads, `convert` writes and the
// README lists. An architecture's fields sit at the top of the file beside `name` and `dtype`.
#include <fmt/format.h>

#include <array>

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

// A choice is stored as its word's index: the words follow the enums' order.
static_assert(static_cast<int>(FfnType::gated) == 0 && static_cast<int>(FfnType::plain) == 1);
static_assert(static_cast<int>(NormType::rmsnorm) == 0 && static_cast<int>(NormType::layernorm) == 1);
constexpr std::array kFfnTypes = {Word{"gated", "SwiGLU/GeGLU, 3 matrices"}, Word{"plain", "2 matrices"}};
constexpr std::array kNorms = {Word{"rmsnorm", "a scale"}, Word{"layernorm", "a scale and a bias"}};

using F = Field<ModelSpec>;

// Physical ranges, ten to a thousand times past the largest models published (hidden 16,384 and
// 126 layers in Llama 3.1 405B, a 256k vocabulary in Gemma, 256 routed experts in DeepSeek-V3).
// Inside them every product the engine and the readers form of two or three values fits 64 bits
// (heads × head_dim < 10^11); the int members (layers, heads, experts) fit 32 bits.
constexpr Range kLayers{1, 100'000};
constexpr Range kLayersOrNone{0, 100'000};
constexpr Range kHeads{1, 100'000};
constexpr Range kWidth{1, 1'000'000};  // hidden, ffn, head_dim, an expert's and the latents' widths
constexpr Range kWidthOrNone{0, 1'000'000};
constexpr Range kVocab{1, 100'000'000};
constexpr Range kExperts{1, 10'000'000};  // PEER (arXiv 2407.04202) routes among 1,048,576 experts
constexpr Range kExpertsOrNone{0, 10'000'000};
constexpr Range kTokens{1, 1'000'000'000};
constexpr Range kTokensOrNone{0, 1'000'000'000};
constexpr Range kParams{1, 1e15};

// Latent attention decompresses a K and a V for every query head.
std::optional<Value> kv_heads_default(const ModelSpec& m) {
  const Architecture& a = *m.architecture;
  if (a.mla) return Value{static_cast<long>(a.heads)};
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
  const Architecture& a = *m.architecture;
  if (a.moe && a.moe->dense_layers == 0) return Value{0L};
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
  if (!a.mla && !r.has("head_dim") && a.heads > 0 && a.hidden % a.heads != 0) {
    r.fail("heads", fmt::format("heads {} does not divide hidden {}; give head_dim if the model's head "
                                "width is not hidden / heads",
                                a.heads, a.hidden));
  }
  if (a.moe && a.moe->dense_layers == 0 && r.has("ffn")) {
    r.fail("ffn", "a MoE model gives its expert width as moe.ffn, not ffn (ffn is for moe.dense_layers)");
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
  static const std::array architecture = {
      F{"layers", Kind::small_count, Need::required, "transformer blocks",
        member<InArchitecture, &Architecture::layers>(), kLayers},
      F{"hidden", Kind::count, Need::required, "width of the residual stream",
        member<InArchitecture, &Architecture::hidden>(), kWidth},
      F{"heads", Kind::small_count, Need::required, "query heads", member<InArchitecture, &Architecture::heads>(),
        kHeads},
      F{.key = "kv_heads", .kind = Kind::small_count, .need = Need::derived,
        .doc = "K/V heads (fewer than `heads`: grouped-query attention); required, except with `mla`, where it is `heads`",
        .access = member<InArchitecture, &Architecture::kv_heads>(), .range = kHeads, .derive = kv_heads_default},
      F{.key = "head_dim", .kind = Kind::count, .need = Need::derived,
        .doc = "per-head width; absent: hidden / heads, or with `mla` `mla.nope_dim + mla.rope_dim` (then not given)",
        .access = member<InArchitecture, &Architecture::head_dim>(), .range = kWidth, .derive = head_dim_default},
      F{.key = "ffn", .kind = Kind::count, .need = Need::derived,
        .doc = "FFN width; required, except with `moe`: then only the width of `moe.dense_layers` leading dense "
               "layers, given with them",
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
        .doc = "format of the routed and shared experts; absent: `dtype`",
        .access = element<InQuantization, &Quantization::formats, TensorClass::experts>()},
      F{.key = "lm_head", .kind = Kind::weight_format, .need = Need::optional,
        .doc = "format of the LM head (with `tied_embeddings`, of the one table); absent: 16 bits beside quantized "
               "blocks, else the blocks' format",
        .access = element<InQuantization, &Quantization::formats, TensorClass::lm_head>()},
      F{.key = "embedding", .kind = Kind::weight_format, .need = Need::optional,
        .doc = "format of the embedding table (not with `tied_embeddings`: give `lm_head`); absent: as `lm_head`'s "
               "default",
        .access = element<InQuantization, &Quantization::formats, TensorClass::embedding>()},
      F{.key = "group_size", .kind = Kind::small_count, .need = Need::optional,
        .doc = "weights a scale of the int4, awq, gptq and fp4 formats, as quantized (`--group-size` overrides); "
               "absent: 128",
        .access = member<InQuantization, &Quantization::group_size>(), .range = kWidth},
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
  };
  static const Schema<ModelSpec> schema{fields, check};
  return schema;
}

}  // namespace roofline::io
