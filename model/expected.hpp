#pragma once
// The expected time of a phase beside its roofline bound: the bound's own per-operator
// quantities, priced with the GPU's ExpectedModel (hardware/expected_model.hpp), and a 10–90%
// interval from the spread measured on published runs in the phase's regime. Never below the
// bound: each operator's expected time is at least its bound time.
#include <optional>
#include <vector>

#include "hardware/expected_model.hpp"
#include "hardware/gpu_spec.hpp"
#include "model/phase.hpp"

namespace roofline {

// Φ⁻¹(0.9), written out: a log-normal spread s gives 10–90% at exp(±kZ90·s). The interval is
// priced at every point; the bisection below only by `plan` at other quantiles.
inline constexpr double kZ90 = 1.2815515655446004;

// z of the standard normal's p-th quantile: Φ⁻¹(p), 1.2816 at 0.9.
[[nodiscard]] double normal_quantile(double p);

// A phase's regime from the shares of its expected time: fixed costs (launches, per pass,
// all-reduces) ≥ 30%, then compute terms ≥ 20%, else memory.
[[nodiscard]] Regime regime_of(double fixed_share, double compute_share);

// From the bound's own operators: their FLOPs, bytes, launches and collectives' costs.
[[nodiscard]] Expected expected_phase(const PhaseResult& bound, const ExpectedModel& m, const Ceilings& c);

// Each operator's share of its phase's expected time, never below its bound time: the phase's is
// their sum and the model's per-pass cost (ExpectedModel::step), so an operator can be held
// against a kernel measured alone. Operators that run fused (Q/K/V, gate/up, an attention's two
// products) share their kernel's time as their bounds are shared.
[[nodiscard]] std::vector<Seconds> expected_op_times(const PhaseResult& bound, const ExpectedModel& m, const Ceilings& c);

}  // namespace roofline
