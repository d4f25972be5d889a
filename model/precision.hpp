#pragma once
// Weights, KV cache and activations each have their own storage format; the compute format is
// what the matrix units run in. Weight-only quantization (W4A16) stores int4 but computes fp16.
// Weights are stored per tensor class (model/weight_format.hpp): a checkpoint may keep its
// experts in MXFP4 and its attention and LM head in bf16 (gpt-oss).
#include <array>
#include <optional>

#include "hardware/dtype.hpp"
#include "model/model_spec.hpp"
#include "model/weight_format.hpp"

namespace roofline {

struct Precision {
  std::array<WeightFormat, kTensorClassCount> weights{WeightFormat::fp16, WeightFormat::fp16, WeightFormat::fp16,
                                                      WeightFormat::fp16, WeightFormat::fp16, WeightFormat::fp16};
  DType kv = DType::fp16;
  DType activations = DType::fp16;
  DType compute = DType::fp16;
  int group_size = 128;  // elements a scale, for the formats whose group the workload chooses (int4, awq, gptq, fp4, fp6)

  [[nodiscard]] WeightFormat of(TensorClass c) const { return weights[static_cast<std::size_t>(c)]; }
  void set(TensorClass c, WeightFormat f) { weights[static_cast<std::size_t>(c)] = f; }
  // Bytes of `copies` in × out matrices of class `c`, scales and zero points included.
  [[nodiscard]] double stored(TensorClass c, double in, double out, double copies) const {
    return stored_bytes(of(c), in, out, copies, group_size);
  }
  // The format every block class (attention, dense FFN, experts) is stored in, when they agree.
  [[nodiscard]] std::optional<WeightFormat> block_format() const;
};

// The block classes, which `--weights` sets together.
inline constexpr std::array kBlockClasses = {TensorClass::attention, TensorClass::dense_ffn, TensorClass::experts,
                                             TensorClass::shared_experts};

struct PrecisionOverrides {
  std::optional<WeightFormat> weights{};  // every block class
  std::optional<WeightFormat> lm_head{};
  std::optional<DType> kv{}, activations{}, compute{};
  std::optional<int> group_size{};
};

// Block classes: the override, else the checkpoint's format for the class (for the shared experts,
// the routed experts' when it names none), else the model's dtype.
// Activations: the dtype when it is a wide float, else fp16; KV cache and compute in the
// activation format. The LM head and the embeddings: `lm_head` (the head only), else the
// checkpoint's format for the class, else the block format when every block class is in one wide
// float, else the activation format: quantizers leave them in 16 bits. The group: the override,
// else the checkpoint's, else 128.
[[nodiscard]] Precision resolve_precision(DType model_dtype, const std::optional<Quantization>& checkpoint,
                                          const PrecisionOverrides& o);
// The same for this model: its dtype and its checkpoint's formats.
[[nodiscard]] Precision resolve_precision(const ModelSpec& m, const PrecisionOverrides& o = {});

}  // namespace roofline
