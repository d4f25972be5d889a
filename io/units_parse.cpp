#include "io/units_parse.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

namespace roofline::io {

namespace {

struct Unit {
  std::string_view symbol;
  double scale;
  Dimension dimension;
};

// Bytes take SI (powers of 1000) and binary (powers of 1024) prefixes; rates of FLOPs take SI
// only, as datasheets write them. "TOPS" is the integer datasheets' name for the same rate.
constexpr std::array kUnits = {
    Unit{"B", 1, Dimension::bytes},          Unit{"kB", 1e3, Dimension::bytes},
    Unit{"KB", 1e3, Dimension::bytes},       Unit{"MB", 1e6, Dimension::bytes},
    Unit{"GB", 1e9, Dimension::bytes},       Unit{"TB", 1e12, Dimension::bytes},
    Unit{"PB", 1e15, Dimension::bytes},      Unit{"KiB", 0x1p10, Dimension::bytes},
    Unit{"MiB", 0x1p20, Dimension::bytes},   Unit{"GiB", 0x1p30, Dimension::bytes},
    Unit{"TiB", 0x1p40, Dimension::bytes},   Unit{"PiB", 0x1p50, Dimension::bytes},
    Unit{"FLOPS", 1, Dimension::flops_rate}, Unit{"MFLOPS", 1e6, Dimension::flops_rate},
    Unit{"GFLOPS", 1e9, Dimension::flops_rate}, Unit{"TFLOPS", 1e12, Dimension::flops_rate},
    Unit{"PFLOPS", 1e15, Dimension::flops_rate}, Unit{"EFLOPS", 1e18, Dimension::flops_rate},
    Unit{"OPS", 1, Dimension::flops_rate},   Unit{"MOPS", 1e6, Dimension::flops_rate},
    Unit{"GOPS", 1e9, Dimension::flops_rate}, Unit{"TOPS", 1e12, Dimension::flops_rate},
    Unit{"POPS", 1e15, Dimension::flops_rate}, Unit{"EOPS", 1e18, Dimension::flops_rate},
    Unit{"s", 1, Dimension::time},           Unit{"ms", 1e-3, Dimension::time},
    Unit{"us", 1e-6, Dimension::time},       Unit{"µs", 1e-6, Dimension::time},  // micro sign (U+00B5)
    Unit{"μs", 1e-6, Dimension::time},  // Greek mu (U+03BC), what NFKC makes of the micro sign
    Unit{"ns", 1e-9, Dimension::time},
    Unit{"W", 1, Dimension::power},          Unit{"kW", 1e3, Dimension::power},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string_view dimension_name(Dimension d) {
  switch (d) {
    case Dimension::bytes: return "a size";
    case Dimension::bandwidth: return "a bandwidth";
    case Dimension::flops_rate: return "a compute rate";
    case Dimension::time: return "a time";
    case Dimension::power: return "a power";
  }
  return "a value";
}

// A unit symbol, with "/s" turning a size into a bandwidth and "FLOP/s" spelling FLOPS.
std::optional<Unit> find_unit(std::string_view symbol) {
  Dimension per_second_of = Dimension::bytes;
  bool per_second = false;
  std::string spelled(symbol);
  if (spelled.size() > 2 && spelled.ends_with("/s")) {
    spelled.resize(spelled.size() - 2);
    per_second = true;
    if (spelled.ends_with("FLOP") || spelled.ends_with("OP")) {
      spelled.push_back('S');  // not += "S": GCC 12 warns falsely on it (PR 105329)
      per_second_of = Dimension::flops_rate;
    }
  }
  for (const Unit& u : kUnits) {
    if (u.symbol != spelled) continue;
    if (!per_second) return u;
    if (u.dimension != per_second_of) return std::nullopt;
    return Unit{u.symbol, u.scale, u.dimension == Dimension::bytes ? Dimension::bandwidth : u.dimension};
  }
  return std::nullopt;
}

}  // namespace

std::string_view example(Dimension d) {
  switch (d) {
    case Dimension::bytes: return "\"80 GB\" or \"80 GiB\"";
    case Dimension::bandwidth: return "\"2039 GB/s\"";
    case Dimension::flops_rate: return "\"312 TFLOPS\"";
    case Dimension::time: return "\"5 us\"";
    case Dimension::power: return "\"700 W\"";
  }
  return "";
}

double parse_quantity(std::string_view text, Dimension expected) {
  const std::string_view s = trim(text);
  double number = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec != std::errc() || !std::isfinite(number)) {
    throw std::invalid_argument(
        fmt::format("\"{}\" is not {}: expected a number and a unit, like {}", text, dimension_name(expected),
                    example(expected)));
  }
  const std::string_view symbol = trim(s.substr(static_cast<std::size_t>(end - s.data())));
  if (symbol.empty()) {
    throw std::invalid_argument(fmt::format("\"{}\" has no unit: write {} (a bare number is refused, as a "
                                            "missing unit is how 1000x mistakes happen)",
                                            text, example(expected)));
  }
  const std::optional<Unit> unit = find_unit(symbol);
  if (!unit) {
    const bool bits = symbol.find("b/s") != std::string_view::npos || symbol.ends_with("b");
    throw std::invalid_argument(fmt::format("\"{}\": unknown unit \"{}\"{}; write {}", text, symbol,
                                            bits ? " (bits are not accepted, give bytes: B)" : "",
                                            example(expected)));
  }
  if (unit->dimension != expected) {
    throw std::invalid_argument(fmt::format("\"{}\" is {}, but {} is needed here, like {}", text,
                                            dimension_name(unit->dimension), dimension_name(expected),
                                            example(expected)));
  }
  const double value = number * unit->scale;
  if (!std::isfinite(value)) throw std::invalid_argument(fmt::format("\"{}\" is out of range", text));
  return value;
}

}  // namespace roofline::io
