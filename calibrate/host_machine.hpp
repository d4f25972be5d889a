#pragma once
// What the host machine offers a measurement: the memory it can allocate now, and the size of
// its last-level cache (STREAM arrays must be well beyond it, or the "memory" bandwidth
// measured is the cache's).
#include <filesystem>
#include <optional>
#include <string>

namespace roofline::calibrate {

// Bytes a process can allocate now: MemAvailable from /proc/meminfo, else physical memory
// (sysconf), at most what its cgroup (cgroup_headroom of /sys/fs/cgroup) and the address-space
// limit (ulimit -v) leave; nullopt when none is known.
[[nodiscard]] std::optional<double> host_memory_available();

// What the cgroup mounted at `root` (v2, or v1's memory controller below it) leaves: its limit,
// less its usage, plus the page cache it may reclaim (memory.stat's inactive file pages);
// nullopt without a limit ("max") or a cgroup there.
[[nodiscard]] std::optional<double> cgroup_headroom(const std::filesystem::path& root);

// The largest cache of cpu0 as sysfs lists it (the last level, as one instance shares it),
// else sysconf's L3, then L2; nullopt when none is known.
[[nodiscard]] std::optional<double> last_level_cache();

// Both, read once: what `calibrate` sizes its arrays by. A value, so that tests can describe
// hosts they do not run on (a 260 MiB last-level cache, a machine short of memory).
struct HostFacts {
  std::optional<double> last_level_cache;
  std::optional<double> memory_available;
};
[[nodiscard]] HostFacts host_facts();

}  // namespace roofline::calibrate
