#pragma once
// The boundary between rooflineplan and a calibration backend built as a plugin
// (librooflineplan_<kind>.so, opened with dlopen only when `--device <kind>` asks for it, so that
// every other command starts without loading cudart and cuBLAS).
//
// Why a C boundary: dlsym looks a symbol up by its name, and only an `extern "C"` name is the same
// whatever the namespace and the signature; an exception must not cross it either, so the factory
// reports failure as text. What comes back is still a C++ object (a CalibrationDevice whose
// methods take std::string and std::vector), which is only safe between a binary and a plugin
// built from the same interface by the same toolchain: they are built together by one CMake
// project, and the version below catches a plugin left over from another build before any of its
// virtual functions is called.
#include <cstddef>

namespace roofline::calibrate {

class CalibrationDevice;

// Bump whenever CalibrationDevice, CalibrationOptions, GemmShape, AttentionShape or Measurement
// changes. 2: the kernel tables (time_gemms, time_attention, time_all_reduce and their methods).
inline constexpr int kPluginAbiVersion = 2;

}  // namespace roofline::calibrate

extern "C" {

// The version of this header the plugin was built against; compared first.
using RooflineplanPluginAbiVersion = int (*)();
#define ROOFLINEPLAN_PLUGIN_ABI_VERSION_SYMBOL "rooflineplan_plugin_abi_version"

// A device the caller owns, or nullptr with the reason written, NUL-terminated, to `error`
// ("no CUDA device: ..."). Never throws.
using RooflineplanOpenDevice = roofline::calibrate::CalibrationDevice* (*)(char* error, std::size_t error_size);
#define ROOFLINEPLAN_OPEN_DEVICE_SYMBOL "rooflineplan_open_device"

}
