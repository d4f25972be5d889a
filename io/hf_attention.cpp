// How each family's config gives its attention: heads, K/V heads and their width, biases, Q/K
// norms, and DeepSeek's latent attention with V3.2's indexer.
#include <fmt/format.h>

#include "io/hf_reading.hpp"

namespace roofline::io {

namespace {

// Multi-head latent attention (DeepSeek-V2 §2.1). transformers' DeepseekV3Config sets head_dim to
// qk_rope_head_dim; any other value would be a config this reading does not understand.
void read_latent(const HfFields& c, const HfFamily& f, Architecture& a) {
  c.require({"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
  a.mla = LatentAttention{c.given("q_lora_rank") ? c.count("q_lora_rank", "mla.q_lora_rank") : 0,
                          c.count("kv_lora_rank", "mla.kv_lora_rank"), c.count("qk_nope_head_dim", "mla.nope_dim"),
                          c.count("qk_rope_head_dim", "mla.rope_dim"), c.count("v_head_dim", "mla.v_dim")};
  c.use("q_lora_rank");  // null: Q projected directly (DeepSeek-V2-Lite)
  if (c.given("head_dim") && c.count("head_dim", "mla.rope_dim") != a.mla->rope_dim) {
    c.fail("head_dim", fmt::format("with latent attention head_dim is qk_rope_head_dim ({}) in transformers' "
                                   "DeepSeek configs; another value is not a layout rooflineplan knows",
                                   a.mla->rope_dim));
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

}  // namespace

void read_attention(const HfFields& c, const HfFamily& f, Architecture& a, std::string_view head_dim_key) {
  c.require({"num_attention_heads"});
  a.heads = c.small_count("num_attention_heads", "heads");
  a.kv_heads = c.has("num_key_value_heads") ? c.small_count("num_key_value_heads", "kv_heads") : a.heads;
  a.attention_bias = c.flag("attention_bias", f.attention_bias);
  if (c.flag("mlp_bias", false)) {
    c.fail("mlp_bias",
           "biases on the FFN alone are not modelled (rooflineplan knows Q/K/V biases, or a bias on "
           "every linear as GPT-2 has)");
  }
  if (f.latent) {
    read_latent(c, f, a);
    return;
  }
  if (c.has(head_dim_key)) {
    a.head_dim = c.count(head_dim_key, "head_dim");
  } else if (a.hidden % a.heads != 0) {
    // As the YAML reader: a truncated head width would be silently wrong.
    c.fail("num_attention_heads", fmt::format("{} heads do not divide hidden_size {}, and the config gives no {}",
                                              a.heads, a.hidden, head_dim_key));
  } else {
    a.head_dim = a.hidden / a.heads;
  }
  switch (f.qk_norm) {
    case HfQkNorm::none:
      break;
    case HfQkNorm::always:
      a.qk_norm = true;
      break;
    // Llama 4's is a weightless L2 norm on its chunked layers, MiniMax-M2's one RMSNorm over all
    // heads (`qk_norm_type: per_layer`): priced as a per-head RMSNorm on every layer, a difference
    // of at most heads × head_dim weights a layer (under 0.001 % of either model).
    case HfQkNorm::when_asked:
      a.qk_norm = c.flag("use_qk_norm", f.qk_norm_default);
      if (c.given("qk_norm_type")) {
        const std::string type = c.text("qk_norm_type");
        if (type != "per_layer" && type != "per_head") {
          c.fail("qk_norm_type",
                 fmt::format("\"{}\" is not a Q/K norm rooflineplan knows (per_layer, per_head)", type));
        }
      }
      break;
  }
  a.attention_sinks = f.sinks;
  a.attention_gate = f.attention_gate;
}

}  // namespace roofline::io
