#pragma once
// How far each class of GPU kernel falls short of the roofline, in a few physical coefficients a
// class, fitted to kernels measured on real GPUs (`rooflineplan fit --kernels`, from NVIDIA's
// aiconfigurator tables and Vidur's operator profiles). Each class's time is a formula of what
// the kernel asks (FLOPs, bytes, shape) and the GPU's ceilings, so a GPU the tables never saw is
// priced from its own datasheet with the coefficients of its nearest class.
//
// The roofline bound is not touched: these are expected times beside it.
#include <string>
#include <string_view>
#include <vector>

#include "hardware/moe_kernel.hpp"
#include "hardware/overlap_norm.hpp"
#include "hardware/quantity.hpp"

namespace roofline {

// The kernel classes, in the order `fit --kernels` prints them.
enum class KernelClass {
  gemm,               // a 16-bit GEMM (bf16, fp16)
  gemm_fp8,           // an fp8 GEMM with per-tensor activation scales computed at run time
  gemm_fp8_block,     // an fp8 GEMM scaled in blocks: 128 × 128 of the weights, 1 × 128 of the activations
  decode_attention,   // one query a sequence against its cached keys and values
  prefill_attention,  // causal attention over a prompt (flash / FMHA)
  elementwise,        // norms, activations, residual adds: a stream through memory
  all_reduce,         // the all-reduce an engine runs in decode (TensorRT-LLM's custom kernel)
  nccl_all_reduce,    // NCCL's all-reduce (what PyTorch and prefill use)
  experts,            // a MoE layer's routed experts as one fused grouped GEMM, 16-bit (hardware/moe_kernel.hpp)
  experts_fp8,        // the same with fp8 weights and activations
  // Latent attention (DeepSeek's MLA, hardware/kernel_classes.cpp says what was measured): decode
  // over the cached latent (absorbed, one 576-wide KV head), prefill as multi-head attention of
  // 192-wide keys and 128-wide values. The decode and prefill attention formulas, their own numbers.
  latent_decode,
  latent_prefill,
  // A Gated DeltaNet layer's core: its causal convolution and its delta rule, one token a sequence
  // (decode) or a prompt's chunks (prefill).
  delta_net_decode,
  delta_net_prefill,
};
inline constexpr std::size_t kKernelClasses = 14;

// A class's name, as `fit --kernels` prints it and a GPU file's `expected.kernels.borrowed` lists
// it (constexpr: the GPU schema's words are checked against it at compile time).
[[nodiscard]] constexpr std::string_view name(KernelClass k) {
  switch (k) {
    case KernelClass::gemm: return "gemm";
    case KernelClass::gemm_fp8: return "gemm_fp8";
    case KernelClass::gemm_fp8_block: return "gemm_fp8_block";
    case KernelClass::decode_attention: return "decode_attention";
    case KernelClass::prefill_attention: return "prefill_attention";
    case KernelClass::elementwise: return "elementwise";
    case KernelClass::all_reduce: return "all_reduce";
    case KernelClass::nccl_all_reduce: return "nccl_all_reduce";
    case KernelClass::experts: return "experts";
    case KernelClass::experts_fp8: return "experts_fp8";
    case KernelClass::latent_decode: return "latent_decode";
    case KernelClass::latent_prefill: return "latent_prefill";
    case KernelClass::delta_net_decode: return "delta_net_decode";
    case KernelClass::delta_net_prefill: return "delta_net_prefill";
  }
  return "";
}
// Whether a class's arithmetic runs at the fp8 peak (the fp8 GEMMs and experts).
[[nodiscard]] bool on_fp8_peak(KernelClass k);

// What one kernel of a class asks of one GPU.
struct KernelAsk {
  double flops = 0;
  double bytes = 0;       // through memory (a collective: the message, per GPU)
  double rows = 0;        // a GEMM's M; an attention's queries a sequence (prefill) — its length
  double scale_bytes = 0; // fp8: the activations the scale kernels read and write
  int gpus = 1;           // a collective's group
  double heads = 0;       // attention: independent (sequence, query head) pairs
  double head_dim = 0;    // attention: each head's width
  // What a roofline counts, where the kernel does more (a windowed prefill computes whole tiles
  // the window half masks): its FLOPs; 0: `flops`. And the bytes that must come from memory
  // whatever the caches hold (weights, a KV cache): the rest may sit in L2 between kernels.
  double roofline_flops = 0;
  double stream_bytes = 0;
  double experts = 0;     // grouped experts: the distinct experts its rows reach (rows: the picks)
  double sequences = 0;   // a recurrent layer's sequences in the pass: each pays its own setup
  double width = 0;       // grouped experts: each expert's intermediate columns on this GPU; a block-scaled GEMM: its N
  double window = 0;      // prefill attention: the keys a query sees at most (0: all before it); `flops` are its own pairs'
  // Decode attention: (sequence, KV head) pairs (0: one a query head, as multi-head attention),
  // the keys a sequence reads, and the bytes of a cached element (1: an fp8 cache, which the
  // kernels read through another path; 0 or 2: 16-bit).
  // The tokens a sequence holds (`keys` under no window): a windowed kernel still splits the
  // whole sequence into blocks, most of them past the window with nothing to read.
  double kv_heads = 0;
  double keys = 0;
  double context = 0;
  double kv_bytes = 0;
  // Latent decode over an fp8 cache (kv_bytes 1): the cached elements it converts.
  double converted = 0;
};

// The ceilings a class is measured against: the 16-bit or fp8 peak, memory bandwidth, and the
// bandwidth of one GPU's link into the group (NVLink).
struct KernelCeilings {
  double peak = 0, peak_fp8 = 0, bandwidth = 0, link = 0;
};

struct GemmCoefficients {
  double compute = 0.74;   // share of the peak a large GEMM reaches
  double memory = 0.808;   // share of the bandwidth a skinny GEMM's weight stream reaches
  double overlap = 1.94;   // p of overlap_norm: compute and memory overlap partly (1: add, ∞: max)
  double launch = 3.04 * 1e-6;  // s a kernel: ramp-up, tail, wave quantisation on average
};
struct Fp8Coefficients {
  double compute = 0.696;  // share of the fp8 peak
  double scale = 9.91 * 1e-6;  // s: the activation-scale kernels' fixed cost (their bytes stream at GEMM memory)
};
// A block-scaled fp8 GEMM (DeepSeek-V3's format; TensorRT-LLM's fp8 block-scale GEMM, as DeepGEMM
// runs it): the activations are first quantized in groups of 128 along K (a kernel reading them at
// 16 bits and writing them at 8: 3·M·K bytes), then each output tile of kBlockTileRows × kBlockTileCols
// walks K on one SM, applying each block's scales in its main loop. There is no split along K, so
// where few tiles cover the output (small M × N) one tile's walk sets the time: at M = 1, N = 128 on
// H100 it grows by 1.05 ns an element of K, to 74 us at K = 65536, where the bytes alone take 2.5 us.
inline constexpr double kBlockTileRows = 64, kBlockTileCols = 128;
struct Fp8BlockCoefficients {
  double compute = 0.565;      // share of the fp8 peak on whole tiles (M and N padded to the tile)
  double chain = 0.00815;      // share of the fp8 peak one tile's walk along K gets (≈ one SM's: 1/132 is 0.0076)
  double quantize = 1.52 * 1e-6;  // s: the activations' quantization kernel beyond the GEMM's launch
  double quantize_memory = 0.403;  // share of the bandwidth its 3·M·K bytes stream at
};
// Decode attention as TensorRT-LLM runs it (its XQA kernel; docs/expected-performance.md). A work
// item is one sequence's queries on one KV head: the grouped kernel takes a KV head's query heads
// together, the one-head kernel (multi-head attention, a group of one; and the fallback for groups
// of kFallbackGroup or more) a query head alone. A long sequence is split into blocks of keys
// until the GPU has enough of them (past 8 blocks, only √(8 · keys / block_keys), XQA's cap that
// keeps the final reduction small), each block paying a fixed time, which overlaps the KV stream,
// and streaming no faster than one block's bytes in flight allow; a combine of the blocks'
// partial results raises the floor, and the floor (one block's latency) overlaps the rest. Not
// additive over sequences: a batch's blocks fill the GPU together (serve/step_cost.cpp prices a
// step's decode queries as one batch for it).
inline constexpr double kFallbackGroup = 48;
struct DecodeAttentionCoefficients {
  double memory = 0.877;       // share of the bandwidth a KV stream reaches (16-bit, or fp8 in the one-head kernel), the GPU full of items
  double memory_fp8 = 0.899;   // the same of an fp8 cache in the grouped kernel (Hopper's fp8 MMA path)
  double floor = 8.74 * 1e-6;      // s: a kernel at the shortest contexts
  double floor_fp8 = 6.33 * 1e-6;  // s: the grouped kernel's over an fp8 cache
  double combine = 5.48 * 1e-6;     // s the floor grows by at long contexts: the blocks' partial results combined
  double combine_keys = 464;       // keys a sequence at which half of `combine` is paid
  double compute = 0.103;          // share of the 16-bit peak the grouped kernel's arithmetic reaches
  double compute_fallback = 0.00657;  // the fallback's share: groups of kFallbackGroup or more a KV head
  // Share of the 16-bit peak, in elements a second, the one-head kernel converts an fp8 cache to
  // 16 bits at on the CUDA cores (the same on H100 and H200: on H200 the conversion, not the
  // stream, sets its pace).
  double convert = 0.00329;
  double per_item = 0.0101 * 1e-6;   // s a block: its queries loaded, its softmax finished, written
  double per_item_group = 0.027 * 1e-6;  // s a block of the grouped kernel over a 16-bit cache
  // s a block of the 16-bit grouped kernel adds for each 128 elements of a head's width: its
  // accumulator's rows rescaled and written through the MMA fragments.
  double per_width = 0.00921 * 1e-6;
  // s a grouped block adds for a KiB of its queries (group × head_dim, 16-bit): the queries
  // loaded and scaled, the output and the partial results written.
  double query_kib = 0.00188 * 1e-6;
  double overlap = 1.34;           // p between the blocks' fixed time and the stream (1: add, ∞: max)
  double floor_overlap = 1.45;     // p between the floor (one block's latency) and the rest
  double block_keys = 138;         // keys a block of a split sequence takes
  double blocks_target = 872;      // blocks the kernel splits sequences into to fill the GPU
  // s one block takes a KiB of its keys and values, alone: its bytes in flight over the memory's
  // latency (Little's law), so few blocks do not reach the bandwidth's share.
  double block_kib = 0.0386 * 1e-6;
};
// Latent attention's decode (FlashMLA over one cached latent a sequence): a bandwidth share, a
// floor, the arithmetic's share and a time a (sequence, query head); over an fp8 cache, each
// cached element converted to 16 bits on the CUDA cores, at a share of the peak (the same on H100
// and H200, so on H200's wider memory the conversion, not the stream, sets an fp8 cache's pace).
struct LatentDecodeCoefficients {
  double memory = 0.9;     // share of the bandwidth a long latent stream reaches
  double floor = 13.8 * 1e-6;  // s: a kernel's floor at short contexts (launch, split-K combine)
  double compute = 1;      // share of the 16-bit peak its arithmetic reaches
  double per_head = 0.0012 * 1e-6;  // s a (sequence, query head): query loaded, softmax finished, output written
  double convert = 0.00589;  // share of the 16-bit peak, in elements a second, an fp8 cache is converted at
};
struct PrefillAttentionCoefficients {
  double compute = 1;         // share of the 16-bit peak its two products reach
  double half_length = 742;   // prompt tokens of per-token work (loading Q, writing O, rescaling rows) a query
  double softmax = 0.00374;     // scores a second, as a share of the peak: the exponentials run on the SFUs
  double chain = 0.00238;       // share of the peak one query tile's chain of key tiles gets (≈ one SM's)
  double launch = 15.3 * 1e-6;    // s a kernel
  // s a query tile (128 queries of one head): its Q loaded, its rows' softmax finished, its O
  // written. At short prompts and large batches it outweighs the products.
  double per_tile = 0.0246 * 1e-6;
  // Keys past a window that a query still computes: the kernel skips only whole blocks of keys
  // outside it (fitted ≈ 890 at window 128, against the 128 of one key tile).
  double window_keys = 887;
};
// A recurrent layer's core (convolution and state update): compute and memory overlapped as a
// GEMM's, a fixed cost a layer, and a cost a sequence.
struct RecurrentCoefficients {
  double compute = 0.05;   // share of the 16-bit peak its FLOPs (chunks padded) reach
  double memory = 0.6;     // share of the bandwidth its state and activations stream at
  double launch = 8 * 1e-6;     // s a layer: the kernels' launches and their shortest run
  double per_sequence = 0.01 * 1e-6;  // s a sequence: its own blocks' setup and its state's first tile
};
struct ElementwiseCoefficients {
  double memory = 0.491;   // share of the bandwidth
  double launch = 2.67 * 1e-6;  // s a kernel
};
// NCCL's all-reduce: a latency and a ring's 2(k − 1)/k of the message through each GPU's link.
struct CollectiveCoefficients {
  double latency = 30.5 * 1e-6;  // s a call at the smallest message
  double bus = 0.614;      // share of one GPU's link a large message's bus bandwidth reaches
};
// The all-reduce an engine runs inside an NVLink domain (TensorRT-LLM's custom kernel), two
// algorithms, the faster taken: one-shot, each GPU reading every peer's whole message ((k − 1)
// messages through its link, one step), for small messages; two-shot (reduce-scatter then
// all-gather, 2(k − 1)/k of it, at a cost of its own) past them. One formula of a ring's bytes
// was 0.40 to 1.04 in the log too fast at 8 GPUs and 128 to 512 k elements, where one-shot reads
// 4× a ring's bytes (docs/expected-performance.md).
struct AllReduceCoefficients {
  double latency = 2.91 * 1e-6;   // s a call at the smallest message
  double bus = 0.633;             // share of one GPU's link the one-shot kernel's reads reach
  double bus_two_shot = 0.768;    // share the two-shot kernel's 2(k − 1)/k of the message reaches (above 1: the switch reduces, NVLS)
  double two_shot = 22.7 * 1e-6;  // s the two-shot kernel adds to a call (its second pass's launch and barrier)
};
// The engine's all-reduce's transfer beyond its latency, in seconds: `ring` is a ring's
// 2(k − 1)/k of the message at the link's bandwidth, `gpus` the group's k.
[[nodiscard]] double all_reduce_transfer(const AllReduceCoefficients& x, double ring, double gpus);


// Times are written as the YAML reader scales "3 us" (3 × 1e-6), so that they print as written.
struct KernelCoefficients {
  GemmCoefficients gemm;
  Fp8Coefficients gemm_fp8;
  Fp8BlockCoefficients gemm_fp8_block;
  DecodeAttentionCoefficients decode_attention;
  PrefillAttentionCoefficients prefill_attention;
  ElementwiseCoefficients elementwise;
  AllReduceCoefficients all_reduce;
  CollectiveCoefficients nccl_all_reduce;
  ExpertsCoefficients experts;
  ExpertsFp8Coefficients experts_fp8;
  // Latent attention and Gated DeltaNet: fitted on H100 and H200 together (the only GPUs their
  // tables have); docs/expected-performance.md.
  LatentDecodeCoefficients latent_decode;
  PrefillAttentionCoefficients latent_prefill{1, 719, 0.00271, 0.00257, 16.6 * 1e-6, 0.0223 * 1e-6, 0};
  RecurrentCoefficients delta_net_decode{1, 0.584, 7.12 * 1e-6, 0.0125 * 1e-6};
  RecurrentCoefficients delta_net_prefill{0.0712, 1, 19.7 * 1e-6, 0.946 * 1e-6};
  // Fitted on this GPU's own kernel tables (`fit --kernels --for` it writes true); false: borrowed
  // from other GPUs', as these defaults are (every GPU's tables together) for any GPU that takes
  // them, and every output says so (ExpectedBorrowed).
  bool own_tables = false;
  // With own_tables: the classes this GPU's tables did not measure (`fit --kernels --for` lists
  // them), priced with other GPUs' coefficients or the shipped defaults, which a warning names.
  // Every GPU's fit fitted them under its own GEMM (the shipped `gemm`), so they are priced under
  // it: its overlap p for attention and DeltaNet, its memory, overlap and launch for the fp8
  // GEMMs, its compute for the experts; never this GPU's own `gemm`.
  std::vector<KernelClass> borrowed;
  // Where the numbers come from (`fit --kernels` writes it): the tables and their residuals. The
  // defaults are every GPU's kernels of ../shared/gpu-kernels/ together, what a GPU the tables
  // never saw is priced with (`rooflineplan fit --kernels` on them; docs/expected-performance.md).
  std::string source = "rooflineplan fit --kernels on 35 tables, every GPU's kernels together (h100-sxm, h200, "
                       "a100-80gb): gemm 0.085, gemm_fp8 0.051, gemm_fp8_block 0.079, decode_attention 0.097, "
                       "prefill_attention 0.088, elementwise 0.268, all_reduce 0.063, nccl_all_reduce 0.210, experts "
                       "0.091, experts_fp8 0.100, latent_decode 0.075, latent_prefill 0.093, delta_net_decode 0.031, "
                       "delta_net_prefill 0.074 (median abs log in-sample); stopped at an end of its physical range: "
                       "prefill_attention.compute, latent_decode.compute, latent_prefill.compute, "
                       "delta_net_prefill.memory";

  // One kernel's expected time in seconds, and split: the part shared between compute and memory
  // in proportion to their own times, and the fixed part (launch, floor, latency).
  [[nodiscard]] double time(KernelClass k, const KernelAsk& a, const KernelCeilings& c) const {
    return split(k, a, c).total();
  }
  struct Split {
    double compute = 0, memory = 0, fixed = 0;
    [[nodiscard]] double total() const { return compute + memory + fixed; }
  };
  [[nodiscard]] Split split(KernelClass k, const KernelAsk& a, const KernelCeilings& c) const;
};

// A class's coefficients as the fit moves them and the YAML block names them: its key, what it
// means, the physical bounds no fit crosses, and where it lives in a KernelCoefficients. Times
// are in seconds here; printed and written in µs.
struct ClassCoefficient {
  std::string_view key;
  bool time;
  std::string_view meaning;
  double lowest, highest;
  double* value;
};
[[nodiscard]] std::vector<ClassCoefficient> coefficients_of(KernelClass c, KernelCoefficients& k);
// Where a fit left a coefficient at one of its bounds ("lowest", "highest"; empty: inside them):
// the tables did not pin it, and the fit stopped at the edge of what is physical.
[[nodiscard]] std::string_view at_bound(const ClassCoefficient& c);

}  // namespace roofline
