#include "report/fit_view.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "model/expected.hpp"
#include "model/fit_expected.hpp"
#include "report/human_units.hpp"
#include "report/run_envelope.hpp"

namespace roofline::report {

namespace {

using Json = nlohmann::ordered_json;

// The targets of issue 13, on runs the fit has not seen.
constexpr double kTargetMedian = 0.15, kTargetWithin = 0.70, kTargetCoverageLow = 0.65, kTargetCoverageHigh = 0.95;

double three_significant(double v) {
  const std::string text = fmt::format("{:.3g}", v);
  double out = 0;
  std::from_chars(text.data(), text.data() + text.size(), out);
  return out;
}

std::string percent(double share) { return fmt::format("{:.0f}%", 100 * share); }
std::string ratio(double r) { return fmt::format("{:.3f}", r); }
std::string yes_no(std::optional<bool> b) { return b ? (*b ? "yes" : "no") : "-"; }

// A metric's figure in its unit: tokens per second, or a time.
std::string figure_text(const MeasuredRun& r, double v) {
  return r.metric == Metric::ttft_s ? human(Seconds(v)) : three_digits(v) + " tok/s";
}

// The runs of a source and the figures of their residuals.
ResidualFigures figures_of(const FitCheck& f, const std::vector<std::size_t>& idx, bool held_out) {
  std::vector<double> logs;
  std::vector<bool> inside;
  for (std::size_t i : idx) {
    const RunCheck& c = f.runs[i];
    if (held_out && !c.held_out) continue;
    logs.push_back(held_out ? *c.held_out : c.fitted.log_ratio);
    if (held_out && c.inside()) inside.push_back(*c.inside());
  }
  return residual_figures(logs, inside);
}

std::string coverage_text(const ResidualFigures& r) { return r.coverage ? percent(*r.coverage) : "-"; }

// The band on measured / expected: exp(±band).
std::string band_text(std::optional<double> band) {
  if (!band) return "-";
  return fmt::format("{:.2f}-{:.2f}", std::exp(-*band), std::exp(*band));
}

// The LOSO range of a coefficient: its lowest and highest value over the fits without one source.
std::pair<double, double> loso_range(const FitCheck& f, const FittedCoefficient& c) {
  double lo = INFINITY, hi = -INFINITY;
  for (const SourceCheck& s : f.sources) {
    lo = std::min(lo, c.get(s.without));
    hi = std::max(hi, c.get(s.without));
  }
  return {lo, hi};
}

TextTable coefficient_table(const FitCheck& f) {
  TextTable t{"Coefficients: a MAP fit in log space, each with a log-normal prior (centre, sd of the log); LOSO: "
              "lowest-highest over the fits leaving one source out",
              {"coefficient", "value", "prior", "LOSO", "meaning"},
              {}};
  for (const FittedCoefficient& c : fitted_coefficients()) {
    std::string range = "-";
    if (f.held_out) {
      const auto [lo, hi] = loso_range(f, c);
      range = fmt::format("{}-{}", printed(lo, "", c.unit_scale), printed(hi, c.unit, c.unit_scale));
    }
    t.rows.push_back({std::string(c.key), printed(c.get(f.model), c.unit, c.unit_scale),
                      fmt::format("{}, sd {}", printed(c.prior.centre, c.unit, c.unit_scale), c.prior.log_sd), range,
                      std::string(c.meaning)});
  }
  return t;
}

TextTable run_table(const FitCheck& f, const std::vector<MeasuredRun>& runs) {
  TextTable t{"Runs: measured / figure above 1 is faster than the figure; LOSO: expected by the fit without the "
              "run's source; 10-90%: its nested interval on measured / expected",
              {"id", "metric", "measured", "bound", "expected", "meas/bound", "meas/exp", "regime", "LOSO meas/exp",
               "10-90%", "inside"},
              {}};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const MeasuredRun& r = runs[i];
    const RunCheck& c = f.runs[i];
    t.rows.push_back({r.id, std::string(name(r.metric)), figure_text(r, r.measured), figure_text(r, bound_figure(r)),
                      figure_text(r, c.fitted.figure), ratio(bound_ratio(r)), ratio(std::exp(c.fitted.log_ratio)),
                      std::string(name(c.fitted.regime)), c.held_out ? ratio(std::exp(*c.held_out)) : "-",
                      band_text(c.band), yes_no(c.inside())});
  }
  return t;
}

TextTable source_table(const FitCheck& f) {
  TextTable t{"Sources: each held out whole and predicted by a fit on the others (leave-one-source-out)",
              {"source", "runs", "in-sample median |log|", "LOSO median |log|", "within 25%", "bias", "coverage"},
              {}};
  const auto row = [&](std::string name, const std::vector<std::size_t>& idx) {
    const ResidualFigures in = figures_of(f, idx, false), out = figures_of(f, idx, true);
    const bool held = f.held_out;
    t.rows.push_back({std::move(name), fmt::format("{}", idx.size()), fmt::format("{:.3f}", in.median_abs),
                      held ? fmt::format("{:.3f}", out.median_abs) : "-", held ? percent(out.within_25) : "-",
                      held ? fmt::format("{:+.3f}", out.bias) : "-", coverage_text(out)});
  };
  std::vector<std::size_t> all;
  for (const SourceCheck& s : f.sources) {
    row(s.source, s.runs);
    all.insert(all.end(), s.runs.begin(), s.runs.end());
  }
  std::sort(all.begin(), all.end());
  row("all", all);
  return t;
}

TextTable regime_table(const FitCheck& f) {
  TextTable t{fmt::format("Intervals by regime: the rms of the {} residuals, shrunk toward the pooled one with {} runs' "
                          "weight; 10-90% of the expected time is its exp(±1.28 spread)",
                          f.held_out ? "held-out" : "in-sample", kSpreadShrinkRuns),
              {"regime", "runs", "rms", "spread", "10-90% of the expected time"},
              {}};
  for (const RegimeSpread& s : f.spreads) {
    t.rows.push_back({std::string(name(s.regime)), fmt::format("{}", s.runs), fmt::format("{:.3f}", s.rms),
                      fmt::format("{:.3f}", s.spread),
                      fmt::format("x{:.3f} - x{:.3f}", std::exp(-kZ90 * s.spread), std::exp(kZ90 * s.spread))});
  }
  return t;
}

// The run that came closest to the bound, and those that beat it.
struct BoundCheck {
  std::size_t closest = 0;
  std::vector<std::size_t> beaten;
};
BoundCheck check_bound(const std::vector<MeasuredRun>& runs) {
  BoundCheck b;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (bound_ratio(runs[i]) > bound_ratio(runs[b.closest])) b.closest = i;
    if (bound_ratio(runs[i]) > 1) b.beaten.push_back(i);
  }
  return b;
}

Json figures_json(const ResidualFigures& r) {
  Json j{{"runs", r.count}, {"median_abs_log", r.median_abs}, {"within_25_percent", r.within_25}, {"bias", r.bias}};
  j["coverage_10_90"] = r.coverage ? Json(*r.coverage) : Json(nullptr);
  return j;
}

Json optional_json(std::optional<double> v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace

std::string printed(double value, std::string_view unit, double unit_scale) {
  const std::string digits = fmt::format("{:.3g}", value * unit_scale);
  return unit.empty() ? digits : fmt::format("{} {}", digits, unit);
}

ExpectedModel as_printed(const ExpectedModel& m) {
  ExpectedModel out = m;
  for (const FittedCoefficient& c : fitted_coefficients()) {
    // The unit's value at three digits, scaled as the YAML reader scales "5.1 us" (× 1e-6).
    c.set(out, three_significant(c.get(m) * c.unit_scale) * (1 / c.unit_scale));
  }
  out.spread_memory = three_significant(m.spread_memory);
  out.spread_compute = three_significant(m.spread_compute);
  out.spread_overhead = three_significant(m.spread_overhead);
  return out;
}

std::string fit_provenance(const FitCheck& f, const std::vector<MeasuredRun>& runs, std::string_view file) {
  std::vector<std::string> names;
  for (const SourceCheck& s : f.sources) names.push_back(s.source);
  std::string held = "in-sample only (one source: nothing held out; spreads from the fit's own residuals)";
  if (f.held_out) {
    // No `|` in it: the line lands in Markdown tables (the field table of docs/inputs.md shows the default).
    held = fmt::format("leave-one-source-out median abs log(measured/expected) {:.3f}, {} within 25%", f.loso.median_abs,
                       percent(f.loso.within_25));
    if (f.loso.coverage) held += fmt::format(", 10-90% coverage {}", percent(*f.loso.coverage));
  }
  return fmt::format("rooflineplan fit {}: {} runs from {} sources ({}); {}", file, runs.size(), f.sources.size(),
                     fmt::join(names, ", "), held);
}

std::vector<TextTable> fit_tables(const FitCheck& f, const std::vector<MeasuredRun>& runs) {
  return {coefficient_table(f), run_table(f, runs), source_table(f), regime_table(f)};
}

std::string fit_summary(const FitCheck& f, const std::vector<MeasuredRun>& runs) {
  std::string out;
  if (f.held_out) {
    const bool coverage_ok = f.loso.coverage && *f.loso.coverage >= kTargetCoverageLow &&
                             *f.loso.coverage <= kTargetCoverageHigh;
    out += fmt::format(
        "leave-one-source-out: median |log(measured/expected)| {:.3f} (target <= {}), {} within 25% (target >= {}), "
        "10-90% coverage {} (target {}-{}){}\n",
        f.loso.median_abs, kTargetMedian, percent(f.loso.within_25), percent(kTargetWithin), coverage_text(f.loso),
        percent(kTargetCoverageLow), percent(kTargetCoverageHigh),
        f.loso.median_abs <= kTargetMedian && f.loso.within_25 >= kTargetWithin && coverage_ok ? ": every target met"
                                                                                                : ": a target missed");
    out += fmt::format("a single share of the bound instead: median |log| {:.3f} in-sample, {:.3f} leave-one-source-out\n",
                       f.constant_in_sample.median_abs, f.constant_loso.median_abs);
  } else {
    out += "one source: no run is out of sample, so nothing says how well the fit predicts other harnesses, and the "
           "interval spreads are its own residuals (too narrow); add runs from another source\n";
  }
  const BoundCheck b = check_bound(runs);
  if (b.beaten.empty()) {
    out += fmt::format("bound: never beaten (closest: {}, measured / bound {:.3f})\n", runs[b.closest].id,
                       bound_ratio(runs[b.closest]));
  } else {
    std::vector<std::string> ids;
    for (std::size_t i : b.beaten) ids.push_back(fmt::format("{} ({:.3f})", runs[i].id, bound_ratio(runs[i])));
    out += fmt::format("bound: BEATEN by {} of {} runs: {}; a run faster than the roofline is a wrong row (its model, "
                       "GPU or flags) or a ceiling set too low\n",
                       b.beaten.size(), runs.size(), fmt::join(ids, ", "));
  }
  return out;
}

std::string fit_json(const FitCheck& f, const std::vector<MeasuredRun>& runs, std::string_view file,
                     std::span<const std::string> warnings) {
  Json j;
  j["file"] = file;
  j["runs"] = runs.size();
  Json coefficients = Json::object();
  for (const FittedCoefficient& c : fitted_coefficients()) {
    Json e{{"value", c.get(f.model)}, {"unit", c.unit.empty() ? "" : "s"}, {"meaning", c.meaning},
           {"prior_centre", c.prior.centre}, {"prior_log_sd", c.prior.log_sd}};
    if (f.held_out) {
      const auto [lo, hi] = loso_range(f, c);
      e["loso_lowest"] = lo;
      e["loso_highest"] = hi;
    }
    coefficients[std::string(c.key)] = e;
  }
  j["coefficients"] = coefficients;
  const ExpectedModel shown = as_printed(f.model);
  Json expected = Json::object();
  for (const FittedCoefficient& c : fitted_coefficients()) expected[std::string(c.key)] = c.get(shown);
  expected["spread_memory"] = shown.spread_memory;
  expected["spread_compute"] = shown.spread_compute;
  expected["spread_overhead"] = shown.spread_overhead;
  expected["source"] = fit_provenance(f, runs, file);
  j["expected"] = expected;
  Json rows = Json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const MeasuredRun& r = runs[i];
    const RunCheck& c = f.runs[i];
    rows.push_back({{"id", r.id}, {"source", r.source}, {"metric", name(r.metric)}, {"measured", r.measured},
                    {"bound", bound_figure(r)}, {"expected", c.fitted.figure},
                    {"measured_over_bound", bound_ratio(r)}, {"measured_over_expected", std::exp(c.fitted.log_ratio)},
                    {"regime", name(c.fitted.regime)},
                    {"loso_measured_over_expected", c.held_out ? Json(std::exp(*c.held_out)) : Json(nullptr)},
                    {"interval_low", c.band ? Json(std::exp(-*c.band)) : Json(nullptr)},
                    {"interval_high", c.band ? Json(std::exp(*c.band)) : Json(nullptr)},
                    {"inside", c.inside() ? Json(*c.inside()) : Json(nullptr)}});
  }
  j["rows"] = rows;
  Json sources = Json::array();
  for (const SourceCheck& s : f.sources) {
    sources.push_back({{"source", s.source}, {"runs", s.runs.size()}, {"in_sample", figures_json(figures_of(f, s.runs, false))},
                       {"loso", f.held_out ? figures_json(figures_of(f, s.runs, true)) : Json(nullptr)}});
  }
  j["sources"] = sources;
  j["in_sample"] = figures_json(f.in_sample);
  j["loso"] = f.held_out ? figures_json(f.loso) : Json(nullptr);
  j["constant_share_of_bound"] = {{"in_sample_median_abs_log", f.constant_in_sample.median_abs},
                                  {"loso_median_abs_log", f.held_out ? optional_json(f.constant_loso.median_abs) : Json(nullptr)}};
  Json spreads = Json::array();
  for (const RegimeSpread& s : f.spreads) {
    spreads.push_back({{"regime", name(s.regime)}, {"runs", s.runs}, {"rms", s.rms}, {"spread", s.spread}});
  }
  j["spreads"] = spreads;
  const BoundCheck b = check_bound(runs);
  Json beaten = Json::array();
  for (std::size_t i : b.beaten) beaten.push_back(runs[i].id);
  j["bound"] = {{"beaten_by", beaten}, {"highest_measured_over_bound", bound_ratio(runs[b.closest])},
                {"closest", runs[b.closest].id}};
  j["warnings"] = std::vector<std::string>(warnings.begin(), warnings.end());
  return enveloped(j).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace roofline::report
