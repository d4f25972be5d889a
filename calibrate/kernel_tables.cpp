#include "calibrate/kernel_tables.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cmath>
#include <stdexcept>

#include "calibrate/measurement.hpp"

namespace roofline::calibrate {

namespace {

// The heads of Llama-3.1-8B (32 query heads over 8 KV heads of 128): the most common shape of a
// dense model's attention, grouped 4 to 1 as most now are.
constexpr long kHeads = 32, kKvHeads = 8, kHeadDim = 128;

// The dtype names of aiconfigurator's tables, which io/kernel_table.cpp reads; fp32 is the CPU's
// (its GEMMs are then measured against the fp32 peak).
std::string table_dtype(DType t) {
  switch (t) {
    case DType::fp16:
      return "float16";
    case DType::bf16:
      return "bfloat16";
    case DType::fp32:
      return "float32";
    default:
      throw std::runtime_error(fmt::format("kernel tables: no table dtype for {}", name(t)));
  }
}

// The median of a kernel's repetitions, in µs, once each is checked: a table holds no time a
// timer did not give.
double median_us(const KernelSeconds& s, const std::string& what) {
  if (s.empty()) throw std::runtime_error(fmt::format("kernel tables: {}: no timed repetition", what));
  for (double x : s) {
    if (!std::isfinite(x) || !(x > 0)) {
      throw std::runtime_error(fmt::format("kernel tables: {}: a repetition took {} s, not a positive time", what, x));
    }
  }
  return median_of(s) * 1e6;
}

void require_count(std::size_t got, std::size_t asked, const std::string& what) {
  if (got != asked) {
    throw std::runtime_error(fmt::format("kernel tables: {}: the device timed {} kernels of the {} asked for", what, got, asked));
  }
}

}  // namespace

KernelGrid kernel_grid(bool gpu, KernelGridSize size) {
  KernelGrid g;
  if (size == KernelGridSize::smoke) {
    // Four kernels a GEMM coefficient (model/kernel_fit.hpp): 16 GEMMs are the fewest it fits.
    g.m = {1, 8, 64, 256};
    g.n = {128, 512};
    g.k = {128, 512};
    for (long n : {128L, 256L}) g.context.push_back({1, 4, 2, 64, n});
    for (long b : {1L, 4L}) g.generation.push_back({b, 4, 2, 64, 256});
    g.all_reduce = {1L << 10, 1L << 16};
    return g;
  }
  if (gpu) {
    // 80 GEMMs from decode's matrix-vector products to compute-bound prefill, over the weights of
    // 8B to 70B models; the largest (4096 × 16384 × 16384) takes ~3 ms on an H100.
    g.m = {1, 8, 64, 512, 4096};
    g.n = g.k = {1024, 4096, 8192, 16384};
    // Prompts of 512 … 8192 tokens, at most 16384 tokens a batch: the unfused kernel
    // (calibrate/cuda/) writes its scores, batch × 32 heads × length² × 2 bytes (4.3 GB at 8192).
    for (long n : {512L, 1024L, 2048L, 4096L, 8192L}) g.context.push_back({1, kHeads, kKvHeads, kHeadDim, n});
    for (long n : {512L, 1024L, 2048L, 4096L}) g.context.push_back({4, kHeads, kKvHeads, kHeadDim, n});
    for (long n : {512L, 1024L}) g.context.push_back({16, kHeads, kKvHeads, kHeadDim, n});
    // Decode at batch 1 … 128 over 1k … 16k keys: a KV cache of 4 MB … 8.6 GB.
    for (long b : {1L, 8L, 32L, 128L}) {
      for (long keys : {1024L, 4096L, 16384L}) g.generation.push_back({b, kHeads, kKvHeads, kHeadDim, keys});
    }
    // 2 KiB … 32 MiB messages: decode's all-reduces (a batch's hidden states) up to prefill's.
    g.all_reduce = {1L << 10, 1L << 13, 1L << 16, 1L << 18, 1L << 20, 1L << 22, 1L << 24};
    return g;
  }
  g.m = {1, 8, 64, 512};
  g.n = g.k = {512, 1024, 2048, 4096};
  // Asked for all the same, so that a backend without them says so (the CPU's does).
  const KernelGrid smoke = kernel_grid(false, KernelGridSize::smoke);
  g.context = smoke.context;
  g.generation = smoke.generation;
  g.all_reduce = smoke.all_reduce;
  return g;
}

KernelTables measure_kernel_tables(CalibrationDevice& device, const KernelGrid& grid, int repetitions) {
  KernelTables t;
  const std::string dtype = table_dtype(device.gemm_dtype());

  std::vector<GemmShape> gemms;
  for (long m : grid.m) {
    for (long n : grid.n) {
      for (long k : grid.k) gemms.push_back({m, k, n, 1});  // [m × k] · [k × n]
    }
  }
  if (!gemms.empty()) {
    const auto seconds = device.time_gemms(gemms, repetitions);
    require_count(seconds.size(), gemms.size(), "gemm");
    KernelTableFile f{"gemm", "gemm_dtype,m,n,k,latency_us\n", gemms.size(), device.gemm_method()};
    for (std::size_t i = 0; i < gemms.size(); ++i) {
      const GemmShape& s = gemms[i];
      f.csv += fmt::format("{},{},{},{},{:.6g}\n", dtype, s.rows, s.out, s.in,
                           median_us(seconds[i], fmt::format("the GEMM {} × {} × {}", s.rows, s.out, s.in)));
    }
    t.files.push_back(std::move(f));
  }

  // Attention in fp16, over an fp16 KV cache, with no window: the columns aiconfigurator gives.
  for (const bool prefill : {true, false}) {
    const std::string kind = prefill ? "context_attention" : "generation_attention";
    const std::vector<AttentionShape>& shapes = prefill ? grid.context : grid.generation;
    if (shapes.empty()) continue;
    const auto seconds = device.time_attention(shapes, prefill, repetitions);
    if (seconds.empty()) {
      t.skipped.push_back(fmt::format("{}: {}", kind, device.attention_method()));
      continue;
    }
    require_count(seconds.size(), shapes.size(), kind);
    KernelTableFile f{kind,
                      prefill ? "batch_size,isl,num_heads,num_key_value_heads,head_dim,window_size,attn_dtype,"
                                "kv_cache_dtype,latency_us\n"
                              : "batch_size,num_heads,num_key_value_heads,head_dim,window_size,attn_dtype,"
                                "kv_cache_dtype,step,latency_us\n",
                      shapes.size(), device.attention_method()};
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const AttentionShape& s = shapes[i];
      const double us = median_us(seconds[i], fmt::format("{} at batch {}, length {}", kind, s.batch, s.length));
      // A decode row's `step` is the tokens already cached: the query sees those and itself.
      f.csv += prefill ? fmt::format("{},{},{},{},{},0,float16,float16,{:.6g}\n", s.batch, s.length, s.heads,
                                     s.kv_heads, s.head_dim, us)
                       : fmt::format("{},{},{},{},0,float16,float16,{},{:.6g}\n", s.batch, s.heads, s.kv_heads,
                                     s.head_dim, s.length - 1, us);
    }
    t.files.push_back(std::move(f));
  }

  const int gpus = device.device_count();
  if (grid.all_reduce.empty()) return t;
  if (gpus < 2) {
    t.skipped.push_back(fmt::format("nccl (all-reduce): {} device here; an all-reduce needs two or more", gpus));
  } else {
    const auto seconds = device.time_all_reduce(grid.all_reduce, repetitions);
    if (seconds.empty()) {
      t.skipped.push_back(fmt::format("nccl (all-reduce): {}", device.all_reduce_method()));
    } else {
      require_count(seconds.size(), grid.all_reduce.size(), "all_reduce");
      KernelTableFile f{"nccl", "op_name,nccl_dtype,num_gpus,message_size,latency_us\n", grid.all_reduce.size(),
                        device.all_reduce_method()};
      for (std::size_t i = 0; i < grid.all_reduce.size(); ++i) {
        f.csv += fmt::format("all_reduce,half,{},{},{:.6g}\n", gpus, grid.all_reduce[i],
                             median_us(seconds[i], fmt::format("the all-reduce of {} elements", grid.all_reduce[i])));
      }
      t.files.push_back(std::move(f));
    }
  }
  return t;
}

std::string table_prefix(const std::string& description) {
  const std::size_t colon = description.find(": ");
  const std::size_t from = colon == std::string::npos ? 0 : colon + 2;
  const std::string name = description.substr(from, description.find(',', from) - from);
  std::string slug;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "device" : slug;
}

std::string tables_provenance(const KernelTables& t, const std::string& prefix, const std::string& device,
                              const std::string& toolchain, const std::string& date, int repetitions,
                              KernelGridSize size) {
  std::string s = fmt::format(
      "# Kernel tables measured by rooflineplan calibrate\n\n"
      "- device: {}\n- toolchain: {}\n- date: {}\n- grid: {}; each kernel timed {} times, the median written "
      "(latency_us)\n\n"
      "In the columns of NVIDIA's aiconfigurator tables (../shared/gpu-kernels/aiconfigurator/), which "
      "`rooflineplan fit --kernels` reads.\n\n",
      device, toolchain, date, size == KernelGridSize::smoke ? "smoke (checks the path; too few kernels to fit every class)" : "full",
      repetitions);
  for (const KernelTableFile& f : t.files) s += fmt::format("- `{}_{}.csv`: {} kernels. {}\n", prefix, f.kind, f.rows, f.method);
  for (const std::string& why : t.skipped) s += fmt::format("- skipped: {}\n", why);
  s += fmt::format("\nFit them against the description of the GPU they ran on (its datasheet or its calibration):\n\n"
                   "    rooflineplan fit --kernels {}_*.csv --gpu GPU.yaml\n",
                   prefix);
  return s;
}

}  // namespace roofline::calibrate
