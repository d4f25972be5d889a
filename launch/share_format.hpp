#pragma once
// A memory share as a flag's value: three decimals, trailing zeros dropped (0.9, 0.875).
#include <fmt/format.h>

#include <string>

namespace roofline::launch {

[[nodiscard]] inline std::string share(double x) {
  std::string s = fmt::format("{:.3f}", x);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace roofline::launch
