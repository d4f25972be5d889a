#pragma once
// A measured ceiling: repeated timings reduced to best, median and spread. Reported only after
// the kernel's result has been checked, so a wrong kernel cannot report a fast number.
#include <string>
#include <vector>

namespace roofline::calibrate {

enum class Rate { bytes_per_s, flops_per_s };

struct Measurement {
  std::string kernel;  // "copy", "triad", "fma_fp32", "gemm_fp32", ...
  Rate rate = Rate::bytes_per_s;
  double best = 0;    // the highest rate seen: the ceiling
  double median = 0;
  double spread = 0;  // (max − min) / median of the rates
  int repetitions = 0;
};

// The middle value (the mean of the two middle ones for an even count).
[[nodiscard]] double median_of(std::vector<double> v);

// Rates from work done / each run's seconds.
[[nodiscard]] Measurement summarize(std::string kernel, Rate rate, double work, const std::vector<double>& seconds);

// Best and median of repeated timings of the same step, in seconds.
struct Timing {
  double best = 0;
  double median = 0;
};
[[nodiscard]] Timing summarize_seconds(std::vector<double> seconds);

// How many timings fell inside an interval [low, high] (ends included): its coverage, counted.
struct Coverage {
  int inside = 0;
  int total = 0;
  Coverage& operator+=(const Coverage& o) {
    inside += o.inside;
    total += o.total;
    return *this;
  }
};
[[nodiscard]] Coverage coverage(const std::vector<double>& seconds, double low, double high);

}  // namespace roofline::calibrate
