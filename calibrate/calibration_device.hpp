#pragma once
// One interface over the machines we can measure (after BabelStream's Stream<T>): each backend
// measures memory bandwidth, peak FMA throughput and a practical GEMM ceiling, and runs a
// synthetic step of matrix products shaped like a model's, so that predictions can be checked
// against measurements. Backends: cpu/ (threads + Eigen, everywhere, in the main binary) and
// cuda/ (a plugin built when nvcc exists, loaded only when asked for: plugin_abi.hpp). This header
// is compiled by nvcc too, so it stays within C++17.
#include <memory>
#include <string>
#include <vector>

#include "hardware/dtype.hpp"
#include "calibrate/measurement.hpp"

namespace roofline::calibrate {

// [rows × in] · [in × out], `count` independent times (layers), one after another.
struct GemmShape {
  long rows = 0, in = 0, out = 0, count = 1;
};

// One attention kernel of a kernel table: `batch` sequences, each of `heads` query heads over
// `kv_heads` key/value heads of `head_dim`; over `length` tokens: a causal prompt of that many
// (prefill, the table's `isl`), or one new query against that many keys (decode: `step` + 1, the
// cached tokens and its own).
struct AttentionShape {
  long batch = 1, heads = 1, kv_heads = 1, head_dim = 128, length = 1;
};

// The seconds of each timed repetition of one kernel of a table (a launch: the repetition's
// time over the launches it replays).
using KernelSeconds = std::vector<double>;

// Timed runs a kernel or point may be asked for (calibrate and validate's --repetitions).
inline constexpr int kMostRepetitions = 1000;

struct CalibrationOptions {
  int repetitions = 10;
  std::size_t stream_bytes = std::size_t{256} << 20;  // per array; far beyond any last-level cache
};

class CalibrationDevice {
 public:
  virtual ~CalibrationDevice() = default;
  [[nodiscard]] virtual std::string description() const = 0;  // "cpu: <model>, 2 threads"
  [[nodiscard]] virtual std::string toolchain() const = 0;
  // The format its GEMMs and synthetic steps compute in (fp32 on a CPU, fp16 on a GPU).
  [[nodiscard]] virtual DType gemm_dtype() const = 0;

  // STREAM copy (c = a, 2 arrays moved) and triad (a = b + s·c, 3 arrays), verified.
  virtual Measurement copy(const CalibrationOptions& o) = 0;
  virtual Measurement triad(const CalibrationOptions& o) = 0;
  // A read-only sum over one array (BabelStream's dot without the second array): the traffic of
  // a decode step, which reads weights and KV and writes almost nothing.
  virtual Measurement read(const CalibrationOptions& o) = 0;
  // Peak fp32 FMA throughput from many independent chains, verified against the closed form.
  virtual Measurement fma_peak(const CalibrationOptions& o) = 0;
  // Practical matrix-multiply ceilings (one per format the backend runs), verified.
  virtual std::vector<Measurement> gemm(const CalibrationOptions& o) = 0;

  // Runs the products one after another, as a model's kernels run, and returns the seconds of
  // each repetition. Operands are allocated once per call and the results spot-checked.
  virtual std::vector<double> run_step(const std::vector<GemmShape>& shapes, int repetitions) = 0;

  // The kernel tables (`calibrate --kernel-table`, calibrate/kernel_tables.hpp): each kernel
  // timed alone, `repetitions` times, its result checked, its weights (a GEMM's, a KV cache)
  // rotated through copies so that they come from memory as a model's layers' do.
  // A product [rows × in] · [in × out] in gemm_dtype() (`count` is not used).
  virtual std::vector<KernelSeconds> time_gemms(const std::vector<GemmShape>& shapes, int repetitions) = 0;
  // Attention in the 16-bit format; an empty result when the backend has no attention kernel
  // (the table is then skipped, with attention_method()'s reason).
  virtual std::vector<KernelSeconds> time_attention(const std::vector<AttentionShape>& shapes, bool prefill,
                                                    int repetitions) = 0;
  // How many devices an all-reduce spans (1: none is timed), and one over all of them of each
  // message size in 16-bit elements; empty when the backend cannot (all_reduce_method() says why).
  [[nodiscard]] virtual int device_count() const = 0;
  virtual std::vector<KernelSeconds> time_all_reduce(const std::vector<long>& elements, int repetitions) = 0;
  // How each table's kernels were run and timed, for the tables' provenance (README.md beside
  // them): the library, the timer, what is not what engines run.
  [[nodiscard]] virtual std::string gemm_method() const = 0;
  [[nodiscard]] virtual std::string attention_method() const = 0;
  [[nodiscard]] virtual std::string all_reduce_method() const = 0;
};

// The names `--device` accepts: "cpu", "cuda".
[[nodiscard]] std::vector<std::string> device_kinds();

// The backend of that name. Throws std::invalid_argument naming `--device <kind>` and why there
// is none: an unknown name, a plugin not built or not found, one that fails to load (the dynamic
// loader's reason), or a backend that finds no device ("no CUDA device: ...").
[[nodiscard]] std::unique_ptr<CalibrationDevice> open_device(const std::string& kind);

}  // namespace roofline::calibrate
