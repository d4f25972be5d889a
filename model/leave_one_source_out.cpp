#include "model/leave_one_source_out.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "model/expected.hpp"
#include "model/fit_expected.hpp"
#include "model/median.hpp"

namespace roofline {

namespace {

constexpr std::array kRegimes = {Regime::memory, Regime::compute, Regime::overhead};

// numpy's median: the mean of the two middle values of an even count.
double median_or_nan(std::vector<double> v) { return v.empty() ? std::nan("") : median(std::move(v)); }

double rms(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return v.empty() ? 0 : std::sqrt(s / static_cast<double>(v.size()));
}

// In the order sources first appear; found by a map (10 000 runs of as many sources were 5·10^7
// comparisons by a linear search).
std::vector<SourceCheck> group_by_source(const std::vector<MeasuredRun>& runs) {
  std::vector<SourceCheck> sources;
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto [at, fresh] = index.emplace(runs[i].source, sources.size());
    if (fresh) sources.push_back(SourceCheck{runs[i].source, {}, {}});
    sources[at->second].runs.push_back(i);
  }
  return sources;
}

// At most `groups` groups: past that, sources are dealt round robin into groups held out whole
// (a source is never split), named by their sources joined with " + ".
std::vector<SourceCheck> folded(std::vector<SourceCheck> sources, std::size_t groups) {
  if (sources.size() <= groups) return sources;
  std::vector<SourceCheck> out(groups);
  for (std::size_t s = 0; s < sources.size(); ++s) {
    SourceCheck& g = out[s % groups];
    g.source += (g.source.empty() ? "" : " + ") + sources[s].source;
    g.runs.insert(g.runs.end(), sources[s].runs.begin(), sources[s].runs.end());
  }
  for (SourceCheck& g : out) std::sort(g.runs.begin(), g.runs.end());
  return out;
}

// Past sqrt(budget / runs) sources, at least 3 and at most 10 groups (the header's budget).
std::size_t held_out_groups(std::size_t runs) {
  const double fit = std::floor(std::sqrt(kRunFitBudget / static_cast<double>(std::max<std::size_t>(runs, 1))));
  return static_cast<std::size_t>(std::clamp(fit, 3.0, 10.0));
}

// The runs of every source but those in `out`.
std::vector<const MeasuredRun*> all_but(const std::vector<MeasuredRun>& runs, const std::vector<SourceCheck>& sources,
                                        std::initializer_list<std::size_t> out) {
  std::vector<const MeasuredRun*> kept;
  for (std::size_t s = 0; s < sources.size(); ++s) {
    if (std::find(out.begin(), out.end(), s) != out.end()) continue;
    for (std::size_t i : sources[s].runs) kept.push_back(&runs[i]);
  }
  return kept;
}

// The regime-normal spread of each regime from residuals: the regime's rms, shrunk toward the
// pooled rms. Centred on 0: the fit is unbiased by construction (its residuals' median is ~0).
std::vector<RegimeSpread> spreads_of(const std::vector<double>& residuals, const std::vector<Regime>& regimes) {
  const double pooled = rms(residuals);
  std::vector<RegimeSpread> out;
  for (Regime g : kRegimes) {
    std::vector<double> mine;
    for (std::size_t i = 0; i < residuals.size(); ++i) {
      if (regimes[i] == g) mine.push_back(residuals[i]);
    }
    const auto n = static_cast<double>(mine.size());
    const double own = rms(mine);
    const double spread =
        std::sqrt((n * own * own + kSpreadShrinkRuns * pooled * pooled) / (n + kSpreadShrinkRuns));
    out.push_back({g, mine.size(), own, spread});
  }
  return out;
}

double spread_for(const std::vector<RegimeSpread>& spreads, Regime g) {
  for (const RegimeSpread& s : spreads) {
    if (s.regime == g) return s.spread;
  }
  return 0;
}

// The nested interval of each run of source `held`: regimes by the fit without it, widths from
// the residuals of every other source, each predicted by a fit without `held` and itself.
template <class Fit>
void nested_bands(const std::vector<MeasuredRun>& runs, const std::vector<SourceCheck>& sources, std::size_t held,
                  const Fit& fit, std::vector<RunCheck>& checks) {
  std::vector<double> residuals;
  std::vector<Regime> regimes;
  for (std::size_t t = 0; t < sources.size(); ++t) {
    if (t == held) continue;
    const ExpectedModel inner = fit(all_but(runs, sources, {held, t}));
    for (std::size_t i : sources[t].runs) {
      residuals.push_back(predict(runs[i], inner).log_ratio);
      regimes.push_back(predict(runs[i], sources[held].without).regime);
    }
  }
  const std::vector<RegimeSpread> spreads = spreads_of(residuals, regimes);
  for (std::size_t i : sources[held].runs) {
    checks[i].band = kZ90 * spread_for(spreads, predict(runs[i], sources[held].without).regime);
  }
}

std::vector<double> log_bound_ratios(const std::vector<MeasuredRun>& runs) {
  std::vector<double> out;
  for (const MeasuredRun& r : runs) out.push_back(std::log(bound_ratio(r)));
  return out;
}

}  // namespace

ResidualFigures residual_figures(const std::vector<double>& logs, const std::vector<bool>& inside) {
  ResidualFigures f;
  f.count = logs.size();
  std::vector<double> abs;
  std::size_t near = 0;
  for (double v : logs) {
    abs.push_back(std::fabs(v));
    if (std::fabs(v) < std::log(1.25)) ++near;
  }
  f.median_abs = median_or_nan(abs);
  f.within_25 = logs.empty() ? 0 : static_cast<double>(near) / static_cast<double>(logs.size());
  f.bias = median_or_nan(logs);
  if (!inside.empty()) {
    f.coverage = static_cast<double>(std::count(inside.begin(), inside.end(), true)) / static_cast<double>(inside.size());
  }
  return f;
}

std::size_t fits_for(const std::vector<MeasuredRun>& runs) {
  const std::size_t groups = std::min(group_by_source(runs).size(), held_out_groups(runs.size()));
  // The fit on all; one a group held out; one a pair of groups, nested (from 3 groups).
  return groups < 2 ? 1 : groups < 3 ? 1 + groups : 1 + groups * groups;
}

FitCheck fit_and_check(const std::vector<MeasuredRun>& runs, const ExpectedModel& start,
                       const std::function<void()>& fitted) {
  const auto fit = [&](std::span<const MeasuredRun* const> some) {
    ExpectedModel m = fit_expected(some, start);
    if (fitted) fitted();
    return m;
  };
  FitCheck f;
  f.sources = folded(group_by_source(runs), held_out_groups(runs.size()));
  f.model = fit(all_but(runs, f.sources, {}));
  f.runs.resize(runs.size());
  std::vector<double> in_sample;
  std::vector<Regime> regimes;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    f.runs[i].fitted = predict(runs[i], f.model);
    in_sample.push_back(f.runs[i].fitted.log_ratio);
    regimes.push_back(f.runs[i].fitted.regime);
  }
  f.in_sample = residual_figures(in_sample);
  const std::vector<double> bound = log_bound_ratios(runs);
  const double share = median_or_nan(bound);
  std::vector<double> constant_in, constant_out;
  for (double b : bound) constant_in.push_back(b - share);
  f.constant_in_sample = residual_figures(constant_in);

  f.held_out = f.sources.size() >= 2;
  f.nested = f.sources.size() >= 3;
  std::vector<double> held(runs.size());
  if (f.held_out) {
    constant_out.resize(runs.size());
    for (std::size_t s = 0; s < f.sources.size(); ++s) {
      const std::vector<const MeasuredRun*> others = all_but(runs, f.sources, {s});
      f.sources[s].without = fit(others);
      std::vector<double> other_bounds;
      for (const MeasuredRun* r : others) other_bounds.push_back(std::log(bound_ratio(*r)));
      for (std::size_t i : f.sources[s].runs) {
        held[i] = predict(runs[i], f.sources[s].without).log_ratio;
        f.runs[i].held_out = held[i];
        constant_out[i] = bound[i] - median_or_nan(other_bounds);
      }
    }
    if (f.nested) {
      for (std::size_t s = 0; s < f.sources.size(); ++s) nested_bands(runs, f.sources, s, fit, f.runs);
    }
    std::vector<bool> inside;
    for (const RunCheck& c : f.runs) {
      if (const auto in = c.inside()) inside.push_back(*in);
    }
    f.loso = residual_figures(held, inside);
    f.constant_loso = residual_figures(constant_out);
  }
  // One source: no run is out of sample, and the spreads are the fit's own residuals (narrower
  // than the truth; the command says so).
  f.spreads = spreads_of(f.held_out ? held : in_sample, regimes);
  f.model.spread_memory = spread_for(f.spreads, Regime::memory);
  f.model.spread_compute = spread_for(f.spreads, Regime::compute);
  f.model.spread_overhead = spread_for(f.spreads, Regime::overhead);
  return f;
}

}  // namespace roofline
