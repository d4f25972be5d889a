#pragma once
// What engines refuse to load of a layout's weights, which the pricing alone would not notice:
// a group size that leaves a partial group along a matrix's input, and block-scaled fp8 matrices
// split by tensor parallelism through the middle of their 128 × 128 blocks.
#include <optional>

#include "model/layers.hpp"
#include "model/precision.hpp"
#include "model/spec_error.hpp"

namespace roofline {

// `whole`: the layers at tp 1; `split`: one GPU's at the workload's tp (null at tp 1).
[[nodiscard]] std::optional<SpecError> check_shards(const LayerStack& whole, const LayerStack* split,
                                                    const Precision& p);

}  // namespace roofline
