#pragma once
// The engine: a pure function of (ModelSpec, GpuSpec, Workload) → Report. No I/O, no parsing.
#include "model/report.hpp"

namespace roofline {

// Throws std::invalid_argument when validate(workload, model, gpu) or validate(model) fails.
[[nodiscard]] Report evaluate(const ModelSpec& model, const GpuSpec& gpu, const Workload& workload);

// The warnings a point carries before it is priced: what the model's reader assumed, the compute
// format a checkpoint chose, a context past the trained one. evaluate() adds the memory's.
// A plan states them for each of its rows.
[[nodiscard]] std::vector<Warning> input_warnings(const ModelSpec& model, const GpuSpec& gpu, const Workload& workload);

}  // namespace roofline
