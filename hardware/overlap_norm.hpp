#pragma once
// (c^p + m^p)^(1/p): how much of the shorter of two times a kernel hides under the longer.
// p = 1 adds them, p → ∞ is the roofline's max. Every kernel class overlaps its parts so, some
// fifteen times an evaluation, so the norm is priced here for speed as well as for accuracy.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

namespace roofline {

[[nodiscard]] double overlap_norm(double c, double m, double p);

// The norm for one p in [1, 4] (the fitted ones are 1.04 to 2.3) without glibc's `exp` and `log`:
// with r = small/big = 2^e · μ (μ in [1, 2)), r^p = 2^(e·p) · μ^p, the first from a table of
// exponents and the second from a degree-7 polynomial on one of 64 pieces of μ; then
// (1 + r^p)^(1/p) from another on one of 64 pieces of r^p in [0, 1]. Each polynomial is the
// function's Taylor series about its piece's middle, built from `exp` and `log` and the four
// operations alone: the browser page's WebAssembly (musl's `exp` and `log` are ARM's optimized
// routines, as glibc's are) builds the same bits as the binary for every preset's p, which its
// test holds character for character. Not for every p: on a CPU with FMA glibc runs FMA builds of
// them, which round some arguments otherwise (p = 2.5: 16 norms in 100,000 a last bit apart; the
// four calls a norm before: 23). Within 2.4 ulp of the exact norm (glibc's chain: 1.5), in half
// its time (docs/development.md has the measurements). Built in some 6 µs; overlap_norm keeps
// each thread's.
class OverlapNorm {
 public:
  static constexpr int kBits = 6, kPieces = 1 << kBits, kDegree = 7;
  // Past 2^−60, r^p/p vanishes beside 1 at double precision (p ≥ 1).
  static constexpr int kExponents = 61;

  explicit OverlapNorm(double p);

  // Whether p has tables (outside [1, 4] the norm takes glibc's exp and log).
  [[nodiscard]] static bool tabulated(double p) { return p >= 1 && p <= 4; }

  // The norm of big ≥ small > 0, big finite.
  [[nodiscard]] double operator()(double big, double small) const {
    const double r = small / big;
    std::uint64_t bits;  // std::bit_cast's work (emscripten's libc++ has none)
    std::memcpy(&bits, &r, sizeof bits);
    const int exponent = static_cast<int>(bits >> 52) - 1023;  // r ≤ 1: exponent ≤ 0
    if (exponent <= -kExponents) return big;
    const auto piece = static_cast<unsigned>(bits >> (52 - kBits)) & (kPieces - 1);
    const std::uint64_t mantissa_bits = (bits & kMantissa) | kOne;
    double mantissa;
    std::memcpy(&mantissa, &mantissa_bits, sizeof mantissa);
    const double rp = pow2_[static_cast<unsigned>(-exponent)] * poly(power_[piece], (mantissa - 1) * (2 * kPieces) - (2 * piece + 1));
    const auto at = std::min(static_cast<unsigned>(rp * kPieces), static_cast<unsigned>(kPieces - 1));
    return big * poly(root_[at], rp * (2 * kPieces) - (2 * at + 1));
  }

 private:
  using Coefficients = std::array<double, kDegree + 1>;
  static constexpr std::uint64_t kMantissa = 0x000F'FFFF'FFFF'FFFFull, kOne = 0x3FF0'0000'0000'0000ull;
  // Estrin's scheme: short chains side by side where Horner's is one long one (no FMA on x86-64's
  // baseline), in the same order everywhere.
  static double poly(const Coefficients& a, double x) {
    const double x2 = x * x, x4 = x2 * x2;
    return ((a[0] + a[1] * x) + x2 * (a[2] + a[3] * x)) + x4 * ((a[4] + a[5] * x) + x2 * (a[6] + a[7] * x));
  }
  std::array<double, kExponents> pow2_{};        // 2^(−e·p)
  std::array<Coefficients, kPieces> power_{};    // μ^p on [1 + i/64, 1 + (i+1)/64], in x of [−1, 1]
  std::array<Coefficients, kPieces> root_{};     // (1 + s)^(1/p) on [i/64, (i+1)/64], in x of [−1, 1]
};

}  // namespace roofline
