// A multimodal wrapper's vision and audio towers, counted for the memory they take: what their
// configs give, priced as a plain transformer encoder. Their compute is never priced (image and
// audio tokens are out of scope), so only the weights matter, and an estimate within a few percent
// of a tower is within a fraction of a percent of the checkpoint (Gemma 3 27B's SigLIP: 0.4 B of 27 B).
#include <fmt/format.h>

#include <array>

#include "io/hf_reading.hpp"

namespace roofline::io {

namespace {

constexpr Range kTowerWidth{1, 1'000'000}, kTowerLayers{1, 10'000}, kTowerSmall{1, 10'000};

// The first of a few names a tower's config gives a value under (Qwen2-VL: depth, embed_dim;
// SigLIP, Pixtral: num_hidden_layers, hidden_size).
std::optional<long> first_of(const HfFields& t, std::initializer_list<std::string_view> keys, Range range) {
  for (std::string_view k : keys) {
    if (t.given(k)) return t.number_in(k, range);
  }
  return std::nullopt;
}

// One encoder: per layer Q, K, V, O (4·h²) and an MLP of two matrices, three where it is gated
// (SiLU: Pixtral's SwiGLU); the patch embedding; learned positions where the config has a table
// (SigLIP: one per patch of the image); one projection of the merged patches to the text width.
// Biases and norms, under 0.1 % of an encoder, are left out.
std::optional<double> encoder(const HfFields& t, double text_hidden) {
  const auto layers = first_of(t, {"depth", "num_hidden_layers"}, kTowerLayers);
  const auto h = first_of(t, {"hidden_size", "embed_dim", "d_model"}, kTowerWidth);
  const auto inner = first_of(t, {"intermediate_size", "encoder_ffn_dim"}, kTowerWidth);
  if (!layers || !h || !inner) return std::nullopt;
  const double width = static_cast<double>(*h);
  const bool gated = t.given("hidden_act") && t.text("hidden_act") == "silu";
  const double layer = 4 * width * width + (gated ? 3.0 : 2.0) * width * static_cast<double>(*inner);
  const double patch = static_cast<double>(first_of(t, {"patch_size"}, kTowerSmall).value_or(0));
  const double channels = static_cast<double>(first_of(t, {"in_channels", "num_channels"}, kTowerSmall).value_or(3));
  const double frames = static_cast<double>(first_of(t, {"temporal_patch_size"}, kTowerSmall).value_or(1));
  double positions = static_cast<double>(first_of(t, {"num_position_embeddings"}, {1, 100'000'000}).value_or(0));
  const bool siglip = t.given("model_type") && t.text("model_type").starts_with("siglip");
  if (positions == 0 && siglip && patch > 0 && t.given("image_size")) {
    const double side = static_cast<double>(t.number_in("image_size", {1, 1'000'000})) / patch;
    positions = side * side;
  }
  const double merge = static_cast<double>(first_of(t, {"spatial_merge_size"}, kTowerSmall).value_or(1));
  const double out = static_cast<double>(first_of(t, {"out_hidden_size"}, kTowerWidth).value_or(0));
  return static_cast<double>(*layers) * layer + channels * patch * patch * frames * width + positions * width +
         width * merge * merge * (out > 0 ? out : text_hidden);
}

}  // namespace

Towers read_towers(const HfFields& top, double text_hidden) {
  Towers out;
  for (std::string_view key : {"vision_config", "audio_config"}) {
    if (!top.filled(key)) continue;
    const HfFields tower = top.child(key, top.what());
    if (const auto params = encoder(tower, text_hidden)) {
      out.params += *params;
    } else {
      out.unpriced = true;
    }
  }
  return out;
}

}  // namespace roofline::io
