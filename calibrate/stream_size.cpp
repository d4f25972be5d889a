#include "calibrate/stream_size.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace roofline::calibrate {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string mib(double bytes) { return std::to_string(static_cast<long long>(std::ceil(bytes / kMiB))) + " MiB"; }

}  // namespace

StreamSize default_stream_size(const HostFacts& host, bool cache_bound) {
  const double cache_floor = cache_bound && host.last_level_cache ? std::ceil(4 * *host.last_level_cache / kMiB) * kMiB : 0;
  const double share = host.memory_available ? *host.memory_available / 6 : kPreferredStreamBytes;
  const double preferred = static_cast<double>(kPreferredStreamBytes);
  StreamSize s;
  double bytes = preferred;
  if (share < preferred) bytes = std::max(std::floor(share / kMiB) * kMiB, kMiB), s.basis = StreamSize::Basis::memory_share;
  if (cache_floor > bytes) bytes = cache_floor, s.basis = StreamSize::Basis::cache;
  if (host.memory_available && 3 * bytes > *host.memory_available) {
    // A smaller array would measure the cache; none at all is better than a wrong ceiling.
    throw std::invalid_argument("--stream-size: three STREAM arrays of " + mib(bytes) +
                                (s.basis == StreamSize::Basis::cache ? " (4 × the last-level cache of " + mib(*host.last_level_cache) + ")" : "") +
                                " need more than the " + mib(*host.memory_available) +
                                " this machine has available: free memory and run again");
  }
  s.bytes = static_cast<std::size_t>(bytes);
  return s;
}

}  // namespace roofline::calibrate
