#pragma once
// The largest x in [lo, hi] for which `holds(x)` is true, where it holds at lo and, once false,
// stays false above: a batch that meets its targets or fits in memory, a context that fits. A
// binary search over longs, without the midpoint's overflow.
namespace roofline {

template <class Holds>
[[nodiscard]] long last_holding(long lo, long hi, Holds&& holds) {
  while (lo < hi) {
    const long mid = lo + (hi - lo + 1) / 2;
    if (holds(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace roofline
