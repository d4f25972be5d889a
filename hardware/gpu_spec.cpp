#include "hardware/gpu_spec.hpp"

namespace roofline {

BytesPerSecond GpuSpec::effective_bandwidth() const {
  if (calibration && calibration->bandwidth) return *calibration->bandwidth;
  return memory_bandwidth * efficiency.memory;
}

std::optional<FlopsPerSecond> GpuSpec::effective_peak(DType t) const {
  const auto i = static_cast<std::size_t>(t);
  if (calibration && calibration->peak[i]) return calibration->peak[i];
  if (!peak[i]) return std::nullopt;
  return *peak[i] * efficiency.compute;
}

}  // namespace roofline
