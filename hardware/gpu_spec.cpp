#include "hardware/gpu_spec.hpp"

#include <algorithm>

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

Ceilings GpuSpec::ceilings(DType compute) const {
  Ceilings c{*effective_peak(compute), effective_bandwidth()};
  c.fp8_mma = effective_peak(DType::fp8).has_value();
  c.compute = compute;
  for (DType sixteen : {DType::bf16, DType::fp16}) {
    if (const auto p = effective_peak(sixteen); p && c.peak16.value() == 0) c.peak16 = *p;
  }
  return c;
}

const ExpectedModel& GpuSpec::expected_model(std::optional<ExpectedModel>& scratch) const {
  if (calibration) return scratch.emplace(expected_model());
  if (expected) return *expected;
  static const ExpectedModel published;
  return published;
}

ExpectedModel GpuSpec::expected_model() const {
  // Kernel classes are shares of the datasheet's ceilings; a calibration's are what kernels reach.
  if (expected) {
    ExpectedModel m = *expected;
    if (calibration) m.kernels.reset();
    return m;
  }
  ExpectedModel m;
  if (calibration) m.kernels.reset();
  if (calibration && calibration->bandwidth) m.memory = 1.0;
  if (calibration && std::any_of(calibration->peak.begin(), calibration->peak.end(), [](const auto& p) { return p.has_value(); })) {
    m.compute = 1.0;
  }
  if (m.memory == 1.0 || m.compute == 1.0) m.source += "; the calibrated ceilings taken as reached";
  return m;
}

}  // namespace roofline
