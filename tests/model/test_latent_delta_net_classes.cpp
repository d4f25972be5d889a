// The latent-attention and Gated DeltaNet kernel classes (hardware/kernel_classes.hpp), worked by
// hand on rows of aiconfigurator's tables, and the engine pricing DeepSeek-V3's latent attention
// by them where the tables measured its shapes.
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
}  // namespace

TEST_CASE("latent classes: an MLA decode of 256 sequences at 16k tokens by hand") {
  // H100's row (io/kernel_table.cpp): 1.1709e12 FLOPs, 4,903,141,376 B, 32,768 (sequence, head) pairs.
  KernelCoefficients k;
  k.latent_decode = {0.8, 10e-6, 0.6, 0.003e-6};
  k.gemm.overlap = 2;
  KernelAsk a{256.0 * 128 * 16384 * 2181, 4903141376.0, 1};
  a.heads = 256 * 128;
  // Compute 1.1709e12 / (0.6 · 989e12) = 1.9732 ms; the stream 4.9031e9 / (0.8 · 3.35e12) = 1.8295 ms;
  // at p = 2, √(c² + m²) = 2.6909 ms; the floor 10 µs and 32,768 × 0.003 µs = 98.3 µs: 2.7992 ms
  // (measured: 1,862 µs; the fit moves these coefficients, not the formula).
  CHECK(k.time(KernelClass::latent_decode, a, kH100) == Approx(2.7991818e-3).epsilon(1e-6));
  // Over an fp8 cache the latents stream in half the bytes (2,487,222,272 B: 0.9281 ms) but each of
  // the 256·16384·576 = 2,415,919,104 cached elements is converted on the CUDA cores at 0.005 of
  // the peak: 0.4886 ms more arithmetic, 2.4618 ms; √(c² + m²) = 2.6309 ms; with the floor and the
  // heads 2.7392 ms. (The stream alone would have made it 2.18 ms: on H200's wider memory the
  // conversion is what sets an fp8 cache's pace.)
  k.latent_decode.convert = 0.005;
  a.bytes = 2487222272.0, a.kv_bytes = 1, a.converted = 256.0 * 16384 * 576;
  CHECK(k.time(KernelClass::latent_decode, a, kH100) == Approx(2.7392196e-3).epsilon(1e-6));
}

TEST_CASE("latent classes: a Gated DeltaNet decode of 1,024 sequences by hand") {
  // Qwen3.5-9B's shape on H100 (the fit reader's sample): 4,311,744,512 FLOPs, 2,206,355,584 B.
  KernelCoefficients k;
  k.delta_net_decode = {0.05, 0.6, 8e-6, 0.01e-6};
  k.gemm.overlap = 2;
  KernelAsk a{4311744512.0, 2206355584.0, 1};
  a.sequences = 1024;
  // Compute 4.3117e9 / (0.05 · 989e12) = 87.19 µs; the states 2.2064e9 / (0.6 · 3.35e12) = 1,097.7 µs;
  // √(c² + m²) = 1,101.1 µs; 8 µs a layer and 1,024 × 0.01 µs: 1,119.4 µs (measured 1,111 µs).
  CHECK(k.time(KernelClass::delta_net_decode, a, kH100) == Approx(1119.387e-6).epsilon(1e-6));
  const KernelCoefficients::Split s = k.split(KernelClass::delta_net_decode, a, kH100);
  CHECK(s.fixed == 8e-6);
  CHECK(s.memory > s.compute);
}

using test::Priced;

TEST_CASE("latent classes: DeepSeek-V3's decode attention is one latent kernel a layer") {
  // 61 layers of 128 heads on one H100, 32 sequences at 640 tokens: each layer's kernel attends
  // with 128 absorbed queries of 576 over 640 cached latents of 576, values 512 wide.
  const ModelSpec m = test::deepseek_v3();
  ExpectedModel em = test::with_kernel_classes();
  em.kernels->latent_decode = {0.8, 10e-6, 0.6, 0.003e-6};
  Workload w = test::default_workload(m, 32);
  w.context_tokens = 640;
  const test::ClassPriced run = test::price_by_classes(m, test::h100_sxm(), w, em);
  const Report& r = run.report;
  const PhaseResult& step = r.decode.step;
  const Priced p = run.decode();
  const OpCost& scores = step.ops[p.at("attn_scores")].cost;
  const OpCost& values = step.ops[p.at("attn_values")].cost;
  CHECK(scores.kernel == KernelKind::latent_attention);
  CHECK(values.fused);
  // A layer: 32·128·640 keys, (2·576 + 5) + 2·512 = 2181 FLOPs each; the cache 32·640·576·2 B,
  // the queries 32·128·576·2 and the outputs 32·128·512·2.
  const double flops = 32.0 * 128 * 640 * 2181, bytes = 32.0 * 640 * 576 * 2 + 32.0 * 128 * 576 * 2 + 32.0 * 128 * 512 * 2;
  CHECK((scores.flops + values.flops).value() == Approx(61 * flops).epsilon(1e-12));
  CHECK((scores.bytes + values.bytes).value() == Approx(61 * bytes).epsilon(1e-12));
  KernelAsk a{flops, bytes, 1};
  a.heads = 32 * 128;
  const double one = em.kernels->time(KernelClass::latent_decode, a, kH100) + em.gap.value();
  CHECK(p.seconds("attn_scores") + p.seconds("attn_values") == Approx(61 * one).epsilon(1e-9));
  // Over an fp8 cache the engine asks the class to convert the layer's 32·640·576 cached latents.
  Workload w8 = w;
  w8.precision.kv = DType::fp8;
  const test::ClassPriced run8 = test::price_by_classes(m, test::h100_sxm(), w8, em);
  const Priced p8 = run8.decode();
  KernelAsk a8{flops, 32.0 * 640 * 576 + 32.0 * 128 * 576 * 2 + 32.0 * 128 * 512 * 2, 1};
  a8.heads = 32 * 128, a8.kv_bytes = 1, a8.converted = 32.0 * 640 * 576;
  const double one8 = em.kernels->time(KernelClass::latent_decode, a8, kH100) + em.gap.value();
  CHECK(p8.seconds("attn_scores") + p8.seconds("attn_values") == Approx(61 * one8).epsilon(1e-9));
  // The prefill's attention is the latent prefill class's: 192-wide keys over the prompt.
  const Priced pre = run.prefill();
  const OpCost& prefill = r.prefill.ops[pre.at("attn_scores")].cost;
  CHECK(prefill.kernel == KernelKind::latent_attention);
  CHECK(prefill.head_dim == 192);
  CHECK(prefill.queries == w.prompt_tokens);
}

TEST_CASE("latent classes: DeepSeek-V3.2's sparse top-k latent attention keeps the end-to-end pricing") {
  // Its decode reads the indexer's 2,048 latents: FlashMLA's sparse kernel, which no table measured.
  ModelSpec m = test::deepseek_v3();
  m.architecture->sparse = SparseAttention{2048, 64, 128};
  const Report r = evaluate(m, test::h100_sxm(), test::default_workload(m, 8));
  for (const OpResult& o : r.decode.step.ops) {
    if (o.cost.name == "attn_scores" || o.cost.name == "index_scores") CHECK(o.cost.kernel == KernelKind::other);
  }
}
