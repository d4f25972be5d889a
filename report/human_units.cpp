#include "report/human_units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace roofline::report {

std::string three_digits(double value) {
  const double a = std::fabs(value);
  // Thresholds sit where rounding carries (9.996 prints as "10.0", not "10.00").
  if (a >= 99.95 || a == 0) return fmt::format("{:.0f}", value);
  if (a >= 9.995) return fmt::format("{:.1f}", value);
  if (a >= 0.9995) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3g}", value);
}

namespace {

struct Prefix {
  double scale;
  std::string_view symbol;
};

// The prefix a value's three digits are written with; nullopt: none fits (below a nano).
std::optional<Prefix> prefix_of(double value) {
  static constexpr std::array kPrefixes = {Prefix{1e15, "P"}, Prefix{1e12, "T"}, Prefix{1e9, "G"},
                                           Prefix{1e6, "M"},  Prefix{1e3, "k"},  Prefix{1, ""},
                                           Prefix{1e-3, "m"}, Prefix{1e-6, "u"}, Prefix{1e-9, "n"}};
  const double a = std::fabs(value);
  for (const Prefix& p : kPrefixes) {
    // Rounding to three digits can carry into the next prefix (999.7 → "1000"): take that one.
    if (a >= p.scale * 0.9995) return p;
  }
  return std::nullopt;
}

}  // namespace

std::string si(double value, std::string_view unit) {
  if (!std::isfinite(value)) return fmt::format("{} {}", value, unit);
  if (const auto p = prefix_of(value)) return fmt::format("{} {}{}", three_digits(value / p->scale), p->symbol, unit);
  return fmt::format("{} {}", three_digits(value), unit);
}

std::string human(Seconds s) {
  const double v = s.value(), a = std::fabs(v);
  // 999.5 s would round into "1.00 ks"; past 10^5 days, three digits and an exponent.
  if (!std::isfinite(v) || a < 999.5) return si(v, "s");
  if (a < 6000) return three_digits(v / 60) + " min";
  if (a < 360'000) return three_digits(v / 3600) + " h";
  if (a < 8.64e9) return three_digits(v / 86'400) + " days";
  return fmt::format("{:.3g} days", v / 86'400);
}

std::pair<std::string, std::string> human_apart(Bytes a, Bytes b) {
  std::pair<std::string, std::string> out{human(a), human(b)};
  if (out.first != out.second || a == b || !std::isfinite(a.value()) || !std::isfinite(b.value())) return out;
  // Both in the larger's prefix, a decimal more at a time until they differ (they do by 10^-9 of it).
  const Prefix p = prefix_of(std::max(std::fabs(a.value()), std::fabs(b.value()))).value_or(Prefix{1, ""});
  for (int decimals = 1; decimals <= 12 && out.first == out.second; ++decimals) {
    out = {fmt::format("{:.{}f} {}B", a.value() / p.scale, decimals, p.symbol),
           fmt::format("{:.{}f} {}B", b.value() / p.scale, decimals, p.symbol)};
  }
  return out;
}

std::string human_count(double value) {
  if (std::fabs(value) >= 1e9) return three_digits(value / 1e9) + " B";
  if (std::fabs(value) >= 1e6) return three_digits(value / 1e6) + " M";
  return three_digits(value);
}

}  // namespace roofline::report
