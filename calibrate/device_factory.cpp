#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "calibrate/calibration_device.hpp"
#include "calibrate/plugin_loader.hpp"

namespace roofline::calibrate {

std::unique_ptr<CalibrationDevice> make_cpu_device();

namespace {

// Backends built as plugins (plugin_abi.hpp): their toolchains' runtimes are loaded only by the
// commands that use them. `missing` is what to say when the plugin is not found, which depends on
// whether this configuration built it.
struct PluginBackend {
  const char* kind;
  const char* missing;
};

#ifdef ROOFLINEPLAN_HAVE_CUDA
constexpr const char* kCudaMissing = "no CUDA backend: its plugin is not installed beside rooflineplan";
#else
constexpr const char* kCudaMissing = "this build has no CUDA backend: nvcc was not found when it was configured";
#endif

constexpr PluginBackend kPlugins[] = {{"cuda", kCudaMissing}};

}  // namespace

std::vector<std::string> device_kinds() {
  std::vector<std::string> kinds{"cpu"};
  for (const PluginBackend& p : kPlugins) kinds.emplace_back(p.kind);
  return kinds;
}

std::unique_ptr<CalibrationDevice> open_device(const std::string& kind) {
  if (kind == "cpu") return make_cpu_device();
  for (const PluginBackend& p : kPlugins) {
    if (kind != p.kind) continue;
    try {
      return load_plugin_device(kind, p.missing);
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(fmt::format("--device {}: {}", kind, e.what()));
    }
  }
  throw std::invalid_argument(fmt::format("--device {}: unknown device; use {}", kind, fmt::join(device_kinds(), " or ")));
}

}  // namespace roofline::calibrate
