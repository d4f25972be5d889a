#include "io/ranges.hpp"

#include <fmt/format.h>

#include <locale>

namespace roofline::io {

namespace {

struct Bounds {
  std::string_view min, max;
};

// Written with the units a datasheet uses, so that the message and docs/inputs.md read as a file does.
Bounds bounds(Dimension d) {
  switch (d) {
    case Dimension::bytes: return {"1 MB", "1 PB"};
    case Dimension::bandwidth: return {"1 MB/s", "1 PB/s"};
    case Dimension::flops_rate: return {"1 MFLOPS", "1 EFLOPS"};
    case Dimension::time: return {"1 ns", "1 s"};
    case Dimension::power: return {"1 W", "100 kW"};
  }
  return {};
}

// Digits grouped by thousands ("100,000"), whatever the user's locale.
struct Grouped : std::numpunct<char> {
  char do_thousands_sep() const override { return ','; }
  std::string do_grouping() const override { return "\3"; }
};

std::string number_text(double v) {
  static const std::locale grouped(std::locale::classic(), new Grouped);
  if (v == static_cast<double>(static_cast<long long>(v)) && v < 1e12 && v > -1e12) {
    return fmt::format(grouped, "{:L}", static_cast<long long>(v));
  }
  return fmt::format("{:g}", v);
}

}  // namespace

Range physical_range(Dimension d) {
  const Bounds b = bounds(d);
  return {parse_quantity(b.min, d), parse_quantity(b.max, d)};
}

std::string range_text(Range r, std::optional<Dimension> d) {
  if (d) return fmt::format("{} … {}", bounds(*d).min, bounds(*d).max);
  return fmt::format("{} … {}", number_text(r.min), number_text(r.max));
}

std::optional<std::string> outside(double v, std::string_view as_written, Range r, std::optional<Dimension> d) {
  if (v >= r.min && v <= r.max) return std::nullopt;
  if (v <= 0 && r.min > 0) return fmt::format("must be positive, got {}", as_written);
  if (v < 0 && r.min == 0) return fmt::format("must not be negative, got {}", as_written);
  return fmt::format("{} is outside {}", as_written, range_text(r, d));
}

}  // namespace roofline::io
