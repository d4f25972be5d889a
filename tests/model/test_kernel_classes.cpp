// The kernel classes' formulas (hardware/kernel_classes.hpp), worked by hand.
#include <catch2/catch.hpp>

#include "hardware/kernel_classes.hpp"

#include <cmath>
#include <string_view>
#include <vector>

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

TEST_CASE("kernel classes: the engine's all-reduce is a latency and the faster of one-shot and two-shot") {
  KernelCoefficients k;
  k.all_reduce = {3e-6, 0.6, 0.8, 20e-6};
  KernelAsk a;
  a.gpus = 8;
  // 8 GPUs, 64 kB: one-shot reads the 7 peers' messages, 458,752 B at 0.6 × 450 GB/s = 1.699 µs;
  // two-shot would take 20 µs + 1.75 × 65,536 B at 0.8 × 450 GB/s = 20.319 µs. With 3 µs: 4.699 µs.
  a.bytes = 65536;
  CHECK(k.time(KernelClass::all_reduce, a, kGpu) == Approx(3e-6 + 1.6990e-6).epsilon(1e-4));
  // 1 MB: one-shot 7 MB at 270 GB/s = 25.926 µs; two-shot 20 µs + 1.75 MB at 360 GB/s = 24.861 µs,
  // the faster: 27.861 µs.
  a.bytes = 1e6;
  CHECK(k.time(KernelClass::all_reduce, a, kGpu) == Approx(3e-6 + 24.8611e-6).epsilon(1e-4));
  // 2 GPUs, 1 MB: one-shot reads the one peer's message, a ring's bytes: 3.704 µs (two-shot 22.78).
  a.gpus = 2;
  CHECK(k.time(KernelClass::all_reduce, a, kGpu) == Approx(3e-6 + 3.7037e-6).epsilon(1e-4));
  // NCCL's rings: 2(k - 1)/k of the message at its bus share, 8 GPUs and 1 MB at 0.6: 6.481 µs.
  k.nccl_all_reduce = {30e-6, 0.6};
  a.gpus = 8;
  CHECK(k.time(KernelClass::nccl_all_reduce, a, kGpu) == Approx(30e-6 + 6.4815e-6).epsilon(1e-4));
}

TEST_CASE("kernel classes: a decode attention's blocks, KV stream and floor by hand") {
  KernelCoefficients k;
  DecodeAttentionCoefficients& d = k.decode_attention;
  d.memory = 0.9, d.convert = 0.01, d.compute = 0.1, d.floor = 8e-6, d.combine = 4e-6, d.combine_keys = 1024;
  d.per_item = 10e-9, d.per_item_group = 30e-9, d.overlap = 2, d.block_keys = 256, d.blocks_target = 1024;
  // The floor added (p = 1), no per-block stream limit and no head-width terms: the new terms
  // have their own case below.
  d.floor_overlap = 1, d.block_kib = 0, d.per_width = 0, d.query_kib = 0;
  k.gemm.overlap = 2;
  // 64 sequences of 32 query heads on 8 KV heads (the grouped kernel), 128 wide, 1,024 keys of a
  // 16-bit cache: 4·64·32·128·1024 = 1,073,741,824 FLOPs at 0.1 × 1 PFLOP/s = 10.737 µs; the KV
  // 64·8·128·2·1024·2 = 268,435,456 B and q, o 64·32·128·2·2 = 1,048,576 B at 0.9 × 3 TB/s = 99.809 µs;
  // overlapped at p = 2: 100.385 µs. 512 items, each split into min(1024/256, 1024/512) = 2 blocks
  // of 30 ns: 30.72 µs, overlapped with the stream at p = 2: 104.980 µs. The floor 8 µs and half
  // the combine's 4 µs at 1,024 keys: 114.980 µs.
  KernelAsk a{1073741824.0, 269484032.0, 1};
  a.heads = 64 * 32, a.kv_heads = 64 * 8, a.keys = 1024, a.context = 1024, a.kv_bytes = 2;
  CHECK(k.time(KernelClass::decode_attention, a, kGpu) == Approx(114.980127e-6).epsilon(1e-6));
  // The same sequences as multi-head attention over an fp8 cache: the one-head kernel streams it
  // at the 16-bit share and converts each element on the CUDA cores, 64·32·1024·2·128 =
  // 536,870,912 at 0.01 × 1 PFLOP/s = 53.687 µs beside the FLOPs' 10.737: 64.425 µs. The KV
  // 64·32·128·2·1024 = 536,870,912 B and q, o 1,048,576 B at 0.9 × 3 TB/s = 199.229 µs; at p = 2:
  // 209.387 µs. 2,048 items of one block (2048 > blocks_target) at 10 ns = 20.48 µs: 210.386 µs;
  // the floor as before: 220.386 µs.
  a.bytes = 537919488.0, a.kv_heads = 64 * 32, a.kv_bytes = 1, a.head_dim = 128;
  CHECK(k.time(KernelClass::decode_attention, a, kGpu) == Approx(220.386115e-6).epsilon(1e-6));
  // 64 query heads on one KV head a sequence (the same FLOPs and bytes): the fallback, one query
  // head a block, at its own compute share: 1,073,741,824 / (0.001 × 1 PFLOP/s) = 1073.742 µs and
  // the 64·1024·2·128 = 16,777,216 elements converted, 1.678 µs: 1075.420 µs; with the stream
  // 1093.718 µs; 4,096 blocks of 10 ns, 40.96 µs: 1094.485 µs; the floor: 1104.485 µs.
  a.heads = 64 * 64, a.kv_heads = 64;
  d.compute_fallback = 0.001;
  CHECK(k.time(KernelClass::decode_attention, a, kGpu) == Approx(1104.484943e-6).epsilon(1e-6));
}

TEST_CASE("kernel classes: a long decode's blocks capped at the square root, their stream, head width and the floor overlapped") {
  KernelCoefficients k;
  DecodeAttentionCoefficients& d = k.decode_attention;
  d.memory = 0.9, d.compute = 0.1, d.floor = 8e-6, d.combine = 4e-6, d.combine_keys = 1024, d.per_item_group = 30e-9;
  d.per_width = 12.8e-9, d.query_kib = 20e-9, d.overlap = 2, d.floor_overlap = 2, d.block_keys = 256;
  d.blocks_target = 1024, d.block_kib = 40e-9;
  k.gemm.overlap = 2;
  // One sequence of 32 query heads on 8 KV heads, 128 wide, 65,536 keys of a 16-bit cache. Its
  // 65536/256 = 256 blocks a KV head are past 8, so √(8·256) = 45.255 (under 1024/8 = 128).
  // A block of the 16-bit grouped kernel: 30 ns, 12.8 ns for its 128-wide heads and 20 ns for
  // its 4·128·2 B = 1 KiB of queries: 62.8 ns; 8 × 45.255 = 362.039 blocks: 22.736 µs.
  // The KV 8·128·2·65536·2 = 268,435,456 B and q, o 16,384 B at 0.9 × 3 TB/s = 99.427 µs; the
  // 362.039 blocks alone stream 262,160 KiB at 40 ns a KiB each: 28.965 µs; at p = 2: 103.560 µs.
  // The FLOPs 4·32·128·65536 = 1,073,741,824 at 0.1 PFLOP/s = 10.737 µs: 104.115 µs; with the
  // blocks at p = 2: 106.568 µs. The floor 8 µs and the combine 4·65536/66560 = 3.938 µs, 11.938
  // µs, overlapped at p = 2: √(106.568² + 11.938²) = 107.235 µs.
  KernelAsk a{1073741824.0, 268451840.0, 1};
  a.heads = 32, a.kv_heads = 8, a.keys = 65536, a.context = 65536, a.kv_bytes = 2, a.head_dim = 128;
  CHECK(k.time(KernelClass::decode_attention, a, kGpu) == Approx(107.235066e-6).epsilon(1e-6));
  // The parts sum to the time, the floor's share 11.938 × 107.235 / (106.568 + 11.938) = 10.803 µs.
  const KernelCoefficients::Split s = k.split(KernelClass::decode_attention, a, kGpu);
  CHECK(s.total() == Approx(k.time(KernelClass::decode_attention, a, kGpu)).epsilon(1e-12));
  CHECK(s.fixed == Approx(10.802930e-6).epsilon(1e-6));
}

TEST_CASE("kernel classes: a grouped decode over an fp8 cache, and a windowed decode's blocks split by its whole sequence") {
  KernelCoefficients k;
  DecodeAttentionCoefficients& d = k.decode_attention;
  d.memory = 0.9, d.memory_fp8 = 0.95, d.compute = 0.1, d.floor = 8e-6, d.floor_fp8 = 6e-6, d.combine = 4e-6;
  d.combine_keys = 1024, d.per_item = 10e-9, d.per_item_group = 30e-9, d.overlap = 2, d.block_keys = 256;
  d.blocks_target = 1024;
  d.floor_overlap = 1, d.block_kib = 0, d.per_width = 0, d.query_kib = 0;
  k.gemm.overlap = 2;
  // 64 sequences of 32 query heads on 8 KV heads, 128 wide, 1,024 keys of an fp8 cache: Hopper's
  // grouped kernel. FLOPs 1,073,741,824 at 0.1 PFLOP/s = 10.737 µs; the KV 64·8·128·2·1024·1 =
  // 134,217,728 B and q, o 1,048,576 B at memory_fp8 0.95 × 3 TB/s = 47.462 µs; at p = 2: 48.661 µs.
  // 512 items of min(1024/256, 1024/512) = 2 blocks at per_item's 10 ns (not the 16-bit grouped
  // 30 ns): 10.24 µs; with the stream at p = 2: 49.727 µs. The fp8 floor 6 µs and half the
  // combine's 4 µs at 1,024 keys: 57.727 µs.
  KernelAsk a{1073741824.0, 135266304.0, 1};
  a.heads = 64 * 32, a.kv_heads = 64 * 8, a.keys = 1024, a.context = 1024, a.kv_bytes = 1;
  CHECK(k.time(KernelClass::decode_attention, a, kGpu) == Approx(57.727035e-6).epsilon(1e-6));
  // 4 such sequences over a 16-bit cache under a window of 128 at context 8,192: they read 128 keys
  // (8,388,608 FLOPs, 2,162,688 B: 0.805 µs overlapped) but the kernel splits each whole sequence:
  // 8192/256 = 32 blocks, past 8 so √(8·32) = 16 (under 1024/32), for each of 32 items, 512
  // blocks of the grouped kernel's 30 ns: 15.36 µs, with the stream 15.381 µs. The floor 8 µs and
  // the combine at 128 keys, 4·128/(128 + 1024) = 0.444 µs: 23.826 µs. (Split as its 128 keys, one
  // block an item: 9.7 µs.)
  KernelAsk w{8388608.0, 2162688.0, 1};
  w.heads = 4 * 32, w.kv_heads = 4 * 8, w.keys = 128, w.context = 8192, w.kv_bytes = 2;
  CHECK(k.time(KernelClass::decode_attention, w, kGpu) == Approx(23.825544e-6).epsilon(1e-6));
}

TEST_CASE("kernel classes: a prefill attention's products, softmax, chain and query tiles by hand, and a window's overshoot") {
  KernelCoefficients k;
  k.prefill_attention = {0.5, 512, 0.01, 0.002, 15e-6, 25e-9, 896};
  k.gemm.overlap = 2;
  // One prompt of 4,096 tokens, 32 heads of 128: 4096·4097/2 = 8,390,656 pairs a head, 4·128 FLOPs
  // a pair: 137,472,507,904 FLOPs. Products with half_length 512: × (1 + 1024/4096) at 0.5 PFLOP/s
  // = 343.681 µs; the softmax's 268,500,992 scores at 0.01 PFLOP/s = 26.850 µs; 32·4096/128 = 1,024
  // query tiles, the chain one tile's 134,250,496 FLOPs at 0.002 PFLOP/s = 67.125 µs; at p = 2:
  // √(370.531² + 67.125²) = 376.563 µs. The tiles' 1,024 × 25 ns = 25.6 µs and the 15 µs launch:
  // 417.163 µs.
  KernelAsk a{137472507904.0, 0, 4096};
  a.heads = 32, a.head_dim = 128;
  CHECK(k.time(KernelClass::prefill_attention, a, kGpu) == Approx(417.1625e-6).epsilon(1e-6));
  const KernelCoefficients::Split s = k.split(KernelClass::prefill_attention, a, kGpu);
  CHECK(s.memory == Approx(25.6e-6).epsilon(1e-12));
  // A window of 1,024: its own pairs 1024·1025/2 + 3072·1024 = 3,670,528 a head (60,137,930,752
  // FLOPs), but the kernel skips only whole key blocks past it, computing window_keys 896 more a
  // query: 1920·1921/2 + 2176·1920 = 6,022,080 pairs, 1.6407× the FLOPs (98,665,758,720). Products
  // 246.664 µs, softmax 19.271 µs, chain 48.177 µs: 270.264 µs; with the tiles and launch 310.864 µs.
  KernelAsk win{60137930752.0, 0, 4096};
  win.heads = 32, win.head_dim = 128, win.window = 1024;
  CHECK(k.time(KernelClass::prefill_attention, win, kGpu) == Approx(310.8637e-6).epsilon(1e-6));
}

TEST_CASE("kernel classes: a class a GPU borrows is priced under every GPU's GEMM overlap, which fitted it") {
  // A GPU's own fit with its own GEMM (p = 1 here; A100's is 1.41, from Vidur's GEMMs) and a
  // prefill attention its tables did not measure: every GPU's fit fitted that class under its own
  // GEMM overlap, the shipped 1.94, so the class is priced under 1.94, never this GPU's p.
  KernelCoefficients k;
  k.own_tables = true;
  k.gemm.overlap = 1;
  PrefillAttentionCoefficients& p = k.prefill_attention;
  p.compute = 0.5, p.half_length = 0, p.softmax = 1.0 / 512, p.chain = 1.0 / 192, p.launch = 10e-6, p.per_tile = 0;
  // 1e12 FLOPs of 1,024 queries, 8 heads of 128: products 1e12 / (0.5 × 1 PFLOP/s) = 2 ms, the
  // scores 1e12 / (4·128) at 1/512 of the peak 1 ms; 8 · 1024/128 = 64 tiles, each chain
  // 1e12 / 64 at 1/192 of the peak = 3 ms.
  KernelAsk a{1e12, 0, 1024};
  a.heads = 8, a.head_dim = 128;
  // Its own class (not borrowed): overlapped at the GPU's p = 1, added: 6 ms + 10 us = 6.010 ms.
  CHECK(k.time(KernelClass::prefill_attention, a, kGpu) == Approx(6.010e-3).epsilon(1e-12));
  // Borrowed: at p = 1.94, 3 ms · 2^(1/1.94) = 3 · 1.4294537 = 4.2883612 ms + 10 us = 4.2983612 ms
  // (priced at the GPU's p = 1 it was 6.010 ms).
  k.borrowed = {KernelClass::prefill_attention};
  CHECK(GemmCoefficients{}.overlap == 1.94);
  CHECK(k.time(KernelClass::prefill_attention, a, kGpu) == Approx(4.2983612e-3).epsilon(1e-7));
  // The GPU's own GEMM keeps its own p: a square one of 1e12 FLOPs at 0.74 of the peak, 1.3514 ms,
  // and 3e9 B at 0.808 × 3 TB/s, 1.2376 ms, added (p = 1): 2.5890 ms + 3.04 us = 2.5920 ms.
  const KernelAsk g{1e12, 3e9, 4096};
  CHECK(k.time(KernelClass::gemm, g, kGpu) == Approx(1e12 / 0.74e15 + 3e9 / (0.808 * 3e12) + 3.04e-6).epsilon(1e-12));
  CHECK(k.time(KernelClass::gemm, g, kGpu) == Approx(2.5920e-3).epsilon(1e-4));
}

TEST_CASE("kernel classes: a decode batch's sequences share the floor and fill the GPU together") {
  // Llama-3.1-8B's 32/8 heads of 128 on H100 with the pooled coefficients. At 640 keys one
  // sequence is mostly floor (one block's latency, 8.74 µs, and the combine): 4 of them cost more
  // than one, but far less than 4 lone ones (13.4 and 16.6 µs), the floor overlapped with their
  // work and their blocks streaming together.
  const KernelCoefficients k;
  const KernelCeilings h100{989e12, 1979e12, 3.35e12, 450e9};
  const auto ask = [](double batch, double keys) {
    KernelAsk a{4 * batch * 32 * 128 * keys, batch * 8 * 128 * 2 * keys * 2 + batch * 32 * 128 * 4, 1};
    a.heads = batch * 32, a.kv_heads = batch * 8, a.keys = keys, a.context = keys, a.kv_bytes = 2, a.head_dim = 128;
    return a;
  };
  const auto time = [&](const KernelAsk& a) { return k.time(KernelClass::decode_attention, a, h100); };
  const auto variable = [&](const KernelAsk& a) {
    const KernelCoefficients::Split s = k.split(KernelClass::decode_attention, a, h100);
    return s.compute + s.memory;
  };
  CHECK(time(ask(4, 640)) > time(ask(1, 640)));
  CHECK(time(ask(4, 640)) < 2 * time(ask(1, 640)));
  // At 16k keys and batch 256 (2,048 items, more than blocks_target) one block a KV head fills the
  // GPU: a lone sequence's √(8 · 16384/138) ≈ 31 blocks a KV head do not scale, and the batch
  // costs less than 256 lone ones.
  REQUIRE(256 * 8 > k.decode_attention.blocks_target);
  CHECK(variable(ask(256, 16384)) < 256 * variable(ask(1, 16384)));
}

// --- The engine priced by the classes: a GPU whose expected model has kernel coefficients.

#include "model/engine.hpp"
#include "model/expected.hpp"
#include "priced_ops.hpp"
#include "specs.hpp"

using test::Priced;

TEST_CASE("kernel classes: Q, K and V are one GEMM a layer, with one launch, shared as their bounds are") {
  // Llama-3.1-8B on an H100 at batch 1: per layer Q is 4096 × 4096, K and V 4096 × 1024 each;
  // fused, one 1 × 4096 by 4096 × 6144 GEMM: 50.3 MFLOP and 50.4 MB of weights.
  const ModelSpec m = test::llama_3_1_8b();
  ExpectedModel em = test::with_kernel_classes();
  em.kernels->gemm = {0.75, 0.8, 2.0, 3e-6};
  const test::ClassPriced run = test::price_by_classes(m, test::h100_sxm(), test::default_workload(m, 1), em);
  const PhaseResult& step = run.report.decode.step;
  const Priced p = run.decode();
  const OpCost& q = step.ops[p.at("q_proj")].cost;
  const OpCost& k = step.ops[p.at("k_proj")].cost;
  const OpCost& v = step.ops[p.at("v_proj")].cost;
  CHECK(q.launches == 32);
  CHECK(k.fused);
  CHECK(v.fused);
  CHECK_FALSE(q.fused);
  const double flops = (q.flops + k.flops + v.flops).value() / 32, bytes = (q.bytes + k.bytes + v.bytes).value() / 32;
  CHECK(flops == Approx(2 * 4096.0 * 6144));
  // bf16 weights, the token read by each of the three as priced alone, Q, K and V out.
  CHECK(bytes == Approx(2 * (4096.0 * 6144 + 3 * 4096 + 6144)));
  const double c = flops / (0.75 * 989e12), mem = bytes / (0.8 * 3.35e12);
  // p = 2, one launch, and the engine's gap between kernels (ExpectedModel::gap) once.
  const double one = std::sqrt(c * c + mem * mem) + 3e-6 + em.gap.value();
  const double group = p.seconds("q_proj") + p.seconds("k_proj") + p.seconds("v_proj");
  CHECK(group == Approx(32 * one).epsilon(1e-9));
  // Shared as the bounds are: Q's bound is 4 of the 6 parts (4096 of 6144 outputs).
  CHECK(p.seconds("q_proj") / group == Approx(step.ops[p.at("q_proj")].time / (step.ops[p.at("q_proj")].time +
                                                                               step.ops[p.at("k_proj")].time +
                                                                               step.ops[p.at("v_proj")].time)));
  // The phase is its operators' sum and the step.
  Seconds sum = em.step;
  for (Seconds s : p.expected) sum += s;
  CHECK(sum.value() == Approx(step.expected.time.value()).epsilon(1e-12));
}

TEST_CASE("kernel classes: a tensor-parallel all-reduce is the latency and the ring at the bus share") {
  // Llama-3.1-8B at tp 2 on H100s (450 GB/s NVLink): each of 65 all-reduces a decode step at
  // batch 1 (two a layer and the vocab-parallel embedding's) moves 4096 bf16 = 8192 B; a ring sends
  // 2·(2−1)/2 of it through each link. The gather of the logits is no all-reduce: not this class's
  // (tests/model/test_tp_head_collectives.cpp).
  const ModelSpec m = test::llama_3_1_8b();
  ExpectedModel em = test::with_kernel_classes();
  em.kernels->all_reduce = {3e-6, 0.5};
  Workload w = test::default_workload(m, 1);
  w.tp = 2;
  const test::ClassPriced run = test::price_by_classes(m, test::h100_sxm(), w, em);
  const PhaseResult& step = run.report.decode.step;
  const std::vector<Seconds> e = run.decode().expected;
  double calls = 0, seconds = 0;
  for (std::size_t i = 0; i < step.ops.size(); ++i) {
    if (step.ops[i].bound != Bound::interconnect || step.ops[i].cost.collective != Collective::all_reduce) continue;
    calls += step.ops[i].cost.comm_calls;
    seconds += e[i].value();
  }
  CHECK(calls == 65);
  CHECK(seconds == Approx(65 * (3e-6 + 8192.0 / (0.5 * 450e9))).epsilon(1e-9));
}

TEST_CASE("kernel classes: GEMMs computing in fp8 are the fp8 class, with the scale kernels") {
  const test::ClassPriced s = test::llama_fp8_step(WeightFormat::fp8);
  const ExpectedModel& em = s.em;
  const PhaseResult& step = s.report.decode.step;
  const Priced p = s.decode();
  const OpCost& o = step.ops[p.at("o_proj")].cost;
  CHECK(o.kernel == KernelKind::linear_fp8);
  // 8 × 4096 by 4096 × 4096 in fp8: the fp8 peak, the scale kernels' 5·8·4096 B and their 9.91 µs.
  const KernelCoefficients& k = *em.kernels;
  KernelAsk a{o.flops.value() / 32, o.bytes.value() / 32, 8, 5 * 8 * 4096.0};
  const KernelCeilings c = test::kH100Ceilings;
  CHECK(p.seconds("o_proj") == Approx(32 * (k.time(KernelClass::gemm_fp8, a, c) + em.gap.value())).epsilon(1e-9));
  CHECK(k.time(KernelClass::gemm_fp8, a, c) > k.gemm_fp8.scale + k.gemm.launch);
}

TEST_CASE("kernel classes: an all-reduce across nodes is NCCL's rings, not the engine's NVLink kernel") {
  // Llama-2-70B at tp 16 on H100s: two 8-GPU NVSwitch domains joined by the network.
  const ModelSpec m = test::llama_2_70b();
  GpuSpec g = test::h100_sxm();
  ExpectedModel em;
  g.expected = em;
  Workload w = test::default_workload(m, 32);
  w.tp = 16;
  const Report r = evaluate(m, g, w);
  const PhaseResult& step = r.decode.step;
  const std::vector<Seconds> e = expected_op_times(step, em, r.gpu.ceilings);
  int across = 0;
  for (std::size_t i = 0; i < step.ops.size(); ++i) {
    const OpResult& o = step.ops[i];
    if (o.bound != Bound::interconnect) continue;
    ++across;
    CHECK_FALSE(o.comm.switched_domain);
    // The end-to-end coefficients' ring: a hop latency a sequential step, never under the floor.
    const Seconds ring = std::max(o.comm.floor(), em.hop_latency * o.comm.hops + o.comm.serial) * o.cost.comm_calls;
    CHECK(e[i].value() == Approx(ring.value()).epsilon(1e-12));
  }
  CHECK(across > 0);
}

TEST_CASE("kernel classes: a longer prompt's attention never takes less time than a shorter one's") {
  // The chain term counts tiles continuously: a step at each 128 tokens made 129 cheaper than 128.
  const ModelSpec m = test::llama_3_1_8b();
  GpuSpec g = test::h100_sxm();
  g.expected = ExpectedModel{};
  Workload w = test::default_workload(m, 1);
  w.tp = 8;
  auto attention = [&](long n) {
    w.prompt_tokens = n;
    const Report r = evaluate(m, g, w);
    const std::vector<Seconds> e = expected_op_times(r.prefill, *g.expected, r.gpu.ceilings);
    double t = 0;
    for (std::size_t i = 0; i < r.prefill.ops.size(); ++i) {
      if (r.prefill.ops[i].cost.kernel == KernelKind::attention) t += e[i].value();
    }
    return t;
  };
  double last = 0;
  for (long n : {64L, 127L, 128L, 129L, 1000L, 4095L, 4096L, 4097L, 4100L, 16384L}) {
    const double t = attention(n);
    INFO(n);
    CHECK(t >= last);
    last = t;
  }
}

TEST_CASE("kernel classes: under tp 2 a decode attention asks each GPU's own query and KV heads") {
  // Llama-3.1-8B (32 query, 8 KV heads of 128) at tp 2: each GPU holds 16 query and 4 KV heads, a
  // group of 4: the grouped kernel. Batch 4 at context 1,024, a 16-bit cache: the kernel's items
  // are 4 sequences × 4 KV heads = 16, each split into 1024/138 = 7.42 blocks (under 8, uncapped;
  // under 872/16). FLOPs 4·4·16·128·1024 = 33,554,432 a layer; bytes: K and V 4·4·128·2·1024·2 =
  // 8,388,608, q and o 4·16·128·2·2 = 32,768; heads 128 wide (the grouped block's width and
  // queries). Priced by the class, with the engine's gap, a launch a layer.
  const ModelSpec m = test::llama_3_1_8b();
  Workload w = test::default_workload(m, 4);
  w.tp = 2;
  w.context_tokens = 1024;
  const test::ClassPriced run = test::price_by_classes(m, test::h100_sxm(), w);
  const ExpectedModel& em = run.em;
  const PhaseResult& step = run.report.decode.step;
  const Priced p = run.decode();
  const OpCost& scores = step.ops[p.at("attn_scores")].cost;
  const OpCost& values = step.ops[p.at("attn_values")].cost;
  CHECK(scores.heads == 16);
  CHECK(scores.kv_heads == 4);
  CHECK(scores.sequences == 4);
  CHECK(scores.keys == 1024);
  CHECK(values.fused);
  const double flops = (scores.flops + values.flops).value() / 32, bytes = (scores.bytes + values.bytes).value() / 32;
  CHECK(flops == Approx(33554432.0 + 4 * 16 * 1024 * 5).epsilon(1e-12));  // the softmax's 5 FLOPs a score ride in the scores
  CHECK(bytes == Approx(8388608.0 + 32768).epsilon(1e-12));
  KernelAsk a{flops, bytes, 1};
  a.heads = 4 * 16, a.kv_heads = 4 * 4, a.keys = 1024, a.context = 1024, a.kv_bytes = 2, a.head_dim = 128;
  const KernelCeilings h100{989e12, 989e12, 3.35e12, 0};
  const double one = em.kernels->time(KernelClass::decode_attention, a, h100) + em.gap.value();
  CHECK(p.seconds("attn_scores") + p.seconds("attn_values") == Approx(32 * one).epsilon(1e-9));
  // Had the ask counted the model's 32 and 8 heads (tp ignored), the items and blocks double.
  KernelAsk whole = a;
  whole.heads = 4 * 32, whole.kv_heads = 4 * 8;
  CHECK(em.kernels->time(KernelClass::decode_attention, whole, h100) != Approx(one - em.gap.value()).epsilon(1e-3));
}

TEST_CASE("kernel classes: a latent layer's one-token prompt is a prefill of the latent_prefill class, not a decode") {
  // DeepSeek-V3 at tp 8: each GPU's 16 heads of a one-token prompt attend its own key in the
  // prefill's decompressed form (192-wide queries and keys, 128-wide values): 16 · (2·192 + 5 +
  // 2·128) = 10,320 FLOPs a layer. The decode's absorbed form, which latent_decode measured
  // (576/512 wide), is not what runs. Priced by latent_prefill, with the engine's gap, a layer.
  const ModelSpec m = test::deepseek_v3();
  Workload w = test::default_workload(m, 1);
  w.tp = 8;
  w.prompt_tokens = 1;
  w.context_tokens = 1;
  const test::ClassPriced run = test::price_by_classes(m, test::h200_141gb(), w);
  const ExpectedModel& em = run.em;
  const PhaseResult& prefill = run.report.prefill;
  const Priced p = run.prefill();
  const OpCost& scores = prefill.ops[p.at("attn_scores")].cost;
  const OpCost& values = prefill.ops[p.at("attn_values")].cost;
  CHECK(scores.queries == 1);
  CHECK(scores.kv_heads == 0);  // no decode shape: the prefill's kernel
  const double layers = 61, flops = (scores.flops + values.flops).value() / layers;
  CHECK(flops == Approx(10320).epsilon(1e-12));
  KernelAsk a{flops, (scores.bytes + values.bytes).value() / layers, 1};
  a.heads = 16, a.head_dim = 192;
  const KernelCeilings h200{989e12, 989e12, 4.8e12, 0};
  const double one = em.kernels->time(KernelClass::latent_prefill, a, h200) + em.gap.value();
  // 16.6 us launch, 16 query tiles of 22.3 ns, the products' 15 ns: 16.97 us, and the gap.
  CHECK(one - em.gap.value() == Approx(16.972e-6).epsilon(1e-3));
  CHECK(p.seconds("attn_scores") + p.seconds("attn_values") == Approx(layers * one).epsilon(1e-9));
}
