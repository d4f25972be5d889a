// Block-scaled fp8 GEMMs (hardware/kernel_classes.hpp Fp8BlockCoefficients), worked by hand: the
// class's formula, and the engine asking it for a checkpoint in DeepSeek-V3's format.
#include <catch2/catch.hpp>

#include "hardware/kernel_classes.hpp"
#include "priced_ops.hpp"

using namespace roofline;
using test::Priced;

namespace {
// 1 PFLOP/s at 16 bits, 2 at fp8, 3 TB/s of memory.
const KernelCeilings kGpu{1e15, 2e15, 3e12, 0};

KernelCoefficients coefficients(double overlap) {
  KernelCoefficients k;
  k.gemm = {0.8, 0.85, overlap, 3e-6};
  k.gemm_fp8_block = {0.5, 0.01, 2e-6, 0.4};
  return k;
}

KernelAsk ask(double m, double n, double k) {
  KernelAsk a{2 * m * n * k, m * k + k * n + 2 * m * n, m, 3 * m * k};
  a.width = n;
  return a;
}
}  // namespace

TEST_CASE("block-scaled fp8 GEMM: one tile's walk along K sets a matrix-vector product's time") {
  // M = 1, N = 128, K = 65536: one 64 × 128 tile. With p = 1 every part adds:
  //   whole tiles  2·64·128·65536 = 1,073,741,824 FLOP at 0.5 × 2 PFLOP/s      1.0737 us
  //   stream       65,536 + 8,388,608 + 256 = 8,454,400 B at 0.85 × 3 TB/s     3.3155 us
  //   the walk     the same tile's FLOPs at 0.01 × 2 PFLOP/s                  53.6871 us
  //   quantization 3·65,536 = 196,608 B at 0.4 × 3 TB/s                        0.1638 us
  //   fixed        3 us (launch) + 2 us (quantize)                             5 us
  const KernelCoefficients k = coefficients(1);
  const double expected = 1073741824 / 1e15 + 8454400 / 2.55e12 + 1073741824 / 2e13 + 196608 / 1.2e12 + 5e-6;
  CHECK(expected == Approx(63.2401e-6).epsilon(1e-5));
  CHECK(k.time(KernelClass::gemm_fp8_block, ask(1, 128, 65536), kGpu) == Approx(expected).epsilon(1e-12));
  // Large p takes the larger of the work and the walk: the walk, 53.69 us, plus the rest.
  const KernelCoefficients max = coefficients(20);
  const double walk = 1073741824 / 2e13 + 196608 / 1.2e12 + 5e-6;
  CHECK(max.time(KernelClass::gemm_fp8_block, ask(1, 128, 65536), kGpu) == Approx(walk).epsilon(1e-3));
}

TEST_CASE("block-scaled fp8 GEMM: rows and columns are padded to whole 64 x 128 tiles") {
  // M = 65, N = 130, K = 1024 computes on 128 × 256: 2·128·256·1024 = 67,108,864 FLOP (3.9× the
  // 17,305,600 asked), 67.11 ns at 1 PFLOP/s; bytes 66,560 + 133,120 + 16,900 = 216,580, 84.93 ns;
  // the walk 2·64·128·1024 = 16,777,216 FLOP at 20 TFLOP/s, 838.86 ns; quantization 3·65·1024 =
  // 199,680 B, 166.40 ns; 5 us fixed. 6.1573 us in all.
  const KernelCoefficients k = coefficients(1);
  const double expected = 67108864 / 1e15 + 216580 / 2.55e12 + 16777216 / 2e13 + 199680 / 1.2e12 + 5e-6;
  CHECK(expected == Approx(6.1573e-6).epsilon(1e-4));
  CHECK(k.time(KernelClass::gemm_fp8_block, ask(65, 130, 1024), kGpu) == Approx(expected).epsilon(1e-12));
  // One row more than a tile costs a second tile: M = 64 computes on 64 rows.
  const double at_64 = 2 * 64 * 256 * 1024 / 1e15 + (64 * 1024 + 1024 * 130 + 2 * 64 * 130) / 2.55e12 +
                       16777216 / 2e13 + 3 * 64 * 1024 / 1.2e12 + 5e-6;
  CHECK(k.time(KernelClass::gemm_fp8_block, ask(64, 130, 1024), kGpu) == Approx(at_64).epsilon(1e-12));
}

TEST_CASE("block-scaled fp8 GEMM: an ask without its shape is priced on its FLOPs and bytes, not its fixed time alone") {
  // M = 1, N = 128, K = 65536 as above, N not given: the arithmetic at 0.5 of the fp8 peak (16.78
  // ns: no padding, no walk), the stream (3.3155 us), the quantization (0.1638 us), 5 us fixed.
  const KernelCoefficients k = coefficients(1);
  KernelAsk a = ask(1, 128, 65536);
  a.width = 0;
  const double expected = 16777216 / 1e15 + 8454400 / 2.55e12 + 196608 / 1.2e12 + 5e-6;
  CHECK(expected == Approx(8.4961e-6).epsilon(1e-4));
  CHECK(k.time(KernelClass::gemm_fp8_block, a, kGpu) == Approx(expected).epsilon(1e-12));
}

TEST_CASE("block-scaled fp8 GEMM: the engine prices fp8-block weights computed in fp8 by the class, Q, K and V as one") {
  const test::ClassPriced s = test::llama_fp8_step(WeightFormat::fp8_block);
  const ExpectedModel& em = s.em;
  const PhaseResult& step = s.report.decode.step;
  const Priced p = s.decode();
  const OpCost& o = step.ops[p.at("o_proj")].cost;
  CHECK(o.kernel == KernelKind::linear_fp8_block);
  const KernelCoefficients& k = *em.kernels;
  const KernelCeilings c = test::kH100Ceilings;
  // o_proj: 8 × 4096 by 4096 × 4096, its activations quantized once (3·8·4096 B), 32 layers.
  KernelAsk a{o.flops.value() / 32, o.bytes.value() / 32, 8, 3 * 8 * 4096.0};
  a.width = 4096;
  CHECK(p.seconds("o_proj") == Approx(32 * (k.time(KernelClass::gemm_fp8_block, a, c) + em.gap.value())).epsilon(1e-9));
  // Q, K and V: one GEMM of N = 4096 + 1024 + 1024 = 6144 columns, its FLOPs and bytes the three's.
  const OpCost& q = step.ops[p.at("q_proj")].cost;
  const OpCost& kp = step.ops[p.at("k_proj")].cost;
  const OpCost& v = step.ops[p.at("v_proj")].cost;
  CHECK(kp.kernel == KernelKind::linear_fp8_block);
  CHECK(kp.fused);
  KernelAsk qkv{(q.flops + kp.flops + v.flops).value() / 32, (q.bytes + kp.bytes + v.bytes).value() / 32, 8,
                3 * 8 * 4096.0};
  qkv.width = 6144;
  CHECK(qkv.flops == Approx(2 * 8 * 4096.0 * 6144));
  const double group = p.seconds("q_proj") + p.seconds("k_proj") + p.seconds("v_proj");
  CHECK(group == Approx(32 * (k.time(KernelClass::gemm_fp8_block, qkv, c) + em.gap.value())).epsilon(1e-9));
  // Per-tensor fp8 weights stay the per-tensor class: the same step differs.
  const test::ClassPriced per_tensor = test::llama_fp8_step(WeightFormat::fp8);
  CHECK(per_tensor.report.decode.step.ops[p.at("o_proj")].cost.kernel == KernelKind::linear_fp8);
}
