#include "model/model_spec.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/precision.hpp"

namespace roofline {

namespace {

std::optional<SpecError> positive(std::string_view field, double v) {
  if (v > 0) return std::nullopt;
  return SpecError{std::string(field), fmt::format("must be positive, got {}", v)};
}

std::optional<SpecError> validate_moe(const MoeSpec& moe) {
  if (auto e = positive("moe.experts", moe.experts)) return e;
  if (auto e = positive("moe.top_k", moe.top_k)) return e;
  if (auto e = positive("moe.ffn", static_cast<double>(moe.ffn))) return e;
  if (moe.shared_experts < 0) return SpecError{"moe.shared_experts", "must not be negative"};
  if (moe.dense_layers < 0) return SpecError{"moe.dense_layers", "must not be negative"};
  if (moe.latent < 0 || moe.latent > 1'000'000) return SpecError{"moe.latent", "must be 0 to 10^6"};
  if (moe.top_k > moe.experts) {
    return SpecError{"moe.top_k", fmt::format("top_k {} exceeds the {} experts", moe.top_k, moe.experts)};
  }
  return std::nullopt;
}

// The sums and products of two dimensions that the spec's helpers form in 64 bits (q_dim(),
// kv_dim(), the latent cache width, the embedding table's rows): a spec built in code is not held
// to the readers' ranges, so these are checked where they are formed, naming the field.
std::optional<SpecError> overflows(std::string_view field, std::string_view what, bool overflowed) {
  if (!overflowed) return std::nullopt;
  return SpecError{std::string(field), fmt::format("{} overflows a 64-bit integer", what)};
}

std::optional<SpecError> validate_sizes(const Architecture& a) {
  long out = 0;
  if (auto e = overflows("head_dim", "heads × head_dim", __builtin_mul_overflow(long{a.heads}, a.head_dim, &out))) {
    return e;
  }
  if (auto e = overflows("head_dim", "kv_heads × head_dim",
                         __builtin_mul_overflow(long{a.kv_heads}, a.head_dim, &out))) {
    return e;
  }
  if (auto e = overflows("position_embeddings", "vocab + position_embeddings",
                         __builtin_add_overflow(a.vocab, a.position_embeddings, &out))) {
    return e;
  }
  if (a.mla) {
    if (auto e = overflows("mla.rope_dim", "mla.kv_lora_rank + mla.rope_dim",
                           __builtin_add_overflow(a.mla->kv_lora_rank, a.mla->rope_dim, &out))) {
      return e;
    }
  }
  return std::nullopt;
}

// What an architecture describes that none of its layers uses: refused in a model as given
// (validate_kinds), dropped from one cut from another (drop_unused), so the two agree.
struct Unused {
  bool window = false, chunk = false, recurrent = false, moe = false;
};
Unused unused_sections(const Architecture& a) {
  const auto mixers = a.mixer_counts();
  const auto uses = [&](Mixer m) { return mixers[static_cast<int>(m)] > 0; };
  return {a.sliding_window > 0 && !uses(Mixer::sliding), a.attention_chunk > 0 && !uses(Mixer::chunked),
          a.recurrent && !uses(Mixer::linear) && !uses(Mixer::ssm), a.moe && a.moe_layers() == 0};
}

// The kinds the layers use need their sections and widths.
std::optional<SpecError> validate_kinds(const Architecture& a) {
  const auto mixers = a.mixer_counts();
  const auto ffns = a.ffn_counts();
  const auto uses = [&](Mixer m) { return mixers[static_cast<int>(m)] > 0; };
  if (uses(Mixer::sliding) && a.sliding_window <= 0) {
    return SpecError{"sliding_window", "sliding layers need the window's width in tokens"};
  }
  if (uses(Mixer::chunked) && a.attention_chunk <= 0) {
    return SpecError{"attention_chunk", "chunked layers need the chunk's width in tokens"};
  }
  for (Mixer m : {Mixer::linear, Mixer::ssm}) {
    if (!uses(m)) continue;
    const bool linear = m == Mixer::linear;
    if (!a.recurrent) return SpecError{"recurrent", fmt::format("{} layers need the `recurrent` section", linear ? "linear" : "ssm")};
    if (a.recurrent->is_linear_attention() != linear) {
      return SpecError{"mixer_pattern", fmt::format("{} layers do not match the recurrent kind: gated_deltanet is linear "
                                                    "attention, mamba and mamba2 are ssm",
                                                    linear ? "linear" : "ssm")};
    }
  }
  if (a.recurrent) {
    const Recurrent& r = *a.recurrent;
    if (auto e = positive("recurrent.inner", static_cast<double>(r.inner))) return e;
    if (auto e = positive("recurrent.state", static_cast<double>(r.state))) return e;
    if (auto e = positive("recurrent.conv_kernel", static_cast<double>(r.conv_kernel))) return e;
    if (r.kind == RecurrentKind::mamba) {
      if (auto e = positive("recurrent.dt_rank", static_cast<double>(r.dt_rank))) return e;
    } else {
      if (auto e = positive("recurrent.heads", r.heads)) return e;
      if (auto e = positive("recurrent.groups", r.groups)) return e;
      if (r.heads % r.groups != 0) {
        return SpecError{"recurrent.groups", fmt::format("{} groups do not divide {} heads", r.groups, r.heads)};
      }
      if (r.inner % r.heads != 0) {
        return SpecError{"recurrent.heads", fmt::format("{} heads do not divide the inner width {}", r.heads, r.inner)};
      }
    }
  }
  if (a.sparse) {
    if (auto e = positive("sparse.top_k", static_cast<double>(a.sparse->top_k))) return e;
    if (auto e = positive("sparse.index_heads", a.sparse->index_heads)) return e;
    if (auto e = positive("sparse.index_dim", static_cast<double>(a.sparse->index_dim))) return e;
    if (!a.mla) return SpecError{"sparse", "sparse attention is modelled with latent attention (mla) only"};
  }
  if (ffns[static_cast<int>(FfnKind::moe)] > 0 && !a.moe) {
    return SpecError{"ffn_pattern", "moe layers need the `moe` section"};
  }
  // A section or width no layer uses would be read and dropped without a word: a window without
  // sliding layers priced every layer's cache whole.
  const Unused unused = unused_sections(a);
  if (unused.window) {
    return SpecError{"sliding_window", "no layer slides, so the window is not used: name the sliding layers in "
                                       "mixer_pattern ([sliding] for every layer), or leave it out"};
  }
  if (unused.chunk) {
    return SpecError{"attention_chunk", "no layer attends in chunks, so the chunk is not used: name the chunked "
                                        "layers in mixer_pattern, or leave it out"};
  }
  if (unused.recurrent) {
    return SpecError{"recurrent", "no layer is recurrent (linear or ssm in mixer_pattern), so the section is not used"};
  }
  if (a.qk_norm_per_layer && !a.qk_norm) {
    return SpecError{"qk_norm_per_layer", "says how the Q/K norms span the heads, and qk_norm is false: give "
                                          "qk_norm: true, or leave it out"};
  }
  if (unused.moe) {
    return SpecError{"moe", "no layer has a mixture of experts (ffn_pattern, moe.dense_layers), so the section is "
                            "not used"};
  }
  if (a.moe && !a.ffn_pattern.empty() && a.moe->dense_layers > 0) {
    return SpecError{"moe.dense_layers", "give the leading dense layers in ffn_pattern, not both"};
  }
  const long longest = 1'000'000'000;
  if (a.sliding_window < 0 || a.sliding_window > longest) return SpecError{"sliding_window", "must be 0 to 10^9 tokens"};
  if (a.attention_chunk < 0 || a.attention_chunk > longest) return SpecError{"attention_chunk", "must be 0 to 10^9 tokens"};
  return std::nullopt;
}

// Gemma 4 E2B/E4B's last layers read the cache of the last earlier layer of their kind: attention
// layers of grouped-query attention, each with such a layer before them; their own FFN width only
// where they have dense FFNs.
std::optional<SpecError> validate_kv_sharing(const Architecture& a) {
  if (a.kv_shared_ffn < 0 || a.kv_shared_ffn > 1'000'000) return SpecError{"kv_shared_ffn", "must be 0 to 10^6"};
  if (a.kv_shared_layers < 0 || a.kv_shared_layers >= a.layers) {
    return SpecError{"kv_shared_layers", fmt::format("must be 0 to {} (the first layer keeps its own cache)", a.layers - 1)};
  }
  if (a.kv_shared_layers == 0) {
    if (a.kv_shared_ffn > 0) return SpecError{"kv_shared_ffn", "the FFN width of cache-sharing layers, without any"};
    return std::nullopt;
  }
  if (a.mla) return SpecError{"kv_shared_layers", "layers sharing a cache are modelled with grouped-query attention only"};
  const int first = a.layers - a.kv_shared_layers;
  const auto all = a.mixer_counts(), owning = a.mixers_before(first);
  for (std::size_t k = 0; k < kMixerCount; ++k) {
    const int sharing = all[k] - owning[k];
    if (sharing == 0) continue;
    const auto kind = static_cast<Mixer>(k);
    if (kind != Mixer::full && kind != Mixer::sliding && kind != Mixer::chunked) {
      return SpecError{"kv_shared_layers", "only attention layers read an earlier layer's cache (mixer_pattern)"};
    }
    if (owning[k] == 0) {
      return SpecError{"kv_shared_layers", "a sharing layer needs an earlier layer of its kind to read the cache of"};
    }
  }
  const int dense = a.ffn_counts()[static_cast<int>(FfnKind::dense)] - a.ffns_before(first)[static_cast<int>(FfnKind::dense)];
  if (a.kv_shared_ffn > 0 && dense == 0) {
    return SpecError{"kv_shared_ffn", "the cache-sharing layers have no dense FFN to widen"};
  }
  return std::nullopt;
}

// The full layers' own shape (Gemma 4): grouped-query attention of the same query heads.
std::optional<SpecError> validate_full_attention(const Architecture& a) {
  if (!a.full_attention) return std::nullopt;
  const FullAttention& f = *a.full_attention;
  if (a.mla) return SpecError{"full_attention", "the full layers' own shape is modelled without latent attention (mla)"};
  if (a.mixer_counts()[static_cast<int>(Mixer::full)] == 0) {
    return SpecError{"full_attention", "no layer attends fully (mixer_pattern), so the full layers' shape is not used"};
  }
  if (f.heads < 0 || f.heads > 100'000) return SpecError{"full_attention.heads", "must be 0 to 100,000"};
  if (auto e = positive("full_attention.kv_heads", f.kv_heads)) return e;
  if (auto e = positive("full_attention.head_dim", static_cast<double>(f.head_dim))) return e;
  if (f.head_dim > 1'000'000) return SpecError{"full_attention.head_dim", "must be at most 10^6"};
  const int heads = f.heads > 0 ? f.heads : a.heads;
  if (heads % f.kv_heads != 0) {
    return SpecError{"full_attention.kv_heads", fmt::format("kv_heads {} does not divide heads {}", f.kv_heads, heads)};
  }
  return std::nullopt;
}

std::optional<SpecError> validate_architecture(const Architecture& a) {
  if (auto e = positive("layers", a.layers)) return e;
  if (auto e = positive("hidden", static_cast<double>(a.hidden))) return e;
  const bool attends = a.attention_layers() > 0;
  if (attends) {
    if (auto e = positive("heads", a.heads)) return e;
    if (auto e = positive("kv_heads", a.kv_heads)) return e;
    if (auto e = positive("head_dim", static_cast<double>(a.head_dim))) return e;
  } else if (a.heads < 0 || a.kv_heads < 0 || a.head_dim < 0) {
    return SpecError{"heads", "must not be negative"};
  }
  if (auto e = positive("vocab", static_cast<double>(a.vocab))) return e;
  if (a.position_embeddings < 0) return SpecError{"position_embeddings", "must not be negative"};
  if (a.dense_ffn_layers() > 0) {
    if (auto e = positive("ffn", static_cast<double>(a.ffn))) return e;
  }
  if (auto e = validate_kinds(a)) return e;
  if (a.moe) {
    if (auto e = validate_moe(*a.moe)) return e;
    if (a.moe->dense_layers > a.layers) {
      return SpecError{"moe.dense_layers", fmt::format("{} dense layers exceed the {} layers", a.moe->dense_layers, a.layers)};
    }
    if (a.linear_bias) return SpecError{"linear_bias", "biases on every linear are not modelled for mixtures of experts"};
  }
  if (a.mla) {
    const LatentAttention& l = *a.mla;
    if (a.kv_heads != a.heads) {
      return SpecError{"kv_heads", fmt::format("latent attention decompresses a K and V per head: kv_heads {} must "
                                               "equal heads {}",
                                               a.kv_heads, a.heads)};
    }
    // Neither DeepSeek-V2 nor V3 has them; priced nowhere, they are refused rather than counted.
    if (a.attention_bias) return SpecError{"attention_bias", "biases are not modelled with latent attention (mla)"};
    if (a.linear_bias) return SpecError{"linear_bias", "biases are not modelled with latent attention (mla)"};
    // Latent attention's layers have none of these; priced nowhere, they would be silently dropped.
    if (a.attention_sinks) return SpecError{"attention_sinks", "sinks are not modelled with latent attention (mla)"};
    if (a.qk_norm) return SpecError{"qk_norm", "Q/K norms are not modelled with latent attention (mla)"};
    if (a.attention_gate) return SpecError{"attention_gate", "an output gate is not modelled with latent attention (mla)"};
    if (a.head_gate) return SpecError{"head_gate", "a gate per head is not modelled with latent attention (mla)"};
    if (l.q_lora_rank < 0) return SpecError{"mla.q_lora_rank", "must not be negative"};
    if (auto e = positive("mla.kv_lora_rank", static_cast<double>(l.kv_lora_rank))) return e;
    if (auto e = positive("mla.nope_dim", static_cast<double>(l.nope_dim))) return e;
    if (auto e = positive("mla.rope_dim", static_cast<double>(l.rope_dim))) return e;
    if (auto e = positive("mla.v_dim", static_cast<double>(l.v_dim))) return e;
  }
  // Grouped-query attention shares each K/V head among heads / kv_heads query heads.
  if (attends && a.heads % a.kv_heads != 0) {
    return SpecError{"kv_heads", fmt::format("kv_heads {} does not divide heads {}", a.kv_heads, a.heads)};
  }
  if (auto e = validate_full_attention(a)) return e;
  if (a.kv_shared_layers < 0 || a.kv_shared_layers >= a.layers) {
    return SpecError{"kv_shared_layers", fmt::format("must be 0 to {} (the first layer keeps its own cache)", a.layers - 1)};
  }
  if (auto e = validate_kv_sharing(a)) return e;
  if (a.per_layer_input < 0 || a.per_layer_input > 1'000'000) return SpecError{"per_layer_input", "must be 0 to 10^6"};
  if (a.per_layer_vocab < 0 || a.per_layer_vocab > 100'000'000) {
    return SpecError{"per_layer_vocab", "must be 0 to 10^8"};
  }
  if (a.per_layer_vocab > 0 && a.per_layer_input == 0) {
    return SpecError{"per_layer_vocab", "rows of a per-layer input table, without per_layer_input"};
  }
  if (!(a.tower_params >= 0 && a.tower_params <= 1e15)) return SpecError{"tower_params", "must be 0 to 10^15"};
  return validate_sizes(a);
}

}  // namespace

int Architecture::attention_layers() const {
  const auto n = mixer_counts();
  return n[static_cast<int>(Mixer::full)] + n[static_cast<int>(Mixer::sliding)] + n[static_cast<int>(Mixer::chunked)];
}

Mixer Architecture::mixer(int layer) const {
  if (mixer_pattern.empty()) return Mixer::full;
  return mixer_pattern[static_cast<std::size_t>(layer) % mixer_pattern.size()];
}

FfnKind Architecture::ffn_kind(int layer) const {
  if (!ffn_pattern.empty()) return ffn_pattern[static_cast<std::size_t>(layer) % ffn_pattern.size()];
  if (!moe) return FfnKind::dense;
  return layer < moe->dense_layers ? FfnKind::dense : FfnKind::moe;
}

// Counted by each list's cycle, not layer by layer: a pattern of P kinds over L layers gives
// position p the layers p, p + P, ... below L.
std::array<int, kMixerCount> Architecture::mixer_counts() const { return mixers_before(layers); }
std::array<int, kFfnKindCount> Architecture::ffn_counts() const { return ffns_before(layers); }

std::array<int, kMixerCount> Architecture::mixers_before(int first) const {
  std::array<int, kMixerCount> n{};
  first = std::clamp(first, 0, std::max(layers, 0));
  if (first == 0) return n;
  if (mixer_pattern.empty()) {
    n[static_cast<int>(Mixer::full)] = first;
    return n;
  }
  const auto period = static_cast<int>(mixer_pattern.size());
  for (int p = 0; p < period && p < first; ++p) {
    n[static_cast<int>(mixer_pattern[static_cast<std::size_t>(p)])] += (first - 1 - p) / period + 1;
  }
  return n;
}

std::array<int, kFfnKindCount> Architecture::ffns_before(int first) const {
  std::array<int, kFfnKindCount> n{};
  first = std::clamp(first, 0, std::max(layers, 0));
  if (first == 0) return n;
  if (ffn_pattern.empty()) {
    const int dense = moe ? std::clamp(moe->dense_layers, 0, first) : first;
    n[static_cast<int>(FfnKind::dense)] = dense;
    n[static_cast<int>(FfnKind::moe)] = first - dense;
    return n;
  }
  const auto period = static_cast<int>(ffn_pattern.size());
  for (int p = 0; p < period && p < first; ++p) {
    n[static_cast<int>(ffn_pattern[static_cast<std::size_t>(p)])] += (first - 1 - p) / period + 1;
  }
  return n;
}

namespace {

// A checkpoint's formats must name tensors the model has, in one format each.
std::optional<SpecError> validate_quantization(const ModelSpec& m) {
  const Quantization& q = *m.quantization;
  if (q.group_size && *q.group_size < 1) {
    return SpecError{"quantization.group_size", fmt::format("must be at least 1, got {}", *q.group_size)};
  }
  for (int c = 0; c < kTensorClassCount && !m.architecture; ++c) {
    const auto tensors = static_cast<TensorClass>(c);
    if (q.of(tensors)) {
      return SpecError{fmt::format("quantization.{}", name(tensors)),
                       "a model known only by its size has no tensor classes: give its one format as `dtype`"};
    }
  }
  // A format for weights the model does not hold would be read and dropped without a word.
  for (TensorClass c : kBlockClasses) {
    if (m.architecture && q.of(c) && !holds(*m.architecture, c)) {
      return SpecError{fmt::format("quantization.{}", name(c)),
                       fmt::format("the model holds no {} weights (its layers' ffn_pattern and moe), so the format is "
                                   "not used",
                                   name(c))};
    }
  }
  // The compute a checkpoint implies is a narrow format its linears' inputs are quantized to at run
  // time: a wide one is the activation format's business (--activations, --compute).
  if (q.compute && is_wide_float(*q.compute)) {
    return SpecError{"quantization.compute",
                     fmt::format("{} is not a format a checkpoint quantizes activations to (fp8, int8, int4, fp6, "
                                 "fp4; a 16-bit compute is --compute's)",
                                 name(*q.compute))};
  }
  // The compute goes with quantized blocks: an LM head alone would put every block's arithmetic
  // in its format.
  if (q.compute && std::none_of(kBlockClasses.begin(), kBlockClasses.end(), [&](TensorClass c) { return q.of(c); })) {
    return SpecError{"quantization.compute",
                     "no block class (attention, dense_ffn, experts, shared_experts) is quantized: give the formats "
                     "the compute goes with"};
  }
  // A tied table is one tensor, stored in the head's format: an embedding format apart from it
  // would be priced as something it is not.
  const auto& embedding = q.of(TensorClass::embedding);
  if (m.architecture && m.architecture->tied_embeddings && embedding && embedding != q.of(TensorClass::lm_head)) {
    return SpecError{"quantization.embedding",
                     "the embeddings are tied to the LM head, one tensor: give its format as quantization.lm_head "
                     "(and the same here, or nothing)"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<SpecError> validate(const ModelSpec& m) {
  if (m.max_context) {
    if (auto e = positive("max_context", static_cast<double>(*m.max_context))) return e;
  }
  if (m.quantization) {
    if (auto e = validate_quantization(m)) return e;
  }
  if (m.architecture) return validate_architecture(*m.architecture);
  return positive("params", m.declared_params);
}

std::optional<std::string> hf_id_of_source(std::string_view source) {
  if (!source.starts_with("HF ")) return std::nullopt;
  const std::string_view rest = source.substr(3);
  const std::string_view id = rest.substr(0, rest.find_first_of(" ,"));
  const auto slash = id.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == id.size()) return std::nullopt;
  return std::string(id);
}

bool holds(const Architecture& a, TensorClass c) {
  switch (c) {
    case TensorClass::dense_ffn: return a.dense_ffn_layers() > 0;
    case TensorClass::experts: return a.moe_layers() > 0;
    case TensorClass::shared_experts: return a.moe_layers() > 0 && a.moe && a.moe->shared_experts > 0;
    default: return true;
  }
}

void drop_unused(ModelSpec& m) {
  if (!m.architecture) return;
  Architecture& a = *m.architecture;
  const Unused unused = unused_sections(a);
  if (unused.window) a.sliding_window = 0;
  if (unused.chunk) a.attention_chunk = 0;
  if (unused.recurrent) a.recurrent.reset();
  if (m.quantization) {
    Quantization& q = *m.quantization;
    for (TensorClass c : kBlockClasses) {
      if (!holds(a, c)) q.of(c).reset();
    }
    // A compute goes with a quantized block class; none left, the cut model computes as it stores.
    if (std::none_of(kBlockClasses.begin(), kBlockClasses.end(), [&](TensorClass c) { return q.of(c).has_value(); })) {
      q.compute.reset();
    }
  }
  if (unused.moe) a.moe.reset();  // after the formats: holds() reads its shared experts
}

}  // namespace roofline
