#include "io/hf_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include "io/input_error.hpp"
#include "io/schema.hpp"

namespace roofline::io {

namespace {

// Fields of any config that change neither the architecture, nor the weights, nor the cache: what
// the model is called and which library wrote it, token ids, initialisation and training losses,
// dropout, norm epsilons and logit soft-caps, position encodings (RoPE's base, scaling and share
// of the head: the same products and bytes), routing rules (which experts, not how many), the
// activation's name (a gated FFN's three matrices are the family's, whatever the function), the
// generation defaults every transformers config carries once loaded, and serving switches.
constexpr auto kHarmlessFields = std::to_array<std::string_view>(
    {// what the file is
     "architectures", "model_type", "_name_or_path", "_commit_hash", "auto_map", "transformers_version",
     "_attn_implementation_autoset", "torchscript", "use_bfloat16", "tf_legacy_loss", "return_dict", "use_return_dict",
     "finetuning_task", "id2label", "label2id", "tokenizer_class", "prefix", "task_specific_params", "problem_type",
     "chunk_size_feed_forward", "tie_encoder_decoder", "is_decoder",
     // generation defaults
     "max_length", "min_length", "do_sample", "early_stopping", "num_beams", "num_beam_groups", "diversity_penalty",
     "temperature", "top_k", "top_p", "typical_p", "repetition_penalty", "length_penalty", "no_repeat_ngram_size",
     "encoder_no_repeat_ngram_size", "bad_words_ids", "num_return_sequences", "return_dict_in_generate",
     "remove_invalid_values", "exponential_decay_length_penalty", "suppress_tokens", "begin_suppress_tokens",
     // training and initialisation
     "initializer_range", "initializer_factor", "pretraining_tp", "router_aux_loss_coef", "router_z_loss_coef",
     "router_jitter_noise", "aux_loss_alpha", "seq_aux", "rescale_prenorm_residual", "residual_in_fp32",
     // numerics
     "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_epsilon", "query_pre_attn_scalar", "swiglu_limit",
     "attn_temperature_tuning", "floor_scale", "attn_scale",
     // positions
     "rope_theta", "rope_scaling", "rope_parameters", "rope_local_base_freq", "partial_rotary_factor", "rotary_dim",
     "original_max_position_embeddings", "initial_context_length", "use_mrope",
     // routing: which experts a token takes, not how many or how wide
     "norm_topk_prob", "routed_scaling_factor", "scoring_func", "topk_method", "n_group", "topk_group", "ep_size",
     "use_routing_bias",
     // activations and dropout
     "hidden_act", "hidden_activation", "activation_function", "attention_dropout", "hidden_dropout",
     // serving switches
     "use_cache", "cache_implementation", "num_logits_to_keep", "use_mamba_kernels", "use_mambapy",
     "attn_implementation", "pad_vocab_size_multiple"});

constexpr auto kHarmlessSuffixes = std::to_array<std::string_view>(
    {"_token_id", "_token_ids", "_token_index", "_dropout", "_pdrop", "_eps", "_epsilon", "_softcapping", "_version"});
constexpr auto kHarmlessPrefixes = std::to_array<std::string_view>({"rope_", "output_"});

bool harmless(std::string_view key, std::span<const std::string_view> family) {
  const auto is = [&](std::string_view k) { return k == key; };
  return std::any_of(kHarmlessFields.begin(), kHarmlessFields.end(), is) ||
         std::any_of(family.begin(), family.end(), is) ||
         std::any_of(kHarmlessSuffixes.begin(), kHarmlessSuffixes.end(), [&](auto s) { return key.ends_with(s); }) ||
         std::any_of(kHarmlessPrefixes.begin(), kHarmlessPrefixes.end(), [&](auto p) { return key.starts_with(p); });
}

// Words in a field's name that say it may shape the model: such a field, unknown to the family,
// is the most likely to be silently wrong if ignored.
constexpr auto kShapeWords = std::to_array<std::string_view>(
    {"expert", "moe",  "layer",     "window", "head",         "state", "conv",   "lora",  "rank",    "quant", "sparse",
     "index",  "mtp",  "nextn",     "hidden", "intermediate", "ffn",   "mlp",    "vocab", "embed",   "dim",   "chunk",
     "group",  "attn", "attention", "kv",     "bias",         "norm",  "shared", "dense", "pattern", "bits",  "size"});

std::optional<std::string_view> shape_word(std::string_view key) {
  for (std::string_view w : kShapeWords) {
    if (key.find(w) != std::string_view::npos) return w;
  }
  return std::nullopt;
}

bool empty_value(const YAML::Node& v) { return v.IsNull() || ((v.IsSequence() || v.IsMap()) && v.size() == 0); }

}  // namespace

Range hf_range(std::string_view field) {
  // A recurrent head's width, before it is multiplied into recurrent.inner: a head width's range.
  return field_range(model_schema(), field == "recurrent.head_dim" ? "head_dim" : field);
}

HfFields::HfFields(const YamlDocument& doc, const YAML::Node& node, std::string prefix, std::string what,
                   std::span<const HfDefault> defaults)
    : doc_(&doc), node_(node), r_(doc, node, std::move(prefix), {}), what_(std::move(what)), defaults_(defaults) {}

YAML::Node HfFields::node(std::string_view key) const { return std::as_const(node_)[std::string(key)]; }

bool HfFields::given(std::string_view key) const { return r_.has_value(key); }

bool HfFields::filled(std::string_view key) const {
  const YAML::Node v = node(key);
  return v.IsDefined() && !empty_value(v);
}

const HfDefault* HfFields::default_of(std::string_view key) const {
  const auto d = std::find_if(defaults_.begin(), defaults_.end(), [&](const HfDefault& x) { return x.key == key; });
  return d == defaults_.end() ? nullptr : &*d;
}

// A default stands in only for a field left out: JSON's null says "none" (Mistral's
// `sliding_window: null`), not "the default".
bool HfFields::has(std::string_view key) const { return given(key) || (!r_.has(key) && default_of(key) != nullptr); }

bool HfFields::written(std::string_view key) const { return r_.has(key); }

bool HfFields::is_list(std::string_view key) const { return node(key).IsSequence(); }

void HfFields::mark(std::string_view key, std::string_view field) const {
  read_.emplace_back(key);
  if (!field.empty()) origins_.emplace_back(field, key);
}

void HfFields::use(std::string_view key) const { mark(key); }
void HfFields::use(std::initializer_list<std::string_view> keys) const {
  for (std::string_view k : keys) mark(k);
}

long HfFields::count(std::string_view key, std::string_view field) const {
  mark(key, field);
  if (!r_.has(key)) {
    if (const HfDefault* d = default_of(key)) return d->value;
  }
  return r_.count(key, hf_range(field));
}

int HfFields::small_count(std::string_view key, std::string_view field) const {
  const long v = count(key, field);
  if (!std::in_range<int>(v)) throw std::logic_error(fmt::format("the range of {} lets {} past an int", field, key));
  return static_cast<int>(v);
}

long HfFields::count_or_none(std::string_view key, std::string_view field, std::string_view left_out,
                             bool zero_is_none) const {
  if (has(key)) return count(key, field);
  mark(key);
  if (!r_.has(key)) {
    fail(key, fmt::format("left out: {}; write it ({} for none)", left_out, zero_is_none ? "null or 0" : "null"));
  }
  return 0;
}

std::optional<long> HfFields::optional_count(std::string_view key, std::string_view field) const {
  if (!has(key)) {
    mark(key);
    return std::nullopt;
  }
  return count(key, field);
}

long HfFields::number_in(std::string_view key, Range range) const {
  mark(key);
  if (!r_.has(key)) {
    if (const HfDefault* d = default_of(key)) return d->value;
  }
  return r_.count(key, range);
}

double HfFields::real_in(std::string_view key, Range range) const {
  mark(key);
  return r_.number(key, range);
}

bool HfFields::flag(std::string_view key, bool fallback, std::string_view field) const {
  mark(key, given(key) ? field : std::string_view{});
  if (!given(key)) return fallback;
  return *r_.optional_bool(key);
}

std::string HfFields::text(std::string_view key) const {
  mark(key);
  return r_.string(key);
}

void HfFields::require_per_layer(std::string_view key, std::size_t entries, int layers) const {
  if (std::cmp_not_equal(entries, layers)) fail(key, fmt::format("{} entries for {} layers", entries, layers));
}

std::vector<std::string> HfFields::words(std::string_view key) const {
  mark(key);
  const YAML::Node v = node(key);
  if (!v.IsDefined() || v.IsNull()) return {};
  if (!v.IsSequence()) fail(key, "must be a list");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const YAML::Node item = v[i];
    if (!item.IsScalar() || item.Scalar().empty()) fail(key, fmt::format("{}[{}] must be a word", key, i));
    check_text(*doc_, item, fmt::format("{}{}[{}]", r_.field(""), key, i));
    out.push_back(item.Scalar());
  }
  return out;
}

std::vector<long> HfFields::numbers(std::string_view key, Range range) const {
  mark(key);
  const YAML::Node v = node(key);
  if (!v.IsDefined() || v.IsNull()) return {};
  if (!v.IsSequence()) fail(key, "must be a list of whole numbers");
  std::vector<long> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    long x = 0;
    if (!v[i].IsScalar() || is_quoted(v[i]) || !YAML::convert<long>::decode(v[i], x) ||
        outside(static_cast<double>(x), v[i].Scalar(), range)) {
      fail(key, fmt::format("{}[{}] must be a whole number in {}", key, i, range_text(range)));
    }
    out.push_back(x);
  }
  return out;
}

HfFields HfFields::child(std::string_view key, std::string what, std::span<const HfDefault> defaults) const {
  mark(key);
  const YAML::Node v = node(key);
  if (!v.IsDefined() || v.IsNull()) r_.missing(key);
  if (!v.IsMap()) fail(key, "must be a mapping of `key: value`");
  HfFields out(*doc_, v, r_.field(key) + ".", std::move(what), defaults);
  out.refusals_ = refusals_;
  return out;
}

std::vector<std::string> HfFields::keys() const { return r_.keys(); }

void HfFields::require(std::initializer_list<std::string_view> keys) const {
  std::vector<std::string_view> missing;
  for (std::string_view k : keys) {
    if (!has(k)) missing.push_back(k);
  }
  if (!missing.empty()) {
    r_.fail_here(
        fmt::format("{} config{} lacks {}", what_,
                    r_.field("").empty() ? "" : fmt::format(" (`{}`)", r_.field("").substr(0, r_.field("").size() - 1)),
                    fmt::join(missing, ", ")));
  }
}

void HfFields::refuse_unread(std::span<const std::string_view> family_harmless) const {
  for (const auto& entry : node_) {
    const std::string key = entry.first.Scalar();
    if (std::find(read_.begin(), read_.end(), key) != read_.end()) continue;
    if (empty_value(entry.second) || harmless(key, family_harmless)) continue;
    const auto word = shape_word(key);
    refuse(key, fmt::format("not a field rooflineplan reads in {} configs{}", what_,
                            word ? fmt::format(", and its name (`{}`) says it may change the architecture or its size",
                                               *word)
                                 : ""));
  }
}

void HfFields::refuse(std::string_view key, std::string_view why) const {
  mark(key);
  refusals_->push_back(r_.error(key, why));
}

void HfFields::throw_refusals() const {
  const std::vector<std::string>& all = *refusals_;
  if (all.empty()) return;
  const std::string_view advice =
      "rather than price the model without what it cannot read, rooflineplan refuses the config: describe the "
      "model in rooflineplan's YAML, or remove a field from a copy of the config if it changes neither the "
      "architecture nor the weights";
  if (all.size() == 1) throw InputError(fmt::format("{}; {}", all.front(), advice));
  std::string message = fmt::format("{}\n  and {} more fields it cannot price:", all.front(), all.size() - 1);
  for (std::size_t i = 1; i < all.size(); ++i) message += "\n  " + all[i];
  throw InputError(fmt::format("{}\n  {}", message, advice));
}

bool HfFields::fail_at_origin(std::string_view field, std::string_view message) const {
  for (const auto& [ours, key] : origins_) {
    if (ours != field) continue;
    // A value the family's default gave, the key being left out: said so, or the config would be
    // refused for a number it does not hold (Mistral's 8 K/V heads beside 4 query heads).
    if (!r_.has(key) && default_of(key) != nullptr) {
      fail(key, fmt::format("{} ({}, the field being left out, is {}'s transformers default {})", message, key,
                            what_, default_of(key)->value));
    }
    fail(key, message);
  }
  return false;
}

void HfFields::fail(std::string_view key, std::string_view message) const { r_.fail(key, message); }
void HfFields::fail_here(std::string_view message) const { r_.fail_here(message); }

}  // namespace roofline::io
