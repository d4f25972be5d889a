#include "model/layers.hpp"

#include <algorithm>

namespace roofline {

std::string_view name(Phase p) { return p == Phase::prefill ? "prefill" : "decode"; }

namespace {

// One GPU's share of the architecture under tensor parallelism (Megatron-LM: column-parallel
// Q/K/V and up, row-parallel O and down, vocab-parallel embedding and head). K/V heads fewer
// than tp are replicated, so each GPU keeps at least one.
struct Shard {
  double tp, hidden, head_dim, heads, kv_heads, ffn, vocab, expert_ffn;
};

Shard make_shard(const Architecture& a, int tp) {
  const auto n = static_cast<double>(tp);
  return {n,
          static_cast<double>(a.hidden),
          static_cast<double>(a.head_dim),
          static_cast<double>(a.heads) / n,
          std::max(1.0, static_cast<double>(a.kv_heads) / n),
          static_cast<double>(a.ffn) / n,
          static_cast<double>(a.vocab) / n,
          a.moe ? static_cast<double>(a.moe->ffn) / n : 0.0};
}

// A block with room for its steps: the engine describes the layers at every point it evaluates,
// so a description allocates once a block, not once a step.
Block block(double layers) {
  Block b{layers, {}};
  b.steps.reserve(16);
  return b;
}

void add(Block& b, Step s, Phases p = Phases::both) { b.steps.push_back({std::move(s), p}); }

// Grouped-query attention: Q, K and V projected, K and V written straight into the cache.
void grouped_attention(Block& b, const Shard& s, const Architecture& a) {
  const double q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  const double bias = a.qkv_bias() ? 1.0 : 0.0;
  add(b, LinearStep{.name = "q_proj", .in = s.hidden, .out = q, .bias = bias * q});
  add(b, LinearStep{.name = "k_proj", .in = s.hidden, .out = kv, .bias = bias * kv, .to_cache = true, .joins_previous = true});
  add(b, LinearStep{.name = "v_proj", .in = s.hidden, .out = kv, .bias = bias * kv, .to_cache = true, .joins_previous = true});
  add(b, AttentionStep{.heads = s.heads, .qk_dim = s.head_dim, .v_dim = s.head_dim, .k_width = kv, .v_width = kv});
  add(b, LinearStep{.name = "o_proj", .in = q, .out = s.hidden, .bias = a.linear_bias ? s.hidden : 0.0, .to_residual = true});
}

// Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434 §2.1). The down projections are
// replicated on every GPU of a group (each needs the whole latent); the up projections and O
// are split by heads.
void latent_attention(Block& b, const Shard& s, const Architecture& a) {
  const LatentAttention& l = *a.mla;
  const double heads = s.heads, qk = static_cast<double>(l.nope_dim + l.rope_dim);
  const auto rank = static_cast<double>(l.kv_lora_rank), cache = static_cast<double>(l.cache_width());
  const auto nope = static_cast<double>(l.nope_dim), v = static_cast<double>(l.v_dim);
  const double norm = a.norm_params_per_element();
  if (l.q_lora_rank > 0) {
    const auto q_rank = static_cast<double>(l.q_lora_rank);
    add(b, LinearStep{.name = "q_a_proj", .in = s.hidden, .out = q_rank});
    add(b, NormStep{"q_a_norm", q_rank, norm});
    add(b, LinearStep{.name = "q_b_proj", .in = q_rank, .out = heads * qk});
  } else {
    add(b, LinearStep{.name = "q_proj", .in = s.hidden, .out = heads * qk});
  }
  // The latent and the shared RoPE key go straight into the cache.
  add(b, LinearStep{.name = "kv_a_proj", .in = s.hidden, .out = cache, .to_cache = true});
  add(b, NormStep{"kv_a_norm", rank, norm});
  // Decode absorbs K's up projection into each query and V's into the output (DeepSeek-V2
  // §2.1.2), so every head attends over the cached latent itself, read once for keys and values.
  add(b, LinearStep{.name = "q_absorb", .in = nope, .out = rank, .copies = heads, .rows_per_token = heads},
      Phases::decode_only);
  add(b, AttentionStep{.heads = heads, .qk_dim = cache, .v_dim = rank, .k_width = cache, .v_width = 0},
      Phases::decode_only);
  add(b, LinearStep{.name = "v_absorb", .in = rank, .out = v, .copies = heads, .rows_per_token = heads, .to_residual = true},
      Phases::decode_only);
  // Prefill decompresses K and V for its own tokens and attends as multi-head attention.
  add(b, LinearStep{.name = "kv_b_proj", .in = rank, .out = heads * (nope + v)}, Phases::prefill_only);
  add(b, AttentionStep{.heads = heads, .qk_dim = qk, .v_dim = v, .k_width = heads * qk, .v_width = heads * v,
                       .reads_cache = false},
      Phases::prefill_only);
  add(b, LinearStep{.name = "o_proj", .in = heads * v, .out = s.hidden, .to_residual = true});
}

struct FfnNames {
  std::string_view gate, up, act, down;
};

// Up (and gate) to `width`, the activation, down to the residual; `copies` weight matrices each
// (every expert), used by `rows_per_token` rows a token. `bias`: 1 when every linear has one.
void ffn(Block& b, const FfnNames& n, FfnType type, double hidden, double width, double copies, double rows_per_token,
         bool routed, double bias) {
  const bool gated = type == FfnType::gated;
  const LinearStep up{.name = n.up, .in = hidden, .out = width, .copies = copies, .rows_per_token = rows_per_token,
                      .bias = bias * copies * width, .routed = routed, .joins_previous = gated};
  if (gated) {
    LinearStep gate = up;
    gate.name = n.gate;
    gate.joins_previous = false;
    add(b, gate);
  }
  add(b, up);
  add(b, ActivationStep{n.act, width, gated, rows_per_token});
  add(b, LinearStep{.name = n.down, .in = width, .out = hidden, .copies = copies, .rows_per_token = rows_per_token,
                    .bias = bias * copies * hidden, .routed = routed, .to_residual = true});
}

}  // namespace

LayerStack describe_layers(const Architecture& a, int tp) {
  const Shard s = make_shard(a, tp);
  const double norm = a.norm_params_per_element();
  LayerStack stack;
  stack.blocks.reserve(6);
  stack.hidden = s.hidden;
  stack.tp = tp;

  Block embedding = block(1);
  const double tables = a.position_embeddings > 0 ? 2 : 1;
  add(embedding, GatherStep{"embedding", s.hidden, tables / s.tp,
                            static_cast<double>(a.vocab + a.position_embeddings)});
  stack.blocks.push_back(std::move(embedding));

  Block attention = block(static_cast<double>(a.layers));
  add(attention, NormStep{"attn_norm", s.hidden, norm});
  if (a.mla) latent_attention(attention, s, a);
  else grouped_attention(attention, s, a);
  if (tp > 1) add(attention, AllReduceStep{"allreduce_attn", s.hidden});
  add(attention, NormStep{"ffn_norm", s.hidden, norm});
  stack.blocks.push_back(std::move(attention));

  // Dense layers (all without MoE; DeepSeek's first few with it) and MoE layers, each over its
  // own layer count.
  if (a.dense_ffn_layers() > 0) {
    Block dense = block(static_cast<double>(a.dense_ffn_layers()));
    ffn(dense, {"ffn_gate", "ffn_up", "ffn_act", "ffn_down"}, a.ffn_type, s.hidden, s.ffn, 1, 1, false,
        a.linear_bias ? 1.0 : 0.0);
    stack.blocks.push_back(std::move(dense));
  }
  if (a.moe_layers() > 0) {
    const MoeSpec& moe = *a.moe;
    Block experts = block(static_cast<double>(a.moe_layers()));
    // Routers stay in 16 bits under quantization.
    add(experts, LinearStep{.name = "moe_router", .in = s.hidden, .out = static_cast<double>(moe.experts),
                            .weights = WeightClass::small});
    ffn(experts, {"expert_gate", "expert_up", "expert_act", "expert_down"}, a.ffn_type, s.hidden, s.expert_ffn,
        moe.experts, moe.top_k, true, 0);
    if (moe.shared_experts > 0) {
      ffn(experts, {"shared_gate", "shared_up", "shared_act", "shared_down"}, a.ffn_type, s.hidden,
          s.expert_ffn * moe.shared_experts, 1, 1, false, 0);
    }
    stack.blocks.push_back(std::move(experts));
  }
  if (tp > 1) stack.blocks.push_back({static_cast<double>(a.layers), {{AllReduceStep{"allreduce_ffn", s.hidden}}}});

  Block head = block(1);
  add(head, NormStep{"final_norm", s.hidden, norm});
  add(head, LinearStep{.name = "lm_head", .in = s.hidden, .out = s.vocab, .weights = WeightClass::table,
                       .last_token = true, .counted = !a.tied_embeddings});
  stack.blocks.push_back(std::move(head));
  return stack;
}

}  // namespace roofline
