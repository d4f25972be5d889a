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

// K and V for one token over all layers: 2 · L · kv_heads · head_dim · bytes(kv), or
// L · (kv_lora_rank + rope_dim) · bytes(kv) with latent attention. 0 when the architecture is unknown.
[[nodiscard]] Bytes kv_bytes_per_token(const ModelSpec& m, const Precision& prec);
// Elements a token writes into the cache on one GPU of the stack's group, over all layers.
[[nodiscard]] double cache_elements_per_token(const LayerStack& stack);

}  // namespace roofline
