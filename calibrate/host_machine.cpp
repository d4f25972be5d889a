#include "calibrate/host_machine.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace roofline::calibrate {

namespace {

// "32768K", "1024K", "8M" as sysfs writes cache sizes.
std::optional<double> sysfs_size(const std::filesystem::path& file) {
  std::ifstream in(file);
  double value = 0;
  std::string unit;
  if (!(in >> value)) return std::nullopt;
  in >> unit;
  const double scale = unit == "K" ? 1024.0 : unit == "M" ? 1024.0 * 1024 : unit == "G" ? 1024.0 * 1024 * 1024 : 1.0;
  return value * scale;
}

// A file's first word as a number: cgroup v2's memory.max ("max" when unlimited: nullopt) and
// memory.current.
std::optional<double> number_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  double value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

// The number after `key` on its line: /proc/meminfo's and /proc/self/status's `key: N kB` (in
// KiB), a cgroup's memory.stat `key N` (in bytes).
std::optional<double> value_after(const std::filesystem::path& file, std::string_view key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    double value = 0;
    if (fields >> name >> value && name == key) return value;
  }
  return std::nullopt;
}

std::optional<double> kib_after(const std::filesystem::path& file, std::string_view key) {
  const auto kib = value_after(file, key);
  return kib ? std::optional(*kib * 1024) : std::nullopt;
}

}  // namespace

std::optional<double> cgroup_headroom(const std::filesystem::path& root) {
  // v2: memory.max ("max": no limit) and memory.current; v1: the memory controller's
  // limit_in_bytes (a huge number: no limit, which the caller's minimum passes over) and usage.
  const bool v2 = std::filesystem::exists(root / "memory.max");
  const std::filesystem::path dir = v2 ? root : root / "memory";
  const auto limit = number_in(dir / (v2 ? "memory.max" : "memory.limit_in_bytes"));
  const auto used = number_in(dir / (v2 ? "memory.current" : "memory.usage_in_bytes"));
  if (!limit || !used) return std::nullopt;
  // The usage counts the page cache, which the kernel reclaims before it refuses an allocation
  // (MemAvailable counts it free too): a long-lived container sits near its limit.
  const double cache = value_after(dir / "memory.stat", v2 ? "inactive_file" : "total_inactive_file").value_or(0);
  return std::max(0.0, *limit - *used + cache);
}

std::optional<double> host_memory_available() {
  std::optional<double> available = kib_after("/proc/meminfo", "MemAvailable:");
  if (!available) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0) available = static_cast<double>(pages) * static_cast<double>(page);
  }
  const auto at_most = [&available](double bytes) {
    bytes = std::max(0.0, bytes);
    available = std::min(available.value_or(bytes), bytes);
  };
  // A container's cgroup may allow less than the machine has free, and `ulimit -v` less still:
  // what passes either is killed or refused mid-run, not before it.
  if (const auto headroom = cgroup_headroom("/sys/fs/cgroup")) at_most(*headroom);
  rlimit space{};
  if (getrlimit(RLIMIT_AS, &space) == 0 && space.rlim_cur != RLIM_INFINITY) {
    at_most(static_cast<double>(space.rlim_cur) - kib_after("/proc/self/status", "VmSize:").value_or(0));
  }
  return available;
}

std::optional<double> last_level_cache() {
  // sysfs before sysconf: glibc reads the L3 size from cpuid, which some virtual machines fill
  // with the whole host's.
  std::optional<double> largest;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    if (const auto size = sysfs_size(entry.path() / "size")) largest = std::max(largest.value_or(0), *size);
  }
  if (largest && *largest > 0) return largest;
  for (const int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    if (const long bytes = sysconf(name); bytes > 0) return static_cast<double>(bytes);
  }
  return std::nullopt;
}

HostFacts host_facts() { return {last_level_cache(), host_memory_available()}; }

}  // namespace roofline::calibrate
