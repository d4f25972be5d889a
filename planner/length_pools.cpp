#include "planner/length_pools.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::planner {

namespace {
void finish(LengthPool& p, std::size_t total) {
  double prompt = 0, gen = 0;
  for (const serve::Request& r : p.requests) {
    prompt += static_cast<double>(r.prompt);
    gen += static_cast<double>(r.gen);
  }
  const auto n = static_cast<double>(p.requests.size());
  p.share = total > 0 ? n / static_cast<double>(total) : 0;
  p.prompt_mean = n > 0 ? prompt / n : 0;
  p.gen_mean = n > 0 ? gen / n : 0;
}
}  // namespace

LengthSplit split_by_prompt(const std::vector<serve::Request>& stream, long split) {
  LengthSplit s;
  s.split = split;
  for (const serve::Request& r : stream) (r.prompt <= split ? s.short_pool : s.long_pool).requests.push_back(r);
  finish(s.short_pool, stream.size());
  finish(s.long_pool, stream.size());
  return s;
}

double gap_cv(const std::vector<serve::Request>& stream) {
  if (stream.size() < 3) return 0;
  double sum = 0, squares = 0;
  for (std::size_t i = 1; i < stream.size(); ++i) {
    const double gap = stream[i].arrival - stream[i - 1].arrival;
    sum += gap;
    squares += gap * gap;
  }
  const auto n = static_cast<double>(stream.size() - 1);
  const double mean = sum / n;
  if (!(mean > 0)) return 0;
  const double variance = std::max(0.0, squares / n - mean * mean);
  return std::sqrt(variance) / mean;
}

std::optional<double> combined_per_million(std::optional<double> short_figure, double short_tokens_per_s,
                                           std::optional<double> long_figure, double long_tokens_per_s) {
  if (!short_figure || !long_figure) return std::nullopt;
  const double total = short_tokens_per_s + long_tokens_per_s;
  return (*short_figure * short_tokens_per_s + *long_figure * long_tokens_per_s) / total;
}

}  // namespace roofline::planner
