#include "hardware/overlap_norm.hpp"

#include <cmath>
#include <memory>
#include <numbers>

namespace roofline {

namespace {

constexpr int kNodes = OverlapNorm::kDegree + 1;

// The matrix that takes a function's values at the Chebyshev nodes of [−1, 1] to its
// interpolant's coefficients in x, in long double: the monomials' coefficients are sums of terms
// up to 32 times larger (T6's), which in double cost the norm some 25 ulp.
struct Interpolation {
  std::array<double, kNodes> nodes{};
  std::array<std::array<long double, kNodes>, kNodes> to_monomial{};

  Interpolation() {
    const long double pi = std::numbers::pi_v<long double>;
    std::array<std::array<long double, kNodes>, kNodes> chebyshev{};  // T_j's coefficients
    chebyshev[0][0] = 1;
    chebyshev[1][1] = 1;
    for (int j = 2; j < kNodes; ++j) {
      for (int k = 0; k < kNodes; ++k) chebyshev[j][k] = (k > 0 ? 2 * chebyshev[j - 1][k - 1] : 0) - chebyshev[j - 2][k];
    }
    for (int k = 0; k < kNodes; ++k) nodes[k] = static_cast<double>(std::cos(pi * (k + 0.5L) / kNodes));
    for (int m = 0; m < kNodes; ++m) {
      for (int k = 0; k < kNodes; ++k) {
        long double sum = 0;
        for (int j = 0; j < kNodes; ++j) {
          const long double weight = std::cos(pi * j * (k + 0.5L) / kNodes) * 2 / kNodes / (j == 0 ? 2 : 1);
          sum += chebyshev[j][m] * weight;
        }
        to_monomial[m][k] = sum;
      }
    }
  }
};

// f's interpolant on [lo, hi] at its Chebyshev nodes, as a polynomial in x of [−1, 1].
template <class F>
std::array<double, kNodes> interpolate(F f, double lo, double hi) {
  static const Interpolation in;
  std::array<double, kNodes> values{}, out{};
  for (int k = 0; k < kNodes; ++k) values[k] = f(lo + (hi - lo) * (in.nodes[k] + 1) / 2);
  for (int m = 0; m < kNodes; ++m) {
    long double sum = 0;
    for (int k = 0; k < kNodes; ++k) sum += in.to_monomial[m][k] * values[k];
    out[m] = static_cast<double>(sum);
  }
  return out;
}

// p · log r for r ≤ 1 stays finite: p is at most 100 (io/gpu_schema.cpp).
double exact_norm(double big, double small, double p) {
  const double rp = std::exp(p * std::log(small / big));
  return big * std::exp(std::log(1 + rp) / p);
}

}  // namespace

OverlapNorm::OverlapNorm(double p) : p_(p) {
  for (int e = 0; e < kExponents; ++e) pow2_[e] = std::exp2(-e * p);
  for (int i = 0; i < kPieces; ++i) {
    const double lo = static_cast<double>(i) / kPieces, hi = static_cast<double>(i + 1) / kPieces;
    power_[i] = interpolate([p](double mu) { return std::pow(mu, p); }, 1 + lo, 1 + hi);
    root_[i] = interpolate([p](double s) { return std::pow(1 + s, 1 / p); }, lo, hi);
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
