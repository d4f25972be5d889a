#pragma once
// The parts of the Hugging Face reader, each in the file named for it; only io/hf_*.cpp include
// this. Each reads its fields from one config mapping into the architecture, failing at the field.
#include <optional>
#include <vector>

#include "io/hf_families.hpp"
#include "io/hf_fields.hpp"
#include "model/model_spec.hpp"

namespace roofline::io {

// hf_attention.cpp: heads, K/V heads, head width, biases, Q/K norms, sinks, the output gate,
// latent attention and DeepSeek-V3.2's indexer. `head_dim_key`: the family's name for the width.
void read_attention(const HfFields& c, const HfFamily& f, Architecture& a, std::string_view head_dim_key = "head_dim");
// The full-attention layers' own shape (Gemma 4), once the layer kinds are known.
void read_global_attention(const HfFields& c, const HfFamily& f, Architecture& a);

// hf_layer_kinds.cpp: which layers attend fully, in a sliding window or a chunk, or recurrently,
// and the window, chunk and recurrent layer they use.
void read_layer_kinds(const HfFields& c, const HfFamily& f, Architecture& a);

// hf_ffn.cpp: the FFN width, the experts, and which layers are dense and which MoE.
void read_ffn(const HfFields& c, const HfFamily& f, Architecture& a);

// hf_recurrent.cpp: whole stacks of recurrent or hybrid layers (Mamba, Mamba-2, Nemotron-H), and
// Qwen3-Next's Gated DeltaNet layers.
void read_mamba(const HfFields& c, const HfFamily& f, Architecture& a);
void read_nemotron_h(const HfFields& c, const HfFamily& f, Architecture& a);
[[nodiscard]] Recurrent read_gated_deltanet(const HfFields& c);

// hf_towers.cpp: the vision and audio encoders a wrapper ships, for their weights, counted as the
// family's tower kind says. `unpriced`: a tower's config does not give its dimensions.
struct Towers {
  double params = 0;
  bool unpriced = false;
};
[[nodiscard]] Towers read_towers(const HfFields& top, const HfFamily& family, double text_hidden);

// hf_quantization.cpp: `quantization_config` as the formats each tensor class is stored in.
// `dtype`: the model's, which the modules left alone keep. `naming`: whose module names its
// patterns are matched against, the decoder family's, under a multimodal wrapper's prefixes where
// `wrapper`. `given_method`: the method a file other than config.json says (ModelOpt's
// hf_quant_config.json), for a mapping without `quant_method`.
struct HfNaming {
  const HfFamily& decoder;
  bool wrapper = false;
};
[[nodiscard]] std::optional<Quantization> read_quantization(const HfFields& q, const Architecture& a, DType dtype,
                                                            HfNaming naming, std::string_view given_method = {});

// The shortest list that, repeated from the first layer, gives every layer its kind: Gemma 3's
// 62 layers become [sliding × 5, full].
template <class T>
[[nodiscard]] std::vector<T> shortest_period(const std::vector<T>& per_layer) {
  for (std::size_t p = 1; p < per_layer.size(); ++p) {
    bool repeats = true;
    for (std::size_t i = p; i < per_layer.size() && repeats; ++i) repeats = per_layer[i] == per_layer[i % p];
    if (repeats) return {per_layer.begin(), per_layer.begin() + static_cast<std::ptrdiff_t>(p)};
  }
  return per_layer;
}

}  // namespace roofline::io
