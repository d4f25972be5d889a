// A multimodal wrapper's vision and audio towers, counted for the memory they take: what their
// configs give, priced as a plain transformer encoder, or, for a family whose tower the estimate
// misses by more than a few percent (Qwen3-VL's DeepStack mergers, Mistral 3's projector), as its
// transformers model builds it. Their compute is never priced (image and audio tokens are out of
// scope), so only the weights matter, and an estimate within a few percent of a tower is within a
// fraction of a percent of the checkpoint (Gemma 3 27B's SigLIP: 0.4 B of 27 B).
#include <fmt/format.h>

#include <algorithm>
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
// (SiLU: Pixtral's SwiGLU; Gemma 4's); the patch embedding; learned positions where the config has
// a table (SigLIP: one per patch of the image; Gemma 4: one per axis); one projection of the
// merged patches to the text width. Biases and norms, under 0.1 % of an encoder, are left out.
std::optional<double> encoder(const HfFields& t, double text_hidden) {
  const auto layers = first_of(t, {"depth", "num_hidden_layers"}, kTowerLayers);
  const auto h = first_of(t, {"hidden_size", "embed_dim", "d_model"}, kTowerWidth);
  const auto inner = first_of(t, {"intermediate_size", "encoder_ffn_dim"}, kTowerWidth);
  if (!layers || !h || !inner) return std::nullopt;
  const double width = static_cast<double>(*h);
  const std::string type = t.given("model_type") ? t.text("model_type") : std::string();
  // Gemma 4's encoder (transformers' modeling_gemma4.py, Gemma4VisionModel) gates its MLP under
  // gelu_pytorch_tanh (Gemma4VisionMLP: gate, up and down), so the activation's name cannot say it
  // (SigLIP's gelu_pytorch_tanh MLP is two matrices), and adds a learned table of
  // position_embedding_size rows for x and one for y (Gemma4VisionPatchEmbedder's
  // position_embedding_table, 2 × 10240 × 1152). Read as SigLIP's they were 157 M short of its 573 M.
  const bool gemma4 = type == "gemma4_vision";
  const bool gated = gemma4 || (t.given("hidden_act") && t.text("hidden_act") == "silu");
  const double layer = 4 * width * width + (gated ? 3.0 : 2.0) * width * static_cast<double>(*inner);
  const double patch = static_cast<double>(first_of(t, {"patch_size"}, kTowerSmall).value_or(0));
  const double channels = static_cast<double>(first_of(t, {"in_channels", "num_channels"}, kTowerSmall).value_or(3));
  const double frames = static_cast<double>(first_of(t, {"temporal_patch_size"}, kTowerSmall).value_or(1));
  double positions = static_cast<double>(first_of(t, {"num_position_embeddings"}, {1, 100'000'000}).value_or(0));
  if (gemma4) {  // left out: Gemma4VisionConfig's 10 * 1024 (configuration_gemma4.py)
    positions = 2 * static_cast<double>(first_of(t, {"position_embedding_size"}, {1, 100'000'000}).value_or(10'240));
  }
  if (positions == 0 && type.starts_with("siglip") && patch > 0 && t.given("image_size")) {
    const double side = static_cast<double>(t.number_in("image_size", {1, 1'000'000})) / patch;
    positions = side * side;
  }
  const double merge = static_cast<double>(first_of(t, {"spatial_merge_size"}, kTowerSmall).value_or(1));
  const double out = static_cast<double>(first_of(t, {"out_hidden_size"}, kTowerWidth).value_or(0));
  return static_cast<double>(*layers) * layer + channels * patch * patch * frames * width + positions * width +
         width * merge * merge * (out > 0 ? out : text_hidden);
}

// transformers' Qwen3VLVisionConfig (configuration_qwen3_vl.py), whose defaults
// Qwen3VLMoeVisionConfig and Qwen3_5VisionConfig keep: a field the vision_config leaves out is
// read as the config class reads it (the shortened copy of Qwen3-VL-235B's config writes no
// num_position_embeddings and no deepstack_visual_indexes).
constexpr std::array kQwen3VlVisionDefaults = {
    HfDefault{"depth", 27},         HfDefault{"hidden_size", 1152},         HfDefault{"intermediate_size", 4304},
    HfDefault{"in_channels", 3},    HfDefault{"temporal_patch_size", 2},    HfDefault{"patch_size", 16},
    HfDefault{"spatial_merge_size", 2}, HfDefault{"num_position_embeddings", 2304}};
constexpr long kQwen3VlDeepStack = 3;  // deepstack_visual_indexes' default [8, 16, 24]

// A linear layer's weight and bias.
double linear(double in, double out) { return in * out + out; }

// The merged patches projected to the text width, as Qwen3VLVisionPatchMerger does: a LayerNorm
// (weight and bias) over one patch (`norm_width`: hidden) or, after the shuffle, the merged ones
// (DeepStack's mergers: hidden·merge²), then linear_fc1 from hidden·merge² to itself, GELU and
// linear_fc2 to out_hidden_size, both with biases.
double qwen_merger(double merged, double norm_width, double out) {
  return 2 * norm_width + linear(merged, merged) + linear(merged, out);
}

// transformers' Qwen3VLVisionModel (modeling_qwen3_vl.py), weight by weight: a Conv3d patch
// embedding with a bias (in_channels × temporal_patch_size × patch_size² → hidden), a learned table
// of num_position_embeddings positions, `depth` blocks (two LayerNorms, attention's qkv and proj,
// an MLP of linear_fc1 and linear_fc2 under gelu_pytorch_tanh, not gated, every linear biased),
// the merger, and one more merger per deepstack_visual_indexes entry (Qwen3.5's model has none).
// Counted as the old estimate did (4·h² and 2·h·inner a block, one h·merge² × out projection) it
// was 144.7 M short of Qwen3-VL-235B's tower (431.3 M for 576.0 M) and 21.6 M of Qwen3.5-397B's.
double qwen3_vl_tower(const HfFields& t, HfTower kind, double text_hidden) {
  const auto n = [&](std::string_view key, Range range) { return static_cast<double>(t.number_in(key, range)); };
  const double h = n("hidden_size", kTowerWidth), inner = n("intermediate_size", kTowerWidth);
  const double patch = n("patch_size", kTowerSmall), merge = n("spatial_merge_size", kTowerSmall);
  const double embed = linear(n("in_channels", kTowerSmall) * n("temporal_patch_size", kTowerSmall) * patch * patch, h);
  const double block = 2 * 2 * h + linear(h, 3 * h) + linear(h, h) + linear(h, inner) + linear(inner, h);
  // The merger's output takes an image token's place in the text embeddings, so it is the text
  // width; the class's default (3584, Qwen2.5-VL-7B's) would not load beside another decoder.
  const double out = t.given("out_hidden_size") ? n("out_hidden_size", kTowerWidth) : text_hidden;
  t.use("out_hidden_size");
  if (out != text_hidden) {
    t.refuse("out_hidden_size", fmt::format("{} is not the text width {}: the merged patches take tokens' places in "
                                            "the text embeddings",
                                            out, text_hidden));
  }
  long deepstack = 0;
  const std::vector<std::string> written = t.keys();
  if (std::find(written.begin(), written.end(), "deepstack_visual_indexes") == written.end()) {
    t.use("deepstack_visual_indexes");
    deepstack = kind == HfTower::qwen3_vl ? kQwen3VlDeepStack : 0;
  } else {
    deepstack = static_cast<long>(t.numbers("deepstack_visual_indexes", kTowerLayers).size());
    if (kind == HfTower::qwen3_5 && deepstack > 0) {
      t.refuse("deepstack_visual_indexes", "Qwen3.5's vision model has no DeepStack mergers (transformers' "
                                           "Qwen3_5VisionModel deletes them); a list of them is not a Qwen3.5 "
                                           "rooflineplan knows");
    }
  }
  const double merged = h * merge * merge;
  return embed + n("num_position_embeddings", {1, 100'000'000}) * h + n("depth", kTowerLayers) * block +
         qwen_merger(merged, h, out) + static_cast<double>(deepstack) * qwen_merger(merged, merged, out);
}

// transformers' PixtralVisionConfig (configuration_pixtral.py): the fields a Mistral 3 vision_config
// may leave out.
constexpr std::array kPixtralVisionDefaults = {HfDefault{"hidden_size", 1024}, HfDefault{"intermediate_size", 4096},
                                               HfDefault{"num_hidden_layers", 24}, HfDefault{"num_channels", 3},
                                               HfDefault{"patch_size", 16}};
// Mistral3Config (configuration_mistral3.py): the projector's settings, which the wrapper (not its
// vision_config) writes.
constexpr long kMistral3MergeSize = 2;

// Mistral 3's tower, weight by weight as transformers builds it. PixtralVisionModel
// (modeling_pixtral.py): patch_conv, a Conv2d without bias (num_channels × patch_size² → hidden);
// ln_pre, an RMSNorm; each PixtralAttentionLayer: q, k, v and o of hidden × hidden without biases
// (the heads split hidden, whatever head_dim says), a gated MLP (gate, up, down) without biases,
// two RMSNorms. Mistral3MultiModalProjector (modeling_mistral3.py): an RMSNorm over hidden, the
// Mistral3PatchMerger's merging_layer (hidden · spatial_merge_size² → hidden, no bias), linear_1
// (hidden × the vision_feature_layer count → the text width) and linear_2 (text width → itself),
// biased where multimodal_projector_bias says. The wrapper writes spatial_merge_size,
// vision_feature_layer and multimodal_projector_bias itself: read by the plain encoder estimate, the
// merge size (looked for in vision_config) was 1 and linear_2 missing, Mistral-Small-3.1's tower
// 408,498,176 for these 438,958,080.
double pixtral_tower(const HfFields& t, const HfFields& top, double text_hidden) {
  if (t.given("model_type") && t.text("model_type") != "pixtral") {
    t.refuse("model_type", fmt::format("\"{}\" is not the Pixtral vision model rooflineplan counts in a Mistral 3",
                                       t.text("model_type")));
  }
  const auto n = [&](std::string_view key, Range range) { return static_cast<double>(t.number_in(key, range)); };
  const double h = n("hidden_size", kTowerWidth), inner = n("intermediate_size", kTowerWidth);
  const double patch = n("patch_size", kTowerSmall);
  const double merge = static_cast<double>(
      top.given("spatial_merge_size") ? top.number_in("spatial_merge_size", kTowerSmall) : kMistral3MergeSize);
  top.use("spatial_merge_size");
  // One feature layer (an index, Mistral3Config's -1), or the hidden states of each listed layer
  // concatenated.
  double feature_layers = 1;
  if (top.given("vision_feature_layer") && top.is_list("vision_feature_layer")) {
    feature_layers = static_cast<double>(top.numbers("vision_feature_layer", {-10'000, 10'000}).size());
    if (feature_layers == 0) top.fail("vision_feature_layer", "an empty list selects no layer's features");
  }
  top.use("vision_feature_layer");
  const double bias = top.flag("multimodal_projector_bias", false) ? 1 : 0;
  const double body = n("num_channels", kTowerSmall) * patch * patch * h + h +
                      n("num_hidden_layers", kTowerLayers) * (4 * h * h + 3 * h * inner + 2 * h);
  const double projector = h + h * merge * merge * h + (h * feature_layers * text_hidden + bias * text_hidden) +
                           (text_hidden * text_hidden + bias * text_hidden);
  return body + projector;
}

}  // namespace

Towers read_towers(const HfFields& top, const HfFamily& family, double text_hidden) {
  Towers out;
  for (std::string_view key : {"vision_config", "audio_config"}) {
    if (!top.filled(key)) continue;
    if (key == "vision_config" && family.tower == HfTower::pixtral) {
      out.params += pixtral_tower(top.child(key, top.what(), kPixtralVisionDefaults), top, text_hidden);
      continue;
    }
    if (key == "vision_config" && family.tower != HfTower::encoder) {
      out.params += qwen3_vl_tower(top.child(key, top.what(), kQwen3VlVisionDefaults), family.tower, text_hidden);
      continue;
    }
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
