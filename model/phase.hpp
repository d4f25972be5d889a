#pragma once
// A phase is the sum of its operators, each timed on its own roofline: kernels run one after
// another, so the phase takes Σ max(compute, memory), not max(Σ compute, Σ memory).
#include <optional>
#include <vector>

#include "hardware/collectives.hpp"
#include "hardware/gpu_spec.hpp"
#include "model/operators.hpp"
#include "hardware/roofline.hpp"

namespace roofline {

struct OpResult {
  // Provided, not defaulted: a defaulted constructor makes emplace_back() zero all 296 bytes
  // before the members' own initialisers run (a `rep stos` an operator, some 7% of an evaluation's
  // time on this project's EPYC; docs/development.md).
  OpResult() noexcept {}  // NOLINT(modernize-use-equals-default)
  explicit OpResult(const OpCost& c) noexcept : cost(c) {}
  OpCost cost;
  Seconds compute_time;
  Seconds memory_time;
  Seconds time;
  Bound bound = Bound::memory;
  CollectiveCost comm{};  // a collective's cost of one call (the expected time prices its hops)
  [[nodiscard]] FlopsPerByte intensity() const { return cost.flops / cost.bytes; }
};

// A phase's expected time beside its bound (model/expected.hpp).
struct Expected {
  Seconds time;  // the central estimate
  Seconds low;   // 10th percentile of the time: no faster than the bound
  Seconds high;  // 90th percentile
  Regime regime = Regime::memory;
  double spread = 0;  // the log-normal spread of measured / expected in this regime
  // Where the central estimate goes: fixed costs (launches, per pass), all-reduces, compute terms
  // and memory streams, of which `dequant` is the unpacking of weight-only formats.
  Seconds overhead, comm, compute, memory, dequant;
  Seconds bound;  // the phase's roofline time, the floor of every quantile
  // The time a run beats with probability p: the central estimate at p = 0.5, `high` at 0.9.
  [[nodiscard]] Seconds quantile(double p) const;
};

struct PhaseResult {
  Flops flops;
  Bytes bytes;
  Bytes weight_bytes;    // the part of `bytes` that is weights
  Seconds compute_time;  // all FLOPs at peak (each operator's: arithmetic_peak)
  Seconds memory_time;   // all bytes at bandwidth
  Seconds comm_time;     // collectives on the interconnect and network
  Seconds time;          // Σ per-operator roofline time
  Bound bound;           // the largest of the three totals
  std::vector<OpResult> ops;
  Expected expected;     // beside the bound, never below it
  [[nodiscard]] FlopsPerByte intensity() const { return flops / bytes; }
};

// The peak an operator's arithmetic is bounded by: the fp8 one where its products may run in fp8
// and the GPU's is higher, else the compute format's.
[[nodiscard]] inline FlopsPerSecond arithmetic_peak(const OpCost& op, const Ceilings& c) {
  return op.fp8_arithmetic && c.peak_fp8 > c.peak ? c.peak_fp8 : c.peak;
}

// Collectives are timed on the GPU's interconnect (and network, for groups beyond its domain).
[[nodiscard]] PhaseResult evaluate_phase(const OpList& ops, const Ceilings& c, const std::optional<Interconnect>& link,
                                         const std::optional<Network>& network);
// The same of a phase whose `ops` hold their costs already (build_ops into the results): times
// each and sums the phase, replacing whatever else `r` held.
void time_phase(PhaseResult& r, const Ceilings& c, const std::optional<Interconnect>& link,
                const std::optional<Network>& network);

}  // namespace roofline
