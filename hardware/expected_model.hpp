#pragma once
// How far real kernels fall short of the roofline, in a handful of physical coefficients. The
// roofline bound stays exactly what it is; these give an expected time beside it, and an interval
// whose width was measured on published runs (README, "Expected performance"; `rooflineplan fit`).
//
// Per operator: t = max(bound, flops/(compute·P) + activation bytes/(memory·BW)
//                              + weight bytes/(memory·dequant·BW) + launches·launch)
// Per all-reduce call: max(bound, 2(tp−1)·hop_latency + 2(tp−1)/tp · buffer / link bandwidth).
// Per pass: Σ operators + step.
// Adding compute and memory time, rather than taking the larger, is what makes a skinny GEMM
// (decode's M = batch rows) reach only ~M/(M + m½) of peak, with m½ the ridge point in rows: no
// coefficient of its own.
#include <string>

#include "hardware/quantity.hpp"

namespace roofline {

// What a weight-only format costs to unpack in the GEMM: none; one byte (int8, fp8 weights under
// a 16-bit compute format); under a byte (int4, fp4 and their group-scaled kin).
enum class Dequant { none, int8, int4 };

// Where a phase's expected time goes, which decides how wide its interval is.
// overhead: launches, the per-pass cost and all-reduces together ≥ 30% of it; compute: compute
// terms ≥ 20%; memory: the rest.
enum class Regime { memory, compute, overhead };

struct ExpectedModel {
  double memory = 0.856;           // share of the bandwidth a long weight stream reaches
  double compute = 0.741;          // share of the peak a large GEMM reaches
  // Times in µs as the YAML reader scales "5.1 us" (5.1 × 1e-6), so that they print as written.
  Seconds launch{5.1 * 1e-6};      // per operator and layer: launch gap, ramp-up and tail
  Seconds step{0};                 // per pass: sampling, scheduling, host synchronisation
  Seconds hop_latency{0.673 * 1e-6};  // per hop of a ring all-reduce: 2(tp−1) hops a call
  double dequant_int8 = 0.674;     // share of `memory` a weight-only int8 GEMM streams at
  double dequant_int4 = 0.814;     // the same for int4/fp4
  // The log-normal spread of measured / expected by regime: 10–90% is exp(±1.2816·spread).
  double spread_memory = 0.144;
  double spread_compute = 0.158;
  double spread_overhead = 0.256;
  // `rooflineplan fit tests/data/measurements/training.csv` prints these values and writes this
  // line (tests/cli/test_fit.cpp checks that they agree).
  std::string source = "rooflineplan fit training.csv: 26 runs from 3 sources (pytorch-labs/gpt-fast, "
                       "NVIDIA/TensorRT-LLM, XiongjieDai/GPU-Benchmarks-on-LLM-Inference); leave-one-source-out "
                       "median abs log(measured/expected) 0.100, 81% within 25%, 10-90% coverage 81%";

  [[nodiscard]] double dequant(Dequant d) const {
    return d == Dequant::int4 ? dequant_int4 : d == Dequant::int8 ? dequant_int8 : 1.0;
  }
  [[nodiscard]] double spread(Regime r) const {
    return r == Regime::compute ? spread_compute : r == Regime::overhead ? spread_overhead : spread_memory;
  }
};

[[nodiscard]] std::string_view name(Regime r);

}  // namespace roofline
