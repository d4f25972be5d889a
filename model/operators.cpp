#include "model/operators.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

std::string_view name(Phase p) { return p == Phase::prefill ? "prefill" : "decode"; }

namespace {

// How one pass touches the model. Decode: one query per sequence against t cached keys.
// Prefill: n queries per sequence; causal attention sees n(n+1)/2 query-key pairs, and a naive
// kernel computes and stores the full n×n matrix before masking it.
struct Pass {
  double rows;          // tokens through the linears (M)
  double sequences;     // B
  double pairs;         // query-key pairs per sequence and head that a fused kernel computes
  double score_matrix;  // score elements per sequence and head that a naive kernel materialises
  double keys_read;     // cached K (and V) tokens read per sequence and layer
  double head_rows;     // rows through the LM head: only the last token of each sequence
  bool decode;
};

Pass make_pass(Phase phase, const Workload& w) {
  const auto B = static_cast<double>(w.batch);
  if (phase == Phase::decode) {
    const auto t = static_cast<double>(w.context_tokens);
    return {B, B, t, t, t, B, true};
  }
  const auto n = static_cast<double>(w.prompt_tokens);
  return {B * n, B, n * (n + 1) / 2, n * n, n, B, false};
}

// One GPU's share of the architecture under tensor parallelism (Megatron-LM: column-parallel
// Q/K/V and up, row-parallel O and down, vocab-parallel head). K/V heads fewer than tp are
// replicated, so each GPU keeps at least one.
struct Shard {
  double layers, hidden, head_dim, heads, kv_heads, ffn, vocab, expert_ffn;
};

Shard make_shard(const Architecture& a, int tp) {
  const double kv = std::max(1.0, static_cast<double>(a.kv_heads) / tp);
  const double expert_ffn = a.moe ? static_cast<double>(a.moe->ffn) / tp : 0.0;
  return {static_cast<double>(a.layers), static_cast<double>(a.hidden), static_cast<double>(a.head_dim),
          static_cast<double>(a.heads) / tp, kv, static_cast<double>(a.ffn) / tp,
          static_cast<double>(a.vocab) / tp, expert_ffn};
}

struct Linear {
  std::string_view name;
  double rows, in, out;
  double copies = 1.0;        // weight matrices read: experts touched
  double out_bytes = 0.0;     // output element size; 0: the activation format
  double bias = 0.0;          // bias elements, stored in the activation format
  double weight_bytes = 0.0;  // weight element size; 0: the (possibly quantized) weight format
};

class OpBuilder {
 public:
  OpBuilder(OpList& ops, const Precision& p, double layers)
      : ops_(ops), wb_(p.weight_bytes_per_element()), ab_(bytes_per_element(p.activations)), layers_(layers) {}

  // y[rows, out] = x[rows, in] · W[in, out] over `copies` weight matrices (experts touched):
  // 2·M·K·N FLOPs; K·N weights, M·K inputs and M·N outputs through memory.
  void linear(const Linear& l) {
    const double ob = l.out_bytes > 0 ? l.out_bytes : ab_;
    const double wb = l.weight_bytes > 0 ? l.weight_bytes : wb_;
    const double weights = l.copies * l.in * l.out * wb + l.bias * ab_;
    add(l.name, 2 * l.rows * l.in * l.out, weights + l.rows * (l.in * ab_ + l.out * ob), weights);
    ops_.back().shape = {l.rows, l.in, l.out, layers_ * l.copies};
  }

  // A fused residual-add + norm: reads x and the residual, writes both, ≈ 5 FLOPs an element;
  // its weights are a scale (RMSNorm) or a scale and a bias (LayerNorm) per element.
  void norm(std::string_view name, double rows, double width, double params_per_element) {
    const double weights = params_per_element * width * ab_;
    add(name, 5 * rows * width, 4 * rows * width * ab_ + weights, weights);
  }

  // Elementwise activation: SiLU(gate)·up reads two tensors, GELU one; both write one.
  void activation(std::string_view name, double rows, double width, bool gated) {
    const double inputs = gated ? 2 : 1;
    add(name, (gated ? 5 : 8) * rows * width, (inputs + 1) * rows * width * ab_, 0);
  }

  void allreduce(std::string_view name, double rows, double width) {
    ops_.push_back({name, Flops(0), Bytes(0), Bytes(0), Bytes(rows * width * ab_ * layers_), layers_});
  }

  void add(std::string_view name, double flops, double bytes, double weights) {
    ops_.push_back({name, Flops(flops * layers_), Bytes(bytes * layers_), Bytes(weights * layers_), Bytes(0), 0});
  }

  [[nodiscard]] double activation_bytes() const { return ab_; }

 private:
  OpList& ops_;
  double wb_, ab_, layers_;
};

struct FfnNames {
  std::string_view gate, up, act, down;
};

// `bias`: 1 when every linear has a bias (one per output element and weight copy), else 0.
void add_ffn(OpBuilder& b, const FfnNames& names, FfnType type, double rows, double hidden, double width,
             double copies, double bias) {
  const bool gated = type == FfnType::gated;
  const double up_bias = bias * copies * width, down_bias = bias * copies * hidden;
  if (gated) b.linear({.name = names.gate, .rows = rows, .in = hidden, .out = width, .copies = copies, .bias = up_bias});
  b.linear({.name = names.up, .rows = rows, .in = hidden, .out = width, .copies = copies, .bias = up_bias});
  b.activation(names.act, rows, width, gated);
  b.linear({.name = names.down, .rows = rows, .in = width, .out = hidden, .copies = copies, .bias = down_bias});
}

// Expected distinct experts hit when `rows` tokens each choose top_k of E uniformly.
double experts_touched(const MoeSpec& moe, double rows, ExpertRouting routing) {
  const double E = moe.experts;
  if (routing == ExpertRouting::all) return E;
  return E * (1.0 - std::pow(1.0 - static_cast<double>(moe.top_k) / E, rows));
}

// What attention multiplies: per head, queries and keys of qk_dim, values of v_dim, and the bytes
// of K and of V read per cached token (per sequence and layer, all heads on this GPU).
struct AttentionShape {
  double heads, qk_dim, v_dim, k_bytes_per_token, v_bytes_per_token;
};

void add_attention(OpBuilder& b, const Pass& p, const AttentionShape& a, const Workload& w) {
  const double ab = b.activation_bytes();
  const double q_bytes = p.rows * a.heads * a.qk_dim * ab, out_bytes = p.rows * a.heads * a.v_dim * ab;
  const double k_read = p.sequences * p.keys_read * a.k_bytes_per_token;
  const double v_read = p.sequences * p.keys_read * a.v_bytes_per_token;
  if (w.attention == AttentionKernel::flash) {
    // Softmax (≈ 5 FLOPs a score) is fused into the score pass; no score touches memory.
    b.add("attn_scores", p.sequences * a.heads * p.pairs * (2 * a.qk_dim + 5), q_bytes + k_read, 0);
    b.add("attn_values", p.sequences * a.heads * p.pairs * 2 * a.v_dim, v_read + out_bytes, 0);
    return;
  }
  const double scores = p.sequences * a.heads * p.score_matrix;
  b.add("attn_scores", scores * 2 * a.qk_dim, q_bytes + k_read + scores * ab, 0);
  b.add("attn_softmax", scores * 5, 2 * scores * ab, 0);
  b.add("attn_values", scores * 2 * a.v_dim, scores * ab + v_read + out_bytes, 0);
}

// Grouped-query attention: Q, K and V projected, K and V cached per head.
void add_grouped_attention(OpBuilder& b, const Pass& p, const Shard& s, const Architecture& a, const Workload& w) {
  const double kb = bytes_per_element(w.precision.kv);
  const double bias = a.qkv_bias() ? 1.0 : 0.0;
  const double q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  b.linear({.name = "q_proj", .rows = p.rows, .in = s.hidden, .out = q, .bias = bias * q});
  // K and V are written straight into the cache, in the cache's format.
  b.linear({.name = "k_proj", .rows = p.rows, .in = s.hidden, .out = kv, .out_bytes = kb, .bias = bias * kv});
  b.linear({.name = "v_proj", .rows = p.rows, .in = s.hidden, .out = kv, .out_bytes = kb, .bias = bias * kv});
  add_attention(b, p, {s.heads, s.head_dim, s.head_dim, kv * kb, kv * kb}, w);
  b.linear({.name = "o_proj", .rows = p.rows, .in = q, .out = s.hidden, .bias = a.linear_bias ? s.hidden : 0.0});
}

// Latent attention. The down projections are replicated on every GPU of a tensor-parallel group
// (each needs the whole latent); the up projections and O are split by heads.
void add_latent_attention(OpBuilder& b, const Pass& p, const Shard& s, const Architecture& a, const Workload& w) {
  const LatentAttention& l = *a.mla;
  const double kb = bytes_per_element(w.precision.kv), ab = b.activation_bytes();
  const double heads = s.heads, qk = static_cast<double>(l.nope_dim + l.rope_dim);
  const auto rank = static_cast<double>(l.kv_lora_rank), cache = static_cast<double>(l.cache_width());
  const auto nope = static_cast<double>(l.nope_dim), v = static_cast<double>(l.v_dim);
  if (l.q_lora_rank > 0) {
    const auto q_rank = static_cast<double>(l.q_lora_rank);
    b.linear({.name = "q_a_proj", .rows = p.rows, .in = s.hidden, .out = q_rank});
    b.norm("q_a_norm", p.rows, q_rank, a.norm_params_per_element());
    b.linear({.name = "q_b_proj", .rows = p.rows, .in = q_rank, .out = heads * qk});
  } else {
    b.linear({.name = "q_proj", .rows = p.rows, .in = s.hidden, .out = heads * qk});
  }
  // The latent and the shared RoPE key go straight into the cache, in the cache's format.
  b.linear({.name = "kv_a_proj", .rows = p.rows, .in = s.hidden, .out = cache, .out_bytes = kb});
  b.norm("kv_a_norm", p.rows, rank, a.norm_params_per_element());
  if (p.decode) {
    // Weight absorption (DeepSeek-V2 §2.1.2): K's up projection folds into each query and V's
    // into the output, so every head attends over the cached latent itself: one cache entry of
    // kv_lora_rank + rope_dim per token, read once for keys and values alike.
    b.linear({.name = "q_absorb", .rows = p.rows * heads, .in = nope, .out = rank, .copies = heads});
    add_attention(b, p, {heads, cache, rank, cache * kb, 0}, w);
    b.linear({.name = "v_absorb", .rows = p.rows * heads, .in = rank, .out = v, .copies = heads});
  } else {
    // Prefill decompresses K and V for its own tokens and attends as multi-head attention.
    b.linear({.name = "kv_b_proj", .rows = p.rows, .in = rank, .out = heads * (nope + v)});
    add_attention(b, p, {heads, qk, v, heads * qk * ab, heads * v * ab}, w);
  }
  b.linear({.name = "o_proj", .rows = p.rows, .in = heads * v, .out = s.hidden});
}

// Dense layers (all without MoE; DeepSeek's first few with it) and MoE layers, each summed over
// its own layer count.
void add_ffn_blocks(OpList& ops, const Precision& prec, const Pass& p, const Shard& s, const Architecture& a,
                    ExpertRouting routing) {
  if (a.dense_ffn_layers() > 0) {
    OpBuilder dense(ops, prec, a.dense_ffn_layers());
    add_ffn(dense, {"ffn_gate", "ffn_up", "ffn_act", "ffn_down"}, a.ffn_type, p.rows, s.hidden, s.ffn, 1.0,
            a.linear_bias ? 1.0 : 0.0);
  }
  if (a.moe_layers() == 0) return;
  OpBuilder b(ops, prec, a.moe_layers());
  const MoeSpec& moe = *a.moe;
  // Routers stay in 16 bits under quantization, as ParameterCount::small prices them.
  b.linear({.name = "moe_router", .rows = p.rows, .in = s.hidden, .out = static_cast<double>(moe.experts),
            .weight_bytes = b.activation_bytes()});
  add_ffn(b, {"expert_gate", "expert_up", "expert_act", "expert_down"}, a.ffn_type, p.rows * moe.top_k,
          s.hidden, s.expert_ffn, experts_touched(moe, p.rows, routing), 0);
  if (moe.shared_experts > 0) {
    add_ffn(b, {"shared_gate", "shared_up", "shared_act", "shared_down"}, a.ffn_type, p.rows, s.hidden,
            s.expert_ffn * moe.shared_experts, 1.0, 0);
  }
}

void add_architecture_ops(OpList& ops, const Pass& p, const Architecture& a, const Workload& w,
                          ExpertRouting routing) {
  const Shard s = make_shard(a, w.tp);
  const Precision& prec = w.precision;
  const double ab = bytes_per_element(prec.activations);
  const double eb = bytes_per_element(prec.embedding_dtype());
  const double norm = a.norm_params_per_element();

  OpBuilder once(ops, prec, 1.0);
  // A gather: only the rows of the tokens in the pass are read, never the whole table (nor the
  // whole learned position table, where there is one).
  const double tables = a.position_embeddings > 0 ? 2 : 1;
  once.add("embedding", 0, p.rows * s.hidden * (tables * eb / w.tp + ab), 0);

  OpBuilder layer(ops, prec, s.layers);
  layer.norm("attn_norm", p.rows, s.hidden, norm);
  if (a.mla) add_latent_attention(layer, p, s, a, w);
  else add_grouped_attention(layer, p, s, a, w);
  if (w.tp > 1) layer.allreduce("allreduce_attn", p.rows, s.hidden);
  layer.norm("ffn_norm", p.rows, s.hidden, norm);
  add_ffn_blocks(ops, prec, p, s, a, routing);
  if (w.tp > 1) layer.allreduce("allreduce_ffn", p.rows, s.hidden);

  once.norm("final_norm", p.rows, s.hidden, norm);
  const double head_weights = s.hidden * s.vocab * eb;
  once.add("lm_head", 2 * p.head_rows * s.hidden * s.vocab,
           head_weights + p.head_rows * (s.hidden + s.vocab) * ab, head_weights);
  ops.back().shape = {p.head_rows, s.hidden, s.vocab, 1};
}

}  // namespace

OpList build_ops(Phase phase, const ModelSpec& m, const Workload& w, ExpertRouting routing) {
  const Pass p = make_pass(phase, w);
  OpList ops;
  ops.reserve(28);
  if (m.architecture) {
    add_architecture_ops(ops, p, *m.architecture, w, routing);
  } else {
    // Known only by its size: every parameter is read once and used in one multiply-add per token.
    const double weights = m.declared_params * w.precision.weight_bytes_per_element();
    ops.push_back({"model_weights", Flops(2 * p.rows * m.declared_params), Bytes(weights), Bytes(weights),
                   Bytes(0), 0});
  }
  return ops;
}

}  // namespace roofline
