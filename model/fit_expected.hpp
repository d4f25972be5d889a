#pragma once
// The expected-performance coefficients (hardware/expected_model.hpp) fitted to measured runs:
// a maximum a posteriori fit in log space. Each run adds log(measured / expected) / σ with σ =
// 0.1; each coefficient adds (log c − log centre) / sd, a log-normal prior, so that a coefficient
// the runs say nothing about (int8 weights when no run has them) stays at a physically sensible
// value instead of wandering. Levenberg–Marquardt on those residuals, inside each coefficient's
// physical bounds. The priors are the research's (/work/research/model.py, GLOBAL).
#include <span>
#include <string_view>

#include "hardware/expected_model.hpp"
#include "model/measured_run.hpp"

namespace roofline {

// A log-normal prior: centre, sd of the log, and the bounds no fit crosses.
struct Prior {
  double centre, log_sd, lowest, highest;
};

// One coefficient the fit estimates, as printed and written (`key` is the GPU YAML's
// `expected.<key>`; a time is printed in µs).
struct FittedCoefficient {
  std::string_view key;
  std::string_view unit;  // "" or "us"
  double unit_scale;      // printed = value · unit_scale
  std::string_view meaning;
  Prior prior;
  double (*get)(const ExpectedModel&);
  void (*set)(ExpectedModel&, double);
};

[[nodiscard]] std::span<const FittedCoefficient> fitted_coefficients();

// σ of a run's log(measured / expected) in the objective: what one run may be off by before it
// outweighs a prior one sd away.
inline constexpr double kRunSigma = 0.1;

// The coefficients that best explain the runs, each run's operators of a kernel class priced by
// its GPU's kernel coefficients (MeasuredRun::kernels); what is not fitted (the kernel classes,
// the spreads, the source) is `start`'s. Deterministic: the same runs give the same coefficients.
[[nodiscard]] ExpectedModel fit_expected(std::span<const MeasuredRun* const> runs, ExpectedModel start = {});

// The value of the objective (½ Σ residual²) at a model: what the fit minimises.
[[nodiscard]] double fit_objective(std::span<const MeasuredRun* const> runs, const ExpectedModel& m);

}  // namespace roofline
