// Each family's FFN: the dense width, its experts (how many, how many a token takes, how wide,
// shared ones), and which layers are MoE by the family's rule.
#include <fmt/format.h>

#include <algorithm>

#include "io/hf_reading.hpp"

namespace roofline::io {

namespace {

constexpr Range kStep{1, 100'000};  // a MoE layer every so many layers

MoeSpec experts(const HfFields& c, std::string_view count_key, std::string_view top_k_key, std::string_view width_key) {
  c.require({count_key, top_k_key, width_key});
  return {c.small_count(count_key, "moe.experts"), c.small_count(top_k_key, "moe.top_k"),
          c.count(width_key, "moe.ffn")};
}

// A shared expert given as one FFN's width: rooflineplan counts shared experts of the routed
// width, so the width must be a whole number of them (4294967297 wide is refused here, not
// wrapped into 1 expert). Left out, the width is the family's transformers default (the family
// table: Qwen2MoeConfig's 5632, Qwen3NextConfig's 512; 0 for Qwen3MoeConfig, which has no shared
// expert), never 0 by default: a Qwen3-Next config without it lost 48 × 3·2048·512 = 151 M
// parameters in silence. A family whose table holds none refuses the gap; null or 0 is none.
int shared_of_width(const HfFields& c, std::string_view key, long expert_width) {
  if (!c.has(key)) {
    c.use(key);
    const std::vector<std::string> written = c.keys();
    if (std::find(written.begin(), written.end(), key) == written.end()) {
      c.fail(key, fmt::format("left out: {}'s transformers config class gives no default rooflineplan knows; "
                              "write it (null or 0 for none)",
                              c.what()));
    }
    return 0;  // null: none
  }
  const long shared = c.number_in(key, {0, 1'000'000});  // 0: none
  if (shared % expert_width != 0) {
    c.fail(key, fmt::format("{}{} is not a whole number of experts of width {}", shared,
                            c.given(key) ? "" : " (the family's default, the field being left out)", expert_width));
  }
  return static_cast<int>(shared / expert_width);  // at most 10^6: the widths' range
}

// The layers whose FFN is a MoE, as a per-layer kind: every layer MoE needs no list; leading
// dense layers are moe.dense_layers (DeepSeek); any other arrangement is the ffn pattern. The dense
// layers' width is `dense_width_key`, read only where there are dense layers.
void set_moe_layers(const HfFields& c, Architecture& a, const std::vector<bool>& is_moe,
                    std::string_view dense_width_key) {
  const auto first_moe = std::find(is_moe.begin(), is_moe.end(), true);
  const bool leading_dense = std::all_of(first_moe, is_moe.end(), [](bool m) { return m; });
  if (leading_dense) {
    a.moe->dense_layers = static_cast<int>(first_moe - is_moe.begin());
  } else {
    std::vector<FfnKind> kinds;
    for (bool m : is_moe) kinds.push_back(m ? FfnKind::moe : FfnKind::dense);
    a.ffn_pattern = shortest_period(kinds);
  }
  if (a.dense_ffn_layers() > 0) {
    c.require({dense_width_key});
    a.ffn = c.count(dense_width_key, "ffn");
  } else {
    c.use(dense_width_key);  // the width of dense layers the model does not have
  }
}

// gpt-oss's config carries the top-k twice, under its original name and transformers'.
int gpt_oss_top_k(const HfFields& c) {
  if (c.given("experts_per_token") && c.given("num_experts_per_tok")) {
    const int k = c.small_count("experts_per_token", "moe.top_k");
    if (k != c.small_count("num_experts_per_tok", "moe.top_k")) {
      c.fail("experts_per_token", fmt::format("{} differs from num_experts_per_tok {}", k,
                                              c.small_count("num_experts_per_tok", "moe.top_k")));
    }
    return k;
  }
  return c.small_count(c.given("experts_per_token") ? "experts_per_token" : "num_experts_per_tok", "moe.top_k");
}

// A placement that leaves every layer dense gives experts no layer runs (transformers builds a
// dense MLP in each): refused at the key that placed none, not at the converted model's `moe`
// section, which the config never wrote. Rather than price a dense model from an MoE config.
void refuse_unused_experts(const HfFields& c, const std::vector<bool>& is_moe, std::string_view key) {
  if (std::find(is_moe.begin(), is_moe.end(), true) != is_moe.end()) return;
  c.fail(key, fmt::format("places the experts in none of the {} layers; a dense model is a config without them",
                          is_moe.size()));
}

std::vector<bool> qwen_moe_layers(const HfFields& c, int layers) {
  // Qwen2-MoE/Qwen3-MoE: a layer is sparse unless listed in mlp_only_layers, every
  // decoder_sparse_step-th layer (transformers' Qwen3MoeDecoderLayer).
  const long step = c.number_in("decoder_sparse_step", kStep);
  const std::vector<long> dense = c.numbers("mlp_only_layers", {0, static_cast<double>(layers - 1)});
  std::vector<bool> is_moe;
  for (int i = 0; i < layers; ++i) {
    is_moe.push_back(std::find(dense.begin(), dense.end(), i) == dense.end() && (i + 1) % step == 0);
  }
  refuse_unused_experts(c, is_moe, step > layers ? "decoder_sparse_step" : "mlp_only_layers");
  return is_moe;
}

// Each layer's FFN written out, "dense" or "sparse" (transformers' GlmMoeDsaConfig and
// LagunaConfig.mlp_layer_types). Any other word is refused: transformers builds a dense MLP for
// every entry but "sparse", and a reader that matched case would not.
std::vector<bool> from_mlp_layer_types(const HfFields& c, int layers) {
  const std::vector<std::string> kinds = c.words("mlp_layer_types");
  c.require_per_layer("mlp_layer_types", kinds.size(), layers);
  std::vector<bool> is_moe;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i] != "dense" && kinds[i] != "sparse") {
      c.fail("mlp_layer_types", fmt::format("mlp_layer_types[{}] \"{}\" is neither dense nor sparse", i, kinds[i]));
    }
    is_moe.push_back(kinds[i] == "sparse");
  }
  return is_moe;
}

std::vector<bool> deepseek_moe_layers(const HfFields& c, int layers) {
  // GLM-5 may list each layer's kind (transformers' GlmMoeDsaConfig.mlp_layer_types).
  if (c.given("mlp_layer_types")) {
    c.use({"first_k_dense_replace", "moe_layer_freq"});
    std::vector<bool> is_moe = from_mlp_layer_types(c, layers);
    refuse_unused_experts(c, is_moe, "mlp_layer_types");
    return is_moe;
  }
  // DeepSeek, GLM-4.5: dense for the first first_k_dense_replace layers, then every
  // moe_layer_freq-th layer sparse (transformers' DeepseekV3DecoderLayer).
  const long first = c.count_or_none("first_k_dense_replace", "moe.dense_layers", kDeepSeekLeftOut);
  const long freq = c.given("moe_layer_freq") ? c.number_in("moe_layer_freq", kStep) : 1;
  c.use({"first_k_dense_replace", "moe_layer_freq"});
  std::vector<bool> is_moe;
  for (int i = 0; i < layers; ++i) is_moe.push_back(i >= first && i % freq == 0);
  refuse_unused_experts(c, is_moe, first >= layers ? "first_k_dense_replace" : "moe_layer_freq");
  return is_moe;
}

// Laguna: transformers' LagunaConfig places its MoE layers by mlp_layer_types, and where a config
// leaves it out takes ["dense"] + ["sparse"] * (num_hidden_layers - 1) (configuration_laguna.py,
// __post_init__): the first layer dense. It drops Qwen2-MoE's decoder_sparse_step and
// mlp_only_layers (modular_laguna.py: `= AttributeError()`), which earlier Laguna configs wrote and
// TensorRT-LLM's Laguna still reads (dense where listed in mlp_only_layers, else sparse every
// decoder_sparse_step-th layer). Where a config writes them they must place the layers as
// transformers does, or the readers disagree and the config is refused naming the field. Read as
// Qwen's layering, a config that wrote neither had every layer a MoE (Laguna XS 2.1: its dense
// first layer, 3·2048·8192, priced as 256 routed experts and a shared one, 3·2048·512 each).
std::vector<bool> laguna_moe_layers(const HfFields& c, int layers) {
  std::vector<bool> is_moe(static_cast<std::size_t>(layers), true);
  if (c.given("mlp_layer_types")) {
    is_moe = from_mlp_layer_types(c, layers);
  } else {
    is_moe.front() = false;
  }
  c.use("decoder_sparse_step");
  if (!c.given("mlp_only_layers") && !c.given("decoder_sparse_step")) return is_moe;
  const long step = c.given("decoder_sparse_step") ? c.number_in("decoder_sparse_step", kStep) : 1;
  const std::vector<long> listed = c.numbers("mlp_only_layers", {0, static_cast<double>(layers - 1)});
  for (int i = 0; i < layers; ++i) {
    const bool dense = std::find(listed.begin(), listed.end(), i) != listed.end();
    const bool moe = !dense && (i + 1) % step == 0;
    if (moe == is_moe[static_cast<std::size_t>(i)]) continue;
    // The field that decides the layer otherwise: the list that names it, else the step.
    const bool by_list = dense || (moe && c.given("mlp_only_layers"));
    c.refuse(by_list ? "mlp_only_layers" : "decoder_sparse_step",
             fmt::format("makes layer {} {} where LagunaConfig's mlp_layer_types{} makes it {}: readers of Laguna "
                         "disagree on this config (TensorRT-LLM reads this field, transformers does not)",
                         i, moe ? "sparse" : "dense",
                         c.given("mlp_layer_types") ? "" : " (left out: the first layer dense, the rest sparse)",
                         moe ? "dense" : "sparse"));
    break;
  }
  return is_moe;
}

std::vector<bool> llama4_moe_layers(const HfFields& c, int layers) {
  // transformers' Llama4TextConfig: moe_layers, else every interleave_moe_layer_step-th layer
  // counting from the step's last (step 1: all; Maverick's 2: layers 1, 3, 5, ...).
  const bool given = c.given("moe_layers");  // an empty list: no MoE layer (refused below)
  const std::vector<long> listed = c.numbers("moe_layers", {0, static_cast<double>(layers - 1)});
  const long step = c.number_in("interleave_moe_layer_step", kStep);
  std::vector<bool> is_moe;
  for (int i = 0; i < layers; ++i) {
    is_moe.push_back(given ? std::find(listed.begin(), listed.end(), i) != listed.end() : (i + 1) % step == 0);
  }
  refuse_unused_experts(c, is_moe, given ? "moe_layers" : "interleave_moe_layer_step");
  return is_moe;
}

// ERNIE-4.5: layer i is MoE when it lies in [moe_layer_start_index, moe_layer_end_index] (-1 or
// absent: the last layer) and (i + 1) is a multiple of moe_layer_interval (Ernie4_5_MoeDecoderLayer).
std::vector<bool> ernie_moe_layers(const HfFields& c, int layers) {
  const long start = c.number_in("moe_layer_start_index", {0, 100'000});
  const long step = c.number_in("moe_layer_interval", kStep);
  long end = layers - 1;
  if (c.given("moe_layer_end_index") && c.text("moe_layer_end_index") != "-1") {
    end = c.number_in("moe_layer_end_index", {0, 100'000});
  }
  c.use("moe_layer_end_index");
  std::vector<bool> is_moe;
  for (int i = 0; i < layers; ++i) is_moe.push_back(i >= start && i <= end && (i + 1) % step == 0);
  // The key that left no layer: a start past the layers, an end before the start (the start's
  // where the end is left out), else the interval that steps over the range.
  const std::string_view cause = start >= layers ? "moe_layer_start_index"
                                 : end < start   ? (c.given("moe_layer_end_index") ? "moe_layer_end_index"
                                                                                   : "moe_layer_start_index")
                                                 : "moe_layer_interval";
  refuse_unused_experts(c, is_moe, cause);
  return is_moe;
}

// Gemma 4's MoE layers keep their dense MLP beside the experts, summed (Gemma4TextDecoderLayer with
// enable_moe_block): a shared path as wide as intermediate_size, priced as that many experts' width.
void gemma4_ffn(const HfFields& c, Architecture& a) {
  c.require({"intermediate_size"});
  const bool wide = c.flag("use_double_wide_mlp", false);
  if (!c.flag("enable_moe_block", false)) {
    a.ffn = c.count("intermediate_size", "ffn");
    // E2B: the cache-sharing layers' MLP is twice as wide (transformers' use_double_wide_mlp).
    if (wide && a.kv_shared_layers > 0) a.kv_shared_ffn = 2 * a.ffn;
    c.use({"num_experts", "top_k_experts", "moe_intermediate_size"});
    return;
  }
  if (wide && a.kv_shared_layers > 0) {
    c.refuse("use_double_wide_mlp", "a doubled MLP beside experts is not a Gemma 4 rooflineplan knows");
  }
  a.moe = experts(c, "num_experts", "top_k_experts", "moe_intermediate_size");
  const long dense = c.count("intermediate_size", "ffn");
  if (dense % a.moe->ffn != 0) {
    c.refuse("intermediate_size", fmt::format("the dense MLP beside the experts ({}) is not a whole number of "
                                              "experts of width {}: rooflineplan prices it as shared experts",
                                              dense, a.moe->ffn));
  }
  a.moe->shared_experts = static_cast<int>(dense / a.moe->ffn);
}

}  // namespace

void read_ffn(const HfFields& c, const HfFamily& f, Architecture& a) {
  a.ffn_type = FfnType::gated;  // SwiGLU or GeGLU in every decoder family here
  switch (f.moe) {
    case HfMoe::none:
      c.require({"intermediate_size"});
      a.ffn = c.count("intermediate_size", "ffn");
      return;
    case HfMoe::mixtral:
      a.moe = experts(c, "num_local_experts", "num_experts_per_tok", "intermediate_size");
      return;
    case HfMoe::gpt_oss:
      c.require({"num_local_experts", "intermediate_size"});
      a.moe = MoeSpec{c.small_count("num_local_experts", "moe.experts"), gpt_oss_top_k(c),
                      c.count("intermediate_size", "moe.ffn")};
      return;
    case HfMoe::minimax:
      a.moe = experts(c, "num_local_experts", "num_experts_per_tok", "intermediate_size");
      // MiniMax-M2 has no shared expert: transformers' MiniMaxM2Config has no shared_intermediate_size
      // and its MiniMaxM2SparseMoeBlock builds the gate and the routed experts alone
      // (modular_minimax_m2.py); vLLM's MiniMaxM2MoE (minimax_m2.py) builds a FusedMoE and a
      // ReplicatedLinear gate and never reads the field (the configs carry it at 0). A width above 0 was
      // priced as shared experts no reader builds, 229.57 B for MiniMax-M2.5's 228.69 B: refused.
      // 0, null or left out: none.
      if (c.given("shared_intermediate_size") && c.number_in("shared_intermediate_size", {0, 1'000'000}) > 0) {
        c.refuse("shared_intermediate_size",
                 "MiniMax-M2 has no shared expert in transformers or vLLM (MiniMaxM2SparseMoeBlock, vLLM's "
                 "MiniMaxM2MoE: the gate and the routed experts alone), so no reader builds one this wide; "
                 "write 0 or null, or describe the model in rooflineplan's YAML");
      }
      c.use("shared_intermediate_size");
      return;
    case HfMoe::qwen:
      a.moe = experts(c, "num_experts", "num_experts_per_tok", "moe_intermediate_size");
      a.moe->shared_experts = shared_of_width(c, "shared_expert_intermediate_size", a.moe->ffn);
      set_moe_layers(c, a, qwen_moe_layers(c, a.layers), "intermediate_size");
      return;
    case HfMoe::laguna:
      a.moe = experts(c, "num_experts", "num_experts_per_tok", "moe_intermediate_size");
      a.moe->shared_experts = shared_of_width(c, "shared_expert_intermediate_size", a.moe->ffn);
      set_moe_layers(c, a, laguna_moe_layers(c, a.layers), "intermediate_size");
      return;
    case HfMoe::deepseek:
      a.moe = experts(c, "n_routed_experts", "num_experts_per_tok", "moe_intermediate_size");
      a.moe->shared_experts = static_cast<int>(c.count_or_none("n_shared_experts", "moe.shared_experts", kDeepSeekLeftOut));
      set_moe_layers(c, a, deepseek_moe_layers(c, a.layers), "intermediate_size");
      return;
    case HfMoe::ernie:
      a.moe = experts(c, "moe_num_experts", "moe_k", "moe_intermediate_size");
      // Left out, Ernie4_5_MoeConfig's 2 (the family table); null: none.
      a.moe->shared_experts =
          c.has("moe_num_shared_experts") ? c.small_count("moe_num_shared_experts", "moe.shared_experts") : 0;
      c.use("moe_num_shared_experts");
      set_moe_layers(c, a, ernie_moe_layers(c, a.layers), "intermediate_size");
      return;
    case HfMoe::step:
      // Step-3.x: DeepSeek's layering under its own names; a shared expert share_expert_dim wide.
      a.moe = experts(c, "num_experts", "num_experts_per_tok", "moe_intermediate_size");
      a.moe->shared_experts = shared_of_width(c, "share_expert_dim", a.moe->ffn);
      // One shared expert share_expert_dim wide (priced as that many experts' width); another
      // count would make the width ambiguous.
      if (c.given("n_shared_experts") && c.number_in("n_shared_experts", {0, 1'000}) != (a.moe->shared_experts > 0 ? 1 : 0)) {
        c.refuse("n_shared_experts", "Step's shared expert is one, share_expert_dim wide; another count is not read");
      }
      c.use("n_shared_experts");
      set_moe_layers(c, a, deepseek_moe_layers(c, a.layers), "intermediate_size");
      return;
    case HfMoe::gemma4:
      gemma4_ffn(c, a);
      return;
    case HfMoe::llama4:
      // One shared expert as wide as a routed one (Llama4TextMoe), and dense layers of their own width.
      a.moe = experts(c, "num_local_experts", "num_experts_per_tok", "intermediate_size");
      a.moe->shared_experts = 1;
      set_moe_layers(c, a, llama4_moe_layers(c, a.layers), "intermediate_size_mlp");
      return;
  }
}

}  // namespace roofline::io
