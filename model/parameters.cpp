#include "model/parameters.hpp"

namespace roofline {

ParameterCount count_parameters(const ModelSpec& m) {
  ParameterCount p;
  if (!m.architecture) {
    p.linear_total = p.linear_active = m.declared_params;
    return p;
  }
  const Architecture& a = *m.architecture;
  const double h = static_cast<double>(a.hidden);
  const double norm_per_element = a.norm_params_per_element();
  double attention = h * a.q_dim() + 2 * h * a.kv_dim() + a.q_dim() * h;
  double attention_norms = 0;
  if (a.mla) {
    // Q through its bottleneck (or direct), the latent and RoPE key down, K and V up, O; the two
    // bottlenecks are normed.
    const LatentAttention& l = *a.mla;
    const double heads = a.heads, qk = static_cast<double>(l.nope_dim + l.rope_dim);
    const double q = l.q_lora_rank > 0 ? h * l.q_lora_rank + l.q_lora_rank * heads * qk : h * heads * qk;
    attention = q + h * l.cache_width() + l.kv_lora_rank * heads * (l.nope_dim + l.v_dim) + heads * l.v_dim * h;
    attention_norms = (l.q_lora_rank + l.kv_lora_rank) * norm_per_element;
  }
  const double matrices_per_ffn = a.ffn_type == FfnType::gated ? 3 : 2;
  // Dense layers (all of them without MoE, DeepSeek's first few with it) have one FFN.
  double ffn_total = a.dense_ffn_layers() * matrices_per_ffn * h * static_cast<double>(a.ffn);
  double ffn_active = ffn_total, router = 0;
  if (a.moe) {
    const double expert = matrices_per_ffn * h * static_cast<double>(a.moe->ffn);
    ffn_total += a.moe_layers() * expert * (a.moe->experts + a.moe->shared_experts);
    ffn_active += a.moe_layers() * expert * (a.moe->top_k + a.moe->shared_experts);
    router = a.moe_layers() * h * a.moe->experts;
  }
  const double norm = h * norm_per_element;
  double biases = a.qkv_bias() ? static_cast<double>(a.q_dim() + 2 * a.kv_dim()) : 0;
  if (a.linear_bias) {
    // O's bias, and the FFN's: gate and up are `ffn` wide, down `h` (not modelled with MoE).
    biases += h + (matrices_per_ffn - 1) * static_cast<double>(a.ffn) + h;
  }
  p.linear_total = a.layers * attention + ffn_total;
  p.linear_active = a.layers * attention + ffn_active;
  // Two norms a layer (and latent attention's two), biases, routers, and the final norm.
  p.small = a.layers * (2 * norm + attention_norms + biases) + router + norm;
  const double vocab_table = static_cast<double>(a.vocab) * h;
  p.embedding = vocab_table + static_cast<double>(a.position_embeddings) * h;
  p.lm_head = a.tied_embeddings ? 0 : vocab_table;
  return p;
}

Bytes weight_bytes(const ParameterCount& p, const Precision& prec) {
  return Bytes(p.linear_total * prec.weight_bytes_per_element() +
               (p.embedding + p.lm_head) * bytes_per_element(prec.embedding_dtype()) +
               p.small * bytes_per_element(prec.activations));
}

Bytes kv_bytes_per_token(const ModelSpec& m, const Precision& prec) {
  if (!m.architecture) return Bytes(0);
  const Architecture& a = *m.architecture;
  // Latent attention caches its latent and one shared RoPE key, not K and V per head.
  const double per_layer = a.mla ? static_cast<double>(a.mla->cache_width()) : 2.0 * static_cast<double>(a.kv_dim());
  return Bytes(a.layers * per_layer * bytes_per_element(prec.kv));
}

}  // namespace roofline
