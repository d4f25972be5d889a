#include "calibrate/measurement.hpp"

#include <algorithm>
#include <stdexcept>

namespace roofline::calibrate {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Measurement summarize(std::string kernel, Rate rate, double work, const std::vector<double>& seconds) {
  if (seconds.empty()) throw std::invalid_argument("summarize: no timings");
  std::vector<double> rates;
  for (double s : seconds) rates.push_back(work / s);
  const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
  const double median = median_of(rates);
  return {std::move(kernel), rate, *hi, median, (*hi - *lo) / median, static_cast<int>(seconds.size())};
}

Timing summarize_seconds(std::vector<double> seconds) {
  if (seconds.empty()) throw std::invalid_argument("summarize_seconds: no timings");
  return {*std::min_element(seconds.begin(), seconds.end()), median_of(seconds)};
}

Coverage coverage(const std::vector<double>& seconds, double low, double high) {
  Coverage c;
  for (double s : seconds) c.inside += (s >= low && s <= high) ? 1 : 0;
  c.total = static_cast<int>(seconds.size());
  return c;
}

}  // namespace roofline::calibrate
