// How each family's config gives its attention: heads, K/V heads and their width, biases, Q/K
// norms, and DeepSeek's latent attention with V3.2's indexer.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "io/hf_reading.hpp"

namespace roofline::io {

namespace {

// Multi-head latent attention (DeepSeek-V2 §2.1). transformers' DeepseekV3Config sets head_dim to
// qk_rope_head_dim; any other value would be a config this reading does not understand.
void read_latent(const HfFields& c, const HfFamily& f, Architecture& a) {
  c.require({"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
  // null: Q projected directly (DeepSeek-V2-Lite). transformers' DeepseekV3Attention
  // (modeling_deepseek_v3.py) and vLLM's DeepseekV2MLAAttention (deepseek_v2.py) both test
  // `q_lora_rank is None` for that; a 0 builds a Q bottleneck of rank 0 in both, which no checkpoint
  // means: refused, naming the key, not read as a Q projected directly.
  if (c.given("q_lora_rank") && c.number_in("q_lora_rank", hf_range("mla.q_lora_rank")) == 0) {
    c.refuse("q_lora_rank", "0 is no rank: transformers and vLLM project Q directly only when q_lora_rank is null "
                            "(`is None`), and build a rank-0 bottleneck for 0; write null for a Q projected directly");
  }
  a.mla = LatentAttention{c.count_or_none("q_lora_rank", "mla.q_lora_rank", kDeepSeekLeftOut, false),
                          c.count("kv_lora_rank", "mla.kv_lora_rank"), c.count("qk_nope_head_dim", "mla.nope_dim"),
                          c.count("qk_rope_head_dim", "mla.rope_dim"), c.count("v_head_dim", "mla.v_dim")};
  // transformers' DeepSeek configs set head_dim to qk_rope_head_dim; GLM-5.2's to the whole Q/K
  // head (nope + rope). Any other value is a layout this reading does not understand.
  const long qk = a.mla->nope_dim + a.mla->rope_dim;
  if (c.given("head_dim") && c.count("head_dim", "mla.rope_dim") != a.mla->rope_dim &&
      c.count("head_dim", "mla.rope_dim") != qk) {
    c.refuse("head_dim", fmt::format("with latent attention head_dim is qk_rope_head_dim ({}) or the whole Q/K head "
                                     "({}); another value is not a layout rooflineplan knows",
                                     a.mla->rope_dim, qk));
  }
  a.head_dim = a.mla->nope_dim + a.mla->rope_dim;
  // Decompressed per head: the cache holds the latent, and K/V heads are the query heads.
  if (c.given("num_key_value_heads") && c.small_count("num_key_value_heads", "kv_heads") != a.heads) {
    c.fail("num_key_value_heads", fmt::format("latent attention decompresses a K and a V for each of the {} query "
                                              "heads; {} K/V heads is not a layout rooflineplan knows",
                                              a.heads, c.small_count("num_key_value_heads", "kv_heads")));
  }
  a.kv_heads = a.heads;
  if (f.sparse) {
    c.require({"index_topk", "index_n_heads", "index_head_dim"});
    a.sparse =
        SparseAttention{c.count("index_topk", "sparse.top_k"), c.small_count("index_n_heads", "sparse.index_heads"),
                        c.count("index_head_dim", "sparse.index_dim")};
  }
}

// A key the config leaves out (not even null) whose family's config class neither derives it nor
// gives a number rooflineplan's family table holds: refused, naming it, never derived on a guess.
void refuse_gap(const HfFields& c, std::string_view key, bool derives) {
  if (derives || c.written(key)) return;
  c.fail(key, fmt::format("left out: {}'s transformers config class gives no default rooflineplan knows and "
                          "does not derive it; write it",
                          c.what()));
}

// num_key_value_heads: written, or left out the family's transformers default (the family table:
// GptOssConfig's 8, Qwen3MoeConfig's 4) or, where its class derives it (LlamaConfig), the query
// heads; null: the query heads, as transformers reads None. Left out and read as the query heads,
// gpt-oss-20b cached 8 times its 49,152 bytes a token, Qwen3-30B-A3B 8 times its 98,304.
int kv_heads_of(const HfFields& c, const HfFamily& f, int heads) {
  if (c.has("num_key_value_heads")) return c.small_count("num_key_value_heads", "kv_heads");
  c.use("num_key_value_heads");
  refuse_gap(c, "num_key_value_heads", f.derives_kv_heads);
  return heads;
}

}  // namespace

void read_attention(const HfFields& c, const HfFamily& f, Architecture& a, std::string_view head_dim_key) {
  c.require({"num_attention_heads"});
  a.heads = c.small_count("num_attention_heads", "heads");
  if (!f.latent) a.kv_heads = kv_heads_of(c, f, a.heads);
  a.attention_bias = c.flag("attention_bias", f.attention_bias, "attention_bias");
  // Qwen3-Coder's name for the same switch: accepted where it says what the family has.
  if (c.given("qkv_bias") && c.flag("qkv_bias", false) != a.attention_bias) {
    c.refuse("qkv_bias", fmt::format("says {} where attention_bias says {}: the Q/K/V biases are ambiguous",
                                     c.flag("qkv_bias", false), a.attention_bias));
  }
  if (c.flag("mlp_bias", false)) {
    c.refuse("mlp_bias",
             "biases on the FFN alone are not modelled (rooflineplan knows Q/K/V biases, or a bias on "
             "every linear as GPT-2 has)");
  }
  if (f.latent) {
    read_latent(c, f, a);
    return;
  }
  // The head width: written, or left out the family's default (Qwen3Config's 128, MiniMaxM2Config's
  // 128), or derived where the class derives it; null derives. Derived, Qwen3-32B without head_dim
  // had heads of 5120 / 64 = 80 for Qwen3Config's 128.
  if (c.has(head_dim_key)) {
    a.head_dim = c.count(head_dim_key, "head_dim");
  } else {
    c.use(head_dim_key);
    refuse_gap(c, head_dim_key, f.derives_head_dim);
    // As the YAML reader: a truncated head width would be silently wrong.
    if (a.hidden % a.heads != 0) {
      c.fail("num_attention_heads", fmt::format("{} heads do not divide hidden_size {}, and the config gives no {}",
                                                a.heads, a.hidden, head_dim_key));
    }
    a.head_dim = a.hidden / a.heads;
  }
  switch (f.qk_norm) {
    case HfQkNorm::none:
      break;
    case HfQkNorm::always:
      // A config may say so (Qwen3-Coder's use_qk_norm: true); saying otherwise changes the model.
      a.qk_norm = true;
      if (!c.flag("use_qk_norm", true)) {
        c.refuse("use_qk_norm", fmt::format("{} models have Q/K norms; one without them is not this family", c.what()));
      }
      break;
    // Llama 4's is a weightless L2 norm on its chunked layers, MiniMax-M2's one RMSNorm over all
    // heads (`qk_norm_type: per_layer`, MiniMaxM2Config's default): priced as a per-head RMSNorm on
    // every layer, a difference of at most heads × head_dim weights a layer (under 0.001 % of
    // either model). Over all heads, tensor parallelism all-reduces its variances
    // (Architecture::qk_norm_per_layer).
    case HfQkNorm::when_asked: {
      a.qk_norm = c.flag("use_qk_norm", f.qk_norm_default);
      bool per_layer = f.qk_norm_per_layer;
      if (c.given("qk_norm_type")) {
        const std::string type = c.text("qk_norm_type");
        if (type != "per_layer" && type != "per_head") {
          c.fail("qk_norm_type",
                 fmt::format("\"{}\" is not a Q/K norm rooflineplan knows (per_layer, per_head)", type));
        }
        per_layer = type == "per_layer";
      }
      a.qk_norm_per_layer = a.qk_norm && per_layer;
      break;
    }
  }
  a.attention_sinks = f.sinks;
  a.attention_gate = f.gate_key.empty() ? f.attention_gate : c.flag(f.gate_key, f.attention_gate);
}

// Laguna: one head count a layer, which rooflineplan holds as one for the full layers and one for
// the others; and its per-head output gate (`gating`: true or "per-head"). Left out, `gating` is the
// family's default: transformers' LagunaConfig has `gating: bool | str = True`, and its
// LagunaAttention builds for True or "per-head" a g_proj of hidden → heads (modeling_laguna.py:
// `gate_per_head = config.gating is True or config.gating == "per-head"`), as vLLM's LagunaConfig
// and LagunaAttention do. Read as no gate, Laguna XS 2.1 lost 2048 × (10 × 48 + 30 × 64) =
// 4,915,200 weights. null says none, as JSON's null does for every field here (and vLLM builds no
// g_proj for it).
void per_layer_heads(const HfFields& c, const HfFamily& f, Architecture& a) {
  if (c.given("gating")) {
    const std::string g = c.text("gating");
    if (g == "per-head" || g == "true") a.head_gate = true;
    else if (g != "false") c.refuse("gating", fmt::format("\"{}\" is not a gate rooflineplan knows (per-head)", g));
  } else {
    const std::vector<std::string> written = c.keys();
    a.head_gate = f.head_gate && std::find(written.begin(), written.end(), "gating") == written.end();
    c.use("gating");
  }
  if (!c.given("num_attention_heads_per_layer")) return;
  const std::vector<long> heads = c.numbers("num_attention_heads_per_layer", hf_range("heads"));
  c.require_per_layer("num_attention_heads_per_layer", heads.size(), a.layers);
  std::optional<long> full, other;
  for (int i = 0; i < a.layers; ++i) {
    std::optional<long>& kind = a.mixer(i) == Mixer::full ? full : other;
    if (kind && *kind != heads[static_cast<std::size_t>(i)]) {
      c.refuse("num_attention_heads_per_layer",
               fmt::format("layer {} has {} heads where another of its kind has {}: rooflineplan holds one head count "
                           "for the full layers and one for the others",
                           i, heads[static_cast<std::size_t>(i)], *kind));
      return;
    }
    kind = heads[static_cast<std::size_t>(i)];
  }
  if (other) a.heads = static_cast<int>(*other);
  if (full && other && *full != *other) {
    a.full_attention = FullAttention{.heads = static_cast<int>(*full), .kv_heads = a.kv_heads, .head_dim = a.head_dim};
  } else if (full) {
    a.heads = static_cast<int>(*full);
  }
}

void read_global_attention(const HfFields& c, const HfFamily& f, Architecture& a) {
  per_layer_heads(c, f, a);
  if (!f.global_attention) return;
  // Gemma 4 E2B/E4B: per-layer inputs from a table of their own, and the last layers reading the
  // cache of the last earlier layer of their kind (transformers' first_kv_shared_layer_idx). Left
  // out, hidden_size_per_layer_input is Gemma4TextConfig's 256 and vocab_size_per_layer_input its
  // 262,144 (configuration_gemma4.py): the 26B-A4B without its `0` builds the per-layer inputs, 27.88 B
  // (it was read as none, 25.81 B); 0 or null: none.
  if (c.has("hidden_size_per_layer_input")) {
    a.per_layer_input = c.count("hidden_size_per_layer_input", "per_layer_input");
    if (a.per_layer_input > 0 && c.has("vocab_size_per_layer_input")) {
      a.per_layer_vocab = c.count("vocab_size_per_layer_input", "per_layer_vocab");
    }
  }
  c.use({"hidden_size_per_layer_input", "vocab_size_per_layer_input"});
  if (c.given("num_kv_shared_layers")) {
    const long shared = c.number_in("num_kv_shared_layers", {0, 100'000});
    // transformers shares only when some layer is left to keep a cache (first index > 0).
    if (shared < a.layers) a.kv_shared_layers = static_cast<int>(shared);
  }
  c.use("num_kv_shared_layers");
  // "vision": an image's tokens see each other both ways, which text tokens never do.
  if (c.given("use_bidirectional_attention") && c.text("use_bidirectional_attention") != "vision") {
    c.refuse("use_bidirectional_attention", "attention both ways over text tokens is not a decoder rooflineplan prices");
  }
  const bool full_layers = a.mixer_counts()[static_cast<int>(Mixer::full)] > 0;
  const bool shared_kv = c.flag("attention_k_eq_v", false);
  // transformers' Gemma 4: a full layer's heads are global_head_dim wide (left out, Gemma4TextConfig's
  // 512; null: head_dim), and with K = V it has num_global_key_value_heads of them (left out, None:
  // num_key_value_heads); the sliding layers keep head_dim and their own V.
  FullAttention full{.kv_heads = a.kv_heads, .head_dim = a.head_dim, .shared_kv = shared_kv};
  if (c.has("global_head_dim")) full.head_dim = c.count("global_head_dim", "full_attention.head_dim");
  if (shared_kv && c.given("num_global_key_value_heads")) {
    full.kv_heads = c.small_count("num_global_key_value_heads", "full_attention.kv_heads");
  }
  c.use({"global_head_dim", "num_global_key_value_heads"});
  if (full_layers && (full.kv_heads != a.kv_heads || full.head_dim != a.head_dim || full.shared_kv)) {
    a.full_attention = full;
  }
}

}  // namespace roofline::io
