#pragma once
// A GpuSpec as YAML, in the schema the loader reads (units on every dimensioned value), so that
// `calibrate` output feeds straight back into every command.
#include <string>

#include "hardware/gpu_spec.hpp"

namespace roofline::io {

[[nodiscard]] std::string gpu_yaml(const GpuSpec& g);

// A GPU YAML's `expected:` block holding every coefficient of `m`, defaults included: what
// `rooflineplan fit --out` writes for pasting into a GPU file.
[[nodiscard]] std::string expected_yaml(const ExpectedModel& m);

}  // namespace roofline::io
