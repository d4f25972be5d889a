#include "io/gpu_writer.hpp"

#include "io/schema.hpp"

namespace roofline::io {

std::string gpu_yaml(const GpuSpec& g) { return write_document(gpu_schema(), g); }

}  // namespace roofline::io
