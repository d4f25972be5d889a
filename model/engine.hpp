#pragma once
// The engine: a pure function of (ModelSpec, GpuSpec, Workload) → Report. No I/O, no parsing.
#include "model/report.hpp"

namespace roofline {

// Throws std::invalid_argument when validate(workload, model, gpu) or validate(model) fails.
[[nodiscard]] Report evaluate(const ModelSpec& model, const GpuSpec& gpu, const Workload& workload);

}  // namespace roofline
