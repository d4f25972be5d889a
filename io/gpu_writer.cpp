#include "io/gpu_writer.hpp"

#include "io/schema.hpp"

namespace roofline::io {

std::string gpu_yaml(const GpuSpec& g) { return write_document(gpu_schema(), g); }

std::string expected_yaml(const ExpectedModel& m) {
  GpuSpec g;
  g.expected = m;
  return write_section(gpu_schema(), g, "expected");
}

}  // namespace roofline::io
