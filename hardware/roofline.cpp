#include "hardware/roofline.hpp"

namespace roofline {

std::string_view name(Bound b) {
  switch (b) {
    case Bound::compute: return "compute";
    case Bound::memory: return "memory";
    case Bound::interconnect: return "interconnect";
  }
  return "memory";
}

Seconds ring_allreduce_time(Bytes buffer, int ranks, BytesPerSecond link_bandwidth, Seconds latency) {
  if (ranks <= 1) return Seconds(0);
  const double share = 2.0 * (ranks - 1) / ranks;
  return buffer * share / link_bandwidth + latency;
}

}  // namespace roofline
