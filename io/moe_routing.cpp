#include "io/moe_routing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace roofline::io {

ExpertLoad balanced_load(long tokens, long top_k, long experts, long ep) {
  const long local = experts / ep, stride = (experts + top_k - 1) / top_k;
  std::vector<char> reached(static_cast<std::size_t>(local), 0);
  double rows = 0;
  if (tokens >= stride) {
    // Pick j of the tokens walks experts j·s, j·s + 1, … : n of them, whole cycles of E first.
    const long cycles = tokens / experts, rest = tokens % experts;
    for (long j = 0; j < top_k; ++j) {
      rows += static_cast<double>(cycles * local);
      if (cycles > 0) std::fill(reached.begin(), reached.end(), 1);
      for (long e = j * stride; e < j * stride + rest; ++e) {
        if (const long x = e % experts; x < local) rows += 1, reached[static_cast<std::size_t>(x)] = 1;
      }
    }
  } else {
    // Fewer tokens than the stride: spread over it, as the collector's float arithmetic does.
    for (long i = 0; i < tokens; ++i) {
      for (long j = 0; j < top_k; ++j) {
        const double v = std::fmod(static_cast<double>(i) * static_cast<double>(stride) / static_cast<double>(tokens) +
                                       static_cast<double>(j * stride),
                                   static_cast<double>(experts));
        if (const auto x = static_cast<long>(v); x < local) rows += 1, reached[static_cast<std::size_t>(x)] = 1;
      }
    }
  }
  return {rows, static_cast<double>(std::count(reached.begin(), reached.end(), 1))};
}

namespace {

// A uniform number in [0, 1) from 53 bits: the same on every standard library.
double uniform(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

// One draw: picks per expert, the generator's steps.
std::vector<std::int64_t> power_law_draw(std::mt19937_64& g, long tokens, long top_k, long experts, double alpha) {
  const bool many = tokens * top_k > experts;
  const double lo = many ? 1 : 0.01, hi = many ? static_cast<double>(tokens) * 0.8 : 2;
  const double a = 1 - alpha;
  std::vector<double> x(static_cast<std::size_t>(experts));
  // Inverse CDF of a power law on [lo, hi].
  for (double& v : x) v = std::pow((std::pow(hi, a) - std::pow(lo, a)) * uniform(g) + std::pow(lo, a), 1 / a);
  const double sum = std::accumulate(x.begin(), x.end(), 0.0), target = static_cast<double>(tokens * top_k);
  std::vector<std::int64_t> n(x.size());
  // torch.round: halves to even, as nearbyint does.
  for (std::size_t e = 0; e < x.size(); ++e) n[e] = static_cast<std::int64_t>(std::nearbyint(x[e] / sum * target));
  std::int64_t delta = static_cast<std::int64_t>(target) - std::accumulate(n.begin(), n.end(), std::int64_t{0});
  std::vector<std::size_t> order(n.size());
  std::iota(order.begin(), order.end(), 0);
  // Equal counts (most are 0 when n·top_k is below E) in no particular order: torch.argsort does
  // not keep them in index order, as the tables show. Taken in index order, one token's 22 picks
  // of 512 experts would all land on the first GPU of 32, 16 experts' weights; it took 107 µs on
  // an H100 at 8192 × 5120, about one expert's 168 MB, as the balanced deal's one pick did.
  for (std::size_t i = order.size() - 1; i > 0; --i) {
    std::swap(order[i], order[static_cast<std::size_t>(uniform(g) * static_cast<double>(i + 1))]);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t l, std::size_t r) { return n[l] > n[r]; });
  const auto size = static_cast<std::int64_t>(order.size());
  // Short: the busiest experts take one more each; over: the quietest give one back.
  for (std::int64_t i = 0; i < delta; ++i) ++n[order[static_cast<std::size_t>(i % size)]];
  for (std::int64_t i = 0; i < -delta; ++i) {
    std::int64_t& v = n[order[static_cast<std::size_t>(size - 1 - i % size)]];
    if (v > 0) --v;
    else --*std::max_element(n.begin(), n.end());
  }
  return n;
}

}  // namespace

ExpertLoad power_law_load(long tokens, long top_k, long experts, long ep, double alpha) {
  // Enough draws that the mean moves by well under 1% between seeds.
  constexpr int kDraws = 32;
  std::mt19937_64 g(0x6d6f65);
  const long local = experts / ep;
  ExpertLoad mean;
  for (int d = 0; d < kDraws; ++d) {
    const std::vector<std::int64_t> n = power_law_draw(g, tokens, top_k, experts, alpha);
    // The rank with the most picks (the first of equals) is the one timed.
    double best = -1, reached = 0;
    for (long r = 0; r < ep; ++r) {
      const auto first = n.begin() + r * local, last = first + local;
      const auto rows = static_cast<double>(std::accumulate(first, last, std::int64_t{0}));
      if (rows > best) best = rows, reached = static_cast<double>(std::count_if(first, last, [](auto v) { return v > 0; }));
    }
    mean.rows += best / kDraws;
    mean.experts += reached / kDraws;
  }
  return mean;
}

}  // namespace roofline::io
