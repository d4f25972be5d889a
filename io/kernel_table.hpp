#pragma once
// Tables of kernel latencies measured on real GPUs, in the columns of ../shared/gpu-kernels/:
// NVIDIA's aiconfigurator tables (`<gpu>_gemm.csv`, `_generation_attention`, `_context_attention`,
// `_custom_allreduce`, `_nccl`, `_moe`, `_generation_mla`, `_context_mla`, `_gdn`; latency_us) and Vidur's
// profiles (`<gpu>_<model>_ops.csv`, one row a step with each operator's milliseconds; `<gpu>_<system>_all_reduce.csv`, median_ms). Each
// row becomes what its kernel asks of the GPU (FLOPs, bytes, shape: the same arithmetic the engine
// prices operators with) and the seconds it took. A table is recognised by its header.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hardware/kernel_classes.hpp"

namespace roofline::io {

struct KernelSample {
  KernelClass klass;
  KernelAsk ask;
  double seconds = 0;
  std::size_t line = 0;  // the row it came from (a Vidur row gives several samples)
  std::string_view column = "latency_us";  // the column its time came from (a Vidur row: each operator's)
};

// A row whose kernel an earlier row of the table measured already (every column but the times
// alike): Vidur's profiles time a few shapes twice, and both are fitted, said.
struct RepeatedRow {
  std::size_t line = 0, earlier = 0;
};

struct KernelTable {
  std::string path;
  std::string kind;  // gemm, generation_attention, context_attention, custom_allreduce, nccl, moe, mla, gdn, vidur_ops, vidur_all_reduce
  std::vector<KernelSample> samples;
  // Rows read but not fitted, counted by why (fp8_block experts, 4-bit experts, NCCL's
  // other collectives, all-reduces across nodes): said, never dropped silently.
  std::map<std::string, std::size_t> left_out;
  // Its GEMMs are float32 (a CPU's `calibrate --kernel-table`): measured against the fp32 peak,
  // not the 16-bit one; such a table holds no 16-bit GEMM.
  bool fp32_gemms = false;
  // Vidur's rows that repeat an earlier row's shape, each fitted as a measurement of its own. An
  // aiconfigurator table holds each kernel once (their GDN tables two rows a shape, a pair): a
  // repeat there is refused.
  std::vector<RepeatedRow> repeated;
  // The file's bytes, hashed: the same table under two names would count its kernels twice.
  std::size_t content_hash = 0;
  std::size_t content_bytes = 0;
};

// The table's samples, or an InputError at `path:line:` naming the column: a header that is no
// kernel table's, a header without rows (of every kind, fitted or not), a missing column, a cell
// that is not a finite positive number, a dtype it does not know, an aiconfigurator row that
// repeats an earlier row's kernel (naming that row's line). A cell quoted in a message shows a
// NUL byte as U+FFFD, as the terminal shows other control bytes.
[[nodiscard]] KernelTable read_kernel_table(const std::string& path);

// The GPU a table's file name gives: its first word before `_` (`h100_sxm_gemm.csv` → h100,
// `a100_Llama-2-7b-hf_ops.csv` → a100), or "" for a name without one.
[[nodiscard]] std::string gpu_of_table(const std::string& path);

}  // namespace roofline::io
