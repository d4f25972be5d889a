#pragma once
// Parameter counts by storage class, and the bytes they take as stored. Quantizers (GPTQ, AWQ)
// quantize the block linears and leave embeddings, the LM head, norms, biases and MoE routers in
// 16 bits; a checkpoint may store each tensor class in its own format (gpt-oss: MXFP4 experts,
// bf16 attention), so each matrix is priced in its class's format, scales included.
#include <array>
#include <optional>

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
  double towers = 0;         // a multimodal checkpoint's vision and audio encoders: held, never run

  [[nodiscard]] double total() const { return linear_total + embedding + lm_head + small + towers; }
  // What a text token runs through: the towers are not.
  [[nodiscard]] double active() const { return linear_active + embedding + lm_head + small; }
};

[[nodiscard]] ParameterCount count_parameters(const ModelSpec& m);
// The same from the layers described at tp = 1.
[[nodiscard]] ParameterCount count_parameters(const LayerStack& whole);

// The tensor class a weight class is stored as; none for the small tensors (norms, biases,
// routers), which stay in the activation format.
[[nodiscard]] std::optional<TensorClass> tensor_class(WeightClass c);

// The format the embedding table is stored and gathered in. A table tied to the LM head is one
// tensor, stored in the head's format (`--lm-head` sets it; a checkpoint's tied table is its
// head's, see validate(ModelSpec)).
[[nodiscard]] WeightFormat embedding_format(const LayerStack& stack, const Precision& prec);

// What each class of a stack's weights costs to store under a precision, worked out once a point:
// the engine prices every linear of every pass, and the totals, with it.
class WeightPricing {
 public:
  // `stack`: any description of the model (whether its table is tied is all that is read).
  WeightPricing(const Precision& prec, const LayerStack& stack);
  // Bytes of `copies` of a linear step's weight matrices as stored (its bias apart): each matrix
  // in its class's format with its scales, exact per matrix (stored_bytes).
  // A block-exempt step (LinearStep::block_exempt) of an fp8-block class: in the activation format.
  [[nodiscard]] double matrices(const LinearStep& l, double copies) const {
    const StorageCost& c = l.weights == WeightClass::small ? small_ : classes_[static_cast<std::size_t>(l.weights)];
    return (l.block_exempt && c.block > 0 ? small_ : c).bytes(l.in, l.out, copies);
  }
  // The embedding table, `rows` × `width` in `tables` tables, one output channel a row.
  [[nodiscard]] double table(double width, double rows, double tables) const {
    return table_.bytes(width, rows, tables);
  }
  // Bytes of `elements` small tensors (norms, biases, routers, decays).
  [[nodiscard]] double small(double elements) const { return elements * small_.per_weight; }

 private:
  std::array<StorageCost, kTensorClassCount> classes_;
  StorageCost table_;  // the embedding's format, the head's when tied
  StorageCost small_;  // the activation format
};

// Every weight of a model (every expert) as stored: per tensor class, and the small tensors.
struct WeightBytes {
  std::array<Bytes, kTensorClassCount> by_class{};
  Bytes small;  // norms, biases, routers, convolutions, decays, sink logits: in the activation format
  Bytes towers;  // vision and audio encoders, in the activation format
  [[nodiscard]] Bytes of(TensorClass c) const { return by_class[static_cast<std::size_t>(c)]; }
  [[nodiscard]] Bytes total() const;  // what memory holds
  [[nodiscard]] Bytes run() const;    // what the decoder's passes read: all but the towers
};

// From the layers described at tp = 1 (std::invalid_argument for another tp).
[[nodiscard]] WeightBytes weight_bytes(const LayerStack& whole, const Precision& prec);
// A model known only by its size: every parameter a weight of a large block matrix, in the dense
// FFN's format (bytes_per_weight: its per-matrix and per-channel scales are unknown and left out).
[[nodiscard]] WeightBytes weight_bytes(double declared_params, const Precision& prec);
// Either, as the spec says (describes its layers once).
[[nodiscard]] WeightBytes weight_bytes(const ModelSpec& m, const Precision& prec);

// The parameters and their bytes as stored, in one walk over the layers: described at tp = 1,
// the whole model (what the engine needs of it at every point); for one GPU of a stage, what
// that GPU holds (its parameter counts are then its shares, not the model's).
struct Weights {
  ParameterCount params;
  WeightBytes bytes;
};
[[nodiscard]] Weights weigh(const LayerStack& whole, const WeightPricing& pricing);

// What one sequence of `tokens` tokens holds on one GPU of the stack's group, over all layers: the
// K/V (or latent) cache, each layer keeping what its queries can still see (min(tokens, window)
// for sliding layers), and the recurrent layers' fixed state. The state and its kept convolution
// inputs are in the model's format whatever the KV cache's (vLLM's mamba_cache_dtype, the model's
// dtype unless asked; never --kv-cache-dtype), the state in fp32 where the checkpoint keeps it so
// (Qwen3.5's mamba_ssm_dtype, Nemotron's mamba_ssm_cache_dtype): RecurrentStep::element_bytes.
struct CacheElements {
  double kv = 0;            // in the KV format's elements (a sparse latent layer's fp8 record: its bytes, latent_cache_bytes)
  double indexer_keys = 0;  // at kIndexerKeyBytes each, whatever the KV format (model/layers.hpp)
  double state_bytes = 0;   // the recurrent state and kept convolution inputs, in bytes as held
  // The K/V and the indexer's keys: what grows with the tokens.
  [[nodiscard]] double token_bytes(DType kv_format) const {
    return kv * bytes_per_element(kv_format) + indexer_keys * kIndexerKeyBytes;
  }
  [[nodiscard]] double bytes(DType kv_format) const { return token_bytes(kv_format) + state_bytes; }
};
[[nodiscard]] CacheElements cache_elements(const LayerStack& stack, double tokens);
// The tokens a block's cache keeps of a sequence of `tokens`.
[[nodiscard]] double held_tokens(const Block& b, double tokens);

// K/V and recurrent state of one sequence of `tokens` tokens, whole model: for full attention
// 2 · L · kv_heads · head_dim · tokens · bytes(kv). 0 when the architecture is unknown.
// K/V a token adds while every layer still keeps it (before any window fills): 2 · L · kv_heads ·
// head_dim · bytes(kv), or L · latent_cache_bytes (model/layers.hpp) with latent attention.
[[nodiscard]] Bytes kv_bytes_per_token(const ModelSpec& m, const Precision& prec);
[[nodiscard]] Bytes cache_bytes_per_sequence(const ModelSpec& m, const Precision& prec, double tokens);

}  // namespace roofline
