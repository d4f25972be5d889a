#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <stdexcept>

#include "io/hf_config.hpp"
#include "io/input_error.hpp"
#include "io/nearest_word.hpp"
#include "io/presets.hpp"
#include "io/spec_loader.hpp"

namespace roofline::io {

namespace {

constexpr std::array<std::string_view, 15> kArchitectureKeys = {
    "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "ffn_type", "vocab", "tied_embeddings",
    "attention_bias", "linear_bias", "norm", "position_embeddings", "moe", "mla"};

FfnType read_ffn_type(const MapReader& r) {
  const std::string s = r.string("ffn_type");
  if (s == "gated") return FfnType::gated;
  if (s == "plain") return FfnType::plain;
  r.fail("ffn_type", fmt::format("must be `gated` (SwiGLU/GeGLU, 3 matrices) or `plain` (2 matrices), got \"{}\"", s));
}

NormType read_norm(const MapReader& r) {
  if (!r.has("norm")) return NormType::rmsnorm;
  const std::string s = r.string("norm");
  if (s == "rmsnorm") return NormType::rmsnorm;
  if (s == "layernorm") return NormType::layernorm;
  r.fail("norm", fmt::format("must be `rmsnorm` (a scale) or `layernorm` (a scale and a bias), got \"{}\"", s));
}

std::optional<LatentAttention> read_mla(const MapReader& r) {
  const auto mla = r.optional_child("mla", {"q_lora_rank", "kv_lora_rank", "nope_dim", "rope_dim", "v_dim"});
  if (!mla) return std::nullopt;
  if (r.has("head_dim")) r.fail("head_dim", "with mla the head width is mla.nope_dim + mla.rope_dim");
  return LatentAttention{mla->optional_count("q_lora_rank").value_or(0), mla->count("kv_lora_rank"),
                         mla->count("nope_dim"), mla->count("rope_dim"), mla->count("v_dim")};
}

Architecture read_architecture(const MapReader& r) {
  Architecture a;
  a.layers = r.small_count("layers");
  a.hidden = r.count("hidden");
  a.heads = r.small_count("heads");
  a.mla = read_mla(r);
  // Latent attention decompresses a K and a V for every query head.
  a.kv_heads = a.mla && !r.has("kv_heads") ? a.heads : r.small_count("kv_heads");
  a.vocab = r.count("vocab");
  a.ffn_type = read_ffn_type(r);
  a.tied_embeddings = r.optional_bool("tied_embeddings").value_or(false);
  a.attention_bias = r.optional_bool("attention_bias").value_or(false);
  a.linear_bias = r.optional_bool("linear_bias").value_or(false);
  a.norm = read_norm(r);
  a.position_embeddings = r.optional_count("position_embeddings").value_or(0);
  if (a.mla) {
    a.head_dim = a.mla->nope_dim + a.mla->rope_dim;
  } else if (r.has("head_dim")) {
    a.head_dim = r.count("head_dim");
  } else if (a.heads > 0 && a.hidden % a.heads != 0) {
    r.fail("heads", fmt::format("heads {} does not divide hidden {}; give head_dim if the model's head "
                                "width is not hidden / heads",
                                a.heads, a.hidden));
  } else if (a.heads > 0) {
    a.head_dim = a.hidden / a.heads;
  }
  if (auto moe = r.optional_child("moe", {"experts", "top_k", "ffn", "shared_experts", "dense_layers"})) {
    a.moe = MoeSpec{moe->small_count("experts"), moe->small_count("top_k"), moe->count("ffn"),
                    moe->has("shared_experts") ? moe->small_count("shared_experts") : 0,
                    moe->has("dense_layers") ? moe->small_count("dense_layers") : 0};
    // `ffn` is the width of the dense layers, so only a model with some has it.
    if (a.moe->dense_layers > 0) a.ffn = r.count("ffn");
    else if (r.has("ffn")) r.fail("ffn", "a MoE model gives its expert width as moe.ffn, not ffn (ffn is for moe.dense_layers)");
  } else {
    a.ffn = r.count("ffn");
  }
  return a;
}

bool has_any_architecture_key(const MapReader& r) {
  for (std::string_view k : kArchitectureKeys) {
    if (r.has(k)) return true;
  }
  return false;
}

}  // namespace

DType parse_dtype(const std::string& text) {
  if (auto t = dtype_from_name(text)) return *t;
  std::vector<std::string> names;
  for (DType t : kAllDTypes) names.emplace_back(name(t));
  throw std::invalid_argument(
      fmt::format("unknown dtype \"{}\"{} (one of {})", text, did_you_mean(text, names), fmt::join(names, ", ")));
}

ModelSpec read_model(const YamlDocument& doc) {
  if (is_hf_config(doc)) return read_hf_config(doc);
  const MapReader r(doc, doc.root, "",
                    {"name", "source", "params", "dtype", "max_context", "layers", "hidden", "heads", "kv_heads",
                     "head_dim", "ffn", "ffn_type", "vocab", "tied_embeddings", "attention_bias", "linear_bias",
                     "norm", "position_embeddings", "moe", "mla"});
  ModelSpec m;
  m.name = r.string("name");
  m.source = r.optional_string("source").value_or("");
  try {
    m.dtype = parse_dtype(r.string("dtype"));
  } catch (const std::invalid_argument& e) {
    r.fail("dtype", e.what());
  }
  m.max_context = r.optional_count("max_context");
  const bool architecture = has_any_architecture_key(r);
  if (r.has("params")) {
    if (architecture) r.fail("params", "give either `params` (a model known by its size) or the architecture, not both");
    m.declared_params = r.number("params");
  } else if (!architecture) {
    r.fail_here("missing field `layers` (give the architecture: layers, hidden, heads, kv_heads, ffn, "
                "ffn_type, vocab; or `params` for a model known only by its size)");
  } else {
    m.architecture = read_architecture(r);
  }
  if (const auto e = validate(m)) {
    // The rule names a dotted field (`moe.top_k`): point at the mapping that holds it.
    const auto dot = e->field.find('.');
    if (dot == std::string::npos) r.fail(e->field, e->message);
    r.child(e->field.substr(0, dot), {}).fail(e->field.substr(dot + 1), e->message);
  }
  return m;
}

ModelSpec load_model(const std::string& file_or_preset) {
  return read_model(load_yaml_file(resolve_preset(PresetKind::model, file_or_preset)));
}

}  // namespace roofline::io
