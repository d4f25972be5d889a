// libFuzzer target: any text as a dimensioned value ("2 TB/s"), in every dimension: a finite
// number or std::invalid_argument, nothing else.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "io/units_parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using roofline::io::Dimension;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (Dimension d : {Dimension::bytes, Dimension::bandwidth, Dimension::flops_rate, Dimension::time}) {
    try {
      if (!std::isfinite(roofline::io::parse_quantity(text, d))) std::abort();
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
