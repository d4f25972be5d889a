#pragma once
// Every word a chart prints, in English and Chinese, as `explain`'s words are
// (report/explain_phrases.hpp): titles, subtitles, axis names, legend entries, rule labels and
// tooltips. Numbers and units are named arguments filled by the chart builders, so a language
// changes the words around them and nothing else.
#include <string_view>

#include "hardware/roofline.hpp"

namespace roofline::chart {

struct ChartPhrases {
  // Shared by the charts.
  std::string_view subtitle, subtitle_layout, subtitle_does_not_fit, prefill, decode, compute_bound, memory_bound,
      interconnect_bound, step_time, this_workload, does_not_fit;
  // The roofline.
  std::string_view roofline_title, intensity_axis, performance_axis, bandwidth_curve, roof_curve, ridge_rule,
      operators_kind, phase_kind, operator_tooltip, phase_tooltip;
  // Decode against batch.
  // step_axis: the step-time panel's axis, which holds the bound's curve and the expected one.
  std::string_view batch_title, batch_axis, step_axis, throughput_axis, memory_time, compute_time, tokens_per_s,
      expected_step, expected_tokens_per_s, expected_band, critical_batch_rule, critical_batch_kv_rule, memory_full_batch,
      batch_marker, tokens_per_s_marker;
  // Decode against context.
  std::string_view context_title, context_axis, step_time_at_batch, reading_weights, cache_and_rest,
      memory_full_context, memory_full_any_context, context_marker, max_context_rule;
};

// The phrases of "en" or "zh" (the spellings `--lang` accepts); any other: English.
[[nodiscard]] const ChartPhrases& chart_phrases(std::string_view lang);

// "compute-bound", "访存受限": what a phase waits on, as the phrases say it.
[[nodiscard]] std::string_view bound_phrase(const ChartPhrases& p, Bound b);

}  // namespace roofline::chart
