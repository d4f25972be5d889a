#pragma once
// How well the fitted coefficients predict runs they have not seen, and the interval widths that
// follow. Rows of one source (one project's tables: model/measured_run.hpp, source_group) share
// their harness, so holding out one row at a time would flatter the fit; each source is held out
// whole instead, its rows predicted by a fit on the others (leave-one-source-out, LOSO).
//
// The shipped spreads (ExpectedModel::spread_*) are the root mean square of those held-out
// residuals by regime, shrunk toward the pooled one with the weight of 6 rows so that a regime
// with 4 rows does not set its own width. Their coverage is checked nested: the interval for a
// held-out source comes only from the residuals of the others, each predicted by a fit that saw
// neither (the research's regime-normal rule, /work/research/intervals.py).
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hardware/expected_model.hpp"
#include "model/measured_run.hpp"

namespace roofline {

struct RunCheck {
  RunPrediction fitted;                 // by the fit on every run
  std::optional<double> held_out;       // log(measured / expected) by the fit without its source
  std::optional<double> band;           // half-width (log) of its nested 10–90% interval
  [[nodiscard]] std::optional<bool> inside() const {
    if (!held_out || !band) return std::nullopt;
    return std::abs(*held_out) <= *band;
  }
};

struct SourceCheck {
  std::string source;  // past held_out_groups() sources, a group of them: "a + b + c"
  std::vector<std::size_t> runs;  // indices into the runs
  ExpectedModel without;          // the fit on every other source's runs (LOSO only)
};

// Summary figures of a set of log(measured / expected) residuals.
struct ResidualFigures {
  std::size_t count = 0;
  double median_abs = 0;     // median |log|
  double within_25 = 0;      // share with measured within 25% of expected (|log| < log 1.25)
  double bias = 0;           // median log: above 0, runs are faster than expected
  std::optional<double> coverage;  // share inside their nested 10–90% interval
};
[[nodiscard]] ResidualFigures residual_figures(const std::vector<double>& logs,
                                               const std::vector<bool>& inside = {});

struct RegimeSpread {
  Regime regime;
  std::size_t runs = 0;
  double rms = 0;     // of the held-out residuals in this regime
  double spread = 0;  // shrunk toward the pooled rms: what ExpectedModel carries
};

struct FitCheck {
  ExpectedModel model;  // fitted on every run; spreads from the held-out residuals
  std::vector<RunCheck> runs;
  std::vector<SourceCheck> sources;
  std::vector<RegimeSpread> spreads;
  bool held_out = false;       // ≥ 2 sources: LOSO figures exist; else spreads are in-sample
  bool nested = false;         // ≥ 3 sources: the interval's coverage is measured
  ResidualFigures in_sample, loso;
  // A single share of the bound for every run (the median measured / bound), for comparison.
  ResidualFigures constant_in_sample, constant_loso;
};

// `start` supplies what the fit does not estimate (model/fit_expected.hpp); `fitted`, when
// given, is called after each fit (fits_for(runs) of them), for a progress bar.
[[nodiscard]] FitCheck fit_and_check(const std::vector<MeasuredRun>& runs, const ExpectedModel& start = {},
                                     const std::function<void()>& fitted = {});

// A fit costs about 0.1 ms a run (some 20 Levenberg-Marquardt iterations of 13 evaluations), and
// the nested check fits about groups² times: past sqrt(budget / runs) groups (at least 3, at
// most 10) the sources are dealt into that many groups, each held out whole, so that a file of
// 10 000 runs is checked in seconds (3 groups), and one of 26 from 3 sources as it always was.
inline constexpr double kRunFitBudget = 5e4;
// The fits fit_and_check makes for these runs.
[[nodiscard]] std::size_t fits_for(const std::vector<MeasuredRun>& runs);

// Spreads, pooled with this many runs' weight: regime rms² and pooled rms² averaged n : 6.
inline constexpr double kSpreadShrinkRuns = 6;

}  // namespace roofline
