#include "hardware/dtype.hpp"

namespace roofline {

namespace {
constexpr std::array<std::string_view, kDTypeCount> kNames = {"fp32", "tf32", "fp16", "bf16", "fp8",
                                                             "int8", "int4", "fp4",  "fp6"};
// fp6 (e2m3 or e3m2, OCP MX): 6 bits, 0.75 B, stored packed four to three bytes.
constexpr std::array<double, kDTypeCount> kBytes = {4, 4, 2, 2, 1, 1, 0.5, 0.5, 0.75};
}  // namespace

std::string_view name(DType t) { return kNames[static_cast<std::size_t>(t)]; }

std::optional<DType> dtype_from_name(std::string_view n) {
  for (DType t : kAllDTypes) {
    if (name(t) == n) return t;
  }
  return std::nullopt;
}

double bytes_per_element(DType t) { return kBytes[static_cast<std::size_t>(t)]; }

bool is_sub_byte(DType t) { return bytes_per_element(t) < 1.0; }

bool is_wide_float(DType t) {
  return t == DType::fp32 || t == DType::tf32 || t == DType::fp16 || t == DType::bf16;
}

}  // namespace roofline
