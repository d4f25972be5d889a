#pragma once
// How a checkpoint stores a class of weights: an element format, and the scales (and zero points)
// that quantized formats keep beside the elements. Each named format has exact bytes per matrix,
// so a published checkpoint is priced at what it loads, not at its element width alone.
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "hardware/dtype.hpp"

namespace roofline {

enum class WeightFormat {
  fp32, fp16, bf16,
  fp8,          // e4m3, one fp32 scale per matrix
  fp8_channel,  // e4m3, one fp32 scale per output channel
  fp8_block,    // e4m3, one fp32 scale per 128 × 128 block (DeepSeek-V3, Qwen3-FP8)
  int8,         // weight-only int8, per-channel scales not counted (< 0.1% of the bytes)
  int4,         // symmetric, one fp16 scale per group of the workload's group size
  awq, gptq,    // int4, one fp16 scale and one 4-bit zero point per group
  fp4,          // e2m1, one fp16 scale per group of the workload's group size
  mxfp4,        // e2m1, one e8m0 scale per 32 (OCP MX): 4.25 bits a weight
  nvfp4,        // e2m1, one e4m3 scale per 16 and one fp32 scale per matrix: 4.5 bits a weight
  fp6,          // e2m3, one fp16 scale per group of the workload's group size
  mxfp6,        // e2m3, one e8m0 scale per 32 (OCP MX; MI355X, Blackwell): 6.25 bits a weight
};
inline constexpr int kWeightFormatCount = 15;

// Where the scales go. group: along the input, `group` elements a scale.
enum class Scaling { none, matrix, channel, block, group };

struct FormatLayout {
  WeightFormat format;
  std::string_view name;
  DType element;
  Scaling scaling = Scaling::none;
  int group = 0;              // elements a scale; 0: the workload's group size
  double scale_bytes = 0;     // one scale
  double zero_bytes = 0;      // one zero point, per scale
  double matrix_bytes = 0;    // a further scale per matrix (NVFP4's fp32 global scale)
  std::string_view doc;
};

[[nodiscard]] const FormatLayout& layout(WeightFormat f);
[[nodiscard]] std::string_view name(WeightFormat f);
[[nodiscard]] std::optional<WeightFormat> weight_format_from_name(std::string_view name);
// The plain format of a dtype (fp16 → fp16, int4 → int4).
[[nodiscard]] WeightFormat weight_format_of(DType t);
[[nodiscard]] DType element_of(WeightFormat f);
[[nodiscard]] const std::array<FormatLayout, kWeightFormatCount>& all_weight_formats();

// What a format costs to store, split by what the bytes scale with: each weight (its element and
// its share of the group or block scales, counted per element, not rounded up to whole groups:
// a tensor-parallel shard may hold part of one), each output channel, each matrix.
struct StorageCost {
  double per_weight = 0;
  double per_channel = 0;
  double per_matrix = 0;
  double block = 0;      // edge of the square blocks that share a scale (a partial block has its own)
  double per_block = 0;
  // Bytes of `copies` matrices of in × out weights.
  [[nodiscard]] double bytes(double in, double out, double copies) const {
    const double blocks = block > 0 ? std::ceil(in / block) * std::ceil(out / block) : 0;
    return copies * (in * out * per_weight + out * per_channel + per_matrix + blocks * per_block);
  }
};
// `group_size` is used by the formats whose group the workload chooses (int4, awq, gptq, fp4, fp6).
[[nodiscard]] StorageCost storage_cost(WeightFormat f, int group_size);

// Bytes of `copies` matrices of in × out weights stored in `f`, scales and zero points included.
[[nodiscard]] double stored_bytes(WeightFormat f, double in, double out, double copies, int group_size);
// Bytes a weight of a large matrix: the element and its share of the group or block scales. The
// scales per matrix and per channel depend on the matrix's shape and are left out: this prices a
// model known only by its size.
[[nodiscard]] double bytes_per_weight(WeightFormat f, int group_size);
// A 16- or 32-bit float without scales: what activations can stay in.
[[nodiscard]] bool is_wide_float(WeightFormat f);
// A format whose group of weights a scale the workload chooses (--group-size: int4, awq, gptq,
// fp4, fp6), not one its layout fixes (mxfp4's 32, nvfp4's 16).
[[nodiscard]] bool takes_group_size(WeightFormat f);
// The formats' names, in the enum's order ("fp32, fp16, ..., nvfp4").
[[nodiscard]] std::string weight_format_names(std::string_view separator);

// Tensor classes a checkpoint may store in different formats (gpt-oss: MXFP4 experts, bf16
// attention; AWQ: int4 linears, 16-bit embeddings and head; Kimi-K2-Thinking: int4 routed
// experts, bf16 shared ones). experts: the routed experts; shared_experts: the always-on ones,
// in the routed experts' format unless a checkpoint says otherwise.
enum class TensorClass { attention, dense_ffn, experts, lm_head, embedding, shared_experts };
inline constexpr int kTensorClassCount = 6;
[[nodiscard]] std::string_view name(TensorClass c);

// The checkpoint's formats per class; an empty class is stored in the model's dtype.
struct Quantization {
  std::array<std::optional<WeightFormat>, kTensorClassCount> formats{};
  std::optional<int> group_size;  // the checkpoint's group, for the formats that take one
  // The format the checkpoint's linears compute in where it quantizes their inputs too (W8A8:
  // DeepSeek-V3's fp8 `activation_scheme`, compressed-tensors' `input_activations`); empty:
  // weight-only, computed in the activation format.
  std::optional<DType> compute;
  // The format the checkpoint declares for its KV cache (ModelOpt's `kv_cache_quant_algo`,
  // compressed-tensors' `kv_cache_scheme`), which vLLM's default `--kv-cache-dtype auto` takes;
  // empty: none declared, the cache in the activation format.
  std::optional<DType> kv;
  [[nodiscard]] const std::optional<WeightFormat>& of(TensorClass c) const {
    return formats[static_cast<std::size_t>(c)];
  }
  [[nodiscard]] std::optional<WeightFormat>& of(TensorClass c) { return formats[static_cast<std::size_t>(c)]; }
};

}  // namespace roofline
