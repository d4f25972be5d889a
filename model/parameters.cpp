#include "parameters.hpp"

namespace roofline {

ParameterCount count_parameters(const ModelSpec& m) {
  ParameterCount p;
  if (!m.architecture) {
    p.linear_total = p.linear_active = m.declared_params;
    return p;
  }
  const Architecture& a = *m.architecture;
  const double h = static_cast<double>(a.hidden);
  const double attention = h * a.q_dim() + 2 * h * a.kv_dim() + a.q_dim() * h;
  const double matrices_per_ffn = a.ffn_type == FfnType::gated ? 3 : 2;
  double ffn_total = 0, ffn_active = 0, router = 0;
  if (a.moe) {
    const double expert = matrices_per_ffn * h * static_cast<double>(a.moe->ffn);
    ffn_total = expert * (a.moe->experts + a.moe->shared_experts);
    ffn_active = expert * (a.moe->top_k + a.moe->shared_experts);
    router = h * a.moe->experts;
  } else {
    ffn_total = ffn_active = matrices_per_ffn * h * static_cast<double>(a.ffn);
  }
  const double norm = h * a.norm_params_per_element();
  double biases = a.qkv_bias() ? static_cast<double>(a.q_dim() + 2 * a.kv_dim()) : 0;
  if (a.linear_bias) {
    // O's bias, and each FFN's: gate and up are `width` wide, down `h`; every expert has its own.
    const double width = static_cast<double>(a.moe ? a.moe->ffn : a.ffn);
    const double copies = a.moe ? a.moe->experts + a.moe->shared_experts : 1;
    biases += h + copies * ((matrices_per_ffn - 1) * width + h);
  }
  p.linear_total = a.layers * (attention + ffn_total);
  p.linear_active = a.layers * (attention + ffn_active);
  p.small = a.layers * (2 * norm + biases + router) + norm;  // two norms a layer, and the final one
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
  return Bytes(2.0 * a.layers * static_cast<double>(a.kv_dim()) * bytes_per_element(prec.kv));
}

}  // namespace roofline
