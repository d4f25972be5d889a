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

// `remaining` picks added (step +1) or taken (−1) one GPU at a time, round after round, each time
// on the GPU's `valid` expert that `better` ranks first: the collector's
// `_round_robin_adjust_per_rank` (its torch.argmin and argmax take the first expert of equals).
template <class Valid, class Better>
void round_robin(std::vector<std::int64_t>& n, long ep, std::int64_t remaining, int step, Valid valid, Better better) {
  const auto local = static_cast<std::ptrdiff_t>(n.size()) / ep;
  while (remaining > 0) {
    bool progressed = false;
    for (long r = 0; r < ep && remaining > 0; ++r) {
      const auto first = n.begin() + r * local, last = first + local;
      auto chosen = last;
      for (auto e = first; e != last; ++e) {
        if (valid(*e) && (chosen == last || better(*e, *chosen))) chosen = e;
      }
      if (chosen == last) continue;
      *chosen += step;
      --remaining;
      progressed = true;
    }
    if (!progressed) return;
  }
}

// One draw: picks per expert, the generator's steps (collector/helper.py,
// `_generate_power_law_distribution`).
std::vector<std::int64_t> power_law_draw(std::mt19937_64& g, long tokens, long top_k, long experts, long ep, double alpha) {
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
  // A token picks an expert once: an expert's picks are capped at the tokens, the excess dealt
  // one a GPU to its quietest expert below the cap.
  std::int64_t overflow = 0;
  for (std::int64_t& v : n) overflow += std::max<std::int64_t>(0, v - tokens), v = std::min<std::int64_t>(v, tokens);
  const auto below_cap = [&](std::int64_t v) { return v < tokens; };
  const auto fewer = [](std::int64_t l, std::int64_t r) { return l < r; };
  const auto more = [](std::int64_t l, std::int64_t r) { return l > r; };
  round_robin(n, ep, overflow, 1, below_cap, fewer);
  // Rounding's shortfall goes the same way, one a GPU to its quietest expert (so that one token's
  // 22 picks of 512 experts on 32 GPUs land on 22 GPUs, one expert each: the tables' 107 µs at
  // 8192 × 5120 on an H100, about one expert's 168 MB); an excess comes off each GPU's busiest.
  const std::int64_t delta = static_cast<std::int64_t>(target) - std::accumulate(n.begin(), n.end(), std::int64_t{0});
  if (delta > 0) round_robin(n, ep, delta, 1, below_cap, fewer);
  if (delta < 0) round_robin(n, ep, -delta, -1, [](std::int64_t v) { return v > 0; }, more);
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
    const std::vector<std::int64_t> n = power_law_draw(g, tokens, top_k, experts, ep, alpha);
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
