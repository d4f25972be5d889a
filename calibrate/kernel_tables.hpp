#pragma once
// The kernel tables a calibration writes (`calibrate --kernel-table DIR`): each kernel class's
// kernels timed over a grid and written as rows in the columns of NVIDIA's aiconfigurator tables
// (../shared/gpu-kernels/aiconfigurator/), which `fit --kernels` reads unchanged
// (io/kernel_table.hpp): a GEMM grid over M × N × K, attention at a few lengths (prefill and
// decode), and NCCL's all-reduce when the machine has more than one GPU.
#include <cstddef>
#include <string>
#include <vector>

#include "calibrate/calibration_device.hpp"

namespace roofline::calibrate {

enum class KernelGridSize {
  full,   // the tables to fit a GPU's classes on
  smoke,  // 16 GEMMs and two lengths of each attention: checks the path in a second, fits little
};

struct KernelGrid {
  std::vector<long> m, n, k;  // GEMMs: every M × N × K
  std::vector<AttentionShape> context, generation;
  std::vector<long> all_reduce;  // message sizes, in 16-bit elements
};

// A GPU's grid (`gpu`: M 1 … 4096 over N, K 1024 … 16384, Llama-3.1-8B's attention heads at 512 …
// 8192 tokens of prompt and 1k … 16k cached) or a CPU's (M 1 … 512 over N, K 512 … 4096: an
// H100's largest products would take the CPU minutes each; its attention and all-reduce are the
// smoke grid's), or either's smoke grid.
[[nodiscard]] KernelGrid kernel_grid(bool gpu, KernelGridSize size);

struct KernelTableFile {
  std::string kind;  // gemm, context_attention, generation_attention, nccl: the file's name ends _<kind>.csv
  std::string csv;   // the header and one row a kernel
  std::size_t rows = 0;
  std::string method;  // how its kernels ran and were timed
};

struct KernelTables {
  std::vector<KernelTableFile> files;
  std::vector<std::string> skipped;  // "context_attention: <why>"
};

// Times every kernel of the grid on the device, `repetitions` times each, and writes each table's
// rows with the median time. Throws std::runtime_error when a device returns a time that is not a
// finite positive number, or not one a kernel asked for.
[[nodiscard]] KernelTables measure_kernel_tables(CalibrationDevice& device, const KernelGrid& grid, int repetitions);

// The start of the tables' file names: the device's name from its description ("cuda: NVIDIA
// H100 80GB HBM3, 132 SMs, sm_90" → "nvidia-h100-80gb-hbm3"), lower case, words joined by '-' so
// that `fit --kernels` takes no GPU preset from it and asks for `--gpu`.
[[nodiscard]] std::string table_prefix(const std::string& description);

// The README.md written beside the tables: what was measured, on what, when, how, what was
// skipped and why, and the command that fits them.
[[nodiscard]] std::string tables_provenance(const KernelTables& t, const std::string& prefix, const std::string& device,
                                            const std::string& toolchain, const std::string& date, int repetitions,
                                            KernelGridSize size);

}  // namespace roofline::calibrate
