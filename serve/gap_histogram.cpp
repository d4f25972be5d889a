#include "serve/gap_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::serve {

namespace {
constexpr double kLowest = 1e-6;
constexpr int kBins = GapHistogram::kPerDecade * GapHistogram::kDecades;
}  // namespace

void GapHistogram::rebin(double seconds) {
  last_ = seconds;
  const double at = std::log10(seconds / kLowest) * kPerDecade;
  last_bin_ = !(seconds >= kLowest) ? 0 : !(at < kBins) ? bins_.size() - 1 : 1 + static_cast<std::size_t>(at);
}

void GapHistogram::merge(const GapHistogram& o) {
  if (o.count_ == 0) return;
  least_ = count_ == 0 ? o.least_ : std::min(least_, o.least_);
  most_ = count_ == 0 ? o.most_ : std::max(most_, o.most_);
  count_ += o.count_;
  sum_ += o.sum_;
  for (std::size_t i = 0; i < bins_.size(); ++i) bins_[i] += o.bins_[i];
}

double GapHistogram::percentile(double p) const {
  if (count_ == 0) return 0;
  // The gap of rank ceil(p/100 · n) (at least the first), as a count of bins reaches it.
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p / 100 * static_cast<double>(count_))));
  std::size_t seen = 0;
  for (std::size_t i = 0; i < bins_.size(); ++i) {
    seen += bins_[i];
    if (seen < rank) continue;
    if (i == 0) return least_;
    if (i == bins_.size() - 1) return most_;
    // The bin's middle, held within the gaps added: a bin holding the least or the greatest gap
    // would otherwise name a gap below every one (or above every one) the run had.
    const double middle = kLowest * std::pow(10.0, (static_cast<double>(i - 1) + 0.5) / kPerDecade);
    return std::clamp(middle, least_, most_);
  }
  return most_;
}

}  // namespace roofline::serve
