#pragma once
// The roofline itself: an operation takes as long as the slower of its two ceilings,
// time = max(flops / peak, bytes / bandwidth) (Williams, Waterman, Patterson, CACM 2009).
#include <string_view>

#include "hardware/dtype.hpp"
#include "hardware/quantity.hpp"

namespace roofline {

enum class Bound { compute, memory, interconnect };

[[nodiscard]] std::string_view name(Bound b);

struct Ceilings {
  FlopsPerSecond peak;
  BytesPerSecond bandwidth;
  // The 16-bit peak, which attention kernels run at whatever format the GEMMs compute in (the
  // expected time's kernel classes); 0: `peak`.
  FlopsPerSecond peak16{0};
  // Whether the GPU's tensor cores take fp8 (it has an fp8 peak): the decode attention class's
  // fp8-cache path was measured on Hopper's, which read the cache without converting it.
  bool fp8_mma = false;
  // The format `peak` is for: the 16-bit GEMM class prices a GEMM run in fp8 arithmetic's company
  // (a 16-bit router or head beside fp8 weights) at `peak16`, not at the fp8 `peak`.
  DType compute = DType::fp16;
  // The fp8 peak (0: none), which an attention over an fp8 cache may multiply at whatever the
  // GEMMs compute in (model/operators.hpp OpCost::fp8_arithmetic).
  FlopsPerSecond peak_fp8{0};
  // The ceilings the expected model's shares are of (0: the ones above): the datasheet's, where
  // `efficiency` scales the bound's (the kernel classes were fitted on datasheet ceilings, and a
  // share of an already-scaled ceiling counted the efficiency twice), a calibration's where measured.
  FlopsPerSecond reference_peak{0}, reference_peak16{0}, reference_peak_fp8{0};
  BytesPerSecond reference_bandwidth{0};
  [[nodiscard]] FlopsPerByte ridge_point() const { return peak / bandwidth; }
  // These ceilings with the expected model's in their stead.
  [[nodiscard]] Ceilings reference() const {
    Ceilings r = *this;
    if (reference_peak.value() > 0) r.peak = reference_peak;
    if (reference_peak16.value() > 0) r.peak16 = reference_peak16;
    if (reference_peak_fp8.value() > 0) r.peak_fp8 = reference_peak_fp8;
    if (reference_bandwidth.value() > 0) r.bandwidth = reference_bandwidth;
    return r;
  }
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

}  // namespace roofline
