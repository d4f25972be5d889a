#pragma once
// A published (or the user's own) measurement beside the engine's evaluation of the same run:
// the bound's phases with their operators, kept once, so that fitting the expected-performance
// coefficients (model/fit_expected.hpp) reprices them without evaluating or parsing again.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "hardware/expected_model.hpp"
#include "hardware/gpu_spec.hpp"
#include "model/report.hpp"

namespace roofline {

// What a run's publisher measured, and how it follows from a prefill time and a decode step time
// (the columns of tests/data/measurements/README.md).
enum class Metric {
  decode_tok_s_per_seq,  // 1 / step: one sequence's decode tokens per second
  decode_tok_s_total,    // batch·gen / (prefill + (gen − 1)·step): a static batch start to end
  prefill_tok_s,         // batch·prompt / prefill
  ttft_s,                // prefill: a batch's time to first token, seconds
};
inline constexpr std::array kMetrics = {Metric::decode_tok_s_per_seq, Metric::decode_tok_s_total,
                                        Metric::prefill_tok_s, Metric::ttft_s};

[[nodiscard]] std::string_view name(Metric m);
[[nodiscard]] std::optional<Metric> metric_from_name(std::string_view word);

struct MeasuredRun {
  std::string id;
  std::string source;  // the group a leave-one-source-out check holds out together
  Metric metric = Metric::decode_tok_s_per_seq;
  double measured = 0;  // in the metric's unit
  long batch = 1, prompt = 1, gen = 1;
  int tp = 1;
  PhaseResult prefill, step;  // the bound's, with every operator
  Ceilings ceilings;
  // The GPU's kernel classes (its file's, or every GPU's tables together; none when calibrated):
  // they price the operators of their classes whatever the coefficients being fitted, which then
  // price the rest and say what the engine adds (two layers).
  std::optional<KernelCoefficients> kernels;
};

// The run as the engine evaluated it (`report` is the evaluation of this run's workload).
[[nodiscard]] MeasuredRun measured_run(std::string id, std::string source, Metric metric, double measured,
                                       const Report& report);

// The group of a `source` text: its first word, which names the project the figures come from
// (`pytorch-labs/gpt-fast README.md @32971d3 (...)` → `pytorch-labs/gpt-fast`), so that two
// tables of one project are held out together.
[[nodiscard]] std::string source_group(std::string_view source);

// The metric's figure for a prefill time and a decode step time.
[[nodiscard]] double figure(const MeasuredRun& run, Seconds prefill, Seconds step);
// measured / figure in the performance sense (a time is inverted): above 1, the run was faster.
[[nodiscard]] double performance_ratio(const MeasuredRun& run, double figure);

// The run priced with a set of coefficients.
struct RunPrediction {
  Expected prefill, step;
  double figure = 0;     // the metric's expected figure
  double log_ratio = 0;  // log(measured / expected), in the performance sense
  Regime regime = Regime::memory;
  // Shares of the time the metric depends on: launches and per-pass costs with all-reduces, and
  // compute terms (what decides the regime).
  double fixed_share = 0, compute_share = 0;
};

[[nodiscard]] RunPrediction predict(const MeasuredRun& run, const ExpectedModel& m);

// The bound's figure, and measured / bound (never above 1 while the roofline holds).
[[nodiscard]] double bound_figure(const MeasuredRun& run);
[[nodiscard]] double bound_ratio(const MeasuredRun& run);

}  // namespace roofline
