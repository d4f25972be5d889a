#include "model/kernel_fit.hpp"

#include <Eigen/Core>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "model/median.hpp"

namespace roofline {

namespace {

// The order classes are fitted in: the fp8 GEMMs take the 16-bit GEMM's memory share, overlap and
// launch, so they come after it.
constexpr std::array kOrder = {KernelClass::gemm,        KernelClass::gemm_fp8,   KernelClass::gemm_fp8_block,
                               KernelClass::decode_attention,
                               KernelClass::prefill_attention, KernelClass::elementwise, KernelClass::all_reduce,
                               KernelClass::nccl_all_reduce,
                               // The experts take the GEMM classes' shares; the fp8 experts the 16-bit experts' memory, overlap,
                               // tile and launch.
                               KernelClass::experts, KernelClass::experts_fp8, KernelClass::latent_decode,
                               KernelClass::latent_prefill, KernelClass::delta_net_decode, KernelClass::delta_net_prefill};

// Past this many kernels a class is fitted on an even stride of them: 100k GEMMs say no more about
// four coefficients than 6000 spread over the same grid, and take seconds.
constexpr std::size_t kMostFitted = 6000;

}  // namespace

double roofline_seconds(const MeasuredKernel& m, const KernelCeilings& c) {
  if (m.klass == KernelClass::all_reduce || m.klass == KernelClass::nccl_all_reduce) {
    // The bound's all-reduce through a switch: in-network reduction's (k − 1)/k of the message
    // through each GPU's link (hardware/collectives.hpp), no latency.
    return (m.ask.gpus - 1.0) / m.ask.gpus * m.ask.bytes / c.link;
  }
  const double peak = on_fp8_peak(m.klass) ? c.peak_fp8 : c.peak;
  const double flops = m.ask.roofline_flops > 0 ? m.ask.roofline_flops : m.ask.flops;
  return std::max(flops / peak, m.ask.bytes / c.bandwidth);
}

double streamed_bound_seconds(const MeasuredKernel& m, const KernelCeilings& c) {
  if (m.klass == KernelClass::all_reduce || m.klass == KernelClass::nccl_all_reduce) return roofline_seconds(m, c);
  const double peak = on_fp8_peak(m.klass) ? c.peak_fp8 : c.peak;
  const double flops = m.ask.roofline_flops > 0 ? m.ask.roofline_flops : m.ask.flops;
  return std::max(flops / peak, m.ask.stream_bytes / c.bandwidth);
}

namespace {

double median_abs(std::vector<double> v) { return v.empty() ? 0 : median(std::move(v)); }

// Huber's loss as least squares: a log residual r counts r² up to kHuber, then grows linearly, so
// that a few kernels of another make (decode kernels for 48 or more query heads a KV head run 2.7×
// slower than the rest say, TensorRT-LLM's fallback from its grouped kernel) do not pull the share
// every other kernel reaches: the median |log| is what is reported, and what a fit should serve.
constexpr double kHuber = 0.1;
double robust(double r) {
  const double a = std::fabs(r);
  return a <= kHuber ? r : std::copysign(std::sqrt(kHuber * (2 * a - kHuber)), r);
}

// log(expected / measured) of each kernel of one class, as the coefficients' logs move.
struct Residuals {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };

  Residuals(std::vector<const MeasuredKernel*> k, std::span<const KernelCeilings> g, KernelClass c, KernelCoefficients s)
      : kernels(std::move(k)), gpus(g), klass(c), start(std::move(s)) {}
  [[nodiscard]] int inputs() const {
    KernelCoefficients k = start;
    return static_cast<int>(coefficients_of(klass, k).size());
  }
  // A residual a kernel, then one a coefficient: how far its entry lies past a bound.
  [[nodiscard]] int values() const { return static_cast<int>(kernels.size()) + inputs(); }

  // Each coefficient's entry held inside its bounds, as logs.
  [[nodiscard]] Eigen::VectorXd inside(Eigen::VectorXd x) const {
    KernelCoefficients k = start;
    const auto list = coefficients_of(klass, k);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto e = static_cast<Eigen::Index>(i);
      x[e] = std::clamp(x[e], std::log(list[i].lowest), std::log(list[i].highest));
    }
    return x;
  }
  // The coefficients at x: each the exponential of its entry, held inside its bounds. Past a
  // bound the kernels' residuals are flat, so each coefficient also has a residual of how far its
  // entry lies past one (zero inside): a step past a bound is pulled back, and the fit stops at a
  // bound only where the kernels push it there. Without it LM stopped where a step had taken it,
  // past the bound, though the kernels wanted a value inside (a GEMM table's overlap 1 where its
  // own fit, started at that point, found 1.61).
  [[nodiscard]] KernelCoefficients at(const Eigen::VectorXd& x) const {
    KernelCoefficients k = start;
    const auto list = coefficients_of(klass, k);
    for (std::size_t i = 0; i < list.size(); ++i) {
      *list[i].value = std::clamp(std::exp(x[static_cast<Eigen::Index>(i)]), list[i].lowest, list[i].highest);
    }
    return k;
  }
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& r) const {
    const KernelCoefficients k = at(x);
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const MeasuredKernel& m = *kernels[i];
      r[static_cast<Eigen::Index>(i)] = robust(std::log(expected_kernel_seconds(k, m, gpus[m.gpu]) / m.seconds));
    }
    const Eigen::VectorXd past = x - inside(x);
    r.tail(past.size()) = past;
    return 0;
  }

  std::vector<const MeasuredKernel*> kernels;
  std::span<const KernelCeilings> gpus;
  KernelClass klass;
  KernelCoefficients start;
};

std::vector<const MeasuredKernel*> of_class(std::span<const MeasuredKernel> kernels, KernelClass c) {
  std::vector<const MeasuredKernel*> out;
  for (const MeasuredKernel& m : kernels) {
    if (m.klass == c) out.push_back(&m);
  }
  return out;
}

// One class fitted from a few starts (the default, and each share halved), the best kept: an
// overlap exponent or a half-length far from its start can leave LM in a flat valley.
KernelCoefficients fit_class(KernelClass c, std::vector<const MeasuredKernel*> all, std::span<const KernelCeilings> gpus,
                             KernelCoefficients start) {
  std::vector<const MeasuredKernel*> used;
  const std::size_t stride = std::max<std::size_t>(1, (all.size() + kMostFitted - 1) / kMostFitted);
  for (std::size_t i = 0; i < all.size(); i += stride) used.push_back(all[i]);
  Residuals r(std::move(used), gpus, c, start);
  const std::size_t n = static_cast<std::size_t>(r.inputs());
  Eigen::VectorXd best;
  double best_cost = INFINITY;
  for (double shrink : {1.0, 0.5, 2.0}) {
    Eigen::VectorXd x(static_cast<Eigen::Index>(n));
    KernelCoefficients s = start;
    const auto list = coefficients_of(c, s);
    for (std::size_t i = 0; i < n; ++i) {
      const double v = std::clamp(*list[i].value * (list[i].highest <= 1 ? std::min(shrink, 1.0) : shrink),
                                  list[i].lowest, list[i].highest);
      x[static_cast<Eigen::Index>(i)] = std::log(v);
    }
    Eigen::NumericalDiff<Residuals> diff(r);
    Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Residuals>> lm(diff);
    lm.parameters.maxfev = 2000;
    lm.minimize(x);
    // Held inside: what at() prices, and no pull left in the cost the starts are compared by.
    x = r.inside(x);
    Eigen::VectorXd res(r.values());
    r(x, res);
    if (const double cost = res.squaredNorm(); cost < best_cost) best_cost = cost, best = x;
  }
  // No start gave a finite cost (the readers keep every figure finite, so a bug): said, not read
  // past an empty vector.
  if (best.size() == 0) {
    throw std::invalid_argument(fmt::format("fit --kernels: the {} kernels' residuals are not finite at any start",
                                            name(c)));
  }
  return r.at(best);
}

// Enough kernels to fit class `c`: kKernelsPerCoefficient for each of its coefficients (their
// count is the class's, whatever their values).
bool enough_to_fit(std::size_t kernels, KernelClass c) {
  KernelCoefficients any;
  return kernels >= kKernelsPerCoefficient * coefficients_of(c, any).size();
}

}  // namespace

double expected_kernel_seconds(const KernelCoefficients& k, const MeasuredKernel& m, const KernelCeilings& c) {
  return std::max(roofline_seconds(m, c), k.time(m.klass, m.ask, c));
}

KernelCoefficients fit_kernel_classes(std::span<const MeasuredKernel> kernels, std::span<const KernelCeilings> gpus,
                                      KernelCoefficients start) {
  KernelCoefficients k = start;
  for (KernelClass c : kOrder) {
    std::vector<const MeasuredKernel*> mine = of_class(kernels, c);
    if (!enough_to_fit(mine.size(), c)) continue;
    k = fit_class(c, std::move(mine), gpus, k);
  }
  return k;
}

KernelFit fit_and_check_kernels(std::span<const MeasuredKernel> kernels, std::span<const KernelCeilings> gpus) {
  KernelFit f;
  f.pooled = fit_kernel_classes(kernels, gpus);
  std::vector<std::vector<MeasuredKernel>> own(gpus.size()), others(gpus.size());
  for (const MeasuredKernel& m : kernels) {
    for (std::size_t g = 0; g < gpus.size(); ++g) (m.gpu == g ? own : others)[g].push_back(m);
  }
  std::vector<std::optional<KernelCoefficients>> held(gpus.size());
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    // From the pooled fit: a class this GPU has no kernels of keeps every GPU's coefficients.
    f.per_gpu.push_back(fit_kernel_classes(own[g], gpus, f.pooled));
    // Held out only where another GPU has kernels to fit on.
    if (!others[g].empty()) held[g] = fit_kernel_classes(others[g], gpus);
  }
  for (KernelClass c : kOrder) {
    std::vector<double> pooled_logs, held_logs;
    std::size_t count = 0;
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      std::vector<double> in, out;
      bool held_has_class = false;
      // Too few kernels of the class to fit it here: the GPU's file borrows it from every GPU's fit
      // (`fit --kernels --for` lists it), priced under that fit's GEMM as a file prices it: the
      // shipped one (KernelCoefficients::split), which is f.pooled.gemm where these tables are the
      // shipped ones; another set of tables scores its borrowed classes under the shipped GEMM.
      KernelCoefficients mine = f.per_gpu[g];
      const auto here = static_cast<std::size_t>(std::count_if(own[g].begin(), own[g].end(),
                                                               [&](const MeasuredKernel& m) { return m.klass == c; }));
      if (!enough_to_fit(here, c)) mine.borrowed = {c};
      for (const MeasuredKernel& m : own[g]) {
        if (m.klass != c) continue;
        in.push_back(std::fabs(std::log(expected_kernel_seconds(mine, m, gpus[g]) / m.seconds)));
        pooled_logs.push_back(std::fabs(std::log(expected_kernel_seconds(f.pooled, m, gpus[g]) / m.seconds)));
        if (held[g]) out.push_back(std::fabs(std::log(expected_kernel_seconds(*held[g], m, gpus[g]) / m.seconds)));
      }
      if (in.empty()) continue;
      // Held out only where the other GPUs fit the class themselves: below the threshold the
      // class keeps defaults fitted with this GPU in them.
      std::size_t elsewhere = 0;
      for (const MeasuredKernel& m : others[g]) elsewhere += m.klass == c;
      held_has_class = enough_to_fit(elsewhere, c);
      ClassResidual r{c, g, in.size(), median_abs(in), std::nullopt, enough_to_fit(in.size(), c)};
      if (held_has_class) {
        r.held_out = median_abs(out);
        held_logs.insert(held_logs.end(), out.begin(), out.end());
      }
      count += in.size();
      f.residuals.push_back(r);
    }
    if (count == 0) continue;
    f.summary.push_back({c, count, median_abs(pooled_logs),
                         held_logs.empty() ? std::nullopt : std::optional<double>(median_abs(held_logs))});
    f.summary.back().fitted = enough_to_fit(count, c);
    // The bound against the fastest kernel of the class, relative to its own bound; and how many
    // beat the DRAM roofline (their activations in L2: never the streamed bound, below).
    KernelFit::Summary& s = f.summary.back();
    for (const MeasuredKernel& m : kernels) {
      if (m.klass != c) continue;
      const double ratio = m.seconds / roofline_seconds(m, gpus[m.gpu]);
      if (ratio < s.closest) s.closest = ratio, s.closest_kernel = &m;
      s.below_bound += ratio < 1;
      s.closest_streamed = std::min(s.closest_streamed, m.seconds / streamed_bound_seconds(m, gpus[m.gpu]));
    }
  }
  return f;
}

}  // namespace roofline
