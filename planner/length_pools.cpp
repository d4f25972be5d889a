#include "planner/length_pools.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string_view>

#include "planner/refusal.hpp"

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

std::array<PoolScenario, 2> pool_scenarios(const LengthSplit& split, const PercentileScenario& base,
                                           const LoadTarget& whole) {
  // A trace's stream is its own; without one the stream was drawn from the lengths' distributions.
  const bool drawn = !base.stream;
  const std::array<const LengthPool*, 2> shares{&split.short_pool, &split.long_pool};
  for (std::size_t i = 0; i < 2; ++i) {
    if (shares[i]->requests.size() < kLeastPoolRequests) {
      throw Refusal(fmt::format("--pools: the {} pool ({} {} tokens) gets {} of the {} requests {}, fewer than the "
                                "{} a percentile of its own needs; move the split",
                                i == 0 ? "short" : "long", i == 0 ? "prompts of at most" : "prompts over", split.split,
                                shares[i]->requests.size(),
                                split.short_pool.requests.size() + split.long_pool.requests.size(),
                                drawn ? "drawn" : "in the trace", kLeastPoolRequests));
    }
  }
  std::array<PoolScenario, 2> out;
  for (std::size_t i = 0; i < 2; ++i) {
    const LengthPool& pool = *shares[i];
    PoolScenario& p = out[i];
    p.pool = &pool;
    p.target = whole;
    p.target.requests_per_s = whole.requests_per_s * pool.share;
    p.prompt_tokens = std::max(1L, std::lround(pool.prompt_mean));
    p.gen_tokens = std::max(1L, std::lround(pool.gen_mean));
    PercentileScenario& s = p.scenario;
    s = base;
    // The pool's requests carry their lengths: nothing is drawn from the distributions again.
    s.prompt.reset();
    s.gen.reset();
    s.stream = std::make_shared<const std::vector<serve::Request>>(pool.requests);
    // A share too short for a check is the split's doing; its lengths are drawn, or the trace's
    // (--arrivals); the pools' table reports no cliff, so none is searched.
    s.stream_flag = "pools";
    s.stream_words = fmt::format("the {} pool's share of the stream", i == 0 ? "short" : "long");
    s.drawn = drawn;
    s.cliff = false;
    // The closed form reads the pool's own gaps: a share of a stream is burstier than a Poisson
    // stream at its rate when the stream is.
    s.arrivals = {serve::ArrivalProcess::Kind::gamma, gap_cv(pool.requests)};
  }
  return out;
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
