#pragma once
// The serving trace --arrivals names, read as `simulate` and `plan --percentile` both take it: its
// rows (at most kMaxTraceRequests), its own mean rate, and its arrivals rescaled from its first so
// that it runs at another rate (simulate's --trace-rate; plan's --trace-rate or --rate), every gap
// scaled alike, so that its bursts stay bursts. What each command then refuses of a trace, and in
// which words, stays with the command (cli/serve_flags.cpp, cli/plan_traffic.cpp).
#include <optional>
#include <string>
#include <vector>

#include "io/trace_csv.hpp"

namespace roofline::cli {

// The most requests a trace may hold: as many as a simulated run holds (cli/serve_flags.cpp: a
// run keeps its requests and their outcomes twice, 10^7 of them some 2.6 GB).
inline constexpr double kMaxTraceRequests = 1e7;

struct TraceFlag {
  std::string path;
  std::vector<io::TraceRow> rows;  // at least one: io::read_trace refuses a file of none

  // Seconds from its first arrival to its last.
  [[nodiscard]] double span() const { return rows.back().arrival - rows.front().arrival; }
  // Its own mean rate: its gaps (requests - 1) over its span; empty where no time passes from its
  // first arrival to its last (one request, or all at once), so that no rate can be read or set.
  [[nodiscard]] std::optional<double> own_rate() const;
  // `row`'s arrival counted from the first, every gap multiplied by `scale` (its own rate over the
  // rate wanted). Counted from the first: an offset before it would stand unscaled.
  [[nodiscard]] double rescaled(const io::TraceRow& row, double scale) const {
    return (row.arrival - rows.front().arrival) * scale;
  }
};

// The trace at `path`; InputError naming --arrivals (with its file:line where a row is wrong, as
// io::read_trace words it), and past kMaxTraceRequests rows.
[[nodiscard]] TraceFlag read_trace_flag(const std::string& path);

}  // namespace roofline::cli
