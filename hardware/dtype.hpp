#pragma once
// Numeric formats. Both sides need them: a GPU has a peak per format, a model stores weights,
// KV cache and activations each in its own format, so they live with the hardware layer.
#include <array>
#include <optional>
#include <string_view>

namespace roofline {

// fp6 comes last so that no older value moves: a calibration plugin passes a DType across its ABI.
enum class DType { fp32, tf32, fp16, bf16, fp8, int8, int4, fp4, fp6 };

inline constexpr std::array kAllDTypes = {DType::fp32, DType::tf32, DType::fp16, DType::bf16, DType::fp8,
                                          DType::int8, DType::int4, DType::fp4,  DType::fp6};
inline constexpr std::size_t kDTypeCount = kAllDTypes.size();

[[nodiscard]] std::string_view name(DType t);
[[nodiscard]] std::optional<DType> dtype_from_name(std::string_view name);
// Storage size of one element, without any quantization scales (see model/precision.hpp).
[[nodiscard]] double bytes_per_element(DType t);
// Formats narrower than a byte are stored in groups that share a scale.
[[nodiscard]] bool is_sub_byte(DType t);
// Formats that activations can stay in between kernels (16 bits or more, floating point).
[[nodiscard]] bool is_wide_float(DType t);

}  // namespace roofline
