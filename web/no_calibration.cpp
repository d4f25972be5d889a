// Calibration in the web page: there is no machine to measure (a page's timers are coarse and its
// code is WebAssembly, not the GPU's kernels), so `calibrate` and `validate` say so instead of
// measuring, and the host's memory and caches are unknown. Replaces calibrate/cpu/ and
// calibrate/host_machine.cpp in the WebAssembly build only.
#include <memory>
#include <optional>
#include <stdexcept>

#include "calibrate/calibration_device.hpp"
#include "calibrate/host_machine.hpp"

namespace roofline::calibrate {

std::unique_ptr<CalibrationDevice> make_cpu_device() {
  throw std::invalid_argument("--device cpu: the web page measures nothing; run `rooflineplan calibrate` on the machine");
}

std::optional<double> host_memory_available() { return std::nullopt; }
std::optional<double> last_level_cache() { return std::nullopt; }
HostFacts host_facts() { return {}; }

}  // namespace roofline::calibrate
