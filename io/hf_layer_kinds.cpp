// Which layers attend to every token, to a sliding window, to their chunk, or recurrently: each
// family's rule (transformers' defaults for `layer_types`), or the `layer_types` a config writes.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "io/hf_reading.hpp"

namespace roofline::io {

namespace {

constexpr Range kPeriod{1, 100'000};  // an interval or pattern period, in layers

struct LayerType {
  std::string_view word;
  Mixer mixer;
};
constexpr std::array<LayerType, 4> kLayerTypes = {{{"full_attention", Mixer::full},
                                                   {"sliding_attention", Mixer::sliding},
                                                   {"chunked_attention", Mixer::chunked},
                                                   {"linear_attention", Mixer::linear}}};

std::vector<Mixer> from_layer_types(const HfFields& c, int layers) {
  const std::vector<std::string> words = c.words("layer_types");
  c.require_per_layer("layer_types", words.size(), layers);
  std::vector<Mixer> kinds;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto t =
        std::find_if(kLayerTypes.begin(), kLayerTypes.end(), [&](const LayerType& l) { return l.word == words[i]; });
    if (t == kLayerTypes.end()) {
      c.fail("layer_types",
             fmt::format("layer_types[{}] \"{}\" is not a layer kind rooflineplan reads (full_attention, "
                         "sliding_attention, chunked_attention, linear_attention)",
                         i, words[i]));
    }
    kinds.push_back(t->mixer);
  }
  return kinds;
}

// Layer i is `some` unless (i + 1) is a multiple of `every`, when it is `other`: transformers'
// rule for Gemma 2 and 3, Llama 4, Qwen3-Next and gpt-oss.
std::vector<Mixer> every(int layers, long period, Mixer some, Mixer other) {
  std::vector<Mixer> kinds;
  for (int i = 0; i < layers; ++i) kinds.push_back((i + 1) % period != 0 ? some : other);
  return kinds;
}

// Llama 4: `no_rope_layers[i]` is 1 where layer i uses RoPE, and those layers attend within their
// chunk; the others (every 4th by default) attend to every token without positions.
std::vector<Mixer> llama4_kinds(const HfFields& c, int layers) {
  const std::vector<long> rope = c.numbers("no_rope_layers", {0, 1});
  if (rope.empty()) return every(layers, c.number_in("no_rope_layer_interval", kPeriod), Mixer::chunked, Mixer::full);
  c.use("no_rope_layer_interval");
  c.require_per_layer("no_rope_layers", rope.size(), layers);
  std::vector<Mixer> kinds;
  for (long r : rope) kinds.push_back(r == 1 ? Mixer::chunked : Mixer::full);
  return kinds;
}

// MiniMax-M2 writes one entry a layer: 1 full attention, 0 MiniMax-01's lightning attention.
std::vector<Mixer> minimax_kinds(const HfFields& c, int layers) {
  const std::vector<long> types = c.numbers("attn_type_list", {0, 1});
  if (types.empty()) return std::vector<Mixer>(static_cast<std::size_t>(layers), Mixer::full);
  c.require_per_layer("attn_type_list", types.size(), layers);
  if (std::find(types.begin(), types.end(), 0) != types.end()) {
    c.fail("attn_type_list", "lightning attention layers (0, MiniMax-01) are not modelled; only full attention (1) is");
  }
  return std::vector<Mixer>(static_cast<std::size_t>(layers), Mixer::full);
}

// Qwen2/3 slide from layer `max_window_layers` on only with use_sliding_window, a rule that has
// changed meaning across transformers versions (and serving engines ignore it).
void refuse_qwen_sliding(const HfFields& c) {
  if (c.flag("use_sliding_window", false)) {
    c.fail("use_sliding_window",
           "Qwen's sliding layers are not read: which layers slide (max_window_layers) has "
           "been read differently across transformers versions; rooflineplan refuses rather "
           "than guess");
  }
  c.use({"sliding_window", "max_window_layers"});  // unused while use_sliding_window is off
}

// Gemma 4: transformers' Gemma4TextConfig.__post_init__ (configuration_gemma4.py) derives
// layer_types as 5 sliding layers to 1 full with the 6 fixed in its code (a sliding_window_pattern
// the config writes becomes an attribute nothing reads), then forces the last layer to full
// attention, logging "Last layer must use `full_attention` ... Forcing last layer to
// `full_attention`"; vLLM's Gemma 4 reads the layer_types so rewritten. rooflineplan prices neither
// rewrite silently, and has no warning to give from here: a written layer_types ending on another
// kind, a derived one that would (layers not a multiple of 6), and a pattern other than the fixed 6
// are refused naming the field, so the config says what its layers are.
constexpr long kGemma4Period = 6;

void refuse_gemma4_last(const HfFields& c, const std::vector<Mixer>& kinds, bool written) {
  if (kinds.empty() || kinds.back() == Mixer::full) return;
  const auto last = kinds.size() - 1;
  if (written) {
    c.refuse("layer_types",
             fmt::format("layer_types[{}] is not full_attention: Gemma4TextConfig forces the last layer to full "
                         "attention (with a warning), so the layers differ from what this list says; write "
                         "full_attention there",
                         last));
  } else {
    c.refuse("num_hidden_layers",
             fmt::format("{} layers end Gemma4TextConfig's 5-sliding-to-1-full layer_types on a sliding layer, which "
                         "it forces to full attention (with a warning); write layer_types",
                         kinds.size()));
  }
}

std::vector<Mixer> gemma4_kinds(const HfFields& c, int layers) {
  for (std::string_view key : {"sliding_window_pattern", "_sliding_window_pattern"}) {
    if (c.given(key) && c.number_in(key, kPeriod) != kGemma4Period) {
      c.refuse(key, "Gemma4TextConfig derives layer_types as 5 sliding layers to 1 full whatever this says (the 6 "
                    "is fixed in its __post_init__); write layer_types");
    }
    c.use(key);
  }
  std::vector<Mixer> kinds = every(layers, kGemma4Period, Mixer::sliding, Mixer::full);
  refuse_gemma4_last(c, kinds, false);
  return kinds;
}

std::vector<Mixer> by_family(const HfFields& c, const HfFamily& f, int layers) {
  switch (f.layers) {
    case HfLayers::full:
      break;
    case HfLayers::sliding_when_set:
      if (c.has("sliding_window")) return std::vector<Mixer>(static_cast<std::size_t>(layers), Mixer::sliding);
      break;
    case HfLayers::qwen:
      refuse_qwen_sliding(c);
      break;
    case HfLayers::alternating:
      return every(layers, 2, Mixer::sliding, Mixer::full);
    case HfLayers::gemma3:
      // Later transformers write the period as `_sliding_window_pattern`.
      c.use({"sliding_window_pattern", "_sliding_window_pattern"});
      return every(
          layers,
          c.number_in(c.given("_sliding_window_pattern") ? "_sliding_window_pattern" : "sliding_window_pattern",
                      kPeriod),
          Mixer::sliding, Mixer::full);
    case HfLayers::gemma4:
      return gemma4_kinds(c, layers);
    case HfLayers::llama4:
      return llama4_kinds(c, layers);
    case HfLayers::qwen3_next:
      refuse_qwen_sliding(c);
      return every(layers, c.number_in("full_attention_interval", kPeriod), Mixer::linear, Mixer::full);
    case HfLayers::minimax:
      return minimax_kinds(c, layers);
  }
  return std::vector<Mixer>(static_cast<std::size_t>(layers), Mixer::full);
}

bool uses(const std::vector<Mixer>& kinds, Mixer m) { return std::find(kinds.begin(), kinds.end(), m) != kinds.end(); }

}  // namespace

void read_layer_kinds(const HfFields& c, const HfFamily& f, Architecture& a) {
  std::vector<Mixer> kinds;
  if (c.given("layer_types")) {
    kinds = from_layer_types(c, a.layers);
    if (f.layers == HfLayers::gemma4) refuse_gemma4_last(c, kinds, true);
    // transformers derives layer_types from these only when a config does not write them out.
    c.use({"sliding_window_pattern", "_sliding_window_pattern", "full_attention_interval", "no_rope_layers",
           "no_rope_layer_interval", "use_sliding_window", "max_window_layers"});
  } else {
    kinds = by_family(c, f, a.layers);
  }
  if (uses(kinds, Mixer::sliding)) {
    c.require({"sliding_window"});
    a.sliding_window = c.count("sliding_window", "sliding_window");
  } else if (f.layers != HfLayers::full) {
    c.use("sliding_window");  // a family that reads windows, with none on any layer
  }
  if (uses(kinds, Mixer::chunked)) {
    c.require({"attention_chunk_size"});
    a.attention_chunk = c.count("attention_chunk_size", "attention_chunk");
  } else if (f.layers == HfLayers::llama4) {
    c.use("attention_chunk_size");
  }
  if (uses(kinds, Mixer::linear)) {
    if (f.layers != HfLayers::qwen3_next) {
      c.fail("layer_types", "linear attention layers are read only from Qwen3-Next configs (Gated DeltaNet)");
    }
    a.recurrent = read_gated_deltanet(c);
  } else if (f.layers == HfLayers::qwen3_next) {
    c.use({"linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim", "linear_num_key_heads",
           "linear_num_value_heads"});
  }
  const bool all_full = std::all_of(kinds.begin(), kinds.end(), [](Mixer m) { return m == Mixer::full; });
  if (!all_full) a.mixer_pattern = shortest_period(kinds);
}

}  // namespace roofline::io
