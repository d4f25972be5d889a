// The expected time beside the bound (model/expected.hpp), worked by hand from the end-to-end
// coefficients alone: how a calibrated GPU is priced, and any operator outside the kernel classes
// (tests/model/test_kernel_classes.cpp prices the classes).
#include <catch2/catch.hpp>

#include <cmath>

#include "model/engine.hpp"
#include "specs.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

// The one-layer fit published before the kernel classes (0.856 of the bandwidth, 0.741 of the
// peak, 5.1 µs a launch), kept because its numbers were worked by hand.
ExpectedModel one_layer() {
  ExpectedModel m;
  m.kernels.reset();
  m.memory = 0.856;
  m.compute = 0.741;
  m.launch = Seconds(5.1 * 1e-6);
  m.step = Seconds(0);
  m.hop_latency = Seconds(0.673 * 1e-6);
  m.dequant_int8 = 0.674;
  m.dequant_int4 = 0.814;
  m.spread_memory = 0.144;
  m.spread_compute = 0.158;
  m.spread_overhead = 0.256;
  return m;
}
const ExpectedModel kFit = one_layer();

GpuSpec a100_one_layer() {
  GpuSpec g = test::a100_80gb();
  g.expected = kFit;
  return g;
}

double launches(const PhaseResult& p) {
  double n = 0;
  for (const OpResult& o : p.ops) n += o.cost.launches;
  return n;
}

}  // namespace

TEST_CASE("expected: a Llama-2-7B decode step is its bytes at 85.6%, its FLOPs at 74.1% and 387 launches") {
  const ModelSpec m = test::llama_2_7b();
  const GpuSpec g = a100_one_layer();
  const Report r = evaluate(m, g, test::default_workload(m));
  const PhaseResult& step = r.decode.step;
  // 32 layers × 12 operators (norm, Q, K, V, scores, values, O, norm, gate, up, activation, down),
  // plus the embedding, the final norm and the head: 387 kernels.
  CHECK(launches(step) == 387);
  const double memory = step.bytes.value() / (2039e9 * 0.856), compute = step.flops.value() / (312e12 * 0.741);
  const double expected = memory + compute + 387 * 5.1e-6;
  CHECK_THAT(step.expected.time.value(), WithinRel(expected, 1e-12));
  CHECK_THAT(step.expected.overhead.value(), WithinRel(387 * 5.1e-6, 1e-12));
  // Launches are 20% of it, compute 0.6%: memory-bound, spread 0.144 → × e^(±1.2816 · 0.144).
  CHECK(step.expected.regime == Regime::memory);
  const double factor = std::exp(1.2815515655446004 * 0.144);
  CHECK_THAT(step.expected.high.value(), WithinRel(expected * factor, 1e-12));
  CHECK_THAT(step.expected.low.value(), WithinRel(expected / factor, 1e-12));
  CHECK(step.expected.low > step.time);  // 8.15 ms against the bound's 6.65 ms
  CHECK_THAT(r.decode.expected_tokens_per_s, WithinRel(1 / expected, 1e-12));
}

TEST_CASE("expected: never below the bound, and the bound's keys unchanged") {
  const ModelSpec m = test::llama_2_7b();
  const GpuSpec g = a100_one_layer();
  for (const long batch : {1L, 16L, 256L, 4096L}) {
    const Report r = evaluate(m, g, test::default_workload(m, batch));
    for (const PhaseResult* p : {&r.prefill, &r.decode.step}) {
      CHECK(p->expected.low >= p->time);
      CHECK(p->expected.time >= p->expected.low);
      CHECK(p->expected.high >= p->expected.time);
    }
  }
}

TEST_CASE("expected: a tp-2 all-reduce pays 2 hop latencies, a tp-8 one 14, never less than the bound's one") {
  const ModelSpec m = test::llama_2_70b();
  GpuSpec g = a100_one_layer();
  for (const int tp : {2, 8}) {
    Workload w = test::default_workload(m);
    w.tp = tp;
    const Report r = evaluate(m, g, w);
    // Per call: 2(tp − 1) hops of 0.673 us and 2(tp − 1)/tp of the 8,192 × 2 B buffer at 300 GB/s;
    // the bound's call pays one 5 us latency and the same transfer. 2 × 80 layers' calls and the
    // embedding's one. Then the head's 32,000 logits × 2 B gathered: tp − 1 hops and (tp − 1)/tp of
    // 64,000 B, never less than the 5 us latency and that transfer (tp 2: 5.1067 us; tp 8: 7 × 0.673
    // = 4.711 us of hops < 5 us, so 5.1867 us). tp 2: 161 × 5.0546 + 5.1067 = 818.90 us; tp 8:
    // 161 × 9.5176 + 5.1867 = 1537.52 us.
    const double hops = 2.0 * (tp - 1), transfer = 8192 * 2.0 * hops / tp / 300e9;
    REQUIRE_THAT(kFit.hop_latency.value(), WithinRel(0.673e-6, 1e-12));
    const double per_call = std::max(hops * kFit.hop_latency.value() + transfer, 5e-6 + transfer);
    const double gather_transfer = 32000 * 2.0 * (tp - 1) / tp / 300e9;
    const double gather = std::max((tp - 1) * kFit.hop_latency.value() + gather_transfer, 5e-6 + gather_transfer);
    CHECK_THAT(r.decode.step.expected.comm.value(), WithinRel((2 * 80 + 1) * per_call + gather, 1e-9));
  }
}

TEST_CASE("expected: int4 weights under fp16 compute stream at 81.4% of the rate of plain ones") {
  const ModelSpec m = test::llama_2_7b();
  Workload w = test::default_workload(m);
  w.precision.set(TensorClass::attention, WeightFormat::int4);
  w.precision.set(TensorClass::dense_ffn, WeightFormat::int4);
  const Report r = evaluate(m, a100_one_layer(), w);
  double block_weights = 0;
  for (const OpResult& o : r.decode.step.ops) {
    if (o.cost.dequant == Dequant::int4) block_weights += o.cost.weight_bytes.value();
  }
  // 32 × (4 · 4096² + 3 · 4096 · 11008) weights at 0.5 + 2/128 bytes.
  CHECK_THAT(block_weights, WithinRel(32 * (4 * 4096.0 * 4096 + 3 * 4096.0 * 11008) * 0.515625, 1e-12));
  const double plain = block_weights / (2039e9 * 0.856);
  CHECK_THAT(r.decode.step.expected.dequant.value(), WithinRel(plain / 0.814 - plain, 1e-12));
}
