// The kernel classes' formulas (hardware/kernel_classes.hpp), worked by hand.
#include <catch2/catch.hpp>

#include "hardware/kernel_classes.hpp"

using namespace roofline;

namespace {
// 1 PFLOP/s at 16 bits, 2 at fp8, 3 TB/s of memory, 450 GB/s of link.
const KernelCeilings kGpu{1e15, 2e15, 3e12, 450e9};
}  // namespace

TEST_CASE("kernel classes: a matrix-vector GEMM is its weight stream and a launch") {
  KernelCoefficients k;
  k.gemm = {0.8, 0.85, 4.0, 3e-6};
  // 1 × 4096 by 4096 × 4096 in bf16: 33,554,432 FLOPs, 2·(4096 + 16,777,216 + 4096) = 33,570,816 B.
  const KernelAsk a{33554432, 33570816, 1};
  const double c = 33554432 / (0.8 * 1e15), m = 33570816 / (0.85 * 3e12);  // 41.9 ns, 13.165 µs
  CHECK(c == Approx(41.943e-9).epsilon(1e-4));
  CHECK(m == Approx(13.165e-6).epsilon(1e-4));
  // (c⁴ + m⁴)^(1/4): the stream hides the arithmetic (c/m = 0.0032, to the 4th: 1e-10).
  CHECK(k.time(KernelClass::gemm, a, kGpu) == Approx(13.165e-6 + 3e-6).epsilon(1e-4));
  // p = 1 adds them.
  k.gemm.overlap = 1;
  CHECK(k.time(KernelClass::gemm, a, kGpu) == Approx(c + m + 3e-6).epsilon(1e-12));
}

TEST_CASE("kernel classes: an fp8 GEMM adds the activation-scale kernels") {
  KernelCoefficients k;
  k.gemm = {0.8, 0.85, 1.0, 3e-6};
  k.gemm_fp8 = {0.6, 7e-6};
  // m = 4096, n = k = 8192: 549.8 GFLOP on 0.6 × 2 PFLOP/s = 458.1 µs; bytes 4096·8192 + 8192²
  // + 2·4096·8192 = 167.8 MB at 0.85 × 3 TB/s = 65.8 µs; the scale kernels' 5·4096·8192 B, 65.8 µs
  // more; 3 + 7 µs fixed.
  const double m = 4096, n = 8192, kk = 8192;
  const KernelAsk a{2 * m * n * kk, m * kk + kk * n + 2 * m * n, m, 5 * m * kk};
  const double expected = 2 * m * n * kk / (0.6 * 2e15) + (m * kk + kk * n + 2 * m * n) / (0.85 * 3e12) + 3e-6 + 7e-6 +
                          5 * m * kk / (0.85 * 3e12);
  CHECK(expected == Approx(458.1e-6 + 65.8e-6 + 10e-6 + 65.8e-6).epsilon(1e-3));
  CHECK(k.time(KernelClass::gemm_fp8, a, kGpu) == Approx(expected).epsilon(1e-12));
}

TEST_CASE("kernel classes: an all-reduce is a latency and 2(k-1)/k of the message at the bus share") {
  KernelCoefficients k;
  k.all_reduce = {3e-6, 0.6};
  // 8 GPUs, 1 MB: 1.75 MB through a link of 0.6 × 450 GB/s = 6.481 µs, and 3 µs.
  KernelAsk a;
  a.bytes = 1e6;
  a.gpus = 8;
  CHECK(k.time(KernelClass::all_reduce, a, kGpu) == Approx(3e-6 + 6.4815e-6).epsilon(1e-4));
}

TEST_CASE("kernel classes: a decode attention's floor and KV stream") {
  KernelCoefficients k;
  k.decode_attention = {0.9, 12e-6, 1.0};
  k.gemm.overlap = 1;
  // 1 GB of KV at 0.9 × 3 TB/s = 370.4 µs; 1 GFLOP at the whole peak, 1 µs.
  const KernelAsk a{1e9, 1e9, 1};
  CHECK(k.time(KernelClass::decode_attention, a, kGpu) == Approx(12e-6 + 370.37e-6 + 1e-6).epsilon(1e-4));
}
