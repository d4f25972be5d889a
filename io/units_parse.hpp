#pragma once
// Dimensioned values carry their unit as text ("2039 GB/s", "80 GiB", "312 TFLOPS", "5 us", "700 W"):
// a bare number is refused, since a missing unit is how 1000× mistakes happen.
#include <string_view>

namespace roofline::io {

enum class Dimension { bytes, bandwidth, flops_rate, time, power };

// The value in SI base units (bytes, bytes/s, FLOP/s, s, W). Throws std::invalid_argument with a
// message that says what was expected and what was found. The value may be zero or negative;
// whether that is allowed is the caller's rule.
[[nodiscard]] double parse_quantity(std::string_view text, Dimension expected);

[[nodiscard]] std::string_view example(Dimension d);

}  // namespace roofline::io
