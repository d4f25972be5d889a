#pragma once
// Parameter counts by storage class. Quantizers (GPTQ, AWQ) quantize the block linears and leave
// embeddings, the LM head, norms, biases and MoE routers in 16 bits, so each class is counted
// apart and priced in its own dtype.
#include "model/layers.hpp"
#include "model/model_spec.hpp"
#include "model/precision.hpp"
#include "hardware/quantity.hpp"

namespace roofline {

struct ParameterCount {
  double linear_total = 0;   // Q/K/V/O, FFN and all experts, over all layers
  double linear_active = 0;  // the same with only top_k (+ shared) experts per token
  double embedding = 0;      // input embedding table
  double lm_head = 0;        // 0 when tied to the embedding
  double small = 0;          // norms, biases, routers

  [[nodiscard]] double total() const { return linear_total + embedding + lm_head + small; }
  [[nodiscard]] double active() const { return linear_active + embedding + lm_head + small; }
};

[[nodiscard]] ParameterCount count_parameters(const ModelSpec& m);
// The same from the layers described at tp = 1.
[[nodiscard]] ParameterCount count_parameters(const LayerStack& whole);

// Bytes of all weights (every expert) as stored with this precision.
[[nodiscard]] Bytes weight_bytes(const ParameterCount& p, const Precision& prec);

// What one sequence of `tokens` tokens holds on one GPU of the stack's group, over all layers: the
// K/V (or latent) cache, each layer keeping what its queries can still see (min(tokens, window)
// for sliding layers), and the recurrent layers' fixed state. Both are stored in the KV format.
struct CacheElements {
  double kv = 0;
  double state = 0;
  [[nodiscard]] double total() const { return kv + state; }
};
[[nodiscard]] CacheElements cache_elements(const LayerStack& stack, double tokens);
// The tokens a block's cache keeps of a sequence of `tokens`.
[[nodiscard]] double held_tokens(const Block& b, double tokens);

// K/V and recurrent state of one sequence of `tokens` tokens, whole model: for full attention
// 2 · L · kv_heads · head_dim · tokens · bytes(kv). 0 when the architecture is unknown.
// K/V a token adds while every layer still keeps it (before any window fills): 2 · L · kv_heads ·
// head_dim · bytes(kv), or L · (kv_lora_rank + rope_dim) · bytes(kv) with latent attention.
[[nodiscard]] Bytes kv_bytes_per_token(const ModelSpec& m, const Precision& prec);
[[nodiscard]] Bytes cache_bytes_per_sequence(const ModelSpec& m, const Precision& prec, double tokens);

}  // namespace roofline
