#pragma once
// The median of a sample: its middle value, or the mean of the two middle ones. One definition for
// every figure the tool reports as a median (the kernel fit's residuals, leave-one-source-out's,
// validate's errors): the upper middle alone was read in two of them.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace roofline {

// `v` must not be empty; taken by value, partly reordered.
[[nodiscard]] inline double median(std::vector<double> v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2) return *mid;
  return (*std::max_element(v.begin(), mid) + *mid) / 2;
}

}  // namespace roofline
