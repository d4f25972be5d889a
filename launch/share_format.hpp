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

// The same in a note, where a share above zero that rounds to it says so ("under 0.001"): one
// step's activations beside a large model's weights are some 0.0004 of a GPU, and "0" read as none.
[[nodiscard]] inline std::string share_said(double x) {
  return x > 0 && x < 0.0005 ? std::string("under 0.001") : share(x);
}

}  // namespace roofline::launch
