#pragma once
// Weights, KV cache and activations each have their own storage format; the compute format is
// what the matrix units run in. Weight-only quantization (W4A16) stores int4 but computes fp16.
#include <optional>

#include "hardware/dtype.hpp"

namespace roofline {

struct Precision {
  DType weights = DType::fp16;
  DType kv = DType::fp16;
  DType activations = DType::fp16;
  DType compute = DType::fp16;
  int group_size = 128;         // elements sharing one scale, for sub-byte weights
  DType scale = DType::fp16;    // format of those scales

  // int4 with group 128 and fp16 scales: 0.5 + 2/128 = 0.515625 bytes per weight.
  [[nodiscard]] double weight_bytes_per_element() const {
    const double scales = is_sub_byte(weights) ? bytes_per_element(scale) / group_size : 0.0;
    return bytes_per_element(weights) + scales;
  }
  // Embeddings and the LM head stay in 16 bits when the block weights are quantized.
  [[nodiscard]] DType embedding_dtype() const { return is_wide_float(weights) ? weights : activations; }
};

struct PrecisionOverrides {
  std::optional<DType> weights{}, kv{}, activations{}, compute{};
  std::optional<int> group_size{};
};

// Defaults follow the model's dtype: weights in it; activations in it when it is a wide float,
// else fp16; KV cache and compute in the activation format.
[[nodiscard]] Precision resolve_precision(DType model_dtype, const PrecisionOverrides& o);

}  // namespace roofline
