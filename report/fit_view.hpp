#pragma once
// A fit of the expected-performance coefficients (model/leave_one_source_out.hpp) as people and
// programs read it: the coefficients with their units, priors and meaning; each run against the
// bound and the expected figure; each source held out; the interval widths by regime; whether
// any run beat the bound. Tables for a terminal or Markdown, or one JSON document.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/leave_one_source_out.hpp"
#include "model/measured_run.hpp"
#include "report/text_table.hpp"

namespace roofline::report {

// The coefficients at the digits the fit prints (three significant): what `fit --out` writes and
// hardware/expected_model.hpp ships, so that a printed value is exactly the value used.
[[nodiscard]] ExpectedModel as_printed(const ExpectedModel& m);
// One coefficient as printed: "0.856", "5.1 us".
[[nodiscard]] std::string printed(double value, std::string_view unit, double unit_scale);

// Where the coefficients come from, in one line for the YAML's `expected.source`: the file, its
// runs and sources, and the held-out figures.
[[nodiscard]] std::string fit_provenance(const FitCheck& f, const std::vector<MeasuredRun>& runs,
                                         std::string_view file);

// Coefficients, runs, sources, regimes: in this order.
[[nodiscard]] std::vector<TextTable> fit_tables(const FitCheck& f, const std::vector<MeasuredRun>& runs);
// The verdict lines under the tables: held-out figures against their targets, a single share of
// the bound for comparison, and the bound (never beaten, or the runs that beat it).
[[nodiscard]] std::string fit_summary(const FitCheck& f, const std::vector<MeasuredRun>& runs);

// The same as one JSON document (SI units: seconds; ratios are measured / figure in the
// performance sense), `expected` holding the block --out writes, and `warnings` what the rows'
// evaluations and the fit warned of (the tables print them to stderr).
[[nodiscard]] std::string fit_json(const FitCheck& f, const std::vector<MeasuredRun>& runs, std::string_view file,
                                   std::span<const std::string> warnings);

}  // namespace roofline::report
