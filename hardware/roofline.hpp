#pragma once
// The roofline itself: an operation takes as long as the slower of its two ceilings,
// time = max(flops / peak, bytes / bandwidth) (Williams, Waterman, Patterson, CACM 2009).
#include <string_view>

#include "hardware/quantity.hpp"

namespace roofline {

enum class Bound { compute, memory, interconnect };

[[nodiscard]] std::string_view name(Bound b);

struct Ceilings {
  FlopsPerSecond peak;
  BytesPerSecond bandwidth;
  [[nodiscard]] FlopsPerByte ridge_point() const { return peak / bandwidth; }
};

struct RooflineTime {
  Seconds compute;
  Seconds memory;
  [[nodiscard]] Seconds time() const { return compute > memory ? compute : memory; }
  [[nodiscard]] Bound bound() const { return compute > memory ? Bound::compute : Bound::memory; }
};

[[nodiscard]] inline RooflineTime roofline_time(Flops flops, Bytes bytes, const Ceilings& c) {
  return {flops / c.peak, bytes / c.bandwidth};
}

// A ring all-reduce over `ranks` GPUs moves 2(ranks-1)/ranks of the buffer over each link
// (Patarasuk & Yuan 2009), plus one link latency per call.
[[nodiscard]] Seconds ring_allreduce_time(Bytes buffer, int ranks, BytesPerSecond link_bandwidth,
                                          Seconds latency);

}  // namespace roofline
