#include "io/hf_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>
#include <vector>

#include "io/input_error.hpp"
#include "io/schema.hpp"
#include "io/spec_loader.hpp"

namespace roofline::io {

namespace {

enum class Moe { none, mixtral, qwen2, deepseek };

// What a family calls the fields of the generic description. An empty name: the field is absent.
struct FieldNames {
  std::string_view layers, hidden, heads, kv_heads, ffn, vocab, max_context;
};
constexpr FieldNames kLlamaNames{"num_hidden_layers", "hidden_size",      "num_attention_heads",    "num_key_value_heads",
                                 "intermediate_size", "vocab_size",       "max_position_embeddings"};
constexpr FieldNames kGpt2Names{"n_layer", "n_embd", "n_head", "", "n_inner", "vocab_size", "n_positions"};

struct Family {
  std::string_view architecture, model_type;
  bool attention_bias;   // Q/K/V biases (Qwen2)
  bool tied_by_default;  // what transformers assumes when tie_word_embeddings is absent
  Moe moe = Moe::none;
  const FieldNames* names = &kLlamaNames;
  // GPT-2: plain GELU FFN of n_inner (4 × n_embd when null), LayerNorm, a bias on every linear,
  // learned positions.
  bool gpt2_shape = false;
  bool latent_attention = false;  // DeepSeek-V2/V3: kv_lora_rank, qk_nope/rope_head_dim, v_head_dim
};

constexpr std::array kFamilies = {
    Family{"LlamaForCausalLM", "llama", false, false},
    Family{"MistralForCausalLM", "mistral", false, false},
    Family{"MixtralForCausalLM", "mixtral", false, false, Moe::mixtral},
    Family{"Qwen2ForCausalLM", "qwen2", true, false},
    Family{"Qwen2MoeForCausalLM", "qwen2_moe", true, false, Moe::qwen2},
    Family{"GemmaForCausalLM", "gemma", false, true},
    Family{"Gemma2ForCausalLM", "gemma2", false, true},
    Family{"Phi3ForCausalLM", "phi3", false, false},
    Family{"GPT2LMHeadModel", "gpt2", false, true, Moe::none, &kGpt2Names, true},
    Family{"DeepseekV2ForCausalLM", "deepseek_v2", false, false, Moe::deepseek, &kLlamaNames, false, true},
    Family{"DeepseekV3ForCausalLM", "deepseek_v3", false, false, Moe::deepseek, &kLlamaNames, false, true},
};

// Latent attention caches a compressed K/V: reading such a config as a Llama (an unknown
// architecture with these fields) would price its KV cache 30× too high.
constexpr std::array<std::string_view, 3> kUnmodelledFields = {"kv_lora_rank", "q_lora_rank", "n_routed_experts"};

// A field of the model schema and the config key that holds it: a family's own name (a member of
// FieldNames) or one name for all.
struct HfName {
  std::string_view ours;
  std::string_view FieldNames::*family = nullptr;
  std::string_view theirs = {};
};
constexpr std::array kHfNames = {
    HfName{"layers", &FieldNames::layers},         HfName{"hidden", &FieldNames::hidden},
    HfName{"heads", &FieldNames::heads},           HfName{"kv_heads", &FieldNames::kv_heads},
    HfName{"ffn", &FieldNames::ffn},               HfName{"vocab", &FieldNames::vocab},
    HfName{"max_context", &FieldNames::max_context}, HfName{"position_embeddings", &FieldNames::max_context},
    HfName{"moe.experts", nullptr, "num_experts"}, HfName{"moe.top_k", nullptr, "num_experts_per_tok"},
    HfName{"moe.ffn", nullptr, "moe_intermediate_size"}};

// validate() names rooflineplan's fields; the error names the user's.
std::string_view hf_field(std::string_view field, const FieldNames& n) {
  for (const HfName& h : kHfNames) {
    const std::string_view theirs = h.family ? n.*h.family : h.theirs;
    if (field == h.ours && !theirs.empty()) return theirs;
  }
  return field;
}

// Quoted in errors and kept in the spec's source: printable text only.
std::string architecture_of(const YamlDocument& doc) {
  const YAML::Node list = doc.root["architectures"];
  if (list && list.IsSequence() && list.size() > 0 && list[0].IsScalar()) {
    check_text(doc, list[0], "architectures[0]");
    return list[0].Scalar();
  }
  const YAML::Node type = doc.root["model_type"];
  if (type && type.IsScalar()) {
    check_text(doc, type, "model_type");
    for (const Family& f : kFamilies) {
      if (type.Scalar() == f.model_type) return std::string(f.architecture);
    }
    return type.Scalar();
  }
  return "";
}

std::string known_list() {
  std::vector<std::string_view> names;
  for (const Family& f : kFamilies) names.push_back(f.architecture);
  return fmt::format("{}", fmt::join(names, ", "));
}

DType dtype_of(const MapReader& r) {
  for (std::string_view key : {"torch_dtype", "dtype"}) {
    if (!r.has_value(key)) continue;
    const std::string s = r.string(key);
    if (s == "bfloat16") return DType::bf16;
    if (s == "float16") return DType::fp16;
    if (s == "float32") return DType::fp32;
    r.fail(key, fmt::format("\"{}\" is not a weight format rooflineplan knows (bfloat16, float16, float32)", s));
  }
  return DType::fp32;  // transformers loads a config without a dtype in float32
}

// Every field a family needs, checked at once so the error lists all that are missing.
void require(const MapReader& r, const std::string& architecture, std::vector<std::string_view> fields) {
  std::vector<std::string_view> missing;
  for (std::string_view f : fields) {
    if (!r.has_value(f)) missing.push_back(f);
  }
  if (!missing.empty()) {
    r.fail_here(fmt::format("{} config lacks {}", architecture, fmt::join(missing, ", ")));
  }
}

// A config's whole number, held to the range of the model field it becomes (io/model_schema.cpp),
// so that the products formed from it below and in the engine stay inside 64 bits.
long count(const MapReader& r, std::string_view key, std::string_view field) {
  return r.count(key, field_range(model_schema(), field));
}

// The int members (layers, heads, experts): their ranges fit an int, so nothing wraps.
int int_count(const MapReader& r, std::string_view key, std::string_view field) {
  const long v = count(r, key, field);
  if (!std::in_range<int>(v)) throw std::logic_error(fmt::format("the range of {} lets {} past an int", field, key));
  return static_cast<int>(v);
}

MoeSpec read_moe(const MapReader& r, const std::string& architecture, Moe kind) {
  if (kind == Moe::mixtral) {
    require(r, architecture, {"num_local_experts", "num_experts_per_tok"});
    return {int_count(r, "num_local_experts", "moe.experts"), int_count(r, "num_experts_per_tok", "moe.top_k"),
            count(r, "intermediate_size", "moe.ffn"), 0};
  }
  if (kind == Moe::deepseek) {
    require(r, architecture, {"n_routed_experts", "num_experts_per_tok", "moe_intermediate_size"});
    // Every layer after the first `first_k_dense_replace` is sparse only when moe_layer_freq is 1.
    if (r.has_value("moe_layer_freq") && r.count("moe_layer_freq") != 1) {
      r.fail("moe_layer_freq", "only every layer being a MoE layer (1) is modelled");
    }
    return {int_count(r, "n_routed_experts", "moe.experts"), int_count(r, "num_experts_per_tok", "moe.top_k"),
            count(r, "moe_intermediate_size", "moe.ffn"),
            r.has_value("n_shared_experts") ? int_count(r, "n_shared_experts", "moe.shared_experts") : 0,
            r.has_value("first_k_dense_replace") ? int_count(r, "first_k_dense_replace", "moe.dense_layers") : 0};
  }
  require(r, architecture, {"num_experts", "num_experts_per_tok", "moe_intermediate_size"});
  MoeSpec moe{int_count(r, "num_experts", "moe.experts"), int_count(r, "num_experts_per_tok", "moe.top_k"),
              count(r, "moe_intermediate_size", "moe.ffn"), 0};
  // The shared expert is one wide FFN; rooflineplan counts shared experts of the expert width.
  if (r.has_value("shared_expert_intermediate_size")) {
    // A width like the expert's: 4294967297 wide is refused here, not wrapped into 1 expert.
    const long shared = count(r, "shared_expert_intermediate_size", "moe.ffn");
    if (shared % moe.ffn != 0) {
      r.fail("shared_expert_intermediate_size",
             fmt::format("{} is not a whole number of experts of width {}", shared, moe.ffn));
    }
    moe.shared_experts = static_cast<int>(shared / moe.ffn);  // at most 10^6: the widths' range
  }
  return moe;
}

}  // namespace

std::vector<std::string_view> model_fields_read_from_hf_config() {
  std::vector<std::string_view> out;
  for (const HfName& h : kHfNames) out.push_back(h.ours);
  return out;
}

bool is_hf_config(const YamlDocument& doc) {
  return doc.root.IsMap() && (doc.root["architectures"] || doc.root["model_type"]);
}

ModelSpec read_hf_config(const YamlDocument& doc) {
  const MapReader r(doc, doc.root, "", {});  // configs carry many fields this model does not need
  const std::string architecture = architecture_of(doc);
  const auto family = std::find_if(kFamilies.begin(), kFamilies.end(),
                                   [&](const Family& f) { return f.architecture == architecture; });
  const bool known = family != kFamilies.end();
  const Family f = known ? *family : Family{"", "", false, false};
  for (std::string_view field : kUnmodelledFields) {
    if (!f.latent_attention && r.has_value(field)) {
      r.fail(field, fmt::format("{} uses multi-head latent attention or DeepSeek-style routed experts, which "
                                "rooflineplan reads only from DeepseekV2ForCausalLM and DeepseekV3ForCausalLM "
                                "configs; describe it in rooflineplan's YAML (mla, moe) by hand",
                                architecture.empty() ? "this model" : architecture));
    }
  }
  const FieldNames& n = *f.names;
  std::vector<std::string_view> needed = {n.layers, n.hidden, n.heads, n.vocab};
  needed.push_back(f.gpt2_shape ? n.max_context : n.ffn);  // GPT-2's positions; its n_inner may be null
  try {
    require(r, architecture, needed);
  } catch (const InputError& e) {
    if (known) throw;
    throw InputError(fmt::format("{}; `{}` is not an architecture rooflineplan knows ({}), and it can be read "
                                 "as a generic decoder only with {}",
                                 e.what(), architecture, known_list(), fmt::join(needed, ", ")));
  }

  ModelSpec m;
  m.name = r.has_value("_name_or_path") ? r.string("_name_or_path") : architecture;
  m.source = fmt::format("Hugging Face config.json ({})", architecture);
  m.dtype = dtype_of(r);
  if (r.has_value(n.max_context)) m.max_context = count(r, n.max_context, "max_context");
  Architecture a;
  a.layers = int_count(r, n.layers, "layers");
  a.hidden = count(r, n.hidden, "hidden");
  a.heads = int_count(r, n.heads, "heads");
  a.kv_heads = !n.kv_heads.empty() && r.has_value(n.kv_heads) ? int_count(r, n.kv_heads, "kv_heads") : a.heads;
  a.vocab = count(r, n.vocab, "vocab");
  a.tied_embeddings = r.optional_bool("tie_word_embeddings").value_or(f.tied_by_default);
  a.attention_bias = f.attention_bias || r.optional_bool("attention_bias").value_or(false);
  if (r.has_value("head_dim")) {
    a.head_dim = count(r, "head_dim", "head_dim");
  } else if (a.heads > 0 && a.hidden % a.heads != 0) {
    // As the YAML reader: a truncated head width would be silently wrong.
    r.fail(n.heads, fmt::format("{} heads do not divide {} {}, and the config gives no head_dim", a.heads, n.hidden,
                                a.hidden));
  } else if (a.heads > 0) {
    a.head_dim = a.hidden / a.heads;
  }
  if (f.latent_attention) {
    require(r, architecture, {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
    a.mla = LatentAttention{r.has_value("q_lora_rank") ? count(r, "q_lora_rank", "mla.q_lora_rank") : 0,
                            count(r, "kv_lora_rank", "mla.kv_lora_rank"), count(r, "qk_nope_head_dim", "mla.nope_dim"),
                            count(r, "qk_rope_head_dim", "mla.rope_dim"), count(r, "v_head_dim", "mla.v_dim")};
    a.head_dim = a.mla->nope_dim + a.mla->rope_dim;
    a.kv_heads = a.heads;  // decompressed per head; the cache holds the latent
  }
  if (f.gpt2_shape) {
    a.ffn_type = FfnType::plain;
    // transformers' GPT-2 default; n_embd's range keeps 4 × n_embd far inside 64 bits.
    a.ffn = r.has_value(n.ffn) ? count(r, n.ffn, "ffn") : 4 * a.hidden;
    a.norm = NormType::layernorm;
    a.linear_bias = true;
    a.position_embeddings = count(r, n.max_context, "position_embeddings");
  } else {
    a.ffn_type = FfnType::gated;  // SwiGLU or GeGLU in every other family here
    if (f.moe != Moe::none) a.moe = read_moe(r, architecture, f.moe);
    // With MoE, intermediate_size is the width of the dense layers, where there are any.
    if (a.dense_ffn_layers() > 0) a.ffn = count(r, n.ffn, "ffn");
  }
  m.architecture = a;
  if (const auto e = validate(m)) r.fail(hf_field(e->field, n), e->message);
  return m;
}

}  // namespace roofline::io
