#include "model/fit_expected.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace roofline {

namespace {

using Vector = Eigen::VectorXd;
using Matrix = Eigen::MatrixXd;

// The research's priors (/work/research/model.py, GLOBAL), each a physical expectation before
// any run is seen, with bounds a kernel cannot cross (a share of a ceiling is at most 1).
const std::array kCoefficients = {
    FittedCoefficient{"memory", "", 1, "share of the bandwidth a long weight stream reaches", {0.85, 0.15, 0.2, 1.0},
                      [](const ExpectedModel& m) { return m.memory; }, [](ExpectedModel& m, double v) { m.memory = v; }},
    FittedCoefficient{"compute", "", 1, "share of the peak a large GEMM reaches", {0.75, 0.20, 0.05, 1.0},
                      [](const ExpectedModel& m) { return m.compute; },
                      [](ExpectedModel& m, double v) { m.compute = v; }},
    FittedCoefficient{"launch", "us", 1e6, "fixed time per operator and layer: launch gap, ramp-up, tail",
                      {4e-6, 1.0, 1e-8, 1e-3}, [](const ExpectedModel& m) { return m.launch.value(); },
                      [](ExpectedModel& m, double v) { m.launch = Seconds(v); }},
    FittedCoefficient{"hop_latency", "us", 1e6, "per hop of a ring all-reduce, 2(tp - 1) hops a call",
                      {1.5e-6, 0.7, 1e-8, 1e-4}, [](const ExpectedModel& m) { return m.hop_latency.value(); },
                      [](ExpectedModel& m, double v) { m.hop_latency = Seconds(v); }},
    FittedCoefficient{"dequant_int8", "", 1, "share of `memory` a weight-only one-byte GEMM streams at",
                      {0.85, 0.30, 0.1, 1.0}, [](const ExpectedModel& m) { return m.dequant_int8; },
                      [](ExpectedModel& m, double v) { m.dequant_int8 = v; }},
    FittedCoefficient{"dequant_int4", "", 1, "the same for sub-byte weights (int4, fp4, mxfp4...)",
                      {0.70, 0.30, 0.1, 1.0}, [](const ExpectedModel& m) { return m.dequant_int4; },
                      [](ExpectedModel& m, double v) { m.dequant_int4 = v; }},
    // The engine's layer over the kernels: separable from the kernels' own fixed costs now that
    // those come from kernel tables (hardware/kernel_classes.hpp).
    FittedCoefficient{"step", "us", 1e6, "fixed time per pass: sampling, scheduling, host synchronisation",
                      {30e-6, 1.5, 1e-7, 1e-2}, [](const ExpectedModel& m) { return m.step.value(); },
                      [](ExpectedModel& m, double v) { m.step = Seconds(v); }},
    FittedCoefficient{"gap", "us", 1e6, "the host's time between an engine's kernels (0 under CUDA graphs)",
                      {2e-6, 1.0, 1e-8, 1e-4}, [](const ExpectedModel& m) { return m.gap.value(); },
                      [](ExpectedModel& m, double v) { m.gap = Seconds(v); }},
};
constexpr auto kN = static_cast<Eigen::Index>(kCoefficients.size());

ExpectedModel model_at(const Vector& x, ExpectedModel m) {
  for (Eigen::Index i = 0; i < kN; ++i) kCoefficients[static_cast<std::size_t>(i)].set(m, std::exp(x[i]));
  return m;
}

// Runs' residuals first, then one per prior.
Vector residuals(std::span<const MeasuredRun* const> runs, const Vector& x, const ExpectedModel& start) {
  const ExpectedModel m = model_at(x, start);
  Vector r(static_cast<Eigen::Index>(runs.size()) + kN);
  Eigen::Index i = 0;
  for (const MeasuredRun* run : runs) r[i++] = predict(*run, m).log_ratio / kRunSigma;
  for (const FittedCoefficient& c : kCoefficients) {
    r[i] = (x[i - static_cast<Eigen::Index>(runs.size())] - std::log(c.prior.centre)) / c.prior.log_sd;
    ++i;
  }
  return r;
}

// Central differences in log space: the expected time has kinks (an operator's max with its
// bound), which a one-sided step straddles more often.
Matrix jacobian(std::span<const MeasuredRun* const> runs, const Vector& x, const ExpectedModel& start, Eigen::Index rows) {
  constexpr double h = 1e-6;
  Matrix J(rows, kN);
  for (Eigen::Index j = 0; j < kN; ++j) {
    Vector up = x, down = x;
    up[j] += h;
    down[j] -= h;
    J.col(j) = (residuals(runs, up, start) - residuals(runs, down, start)) / (2 * h);
  }
  return J;
}

// The Gauss–Newton normal equations JᵀJ·δ = −Jᵀr, with each coefficient that sits on a bound
// and is pushed against it held there (its row and column replaced by δ = 0).
struct NormalEquations {
  Matrix A;
  Vector rhs;
};
NormalEquations normal_equations(const Matrix& J, const Vector& r, const Vector& x, const Vector& lo,
                                 const Vector& hi) {
  const Vector g = J.transpose() * r;
  NormalEquations n{J.transpose() * J, -g};
  for (Eigen::Index i = 0; i < kN; ++i) {
    const bool pinned = (x[i] >= hi[i] && g[i] < 0) || (x[i] <= lo[i] && g[i] > 0);
    if (!pinned) continue;
    n.A.row(i).setZero();
    n.A.col(i).setZero();
    n.A(i, i) = 1;
    n.rhs[i] = 0;
  }
  return n;
}

}  // namespace

std::span<const FittedCoefficient> fitted_coefficients() { return kCoefficients; }

double fit_objective(std::span<const MeasuredRun* const> runs, const ExpectedModel& m) {
  Vector x(kN);
  for (Eigen::Index i = 0; i < kN; ++i) x[i] = std::log(kCoefficients[static_cast<std::size_t>(i)].get(m));
  return 0.5 * residuals(runs, x, m).squaredNorm();
}

// Levenberg–Marquardt with the bounds kept by fixing, each iteration, the coefficients that sit
// on a bound and whose gradient points out of it (a projected step for the rest). Eight unknowns:
// the normal equations are 8 × 8 and solved exactly.
ExpectedModel fit_expected(std::span<const MeasuredRun* const> runs, ExpectedModel start) {
  Vector x(kN), lo(kN), hi(kN);
  for (Eigen::Index i = 0; i < kN; ++i) {
    const Prior& p = kCoefficients[static_cast<std::size_t>(i)].prior;
    lo[i] = std::log(p.lowest);
    hi[i] = std::log(p.highest);
    x[i] = std::clamp(std::log(p.centre), lo[i], hi[i]);
  }
  Vector r = residuals(runs, x, start);
  double cost = 0.5 * r.squaredNorm();
  double lambda = 1e-3;
  // The objective ten iterations back: along a flat valley (a coefficient the runs barely
  // determine, the damping at 10^6) LM gains 10^-6 of the objective an iteration for all 500,
  // which took 2.7 s at 1000 runs; less than 10^-6 of it in ten iterations is a minimum.
  std::array<double, 10> history{};
  history.fill(std::numeric_limits<double>::infinity());
  for (int iteration = 0; iteration < 500; ++iteration) {
    double& ten_back = history[static_cast<std::size_t>(iteration) % history.size()];
    if (ten_back - cost < 1e-6 * cost) break;
    ten_back = cost;
    const auto [A, rhs] = normal_equations(jacobian(runs, x, start, r.size()), r, x, lo, hi);
    bool improved = false;
    for (int attempt = 0; attempt < 30 && !improved; ++attempt) {
      Matrix damped = A;
      damped.diagonal() += lambda * A.diagonal().cwiseMax(1e-12);
      const Vector step = damped.ldlt().solve(rhs);
      const Vector next = (x + step).cwiseMax(lo).cwiseMin(hi);
      const Vector r_next = residuals(runs, next, start);
      const double c_next = 0.5 * r_next.squaredNorm();
      if (c_next < cost) {
        const double gain = cost - c_next, moved = (next - x).cwiseAbs().maxCoeff();
        x = next;
        r = r_next;
        cost = c_next;
        lambda = std::max(lambda / 3, 1e-12);
        improved = true;
        // Converged when a step gains less than 1e-12 of the objective or moves no coefficient
        // by 1e-9 of itself (the logs' step): far below the printed digits. Tighter, a fit of
        // 1000 runs crept for all 500 iterations (6911 evaluations, 2.7 s) on gains of 1e-13.
        if (gain <= 1e-12 * (1 + cost) || moved < 1e-9) return model_at(x, start);
      } else {
        lambda *= 4;
      }
    }
    if (!improved) break;  // no step lowers the objective: a minimum, to the precision of doubles
  }
  return model_at(x, start);
}

}  // namespace roofline
