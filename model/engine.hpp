#pragma once
// The engine: a pure function of (ModelSpec, GpuSpec, Workload) → Report. No I/O, no parsing.
// The report points at the specs it was given, which must outlive it.
#include "model/report.hpp"

namespace roofline {

// Throws std::invalid_argument when validate(workload, model, gpu) or validate(model) fails.
[[nodiscard]] Report evaluate(const ModelSpec& model, const GpuSpec& gpu, const Workload& workload);
// The report would point at a temporary that dies with the call's full expression.
Report evaluate(ModelSpec&&, const GpuSpec&, const Workload&) = delete;
Report evaluate(const ModelSpec&, GpuSpec&&, const Workload&) = delete;
Report evaluate(ModelSpec&&, GpuSpec&&, const Workload&) = delete;

}  // namespace roofline
