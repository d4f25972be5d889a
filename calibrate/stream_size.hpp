#pragma once
// The size of calibrate's STREAM arrays when `--stream-size` is not given, from the host: the
// same command must measure memory, not a cache, on a laptop and on a server whose last-level
// cache is 260 MiB, and must not take more of the memory than the host can spare.
#include <cstddef>

#include "calibrate/host_machine.hpp"

namespace roofline::calibrate {

// 256 MiB: far beyond the caches of most machines, and a second or so per pass at tens of GB/s.
inline constexpr std::size_t kPreferredStreamBytes = std::size_t{256} << 20;

struct StreamSize {
  // What set the size, for the summary to say.
  enum class Basis {
    preferred,     // kPreferredStreamBytes, already ≥ 4 × the cache
    cache,         // 4 × the last-level cache (rounded up to a MiB), above the preferred size
    memory_share,  // the host's share below: a machine short of memory
  };
  std::size_t bytes = 0;
  Basis basis = Basis::preferred;
};

// max(4 × the last-level cache, min(256 MiB, a sixth of the memory available)): three arrays in
// at most half the free memory unless the cache asks for more. `cache_bound`: the arrays live in
// the host's memory behind its caches (the CPU backend); a GPU's arrays are on the device, four
// times this size (calibrate/cuda), past any L2. Throws std::invalid_argument naming
// --stream-size when the memory available cannot hold three arrays of that size.
[[nodiscard]] StreamSize default_stream_size(const HostFacts& host, bool cache_bound);

}  // namespace roofline::calibrate
