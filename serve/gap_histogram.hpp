#pragma once
// Inter-token gaps as vLLM's benchmark reports ITL: one a streamed emission after the first token,
// each request's gaps all counted. A run of an hour holds hundreds of millions of them, so they are
// kept in log-spaced bins (200 a decade, from 1 µs to 10^4 s): a percentile is the nearest rank's
// bin's geometric middle, within 0.6% of the exact one, and never outside the least and greatest
// gap added (a run whose gaps all fall in one bin reports that gap, not the bin's middle below it;
// below or above the bins: the least or the greatest gap itself); the mean is exact.
#include <array>
#include <cstddef>

namespace roofline::serve {

class GapHistogram {
 public:
  // Inline, the bin's logarithm out of line: every decode of every step adds a gap.
  void add(double seconds) {
    least_ = count_ == 0 ? seconds : (seconds < least_ ? seconds : least_);
    most_ = count_ == 0 ? seconds : (seconds > most_ ? seconds : most_);
    ++count_;
    sum_ += seconds;
    if (seconds != last_) rebin(seconds);
    ++bins_[last_bin_];
  }
  // Adds another's gaps (a fleet's replicas' together).
  void merge(const GapHistogram& other);
  [[nodiscard]] std::size_t count() const { return count_; }
  [[nodiscard]] double mean() const { return count_ == 0 ? 0 : sum_ / static_cast<double>(count_); }
  // The p-th percentile, 0 to 100, of the gaps added (0 when none were).
  [[nodiscard]] double percentile(double p) const;

  static constexpr int kPerDecade = 200;
  static constexpr int kDecades = 10;  // 10^-6 s to 10^4 s

 private:
  std::array<std::size_t, kPerDecade * kDecades + 2> bins_{};  // under, the decades, over
  std::size_t count_ = 0;
  double sum_ = 0, least_ = 0, most_ = 0;
  // The last gap added and its bin: a step's decodes all see the same gap, and its logarithm was a
  // third of a fleet's run.
  double last_ = -1;
  std::size_t last_bin_ = 0;
  void rebin(double seconds);  // last_ and last_bin_ to this gap's
};

}  // namespace roofline::serve
