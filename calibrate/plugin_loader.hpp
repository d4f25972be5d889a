#pragma once
// Finds a backend plugin (librooflineplan_<kind>.so), opens it with dlopen and asks it for its
// device, checking the plugin's ABI version first (plugin_abi.hpp).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "calibrate/calibration_device.hpp"

namespace roofline::calibrate {

// Where plugins are looked for, in order: $ROOFLINEPLAN_PLUGIN_DIR alone when it is set;
// otherwise beside the running binary (the build tree) and in the install tree's plugin folder
// relative to it (<prefix>/bin → <prefix>/lib/rooflineplan).
[[nodiscard]] std::vector<std::filesystem::path> plugin_dirs();

// The plugin's device. Throws std::runtime_error saying why not: `missing` when no folder holds
// the file, the dynamic loader's message when it will not load, the plugin's own when it has no
// device.
[[nodiscard]] std::unique_ptr<CalibrationDevice> load_plugin_device(const std::string& kind, const std::string& missing);

}  // namespace roofline::calibrate
