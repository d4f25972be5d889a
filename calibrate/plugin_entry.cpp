// The two C symbols every backend plugin exports (see plugin_abi.hpp), over the backend's own
// C++ factory. Compiled into each plugin, never into the main binary.
#include <cstring>
#include <exception>
#include <memory>
#include <type_traits>

#include "calibrate/calibration_device.hpp"
#include "calibrate/plugin_abi.hpp"

namespace roofline::calibrate {
// Defined by the backend (cuda/cuda_device.cu): its device, or an exception saying why there is
// none.
std::unique_ptr<CalibrationDevice> make_plugin_device();
}  // namespace roofline::calibrate

namespace {
void write_error(char* error, std::size_t error_size, const char* why) {
  if (!error || error_size == 0) return;
  std::strncpy(error, why, error_size - 1);
  error[error_size - 1] = '\0';
}
}  // namespace

extern "C" {

__attribute__((visibility("default"))) int rooflineplan_plugin_abi_version() {
  return roofline::calibrate::kPluginAbiVersion;
}

__attribute__((visibility("default"))) roofline::calibrate::CalibrationDevice* rooflineplan_open_device(
    char* error, std::size_t error_size) {
  try {
    return roofline::calibrate::make_plugin_device().release();
  } catch (const std::exception& e) {
    write_error(error, error_size, e.what());
  } catch (...) {
    write_error(error, error_size, "the backend failed without saying why");
  }
  return nullptr;
}

}

// The loader casts what dlsym returns to these types: the definitions must match them.
static_assert(std::is_same_v<decltype(&rooflineplan_plugin_abi_version), RooflineplanPluginAbiVersion>);
static_assert(std::is_same_v<decltype(&rooflineplan_open_device), RooflineplanOpenDevice>);
