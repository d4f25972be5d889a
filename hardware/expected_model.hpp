#pragma once
// How far real kernels fall short of the roofline, in a handful of physical coefficients. The
// roofline bound stays exactly what it is; these give an expected time beside it, and an interval
// whose width was measured on published runs (docs/expected-performance.md; `rooflineplan fit`).
//
// Operators of a kernel class (hardware/kernel_classes.hpp) are priced by it, plus `gap` a kernel;
// the others as follows. Per operator, with c its compute time and m = activation bytes/(memory·BW)
// + weight bytes/(memory·dequant·BW) its memory time:
//   t = max(bound, (c^p + m^p)^(1/p) + launches·launch),   p = overlap
// Per all-reduce call: max(bound, 2(tp−1)·hop_latency + 2(tp−1)/tp · buffer / link bandwidth).
// Per pass: Σ operators + step.
// With p = 1 (the published fit) compute and memory time add, which is what makes a skinny GEMM
// (decode's M = batch rows) reach only ~M/(M + ridge) of peak: no coefficient of its own. Where
// a kernel hides part of its memory stream under its arithmetic (a CPU core's prefetchers and
// out-of-order loads do; calibrate measures how much) p > 1; p → ∞ is the roofline's max.
// A GEMM's compute time is flops/(compute·P), except that its first skinny_rows rows run at
// skinny_compute of the peak: c = flops/M · (min(M, s)/(skinny_compute·P) + max(M − s, 0)/(compute·P)).
// Those are the rows a kernel handles one matrix-vector product at a time, each re-reading the
// weights from cache, or the first tile of a blocked GEMM that packs them; past them its tiles
// fill. (A shortfall of the form compute·M/(M + m½) cannot say this: added to the memory time it
// is 2·K·N·m½ FLOPs whatever M, the same as a lower `memory` for the weights.)
#include <string>

#include <optional>

#include "hardware/kernel_classes.hpp"
#include "hardware/quantity.hpp"
#include "hardware/roofline.hpp"

namespace roofline {

// What a weight-only format costs to unpack in the GEMM: none; one byte (int8, fp8 weights under
// a 16-bit compute format); under a byte (int4, fp4 and their group-scaled kin).
enum class Dequant { none, int8, int4 };

// Where a phase's expected time goes, which decides how wide its interval is.
// overhead: launches, the per-pass cost and all-reduces together ≥ 30% of it; compute: compute
// terms ≥ 20%; memory: the rest.
enum class Regime { memory, compute, overhead };

// What one operator asks of the machine.
struct KernelWork {
  Flops flops;
  Bytes activations;    // bytes other than weights (inputs, outputs, KV cache)
  Bytes weights;
  double rows = 0;      // a GEMM's M; 0: not a GEMM
  double launches = 0;  // kernels it runs as
  Dequant dequant = Dequant::none;
};

// Its expected time in three parts that add up: the combined time shared between compute and
// memory in proportion to their own times (under p = 1 exactly those times), and the launches.
struct KernelTime {
  Seconds compute, memory, fixed;
  [[nodiscard]] Seconds total() const { return compute + memory + fixed; }
};

struct ExpectedModel {
  double memory = 0.819;           // share of the bandwidth a long weight stream reaches
  double compute = 0.75;          // share of the peak a large GEMM reaches
  // Times in µs as the YAML reader scales "5.1 us" (5.1 × 1e-6), so that they print as written.
  Seconds launch{2.63 * 1e-6};     // per operator and layer not priced by a kernel class: launch gap, ramp-up and tail
  Seconds step{26.7 * 1e-6};       // per pass: sampling, scheduling, host synchronisation
  Seconds hop_latency{1.51 * 1e-6};  // per hop of a ring all-reduce: 2(tp−1) hops a call
  double dequant_int8 = 0.653;     // share of `memory` a weight-only int8 GEMM streams at
  double dequant_int4 = 0.786;     // the same for int4/fp4
  // The log-normal spread of measured / expected by regime: 10–90% is exp(±1.2816·spread).
  double spread_memory = 0.166;
  double spread_compute = 0.145;
  double spread_overhead = 0.111;
  // How a kernel's memory and compute times combine: (c^p + m^p)^(1/p). 1: they add, none hidden.
  double overlap = 1.0;
  // A GEMM's first skinny_rows rows compute at skinny_compute of the peak; 0 rows: none do.
  double skinny_rows = 0.0;
  double skinny_compute = 1.0;
  // `rooflineplan fit tests/data/measurements/training.csv` prints these values and writes this
  // line (tests/cli/test_fit.cpp checks that they agree).
  std::string source = "rooflineplan fit training.csv: 26 runs from 3 sources (pytorch-labs/gpt-fast, "
                       "NVIDIA/TensorRT-LLM, XiongjieDai/GPU-Benchmarks-on-LLM-Inference); leave-one-source-out "
                       "median abs log(measured/expected) 0.084, 92% within 25%, 10-90% coverage 81%";

  // Two layers of truth. The kernel classes, fitted to kernels measured on real GPUs (`fit
  // --kernels`), price the operators of their classes (GEMMs with Q/K/V and gate/up fused,
  // attention, norms and activations, the engine's all-reduce); the coefficients above price the
  // rest (weight-only dequantising GEMMs, grouped expert GEMMs, recurrences). What a serving
  // engine adds, `step` a pass and `gap` a class-priced kernel, is fitted to end-to-end runs.
  // Absent (a calibrated GPU: its ceilings are what kernels reach): every operator by the above.
  std::optional<KernelCoefficients> kernels = KernelCoefficients{};
  // The host's time between an engine's kernels, a class-priced kernel (0 under CUDA graphs; the
  // kernel tables were timed by graph replay, which hides it).
  Seconds gap{1.75 * 1e-6};

  [[nodiscard]] double dequant(Dequant d) const {
    return d == Dequant::int4 ? dequant_int4 : d == Dequant::int8 ? dequant_int8 : 1.0;
  }
  [[nodiscard]] double spread(Regime r) const {
    return r == Regime::compute ? spread_compute : r == Regime::overhead ? spread_overhead : spread_memory;
  }
  // One kernel's expected time, split; the caller keeps the larger of it and the kernel's bound.
  [[nodiscard]] KernelTime kernel_time(const KernelWork& w, const Ceilings& c) const;
};

[[nodiscard]] std::string_view name(Regime r);

}  // namespace roofline
