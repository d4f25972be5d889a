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
  const std::optional<FlopsPerSecond> fp8 = effective_peak(DType::fp8);
  c.fp8_mma = fp8.has_value();
  if (fp8) c.peak_fp8 = *fp8;
  c.compute = compute;
  // What the expected model's shares are of: a measured ceiling where calibrated, else the
  // datasheet's (not scaled by efficiency, which the bound alone takes).
  const auto reference = [this](DType t) {
    const auto i = static_cast<std::size_t>(t);
    return calibration && calibration->peak[i] ? calibration->peak[i] : peak[i];
  };
  c.reference_peak = reference(compute).value_or(c.peak);
  // The fp8 peak beside it, the same way: an efficiency had left an fp8 attention's credit scaled
  // against an unscaled 16-bit peak (at 0.45 none left).
  if (fp8) c.reference_peak_fp8 = reference(DType::fp8).value_or(*fp8);
  c.reference_bandwidth = calibration && calibration->bandwidth ? *calibration->bandwidth : memory_bandwidth;
  for (DType sixteen : {DType::bf16, DType::fp16}) {
    if (const auto p = effective_peak(sixteen); p && c.peak16.value() == 0) {
      c.peak16 = *p;
      c.reference_peak16 = reference(sixteen).value_or(*p);
    }
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
