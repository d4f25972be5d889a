#include "cli/trace_flag.hpp"

#include <fmt/format.h>

#include "cli/command.hpp"
#include "io/input_error.hpp"

namespace roofline::cli {

std::optional<double> TraceFlag::own_rate() const {
  const double s = span();
  if (rows.size() < 2 || !(s > 0)) return std::nullopt;
  return static_cast<double>(rows.size() - 1) / s;
}

TraceFlag read_trace_flag(const std::string& path) {
  TraceFlag t{path, read_flag_file("--arrivals", path, [&] { return io::read_trace(path); })};
  if (static_cast<double>(t.rows.size()) > kMaxTraceRequests) {
    throw io::InputError(fmt::format("--arrivals {}: {} requests, over the {:g} a run holds; cut the trace", path,
                                     t.rows.size(), kMaxTraceRequests));
  }
  return t;
}

}  // namespace roofline::cli
