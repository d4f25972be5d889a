#include "hardware/overlap_norm.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <numbers>

namespace roofline {

namespace {

// x^q on the piece of half-width `half` about `middle`, as a polynomial in y of [−1, 1]:
// (middle · (1 + half·y/middle))^q = middle^q · Σ binom(q, k) (half/middle)^k y^k. Past degree 7
// the terms are below 2^−60 of the first (|binom(q, 8)| < 0.05 for q ≤ 4, (1/128)^8 = 2^−56).
std::array<double, OverlapNorm::kDegree + 1> taylor(double middle, double q, double half) {
  std::array<double, OverlapNorm::kDegree + 1> a{};
  double term = std::exp(q * std::log(middle));
  const double ratio = half / middle;
  for (int k = 0; k <= OverlapNorm::kDegree; ++k) {
    a[k] = term;
    term = term * (q - k) / (k + 1) * ratio;
  }
  return a;
}

// p · log r for r ≤ 1 stays finite: p is at most 100 (io/gpu_schema.cpp).
double exact_norm(double big, double small, double p) {
  const double rp = std::exp(p * std::log(small / big));
  return big * std::exp(std::log(1 + rp) / p);
}

}  // namespace

OverlapNorm::OverlapNorm(double p) {
  // 2^(−e·p) through exp: its argument's rounding, at most 166 · 2^−53, reaches the norm scaled by
  // r^p/(p·(1 + r^p)), which halves with each binade past the first.
  for (int e = 0; e < kExponents; ++e) pow2_[e] = std::exp(-(e * p) * std::numbers::ln2);
  const double half = 0.5 / kPieces;
  for (int i = 0; i < kPieces; ++i) {
    const double middle = (2 * i + 1) * half;
    power_[i] = taylor(1 + middle, p, half);
    root_[i] = taylor(1 + middle, 1 / p, half);
  }
}

double overlap_norm(double c, double m, double p) {
  const double big = std::max(c, m), small = std::min(c, m);
  if (big <= 0) return 0;
  if (small <= 0) return big;
  if (!OverlapNorm::tabulated(p) || !(big <= std::numeric_limits<double>::max())) return exact_norm(big, small, p);
  // Each thread keeps the norms of the p it has met, in an open-addressed table keyed on p: an
  // evaluation meets three or four (the GEMM's, decode attention's two, the experts'), a sweep
  // over every preset GPU some fifteen, a fit one a trial. Full, it starts again.
  struct Kept {
    std::array<double, 64> p{};  // 0: an empty slot (p ≥ 1 here)
    std::array<std::unique_ptr<const OverlapNorm>, 64> norms;
    std::size_t held = 0;
  };
  thread_local Kept kept;
  const std::size_t slots = kept.p.size();
  std::uint64_t bits;
  std::memcpy(&bits, &p, sizeof bits);
  std::size_t at = (bits * 0x9E37'79B9'7F4A'7C15ull) >> 58;  // Fibonacci hashing: the top 6 bits
  while (kept.p[at] != p && kept.p[at] != 0) at = (at + 1) % slots;
  if (kept.p[at] == 0) {
    if (kept.held == slots / 2) {
      kept.p.fill(0);
      kept.held = 0;
      at = (bits * 0x9E37'79B9'7F4A'7C15ull) >> 58;
    }
    kept.norms[at] = std::make_unique<const OverlapNorm>(p);
    kept.p[at] = p;
    ++kept.held;
  }
  return (*kept.norms[at])(big, small);
}

}  // namespace roofline
