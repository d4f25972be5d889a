#pragma once
// Sweep values: each flag takes a comma-separated list whose items may be ranges.
//   1,2,4,8   128..1024:+128   1..1024:x2   (arithmetic or geometric; both ends included when hit)
#include <string>
#include <string_view>
#include <vector>

namespace roofline::cli {

// Throws InputError naming `flag` for a malformed item, an empty or endless range.
[[nodiscard]] std::vector<long> expand_counts(const std::vector<std::string>& items, std::string_view flag);

}  // namespace roofline::cli
