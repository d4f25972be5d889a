#pragma once
// Numbers for people: three significant digits and an SI prefix ("14.0 GB", "7.00 ms",
// "312 TFLOP/s"). Machines get the raw SI values through JSON and CSV.
#include <string>
#include <string_view>
#include <utility>

#include "hardware/quantity.hpp"

namespace roofline::report {

[[nodiscard]] std::string si(double value, std::string_view unit);
[[nodiscard]] inline std::string human(Bytes b) { return si(b.value(), "B"); }
// Below 1000 s with SI prefixes (ms, us); past it in minutes, hours or days, never "Ms", which
// reads as milliseconds.
[[nodiscard]] std::string human(Seconds s);
[[nodiscard]] inline std::string human(Flops f) { return si(f.value(), "FLOP"); }
[[nodiscard]] inline std::string human(BytesPerSecond b) { return si(b.value(), "B/s"); }
[[nodiscard]] inline std::string human(FlopsPerSecond f) { return si(f.value(), "FLOP/s"); }
[[nodiscard]] inline std::string human(FlopsPerByte i) { return si(i.value(), "FLOP/B"); }
// Two sizes a sentence compares ("needs X of Y"), told apart: each as human() writes it unless
// that writes both alike, then both in the larger's prefix with decimals added until they differ
// (1207.3 GB of 1206.0 GB: "1.207 TB of 1.206 TB", not "1.21 TB of 1.21 TB").
[[nodiscard]] std::pair<std::string, std::string> human_apart(Bytes a, Bytes b);
// A plain count with three significant digits: 6.74 B, 156, 0.517.
[[nodiscard]] std::string three_digits(double value);
[[nodiscard]] std::string human_count(double value);  // 6.74 B, 12.9 B, 7.00 M

}  // namespace roofline::report
