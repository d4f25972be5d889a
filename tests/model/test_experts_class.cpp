// The grouped-expert kernel class (hardware/moe_kernel.hpp), worked by hand, and the engine pricing
// a MoE model's routed experts by it: gate/up, the activation and down as one fused MoE a layer.
#include <catch2/catch.hpp>

#include <cmath>
#include <string_view>
#include <vector>

#include "hardware/kernel_classes.hpp"
#include "model/engine.hpp"
#include "model/expected.hpp"
#include "priced_ops.hpp"
#include "specs.hpp"

using namespace roofline;

namespace {

// H100 SXM's datasheet: 989 TFLOP/s bf16, 1979 fp8, 3.35 TB/s.
const KernelCeilings kH100{989e12, 1979e12, 3.35e12, 450e9};

KernelCoefficients coefficients() {
  KernelCoefficients k;
  // Full tiles on wide experts reach the dense GEMM classes' shares.
  k.gemm.compute = 0.8;
  k.gemm_fp8.compute = 0.7;
  k.experts = {.memory = 0.85, .overlap = 2.0, .tile = 32, .width = 1024, .launch = 20e-6};
  k.experts_fp8 = {.width = 2048};
  return k;
}

}  // namespace

TEST_CASE("experts class: one token of Mixtral-8x7B is two experts' weights and the fixed cost") {
  // aiconfigurator's h100_sxm_moe.csv: bfloat16, 1 token, hidden 4096, inter 14336, top-2 of 8,
  // tp 1, ep 1, balanced: 261.5 µs measured. Two picks reach two experts.
  const double rows = 2, experts = 2, h = 4096, i = 14336;
  const double flops = 6 * rows * h * i;         // gate, up and down: 704,643,072 FLOP
  const double weights = experts * 3 * h * i * 2;  // 704,643,072 B
  const double activations = rows * (3 * h + 6 * i) * 2;  // 393,216 B
  CHECK(flops == 704643072);
  CHECK(weights == 704643072);
  CHECK(activations == 393216);
  KernelAsk a{flops, weights + activations, rows};
  a.stream_bytes = weights;
  a.experts = experts;
  a.width = i;
  // The GEMMs pad each expert's 1 row by half a tile of 32: 17 rows' worth; 14336 columns reach
  // 14336 / (14336 + 1024) of the 0.8 share: 16.222 µs. The weights stream at 0.85 × 3.35 TB/s:
  // 247.460 µs; with p = 2 the stream hides all but 0.531 µs of the arithmetic. The activations'
  // passes 0.138 µs, and 20 µs fixed.
  const double c = flops * 17 / (0.8 * 989e12) * (i + 1024) / i, m = weights / (0.85 * 3.35e12);
  CHECK(c == Approx(16.222e-6).epsilon(1e-4));
  CHECK(m == Approx(247.460e-6).epsilon(1e-4));
  const double expected = std::sqrt(c * c + m * m) + activations / (0.85 * 3.35e12) + 20e-6;
  CHECK(expected == Approx(268.129e-6).epsilon(1e-4));
  const KernelCoefficients k = coefficients();
  CHECK(k.time(KernelClass::experts, a, kH100) == Approx(expected).epsilon(1e-12));
  // In fp8 the weights are one byte and the arithmetic runs on the fp8 peak at its own share,
  // narrowed by its own width: (14336 + 2048) / 14336 = 8/7 of the full-tile time, 9.882 µs.
  a.stream_bytes = weights / 2;
  a.bytes = weights / 2 + activations;
  const double c8 = flops * 17 / (0.7 * 1979e12) * 8 / 7, m8 = weights / 2 / (0.85 * 3.35e12);
  CHECK(c8 == Approx(9.882e-6).epsilon(1e-4));
  CHECK(k.time(KernelClass::experts_fp8, a, kH100) ==
        Approx(std::sqrt(c8 * c8 + m8 * m8) + activations / (0.85 * 3.35e12) + 20e-6).epsilon(1e-12));
}

TEST_CASE("experts class: a narrow expert's GEMMs reach width over width plus the half-width of their share") {
  // Qwen3-30B-A3B's experts, split 3 ways: 256 columns each at a half-width of 512 reach
  // 256 / (256 + 512) = 1/3 of the full-tile share, so their arithmetic takes 3 times as long.
  // 4096 tokens' top-8 of 128 on one GPU, balanced: 32768 picks, 256 a reached expert; hidden 2048.
  KernelCoefficients k = coefficients();
  k.experts.width = 512;
  const double rows = 32768, experts = 128, h = 2048, w = 256;
  KernelAsk a{6 * rows * h * w, experts * 3 * h * w * 2 + rows * (3 * h + 6 * w) * 2, rows};
  a.stream_bytes = experts * 3 * h * w * 2;
  a.experts = experts;
  KernelAsk wide = a;
  a.width = w;
  // Padded by 128 × 16 rows over 32768: 1.0625. 103.08 GFLOP at 0.8 of the peak: 138.42 µs,
  // narrowed to 415.27 µs; the weights (128 × 3 × 2048 × 256 × 2 = 402,653,184 B) stream in
  // 141.41 µs, the activations (0.503 GB) in 176.76 µs; p = 2.
  const double c = 6 * rows * h * w * 1.0625 / (0.8 * 989e12), m = a.stream_bytes / (0.85 * 3.35e12);
  const double pass = rows * (3 * h + 6 * w) * 2 / (0.85 * 3.35e12);
  CHECK(c == Approx(138.42e-6).epsilon(1e-4));
  CHECK(3 * c == Approx(415.27e-6).epsilon(1e-4));
  CHECK(m == Approx(141.41e-6).epsilon(1e-4));
  CHECK(k.time(KernelClass::experts, a, kH100) == Approx(std::hypot(3 * c, m) + pass + 20e-6).epsilon(1e-12));
  // Without a width (an ask that names none) no narrowness is charged.
  CHECK(k.time(KernelClass::experts, wide, kH100) == Approx(std::hypot(c, m) + pass + 20e-6).epsilon(1e-12));
}

using test::Priced;

TEST_CASE("experts class: a Mixtral-8x7B decode step prices its routed experts as one fused MoE a layer") {
  const ModelSpec m = test::mixtral_8x7b();
  GpuSpec g = test::h100_sxm();
  ExpectedModel em;
  em.kernels = coefficients();
  g.expected = em;
  const Report r = evaluate(m, g, test::default_workload(m, 4));
  const PhaseResult& step = r.decode.step;
  const Priced p{step, expected_op_times(step, em, r.gpu.ceilings)};
  const OpCost& gate = step.ops[p.at("expert_gate")].cost;
  const OpCost& up = step.ops[p.at("expert_up")].cost;
  const OpCost& act = step.ops[p.at("expert_act")].cost;
  const OpCost& down = step.ops[p.at("expert_down")].cost;
  for (const OpCost* o : {&gate, &up, &act, &down}) CHECK(o->kernel == KernelKind::experts);
  CHECK_FALSE(gate.fused);
  CHECK(up.fused);
  CHECK(act.fused);
  CHECK(down.fused);
  // The router is a GEMM of its own, before the fused MoE.
  CHECK(step.ops[p.at("moe_router")].cost.kernel == KernelKind::linear);
  // Batch 4, top-2 of 8, the engine's default routing (uniform): 8 picks a layer reaching
  // 8·(1 − (6/8)^4) = 5.46875 experts.
  CHECK(gate.shape.rows == 8);
  CHECK(gate.shape.count / 32 == Approx(5.46875).epsilon(1e-12));
  const double h = 4096, i = 14336, rows = 8, experts = 5.46875;
  const double flops = 6 * rows * h * i, weights = experts * 3 * h * i * 2, activations = rows * (3 * h + 6 * i) * 2;
  CHECK((gate.flops + up.flops + act.flops + down.flops).value() / 32 ==
        Approx(flops + 8 * 5 * i /* the activation's 5 FLOPs an element */).epsilon(1e-12));
  CHECK((gate.weight_bytes + up.weight_bytes + down.weight_bytes).value() / 32 == Approx(weights).epsilon(1e-12));
  CHECK((gate.bytes + up.bytes + act.bytes + down.bytes).value() / 32 == Approx(weights + activations).epsilon(1e-12));
  // By hand: the GEMMs' 2.8186 GFLOP padded by 5.46875 × 16 rows over 8 (11.9375×), at 0.8 of
  // the peak narrowed by 14336 / (14336 + 1024): 45.573 µs; 1.92676 GB of weights at 0.85 ×
  // 3.35 TB/s, 676.65 µs; with p = 2, 678.18 µs; the activations' 1.573 MB, 0.552 µs; 20 µs
  // fixed: 698.73 µs a layer. The engine hands the class the gate's columns as the width.
  const double c = (flops + 8 * 5 * i) * 11.9375 / (0.8 * 989e12) * (i + 1024) / i, s = weights / (0.85 * 3.35e12);
  const double one = std::sqrt(c * c + s * s) + activations / (0.85 * 3.35e12) + 20e-6;
  CHECK(one == Approx(698.73e-6).epsilon(1e-4));
  const double group =
      p.seconds("expert_gate") + p.seconds("expert_up") + p.seconds("expert_act") + p.seconds("expert_down");
  // One fused MoE a layer, with the engine's gap between kernels once.
  CHECK(group == Approx(32 * (one + em.gap.value())).epsilon(1e-9));
}

TEST_CASE("experts class: fp8 experts are the fp8 class, block-scaled and 4-bit ones keep the end-to-end pricing") {
  const ModelSpec m = test::mixtral_8x7b();
  GpuSpec g = test::h100_sxm();
  g.expected = ExpectedModel{};
  auto kind = [&](WeightFormat f, DType compute) {
    Workload w = test::default_workload(m, 8);
    w.precision.weights.fill(f);
    w.precision.compute = compute;
    const Report r = evaluate(m, g, w);
    for (const OpResult& o : r.decode.step.ops) {
      if (o.cost.name == "expert_down") return o.cost.kernel;
    }
    FAIL("no expert_down");
    return KernelKind::other;
  };
  CHECK(kind(WeightFormat::fp8, DType::fp8) == KernelKind::experts_fp8);
  CHECK(kind(WeightFormat::fp8_channel, DType::fp8) == KernelKind::experts_fp8);
  CHECK(kind(WeightFormat::fp8_block, DType::fp8) == KernelKind::other);
  CHECK(kind(WeightFormat::mxfp4, DType::bf16) == KernelKind::other);
  CHECK(kind(WeightFormat::fp8, DType::bf16) == KernelKind::other);  // weight-only fp8: unpacked
}
