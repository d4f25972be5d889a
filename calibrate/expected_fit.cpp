#include "calibrate/expected_fit.hpp"

#include <Eigen/Core>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "calibrate/measurement.hpp"

namespace roofline::calibrate {

namespace {

// One point as the fit sees it: what one product asks, its bound, and its measured seconds.
struct Sample {
  std::string_view curve;
  GemmShape shape;
  KernelWork work;
  double bound = 0;
  double median = 0;             // seconds per product
  std::vector<double> repeats;   // seconds per product, each repetition
};

std::vector<Sample> samples(const Curves& curves, const Ceilings& c, DType dtype) {
  std::vector<Sample> out;
  auto add = [&](std::string_view name, const std::vector<CurvePoint>& points) {
    if (points.empty()) throw std::invalid_argument(std::string("fit_expected: no ") + std::string(name) + " points");
    for (const CurvePoint& p : points) {
      const PointWork w = point_work(p.shape, dtype);
      Sample s{name, p.shape, {Flops(w.flops), Bytes(w.activation_bytes), Bytes(w.weight_bytes),
                               static_cast<double>(p.shape.rows), 1.0, Dequant::none}, 0, 0, {}};
      s.bound = std::max(w.flops / c.peak.value(), (w.weight_bytes + w.activation_bytes) / c.bandwidth.value());
      for (double t : p.seconds) {
        if (!(t > 0)) throw std::invalid_argument("fit_expected: a repetition took no time");
        s.repeats.push_back(t / static_cast<double>(p.shape.count));
      }
      if (s.repeats.empty()) throw std::invalid_argument("fit_expected: a point has no repetitions");
      s.median = median_of(s.repeats);
      out.push_back(std::move(s));
    }
  };
  add("transfer", curves.transfer);
  add("gemm", curves.gemm);
  return out;
}

// The fitted coefficients from the unconstrained vector LM moves: shares through a logistic
// (0 … 1), times and rows through exp (> 0), the overlap as 1 + exp (≥ 1), each clamped so that
// a flat direction cannot run off to an overflow.
constexpr int kParams = 6;
ExpectedModel coefficients(const Eigen::VectorXd& x) {
  auto share = [](double v) { return 1 / (1 + std::exp(-std::clamp(v, -30.0, 30.0))); };
  ExpectedModel m;
  // One layer: the device's own curves price every operator, against its measured ceilings (the
  // kernel classes are shares of a datasheet's); the engine's time a pass stays the published one.
  m.kernels.reset();
  m.memory = share(x[0]);
  m.compute = share(x[1]);
  m.launch = Seconds(std::exp(std::clamp(x[2], std::log(1e-9), 0.0)));  // the schema's times: 1 ns … 1 s
  m.overlap = 1 + std::exp(std::clamp(x[3], -10.0, std::log(99.0)));  // the schema's range: 1 … 100
  m.skinny_compute = share(x[4]);
  m.skinny_rows = std::exp(std::clamp(x[5], -10.0, std::log(1e4)));
  return m;
}

double expected_seconds(const ExpectedModel& m, const Sample& s, const Ceilings& c) {
  return std::max(s.bound, m.kernel_time(s.work, c).total().value());
}

// log(expected / measured) of each point: the functor NumericalDiff and LevenbergMarquardt take.
struct Residuals {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };
  Residuals(const std::vector<Sample>& s, const Ceilings& c) : samples(&s), ceilings(c) {}
  [[nodiscard]] int inputs() const { return kParams; }
  [[nodiscard]] int values() const { return static_cast<int>(samples->size()); }
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& r) const {
    const ExpectedModel m = coefficients(x);
    for (std::size_t i = 0; i < samples->size(); ++i) {
      const Sample& s = (*samples)[i];
      r[static_cast<Eigen::Index>(i)] = std::log(expected_seconds(m, s, ceilings) / s.median);
    }
    return 0;
  }
  const std::vector<Sample>* samples;
  Ceilings ceilings;
};

double cost(const std::vector<Sample>& s, const Ceilings& c, const Eigen::VectorXd& x) {
  Eigen::VectorXd r(static_cast<Eigen::Index>(s.size()));
  Residuals(s, c)(x, r);
  return r.squaredNorm();
}

double logit(double share) {
  const double p = std::clamp(share, 1e-6, 1 - 1e-6);
  return std::log(p / (1 - p));
}

// Where to start: the transfer curve's line gives launch and memory; the largest GEMMs' rate
// gives compute; overlap and the skinny rows from a few starts, the best kept.
Eigen::VectorXd fit(const std::vector<Sample>& s, const Ceilings& c) {
  std::vector<double> bytes, seconds;
  double best_rate = 0;
  for (const Sample& p : s) {
    if (p.curve == "transfer") {
      bytes.push_back((p.work.weights + p.work.activations).value());
      seconds.push_back(p.median);
    } else {
      best_rate = std::max(best_rate, p.work.flops.value() / p.median);
    }
  }
  const Line line = relative_line_fit(bytes, seconds);
  const double memory = line.slope > 0 ? 1 / (line.slope * c.bandwidth.value()) : 1.0;
  const double launch = std::max(line.intercept, 1e-9);
  const double compute = best_rate / c.peak.value();
  Eigen::VectorXd best;
  double best_cost = INFINITY;
  for (double overlap : {1.2, 2.0, 5.0}) {
    for (double skinny_rows : {4.0, 16.0}) {
      Eigen::VectorXd x(kParams);
      x << logit(memory), logit(compute), std::log(launch), std::log(overlap - 1), logit(compute / 2),
          std::log(skinny_rows);
      Residuals r(s, c);
      Eigen::NumericalDiff<Residuals> diff(r);
      Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Residuals>> lm(diff);
      lm.parameters.maxfev = 4000;
      lm.minimize(x);
      const double k = cost(s, c, x);
      if (k < best_cost) best_cost = k, best = x;
    }
  }
  return best;
}

Regime regime_of(const KernelTime& k) {
  const Seconds t = k.total();
  if (k.fixed / t >= 0.3) return Regime::overhead;
  return k.compute / t >= 0.2 ? Regime::compute : Regime::memory;
}

// The log-normal spread of every repetition around the fit, by regime: the root mean square of
// log(measured / expected), which counts a bias in as well as the scatter. A regime no point fell
// in takes all points' spread.
void set_spreads(ExpectedModel& m, const std::vector<Sample>& s, const Ceilings& c) {
  std::array<double, 3> sum{}, n{};
  double all = 0, count = 0;
  for (const Sample& p : s) {
    const double e = expected_seconds(m, p, c);
    const auto r = static_cast<std::size_t>(regime_of(m.kernel_time(p.work, c)));
    for (double t : p.repeats) {
      const double l = std::log(t / e);
      sum[r] += l * l, n[r] += 1, all += l * l, count += 1;
    }
  }
  auto spread = [&](Regime r) {
    const auto i = static_cast<std::size_t>(r);
    return std::min(5.0, std::sqrt(n[i] > 0 ? sum[i] / n[i] : all / count));  // the schema's range: 0 … 5
  };
  m.spread_memory = spread(Regime::memory);
  m.spread_compute = spread(Regime::compute);
  m.spread_overhead = spread(Regime::overhead);
}

}  // namespace

Line relative_line_fit(const std::vector<double>& x, const std::vector<double>& t) {
  if (x.size() != t.size() || x.size() < 2) throw std::invalid_argument("relative_line_fit: needs two points or more");
  // Minimise Σ (a·u + b·v − 1)² with u = 1/t, v = x/t: the 2 × 2 normal equations.
  double uu = 0, uv = 0, vv = 0, u1 = 0, v1 = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double u = 1 / t[i], v = x[i] / t[i];
    uu += u * u, uv += u * v, vv += v * v, u1 += u, v1 += v;
  }
  const double det = uu * vv - uv * uv;
  if (det == 0) throw std::invalid_argument("relative_line_fit: the points do not fix a line");
  return {(u1 * vv - v1 * uv) / det, (uu * v1 - uv * u1) / det};
}

CurveFit fit_expected(const Curves& curves, const Ceilings& ceilings, DType dtype) {
  const std::vector<Sample> s = samples(curves, ceilings, dtype);
  CurveFit out;
  out.model = coefficients(fit(s, ceilings));
  set_spreads(out.model, s, ceilings);
  std::vector<double> errors;
  for (const Sample& p : s) {
    const double e = expected_seconds(out.model, p, ceilings);
    out.points.push_back({p.curve, p.shape, p.median, e, p.bound, regime_of(out.model.kernel_time(p.work, ceilings))});
    errors.push_back(std::fabs(out.points.back().error()));
  }
  out.median_abs_error = median_of(errors);
  return out;
}

}  // namespace roofline::calibrate
