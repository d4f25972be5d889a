#pragma once
// The physical range of each value a description gives. Outside it a value is a slip (a unit
// off by 10^12) or an attack, and the arithmetic after it is not to be trusted: a denormal
// bandwidth makes every time infinite, 1e308 parameters overflow every sum, 2^62 heads wrap a
// 64-bit product. Ranges are generous: ten to a thousand times beyond any model or GPU built.
#include <optional>
#include <string>
#include <string_view>

#include "io/units_parse.hpp"

namespace roofline::io {

struct Range {
  double min;
  double max;
  bool operator==(const Range&) const = default;
};

// The least share of a ceiling (an efficiency, a fitted share) a description may give.
inline constexpr double kLeastShare = 1e-3;

// A calibration's spread, (max - min) / median of repeated runs: a ratio, never negative.
inline constexpr Range kSpreadRange{0, 1000};

// A size, bandwidth, compute rate or time: 1 MB … 1 PB, 1 MB/s … 1 PB/s, 1 MFLOPS … 1 EFLOPS,
// 1 ns … 1 s.
[[nodiscard]] Range physical_range(Dimension d);

// "1 … 100,000", or with a dimension "1 MB/s … 1 PB/s".
[[nodiscard]] std::string range_text(Range r, std::optional<Dimension> d = std::nullopt);

// Why `v` (written `as_written` in the file) is outside `r`, or nothing: "must be positive, got 0"
// where the range starts above zero, else "4294967297 is outside 1 … 100,000".
[[nodiscard]] std::optional<std::string> outside(double v, std::string_view as_written, Range r,
                                                 std::optional<Dimension> d = std::nullopt);

}  // namespace roofline::io
