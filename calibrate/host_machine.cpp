#include "calibrate/host_machine.hpp"

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

}  // namespace

std::optional<double> host_memory_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    double kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) return static_cast<double>(pages) * static_cast<double>(page);
  return std::nullopt;
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
