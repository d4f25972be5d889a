#include "cli/memory_check.hpp"

#include <fmt/format.h>

#include "calibrate/host_machine.hpp"
#include "io/input_error.hpp"
#include "report/human_units.hpp"

namespace roofline::cli {

void require_memory(double bytes, std::string_view flag, std::string_view what) {
  require_memory(bytes, flag, what, calibrate::host_memory_available());
}

void require_memory(double bytes, std::string_view flag, std::string_view what, std::optional<double> available) {
  if (!available || bytes <= *available) return;
  throw io::InputError(fmt::format("--{}: {} need {} ({:.0f} bytes), more than the {} this machine has available", flag,
                                   what, report::human(Bytes(bytes)), bytes, report::human(Bytes(*available))));
}

}  // namespace roofline::cli
