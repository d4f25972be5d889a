#pragma once
// A memory share as a flag's value: three decimals, trailing zeros dropped (0.9, 0.875).
#include <fmt/format.h>

#include <cmath>
#include <string>

namespace roofline::launch {

[[nodiscard]] inline std::string share(double x) {
  std::string s = fmt::format("{:.3f}", x);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// A share that sizes the engine's cache, rounded up to the flag's three decimals: to the nearest,
// 0.89010 wrote 0.89, whose cache held 11454.2 of the 11455 sequences planned. Up, it takes under
// 0.001 of the GPU from the reserve; where that would pass `most` (what the share leaves room for:
// 1, or 1 less one step's activations), to the nearest. The value the engine reads; share_up writes it.
[[nodiscard]] inline double share_up_value(double x, double most = 1) {
  const double up = std::ceil(x * 1000 - 1e-9) / 1000;
  return up <= most ? up : std::round(x * 1000) / 1000;
}
[[nodiscard]] inline std::string share_up(double x, double most = 1) { return share(share_up_value(x, most)); }

// The same in a note, where a share above zero that rounds to it says so ("under 0.001"): one
// step's activations beside a large model's weights are some 0.0004 of a GPU, and "0" read as none.
[[nodiscard]] inline std::string share_said(double x) {
  return x > 0 && x < 0.0005 ? std::string("under 0.001") : share(x);
}

}  // namespace roofline::launch
