#include "calibrate/cpu/fma_chains.hpp"

#include <cmath>

namespace roofline::calibrate {

namespace {
// 128 floats: 16 AVX2 registers or 8 AVX-512 registers of independent chains; FMA latency (4
// cycles) × 2 ports needs at least 8 in flight.
constexpr int kLanes = 128;
}  // namespace

// Clones chosen by CPU features (not model names, which miss AMD parts): AVX-512, FMA3, plain.
__attribute__((target_clones("avx512f", "fma", "default"))) float fma_chains(long iterations) {
  float x[kLanes];
  for (int i = 0; i < kLanes; ++i) x[i] = 1.0F + static_cast<float>(i) / kLanes;
  const float m = 0.999F;
  const float a = 0.001F;  // fixed point a / (1 − m) = 1
  for (long it = 0; it < iterations; ++it) {
    for (int i = 0; i < kLanes; ++i) x[i] = std::fma(x[i], m, a);
  }
  float worst = x[0];
  for (int i = 1; i < kLanes; ++i) {
    if (std::fabs(x[i] - 1.0F) > std::fabs(worst - 1.0F)) worst = x[i];
  }
  return worst;
}

double fma_chains_flops(long iterations) { return 2.0 * kLanes * static_cast<double>(iterations); }

}  // namespace roofline::calibrate
