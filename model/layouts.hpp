#pragma once
// The parallel layouts worth comparing for a model on a GPU: what `plan --search` ranks.
#include <vector>

#include "model/workload.hpp"

namespace roofline {

// Replicas beyond this many GPUs are not searched: past a rack, the layout is a design, not a plan.
inline constexpr int kMostGpusSearched = 64;

// Every layout the engine accepts for this model and GPU (validate(Workload) passes) whose
// weights leave room for one sequence: tp a power of two up to the interconnect's domain (whole
// domains beyond it when there is a network), pp 1, 2, 4 or 8 stages, and for a model with experts
// ep = 1 or ep = tp, with and without data-parallel attention; at most kMostGpusSearched GPUs.
// `base` gives everything else (formats, lengths); `skipped` counts the layouts whose weights do
// not fit, and `refused` gets each layout of the grid validate(Workload) refuses, with why (plan
// says them, as it says the --tp values it skips). In the order tp, pp, ep, data-parallel attention.
struct RefusedLayout {
  Workload layout;
  SpecError why;
};
[[nodiscard]] std::vector<Workload> candidate_layouts(const ModelSpec& m, const GpuSpec& g, const Workload& base,
                                                      int* skipped = nullptr,
                                                      std::vector<RefusedLayout>* refused = nullptr);

}  // namespace roofline
