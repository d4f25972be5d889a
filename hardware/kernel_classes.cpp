#include "hardware/kernel_classes.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

bool on_fp8_peak(KernelClass k) {
  return k == KernelClass::gemm_fp8 || k == KernelClass::gemm_fp8_block || k == KernelClass::experts_fp8;
}

double all_reduce_transfer(const AllReduceCoefficients& x, double ring, double gpus) {
  // One-shot reads k − 1 whole messages, k/2 times a ring's 2(k − 1)/k.
  const double one_shot = ring * gpus / 2 / x.bus;
  const double two_shot = x.two_shot + ring / x.bus_two_shot;
  return std::min(one_shot, two_shot);
}

namespace {

// A time of compute c and memory m overlapped (overlap_norm), shared between them in proportion.
KernelCoefficients::Split overlapped(double c, double m, double p, double fixed) {
  const double both = overlap_norm(c, m, p), sum = c + m;
  if (sum <= 0) return {0, 0, fixed};
  return {both * c / sum, both * m / sum, fixed};
}

// Latent decode: the latent stream and the per-head arithmetic overlapped, a floor, and each
// (sequence, query head)'s own work, which grows with the sequences as the stream does.
KernelCoefficients::Split latent_decode_split(const LatentDecodeCoefficients& d, double p, const KernelAsk& a,
                                              const KernelCeilings& c) {
  const double arithmetic = a.flops / (d.compute * c.peak) + a.converted / (d.convert * c.peak);
  KernelCoefficients::Split s = overlapped(arithmetic, a.bytes / (d.memory * c.bandwidth), p, d.floor);
  s.memory += a.heads * d.per_head;
  return s;
}

// Decode attention (DecodeAttentionCoefficients says which kernel is which): the arithmetic and
// the KV stream overlapped as a GEMM's, that overlapped with the blocks' fixed time, and a floor
// that grows with the keys as the blocks' combine does, overlapped with the rest.
KernelCoefficients::Split decode_split(const DecodeAttentionCoefficients& d, double p, const KernelAsk& a,
                                       const KernelCeilings& c) {
  const double kv = a.kv_heads > 0 ? a.kv_heads : a.heads;
  const double group = kv > 0 ? a.heads / kv : 1;
  const bool fallback = group >= kFallbackGroup, one_head = group <= 1 || fallback, fp8 = a.kv_bytes == 1;
  const double items = one_head ? a.heads : kv;
  const double context = a.context > 0 ? a.context : a.keys;
  // Split into blocks of block_keys, past 8 of them only √(8 · context / block_keys) (XQA caps a
  // sequence's blocks so that their final reduction does not dominate: 128 k keys in 91 blocks,
  // not 1024), and no more than keep the GPU's blocks under blocks_target.
  const double split = context / d.block_keys;
  const double capped = split > 8 ? std::sqrt(8 * split) : split;
  const double blocks = items > 0 ? std::max(1.0, std::min(capped, d.blocks_target / items)) : 1;
  // An fp8 cache in the grouped kernel is multiplied in fp8 (Hopper's MMA); the one-head kernel
  // streams it as a 16-bit one and converts each element on the CUDA cores.
  const bool converts = fp8 && one_head, grouped_fp8 = fp8 && !one_head;
  const double share = grouped_fp8 ? d.memory_fp8 : d.memory;
  const double converted = converts ? 2 * kv * a.keys * a.head_dim : 0;
  const double compute =
      a.flops / ((fallback ? d.compute_fallback : d.compute) * c.peak) + converted / (d.convert * c.peak);
  // The stream at its share of the bandwidth, or, with few blocks, at what their bytes in flight allow.
  const double memory = overlap_norm(a.bytes / (share * c.bandwidth), a.bytes / 1024 * d.block_kib / (items * blocks), p);
  double per_block = one_head || fp8 ? d.per_item : d.per_item_group + d.per_width * a.head_dim / 128;
  if (!one_head) per_block += d.query_kib * group * a.head_dim * 2 / 1024;
  const double fixed_blocks = items * blocks * per_block;
  // The blocks' time counts with memory: it grows with the batch, as the KV stream does.
  const KernelCoefficients::Split s = overlapped(compute, memory, p, 0);
  const double streams = s.compute + s.memory;
  const double k = streams + fixed_blocks > 0 ? overlap_norm(streams, fixed_blocks, d.overlap) / (streams + fixed_blocks) : 0;
  const double floor = (grouped_fp8 ? d.floor_fp8 : d.floor) + d.combine * a.keys / (a.keys + d.combine_keys);
  // The floor is one block's latency, which the other blocks' work hides in part: a batch of 32
  // sequences costs little more than one.
  const double work = (streams + fixed_blocks) * k;
  const double f = work + floor > 0 ? overlap_norm(work, floor, d.floor_overlap) / (work + floor) : 0;
  return {s.compute * k * f, (s.memory + fixed_blocks) * k * f, floor * f};
}

// A block-scaled fp8 GEMM (Fp8BlockCoefficients): whole tiles' arithmetic and the stream overlapped
// as the 16-bit GEMM's, that overlapped with one tile's walk along K, then the quantization of the
// activations (its bytes and fixed time) and the GEMM's launch. `a.rows` is M, `a.width` N.
KernelCoefficients::Split block_scaled_split(const Fp8BlockCoefficients& b, const GemmCoefficients& g, const KernelAsk& a,
                                             const KernelCeilings& c) {
  const double m = a.rows, n = a.width;
  // Without its shape (no caller asks so: the engine and the tables give both) the arithmetic at
  // the tiles' share, unpadded and with no walk, rather than nothing.
  const bool shaped = m > 0 && n > 0;
  const double k = shaped ? a.flops / (2 * m * n) : 0;
  const auto whole = [](double x, double tile) { return std::ceil(x / tile) * tile; };
  const double tiles =
      (shaped ? 2 * whole(m, kBlockTileRows) * whole(n, kBlockTileCols) * k : a.flops) / (b.compute * c.peak_fp8);
  const double walk = 2 * kBlockTileRows * kBlockTileCols * k / (b.chain * c.peak_fp8);
  KernelCoefficients::Split s = overlapped(tiles, a.bytes / (g.memory * c.bandwidth), g.overlap, g.launch + b.quantize);
  const double both = s.compute + s.memory, k_all = both > 0 ? overlap_norm(both, walk, g.overlap) / both : 0;
  s.compute *= k_all;
  s.memory = s.memory * k_all + a.scale_bytes / (b.quantize_memory * c.bandwidth);
  return s;
}

// Σ over a prompt's n queries of the keys each sees, at most `window` (0: all before it).
double causal_pairs(double n, double window) {
  const auto triangle = [](double k) { return k * (k + 1) / 2; };
  return window <= 0 || n <= window ? triangle(n) : triangle(window) + (n - window) * window;
}

// Prefill attention: the products on the tensor cores, with per-token work as if each query saw
// half_length more keys; the softmax's exponentials, one a score (flops / 4·head_dim), on the SFUs;
// and the longest chain, one query tile of 128 rows across every key, on one SM's share. The GPU is
// full when the tiles outnumber its SMs, else the chain sets the time. Each query tile pays its own
// fixed time besides. A window's kernel computes window_keys more keys a query than the window.
KernelCoefficients::Split prefill_split(const PrefillAttentionCoefficients& p, double overlap, const KernelAsk& a,
                                        const KernelCeilings& c) {
  const double flops =
      a.window > 0 && a.rows > a.window ? a.flops * causal_pairs(a.rows, a.window + p.window_keys) / causal_pairs(a.rows, a.window)
                                        : a.flops;
  const double products = flops * (1 + 2 * p.half_length / a.rows) / (p.compute * c.peak);
  const double scores = flops / (4 * a.head_dim) / (p.softmax * c.peak);
  // Tiles counted continuously (a heads' worth at least): a step at every 128 tokens made a
  // longer prompt cheaper than a shorter one.
  const double tiles = a.heads * std::max(1.0, a.rows / 128);
  const double chain = flops / tiles / (p.chain * c.peak);
  // The tiles' own time counts with memory: loading Q and writing O are most of it.
  return {overlap_norm(products + scores, chain, overlap), tiles * p.per_tile, p.launch};
}

// A recurrent layer's core: its FLOPs (a chunked prefill's padded to whole chunks) and its bytes
// overlapped, a fixed cost, and a cost a sequence (counted with memory: it grows with the batch,
// as the states do).
KernelCoefficients::Split recurrent_split(const RecurrentCoefficients& r, double p, const KernelAsk& a,
                                          const KernelCeilings& c) {
  KernelCoefficients::Split s = overlapped(a.flops / (r.compute * c.peak), a.bytes / (r.memory * c.bandwidth), p, r.launch);
  s.memory += a.sequences * r.per_sequence;
  return s;
}

// Every GPU's fit's GEMM, which its borrowed classes were fitted under (split, below). At namespace
// scope: a function's static would test its guard at every one of an evaluation's 26 splits.
const GemmCoefficients kPooledGemm{};

}  // namespace

KernelCoefficients::Split KernelCoefficients::split(KernelClass k, const KernelAsk& a, const KernelCeilings& c) const {
  // A class this GPU's own fit borrowed came from every GPU's fit together, which fitted it under
  // that fit's GEMM (the shipped defaults): the attention and recurrent classes under its overlap,
  // the fp8 GEMMs under its memory, overlap and launch, the experts under its compute. It is priced
  // with that GEMM, not this GPU's own (A100: p 1.41 from Vidur's GEMMs made Llama-3.1-8B's decode
  // attention at batch 32 and 4096 tokens 11.10 ms where every GPU's fit, at 1.94, says 10.42).
  // (A GPU with its own tables borrows few classes or none, the H100 none: tested empty first.)
  const bool lent = !borrowed.empty() && std::find(borrowed.begin(), borrowed.end(), k) != borrowed.end();
  const GemmCoefficients& g = lent ? kPooledGemm : gemm;
  const double stream = a.bytes / (g.memory * c.bandwidth);
  switch (k) {
    case KernelClass::gemm:
      return overlapped(a.flops / (g.compute * c.peak), stream, g.overlap, g.launch);
    case KernelClass::gemm_fp8: {
      // The GEMM on the fp8 peak, then the kernels that find and apply the activations' scale:
      // a fixed cost and their bytes at the GEMM's memory share.
      Split s = overlapped(a.flops / (gemm_fp8.compute * c.peak_fp8), stream, g.overlap, g.launch + gemm_fp8.scale);
      s.memory += a.scale_bytes / (g.memory * c.bandwidth);
      return s;
    }
    case KernelClass::gemm_fp8_block: return block_scaled_split(gemm_fp8_block, g, a, c);
    case KernelClass::decode_attention: return decode_split(decode_attention, g.overlap, a, c);
    case KernelClass::prefill_attention: return prefill_split(prefill_attention, g.overlap, a, c);
    case KernelClass::latent_decode: return latent_decode_split(latent_decode, g.overlap, a, c);
    case KernelClass::latent_prefill: return prefill_split(latent_prefill, g.overlap, a, c);
    case KernelClass::delta_net_decode: return recurrent_split(delta_net_decode, g.overlap, a, c);
    case KernelClass::delta_net_prefill: return recurrent_split(delta_net_prefill, g.overlap, a, c);
    case KernelClass::elementwise:
      return {0, a.bytes / (elementwise.memory * c.bandwidth), elementwise.launch};
    case KernelClass::all_reduce:
    case KernelClass::nccl_all_reduce: {
      // A ring's 2(k − 1)/k of the message through each GPU's link: NCCL's at its bus share, the
      // engine's kernel the faster of its one-shot and two-shot.
      const double ring = 2.0 * (a.gpus - 1) / a.gpus * a.bytes / c.link;
      if (k == KernelClass::all_reduce) return {0, all_reduce_transfer(all_reduce, ring, a.gpus), all_reduce.latency};
      return {0, ring / nccl_all_reduce.bus, nccl_all_reduce.latency};
    }
    case KernelClass::experts:
    case KernelClass::experts_fp8: {
      // The weights that stream are the reached experts' (stream_bytes); the rest of the bytes are
      // the activations the kernels around the grouped GEMMs move.
      const bool fp8 = k == KernelClass::experts_fp8;
      // Full tiles on wide experts reach the dense GEMM's share (hardware/moe_kernel.hpp says why).
      const ExpertsArithmetic arithmetic = fp8 ? ExpertsArithmetic{c.peak_fp8, gemm_fp8.compute, experts_fp8.width}
                                               : ExpertsArithmetic{c.peak, g.compute, experts.width};
      const ExpertsTime t = experts_time(
          experts, {a.flops, a.stream_bytes, a.bytes - a.stream_bytes, a.rows, a.experts, a.width}, arithmetic, c.bandwidth);
      return {t.compute, t.memory, t.fixed};
    }
  }
  return {};
}

namespace {

// The attention classes' coefficients, shared by the kinds of attention that use their formulas.
std::vector<ClassCoefficient> decode_coefficients(DecodeAttentionCoefficients& d) {
  return {{"memory", false, "share of the bandwidth a KV stream reaches (16-bit; fp8 in the one-head kernel), the GPU full of blocks",
           0.05, 1, &d.memory},
          {"memory_fp8", false, "share of the bandwidth an fp8 cache reaches in the grouped kernel", 0.05, 1, &d.memory_fp8},
          {"floor", true, "time of a kernel at the shortest contexts", 1e-8, 1e-3, &d.floor},
          {"floor_fp8", true, "time of the grouped kernel over an fp8 cache at the shortest contexts", 1e-8, 1e-3, &d.floor_fp8},
          {"combine", true, "time long contexts add to the floor: the blocks' partial results combined", 1e-9, 1e-3, &d.combine},
          {"combine_keys", false, "keys a sequence at which half the combine's time is paid", 1, 1e6, &d.combine_keys},
          {"compute", false, "share of the 16-bit peak the grouped kernel's arithmetic reaches", 1e-4, 1, &d.compute},
          {"compute_fallback", false, "share of the 16-bit peak for 48 or more query heads a KV head", 1e-4, 1,
           &d.compute_fallback},
          {"convert", false, "share of the 16-bit peak, in elements a second, the one-head kernel converts an fp8 cache at",
           1e-5, 1, &d.convert},
          {"per_item", true, "time a block (a sequence's queries on one KV head, or one query head)", 1e-9, 1e-6, &d.per_item},
          {"per_item_group", true, "time a block of the grouped kernel over a 16-bit cache", 1e-9, 1e-6,
           &d.per_item_group},
          {"per_width", true, "time a block of the 16-bit grouped kernel adds for each 128 elements of head width", 1e-9,
           1e-6, &d.per_width},
          {"query_kib", true, "time a grouped block adds for a KiB of its 16-bit queries: loaded, output written", 1e-9,
           1e-6, &d.query_kib},
          {"overlap", false, "p between the blocks' fixed time and the stream: 1 adds them, large is their max", 1, 20,
           &d.overlap},
          {"floor_overlap", false, "p between the floor and the rest: 1 adds them, large is their max", 1, 20,
           &d.floor_overlap},
          {"block_keys", false, "keys a block of a split sequence takes", 1, 1e6, &d.block_keys},
          {"blocks_target", false, "blocks the kernel splits sequences into to fill the GPU", 1, 1e6, &d.blocks_target},
          {"block_kib", true, "time one block alone takes to stream a KiB of keys and values", 1e-9, 1e-5, &d.block_kib}};
}
std::vector<ClassCoefficient> latent_decode_coefficients(LatentDecodeCoefficients& d) {
  return {{"memory", false, "share of the bandwidth a long latent stream reaches", 0.05, 1, &d.memory},
          {"floor", true, "time of a kernel at short contexts", 1e-8, 1e-3, &d.floor},
          {"compute", false, "share of the 16-bit peak its per-head arithmetic reaches", 1e-4, 1, &d.compute},
          {"per_head", true, "time a (sequence, query head): load the query, finish the softmax, write", 1e-9, 1e-6,
           &d.per_head},
          {"convert", false, "share of the 16-bit peak, in elements a second, an fp8 cache is converted at", 1e-5, 1,
           &d.convert}};
}
std::vector<ClassCoefficient> prefill_coefficients(PrefillAttentionCoefficients& p, bool windows) {
  std::vector<ClassCoefficient> list = {
      {"compute", false, "share of the 16-bit peak at long prompts", 0.05, 1, &p.compute},
      {"half_length", false, "keys' worth of per-token work a query does beside its products", 1, 1e6, &p.half_length},
      {"softmax", false, "scores a second as a share of the peak (the exponentials)", 1e-5, 1, &p.softmax},
      {"chain", false, "share of the peak one query tile's chain of key tiles gets", 1e-5, 1, &p.chain},
      {"launch", true, "fixed time a kernel", 1e-8, 1e-3, &p.launch},
      {"per_tile", true, "time a query tile (128 queries of one head): Q in, softmax finished, O out", 1e-9, 1e-5,
       &p.per_tile}};
  // Latent attention has no window: nothing measures the keys past one.
  if (windows) list.push_back({"window_keys", false, "keys past a window a query still computes (whole key blocks)", 1, 1e6,
                               &p.window_keys});
  return list;
}
std::vector<ClassCoefficient> recurrent_coefficients(RecurrentCoefficients& r) {
  return {{"compute", false, "share of the 16-bit peak its FLOPs reach, chunks padded", 1e-4, 1, &r.compute},
          {"memory", false, "share of the bandwidth its state and activations stream at", 0.05, 1, &r.memory},
          {"launch", true, "fixed time a layer: the convolution's and the delta rule's kernels", 1e-8, 1e-3, &r.launch},
          {"per_sequence", true, "time a sequence of the batch adds beyond its bytes", 1e-9, 1e-4, &r.per_sequence}};
}

}  // namespace

std::string_view at_bound(const ClassCoefficient& c) {
  // The fit clamps to the bounds exactly; a file rounds them to three digits.
  if (std::abs(*c.value - c.lowest) <= 1e-3 * c.lowest) return "lowest";
  if (std::abs(*c.value - c.highest) <= 1e-3 * c.highest) return "highest";
  return "";
}

std::vector<ClassCoefficient> coefficients_of(KernelClass c, KernelCoefficients& k) {
  switch (c) {
    case KernelClass::gemm:
      return {{"compute", false, "share of the 16-bit peak a large GEMM reaches", 0.05, 1, &k.gemm.compute},
              {"memory", false, "share of the bandwidth a skinny GEMM's weights stream at", 0.05, 1, &k.gemm.memory},
              {"overlap", false, "p in (c^p + m^p)^(1/p): 1 adds compute and memory, large is their max", 1, 20,
               &k.gemm.overlap},
              {"launch", true, "fixed time a kernel: ramp-up, tail, partial waves", 1e-8, 1e-4, &k.gemm.launch}};
    case KernelClass::gemm_fp8:
      return {{"compute", false, "share of the fp8 peak", 0.05, 1, &k.gemm_fp8.compute},
              {"scale", true, "fixed time of the activation-scale kernels", 1e-8, 1e-4, &k.gemm_fp8.scale}};
    case KernelClass::gemm_fp8_block:
      return {{"compute", false, "share of the fp8 peak on whole tiles (M padded to 64 rows, N to 128 columns)", 0.05, 1,
               &k.gemm_fp8_block.compute},
              {"chain", false, "share of the fp8 peak one output tile's walk along K gets (about one SM's)", 1e-3, 1,
               &k.gemm_fp8_block.chain},
              {"quantize", true, "fixed time of the activations' 1 x 128 quantization kernel", 1e-9, 1e-4,
               &k.gemm_fp8_block.quantize},
              {"quantize_memory", false, "share of the bandwidth the quantization's 3 bytes an activation stream at", 0.01, 1,
               &k.gemm_fp8_block.quantize_memory}};
    case KernelClass::decode_attention: return decode_coefficients(k.decode_attention);
    case KernelClass::prefill_attention: return prefill_coefficients(k.prefill_attention, true);
    case KernelClass::elementwise:
      return {{"memory", false, "share of the bandwidth", 0.05, 1, &k.elementwise.memory},
              {"launch", true, "fixed time a kernel", 1e-8, 1e-3, &k.elementwise.launch}};
    case KernelClass::all_reduce:
      return {{"latency", true, "time of a call at the smallest message", 1e-8, 1e-3, &k.all_reduce.latency},
              {"bus", false, "share of a GPU's link the one-shot kernel's reads of every peer's message reach", 0.01, 1,
               &k.all_reduce.bus},
              {"bus_two_shot", false, "share of a GPU's link the two-shot kernel's 2(k-1)/k of the message reaches", 0.01, 2,
               &k.all_reduce.bus_two_shot},
              {"two_shot", true, "time the two-shot kernel adds to a call", 1e-9, 1e-3, &k.all_reduce.two_shot}};
    case KernelClass::nccl_all_reduce:
      return {{"latency", true, "time of a call at the smallest message", 1e-8, 1e-3, &k.nccl_all_reduce.latency},
              {"bus", false, "share of a GPU's link a large message's bus bandwidth reaches", 0.01, 1,
               &k.nccl_all_reduce.bus}};
    case KernelClass::experts:
      return {{"memory", false, "share of the bandwidth the reached experts' weights and the activations stream at", 0.05, 1,
               &k.experts.memory},
              {"overlap", false, "p in (c^p + m^p)^(1/p) between the GEMMs' compute and the weights' stream", 1, 20,
               &k.experts.overlap},
              {"tile", false, "rows of the tile a reached expert's rows fill, half of it empty on average", 1, 512,
               &k.experts.tile},
              {"width", false, "an expert's columns on a GPU at which its GEMMs reach half their share", 1, 1e5,
               &k.experts.width},
              {"launch", true, "fixed time a layer: routing, permute, activation and finalize kernels", 1e-8, 1e-3,
               &k.experts.launch}};
    case KernelClass::experts_fp8:
      return {{"width", false, "an fp8 expert's columns on a GPU at which its GEMMs reach half their share", 1, 1e5,
               &k.experts_fp8.width}};
    case KernelClass::latent_decode: return latent_decode_coefficients(k.latent_decode);
    case KernelClass::latent_prefill: return prefill_coefficients(k.latent_prefill, false);
    case KernelClass::delta_net_decode: {
      // Its compute share is not fitted: a decode's state update does a few FLOPs a byte it
      // streams, and its FLOPs grow with its bytes in every row, so a GPU's own fit cannot tell a
      // compute share from the memory share; a free one fitted 0.006 on H100 and priced H200's
      // kernels 0.143 off (0.063 held to 1, arithmetic never binding).
      std::vector<ClassCoefficient> list = recurrent_coefficients(k.delta_net_decode);
      list.erase(list.begin());
      return list;
    }
    case KernelClass::delta_net_prefill: return recurrent_coefficients(k.delta_net_prefill);
  }
  return {};
}

}  // namespace roofline
