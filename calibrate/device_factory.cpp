#include <stdexcept>

#include "calibrate/calibration_device.hpp"

namespace roofline::calibrate {

std::unique_ptr<CalibrationDevice> make_cpu_device();
#ifdef ROOFLINEPLAN_HAVE_CUDA
std::unique_ptr<CalibrationDevice> make_cuda_device();
#endif

std::unique_ptr<CalibrationDevice> make_device(const std::string& kind) {
  if (kind == "cpu") return make_cpu_device();
  if (kind == "cuda") {
#ifdef ROOFLINEPLAN_HAVE_CUDA
    return make_cuda_device();
#else
    throw std::runtime_error("this build has no CUDA backend: nvcc was not found when it was configured");
#endif
  }
  throw std::runtime_error("unknown device \"" + kind + "\": use cpu or cuda");
}

}  // namespace roofline::calibrate
