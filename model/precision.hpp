#pragma once
// Weights, KV cache and activations each have their own storage format; the compute format is
// what the matrix units run in. Weight-only quantization (W4A16) stores int4 but computes fp16.
// Weights are stored per tensor class (model/weight_format.hpp): a checkpoint may keep its
// experts in MXFP4 and its attention and LM head in bf16 (gpt-oss).
#include <array>
#include <optional>

#include "hardware/dtype.hpp"
#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "model/weight_format.hpp"

namespace roofline {

// Where the compute format came from: the reader is told when it is not the flag's or the
// activation format's, since it moves the compute bound by the ratio of two peaks.
enum class ComputeSource {
  asked,        // --compute
  activations,  // the activation format: weight-only quantization, or none
  checkpoint,   // the checkpoint quantizes its activations (Quantization::compute)
  fp8_weights,  // every block class the model has in an fp8 format: engines run them W8A8 (vLLM's --quantization fp8)
  no_peak,      // either would, but the GPU gives no peak for that format: weight-only
};

struct Precision {
  std::array<WeightFormat, kTensorClassCount> weights{WeightFormat::fp16, WeightFormat::fp16, WeightFormat::fp16,
                                                      WeightFormat::fp16, WeightFormat::fp16, WeightFormat::fp16};
  DType kv = DType::fp16;
  // The KV format is the one the checkpoint declares (Quantization::kv), not --kv's or the
  // activation format: the reader is told (KvFromCheckpoint), as of a compute format the weights chose.
  bool kv_from_checkpoint = false;
  DType activations = DType::fp16;
  DType compute = DType::fp16;
  ComputeSource compute_source = ComputeSource::activations;
  DType checkpoint_compute = DType::fp16;  // what the checkpoint asked for, under no_peak
  int group_size = 128;  // elements a scale, for the formats whose group the workload chooses (int4, awq, gptq, fp4, fp6)
  bool group_size_asked = false;  // --group-size gave it: a warning says so where no format here takes it

  [[nodiscard]] WeightFormat of(TensorClass c) const { return weights[static_cast<std::size_t>(c)]; }
  void set(TensorClass c, WeightFormat f) { weights[static_cast<std::size_t>(c)] = f; }
  // Bytes of `copies` in × out matrices of class `c`, scales and zero points included.
  [[nodiscard]] double stored(TensorClass c, double in, double out, double copies) const {
    return stored_bytes(of(c), in, out, copies, group_size);
  }
  // The format every block class (attention, dense FFN, experts) is stored in, when they agree.
  [[nodiscard]] std::optional<WeightFormat> block_format() const;
  bool operator==(const Precision&) const = default;
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
// activation format, unless the checkpoint declares its KV cache's format or computes in its own
// (W8A8) and `--weights` leaves its formats alone, or (the ModelSpec overloads) every block class the model has is fp8 (vLLM,
// SGLang and TensorRT-LLM run fp8 weights W8A8 where the GPU has fp8 tensor cores). The LM head
// and the embeddings: `lm_head` (the head only), else the checkpoint's format for the class, else
// the block format when every block class is in one wide float, else the activation format:
// quantizers leave them in 16 bits. The group: the override, else the checkpoint's, else 128.
[[nodiscard]] Precision resolve_precision(DType model_dtype, const std::optional<Quantization>& checkpoint,
                                          const PrecisionOverrides& o);
// The same for this model: its dtype and its checkpoint's formats.
[[nodiscard]] Precision resolve_precision(const ModelSpec& m, const PrecisionOverrides& o = {});
// The same on this GPU: a checkpoint's compute format without a peak on it (fp8 on an A100) gives
// way to the activation format, the weights unpacked as vLLM's weight-only kernels run them there
// (ComputeSource::no_peak). A `--compute` the GPU cannot run stays, for validate() to refuse.
[[nodiscard]] Precision resolve_precision(const ModelSpec& m, const PrecisionOverrides& o, const GpuSpec& g);

}  // namespace roofline
