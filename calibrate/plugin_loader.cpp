#include "calibrate/plugin_loader.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <stdexcept>

#include "calibrate/plugin_abi.hpp"

namespace fs = std::filesystem;

namespace roofline::calibrate {

namespace {

std::string last_dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dynamic loader error";
}

// A plugin is never closed: the device it returned runs its code and destroys itself through its
// vtable, and the CUDA runtime it loads is not meant to be unloaded before the process ends.
void* open_plugin(const fs::path& file) {
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw std::runtime_error(fmt::format("cannot load the backend: {}", last_dl_error()));
  return handle;
}

template <class Function>
Function find_symbol(void* handle, const char* symbol, const fs::path& file) {
  dlerror();
  void* address = dlsym(handle, symbol);
  if (!address) {
    throw std::runtime_error(fmt::format("{} is not a rooflineplan backend: {}", file.string(), last_dl_error()));
  }
  return reinterpret_cast<Function>(address);
}

}  // namespace

std::vector<fs::path> plugin_dirs() {
  if (const char* env = std::getenv("ROOFLINEPLAN_PLUGIN_DIR"); env && *env) return {fs::path(env)};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return {exe.parent_path(), (exe.parent_path() / ROOFLINEPLAN_PLUGIN_RELATIVE_DIR).lexically_normal()};
}

std::unique_ptr<CalibrationDevice> load_plugin_device(const std::string& kind, const std::string& missing) {
  const std::string name = "librooflineplan_" + kind + ".so";
  const std::vector<fs::path> dirs = plugin_dirs();
  const auto dir = std::find_if(dirs.begin(), dirs.end(), [&](const fs::path& d) {
    std::error_code ec;
    return fs::exists(d / name, ec);
  });
  if (dir == dirs.end()) {
    std::vector<std::string> shown;
    for (const fs::path& d : dirs) shown.push_back(d.string());
    throw std::runtime_error(fmt::format("{} ({} is in none of: {})", missing, name, fmt::join(shown, ", ")));
  }
  const fs::path file = *dir / name;
  void* handle = open_plugin(file);
  const int version = find_symbol<RooflineplanPluginAbiVersion>(handle, ROOFLINEPLAN_PLUGIN_ABI_VERSION_SYMBOL, file)();
  if (version != kPluginAbiVersion) {
    throw std::runtime_error(fmt::format("{} was built for plugin ABI version {}, this rooflineplan needs {}: "
                                         "rebuild and install them together",
                                         file.string(), version, kPluginAbiVersion));
  }
  const auto open_device = find_symbol<RooflineplanOpenDevice>(handle, ROOFLINEPLAN_OPEN_DEVICE_SYMBOL, file);
  std::array<char, 1024> error{};
  std::unique_ptr<CalibrationDevice> device(open_device(error.data(), error.size()));
  if (!device) throw std::runtime_error(error.data());
  return device;
}

}  // namespace roofline::calibrate
