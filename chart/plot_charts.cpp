#include "chart/plot_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "chart/chart_phrases.hpp"
#include "model/scans.hpp"
#include "report/human_units.hpp"
#include "report/layout_label.hpp"
#include "report/warning_text.hpp"
#include "report/weight_formats.hpp"

namespace roofline::chart {

using namespace report;

namespace {

constexpr Color kPrefill{230, 120, 20};
constexpr Color kDecode{31, 119, 180};
constexpr Color kRoof{40, 40, 40};
constexpr Color kOtherRoof{160, 160, 160};
constexpr Color kRidge{44, 160, 44};
constexpr Color kCritical{148, 103, 189};
constexpr Color kMemoryFull{214, 39, 40};
constexpr Color kCompute{44, 160, 44};
constexpr Color kMaxContext{140, 86, 75};

// The decade at or below v, and at or above it: log axes start and end on a power of ten.
double decade_below(double v) { return std::pow(10.0, std::floor(std::log10(v) + 1e-9)); }
double decade_above(double v) { return std::pow(10.0, std::ceil(std::log10(v) - 1e-9)); }

// A phrase of the chart's language with its numbers filled in by name.
template <class... Args>
std::string say(std::string_view phrase, const Args&... args) {
  return fmt::format(fmt::runtime(phrase), args...);
}

std::string subtitle(const Report& r, const ChartPhrases& p) {
  const Workload& w = r.workload;
  // A point that does not fit says so on every chart, the roofline's too, beside the numbers its
  // warning gives among the notes.
  return say(p.subtitle, fmt::arg("model", r.model.spec.name), fmt::arg("gpu", r.gpu.spec.name), fmt::arg("batch", w.batch),
             fmt::arg("context", w.context_tokens), fmt::arg("weights", block_format_name(r)),
             fmt::arg("layout", gpus(w) > 1 ? say(p.subtitle_layout, fmt::arg("layout", report::layout_label(w))) : "")) +
         std::string(r.memory.fits ? "" : p.subtitle_does_not_fit);
}

// Every warning the point carries, worded as the other outputs word it ("warning: …", "注意：…"):
// a chart file is an output, and what the point could not model is said in it too.
std::vector<std::string> notes(const Report& r, std::string_view lang) {
  std::vector<std::string> out;
  for (const std::string& w : report::warning_texts(r, lang)) out.push_back(std::string(report::warning_label(lang)) + w);
  return out;
}

Marker op_marker(const ChartPhrases& p, std::string_view phase, const OpResult& op, Color color, char glyph) {
  const double x = op.intensity().value(), y = (op.cost.flops / op.time).value();
  const std::string label =
      op.cost.layers.empty() ? std::string(op.cost.name) : fmt::format("{} ({})", op.cost.name, op.cost.layers);
  return Marker{say(p.operators_kind, fmt::arg("phase", phase)), label,
                say(p.operator_tooltip, fmt::arg("phase", phase), fmt::arg("op", label), fmt::arg("x", three_digits(x)),
                    fmt::arg("y", si(y, "FLOP/s")), fmt::arg("time", human(op.time)),
                    fmt::arg("bound", bound_phrase(p, op.bound))),
                x, y, color, 3.5, glyph};
}

Marker phase_marker(const ChartPhrases& p, std::string_view phase, const PhaseResult& r, Color color, char glyph) {
  const double x = r.intensity().value(), y = (r.flops / r.time).value();
  return Marker{say(p.phase_kind, fmt::arg("phase", phase)), std::string(phase),
                say(p.phase_tooltip, fmt::arg("phase", phase), fmt::arg("x", three_digits(x)), fmt::arg("y", si(y, "FLOP/s")),
                    fmt::arg("time", human(r.time)), fmt::arg("bound", bound_phrase(p, r.bound))),
                x, y, color, 7, glyph};
}

// Each distinct roof once, its dtypes named together (fp16 and bf16 share one on most GPUs).
std::map<double, std::string> roofs(const GpuSpec& g, DType compute, Detail detail) {
  std::map<double, std::string> out;
  for (DType t : kAllDTypes) {
    const auto peak = g.effective_peak(t);
    if (!peak || (detail == Detail::summary && t != compute)) continue;
    std::string& names = out[peak->value()];
    names += (names.empty() ? "" : "/") + std::string(name(t));
  }
  return out;
}

}  // namespace

Figure roofline_figure(const Report& r, Detail detail, std::string_view lang) {
  const ChartPhrases& words = chart_phrases(lang);
  Panel p;
  const double bw = r.gpu.ceilings.bandwidth.value(), ridge = r.gpu.ridge_point().value();
  const DType compute = r.workload.precision.compute;
  if (detail == Detail::full) {
    for (const auto& [phase, result, color, glyph] :
         {std::tuple{words.prefill, &r.prefill, kPrefill, 'p'}, std::tuple{words.decode, &r.decode.step, kDecode, 'd'}}) {
      for (const OpResult& op : result->ops) {
        if (op.cost.flops.value() > 0 && op.cost.bytes.value() > 0) p.markers.push_back(op_marker(words, phase, op, color, glyph));
      }
    }
  }
  p.markers.push_back(phase_marker(words, words.prefill, r.prefill, kPrefill, 'P'));
  p.markers.push_back(phase_marker(words, words.decode, r.decode.step, kDecode, 'D'));

  const auto roof_table = roofs(r.gpu.spec, compute, detail);
  const double top_roof = roof_table.rbegin()->first;
  double x_lo = ridge, x_hi = ridge, y_lo = top_roof;
  for (const Marker& m : p.markers) x_lo = std::min(x_lo, m.x), x_hi = std::max(x_hi, m.x), y_lo = std::min(y_lo, m.y);
  x_hi = std::max(x_hi, top_roof / bw);
  p.x = Axis{std::string(words.intensity_axis), "", Scale::log, decade_below(x_lo / 2), decade_above(x_hi * 2)};
  p.y = Axis{std::string(words.performance_axis), "FLOP/s", Scale::log, decade_below(y_lo / 2), decade_above(top_roof * 1.5)};

  p.curves.push_back(Curve{say(words.bandwidth_curve, fmt::arg("bw", human(r.gpu.ceilings.bandwidth))),
                           {{p.x.min, bw * p.x.min}, {top_roof / bw, top_roof}}, Stroke{kRoof, 2}});
  for (const auto& [peak, dtypes] : roof_table) {
    const bool own = std::abs(peak - r.gpu.ceilings.peak.value()) <= 1e-9 * peak;
    p.curves.push_back(Curve{say(words.roof_curve, fmt::arg("dtypes", dtypes), fmt::arg("peak", si(peak, "FLOP/s"))),
                             {{peak / bw, peak}, {p.x.max, peak}},
                             own ? Stroke{kRoof, 2.5, false, false, '='} : Stroke{kOtherRoof, 1.2, true, false, '.'}});
  }
  p.rules.push_back(Rule{say(words.ridge_rule, fmt::arg("ridge", three_digits(ridge))), ridge, true, Stroke{kRidge, 1.2, true}});
  // The title says what this report found: a short MoE prefill can be memory-bound too.
  return Figure{say(words.roofline_title, fmt::arg("prefill", bound_phrase(words, r.prefill.bound)),
                    fmt::arg("decode", bound_phrase(words, r.decode.step.bound)), fmt::arg("dtype", name(compute))),
                subtitle(r, words), {std::move(p)}, notes(r, lang)};
}

Figure batch_figure(const Report& base, std::string_view lang) {
  const ChartPhrases& words = chart_phrases(lang);
  const ModelSpec& m = base.model.spec;
  const Workload& w = base.workload;
  const double bstar = base.critical_batch.weights_only;
  // Past the workload's batch and both B*s, so that their marker and rules are drawn: 10^6 at most
  // unless the workload's own batch is larger.
  const double bstar_kv = base.critical_batch.at_context.value_or(0);
  const double reach = std::max({bstar, bstar_kv, 50.0});
  const double last = std::max(std::clamp(decade_above(2 * reach), 100.0, 1e6),
                               decade_above(1.01 * static_cast<double>(w.batch)));
  Panel time, rate;
  Curve step{std::string(words.step_time), {}, Stroke{kDecode, 2.5}},
      mem{std::string(words.memory_time), {}, Stroke{kRoof, 1.2, true, false, '.'}},
      comp{std::string(words.compute_time), {}, Stroke{kCompute, 1.2, true, false, ':'}},
      tps{std::string(words.tokens_per_s), {}, Stroke{kPrefill, 2.5}};
  // What real runs take (model/expected.hpp): the central estimate and its 10-90% band, above the bound.
  Curve expected{std::string(words.expected_step), {}, Stroke{kDecode, 1.5, true, false, '~'}},
      expected_tps{std::string(words.expected_tokens_per_s), {}, Stroke{kPrefill, 1.5, true, false, '~'}};
  Band interval{std::string(words.expected_band), {}, {}, {}, kDecode, 0.15};
  const std::vector<Report> scan = scan_batch(m, base.gpu.spec, w, static_cast<long>(last), 60);
  for (const Report& r : scan) {
    const auto bv = static_cast<double>(r.workload.batch);
    step.points.push_back({bv, r.decode.step.time.value()});
    mem.points.push_back({bv, r.decode.step.memory_time.value()});
    comp.points.push_back({bv, r.decode.step.compute_time.value()});
    tps.points.push_back({bv, r.decode.tokens_per_s});
    const Expected& e = r.decode.step.expected;
    expected.points.push_back({bv, e.time.value()});
    expected_tps.points.push_back({bv, r.decode.expected_tokens_per_s});
    interval.x.push_back(bv);
    interval.low.push_back(e.low.value());
    interval.high.push_back(e.high.value());
  }
  const long full = first_batch_past_memory(base, static_cast<long>(last)).value_or(0);  // 0: every batch drawn fits
  const Axis batch{std::string(words.batch_axis), "", Scale::log, 1, last};
  auto range = [](const std::vector<Pt>& pts) {
    const auto [lo, hi] = std::minmax_element(pts.begin(), pts.end(), [](Pt a, Pt b) { return a.y < b.y; });
    return std::pair{decade_below(lo->y), decade_above(hi->y * 1.01)};
  };
  const double t_lo = range(step.points).first;
  const double t_hi = decade_above(*std::max_element(interval.high.begin(), interval.high.end()) * 1.01);
  time.x = rate.x = batch;
  time.y = Axis{std::string(words.step_axis), "s", Scale::log, t_lo, t_hi};
  const auto [r_lo_bound, r_hi] = range(tps.points);
  const double r_lo = std::min(r_lo_bound, decade_below(expected_tps.points.front().y));
  rate.y = Axis{std::string(words.throughput_axis), "", Scale::log, r_lo, r_hi};
  time.curves = {step, mem, comp, expected};  // the parts over the total: dashes show where they coincide
  time.bands = {interval};
  rate.curves = {tps, expected_tps};
  for (Panel* p : {&time, &rate}) {
    p->rules.push_back(Rule{say(words.critical_batch_rule, fmt::arg("bstar", three_digits(bstar))), bstar, true, Stroke{kCritical, 1.2, true}});
    // A model known only by its size has no KV cache: its B* at context is the classic one again.
    if (const auto& at = base.critical_batch.at_context; at && m.architecture) {
      p->rules.push_back(Rule{say(words.critical_batch_kv_rule, fmt::arg("t", w.context_tokens), fmt::arg("bstar", three_digits(*at))),
                              *at, true,
                              Stroke{kCritical, 1.2, true}});
    }
    if (full > 0) {
      p->shades.push_back(Shade{std::string(words.does_not_fit), static_cast<double>(full), last, kMemoryFull});
      p->rules.push_back(Rule{say(words.memory_full_batch, fmt::arg("batch", full)), static_cast<double>(full), true,
                              Stroke{kMemoryFull, 1.2}});
    }
  }
  const double b = static_cast<double>(w.batch);
  time.markers.push_back(Marker{std::string(words.this_workload),
                                say(words.batch_marker, fmt::arg("batch", w.batch), fmt::arg("time", human(base.decode.step.time))), "", b,
                                base.decode.step.time.value(), kDecode, 6, 'B'});
  rate.markers.push_back(Marker{std::string(words.this_workload),
                                say(words.tokens_per_s_marker, fmt::arg("tps", three_digits(base.decode.tokens_per_s))), "", b,
                                base.decode.tokens_per_s, kDecode, 6, 'B'});
  return Figure{std::string(words.batch_title), subtitle(base, words),
                {std::move(time), std::move(rate)}, notes(base, lang)};
}

Figure context_figure(const Report& base, std::string_view lang) {
  const ChartPhrases& words = chart_phrases(lang);
  const ModelSpec& m = base.model.spec;
  const Workload& w = base.workload;
  // To the model's context, and past it to the workload's own where that is longer (warned of),
  // so that its marker is drawn.
  const long last = std::max(m.max_context.value_or(std::max(32768L, 2 * w.context_tokens)), w.context_tokens);
  Panel p;
  Curve step{std::string(words.step_time), {}, Stroke{kDecode, 2.5}};
  Band weights{std::string(words.reading_weights), {}, {}, {}, kRoof, 0.25},
      rest{std::string(words.cache_and_rest), {}, {}, {}, kDecode, 0.3};
  // The exact limit, not the first of 64 samples past it (up to 2048 tokens late at 131072).
  const std::optional<long> full = first_context_past_memory(m, base.gpu.spec, w, last);
  bool past = false;  // the band is drawn to the first sample at or past the limit, where the shade begins
  for (const Report& r : scan_context(m, base.gpu.spec, w, last, 64)) {
    const auto t = static_cast<double>(r.workload.context_tokens);
    const double s = r.decode.step.time.value();
    const double read_weights = std::min(s, r.decode.weight_read_time.value());
    step.points.push_back({t, s});
    if (past) continue;  // past the memory limit the split is moot: only the total is drawn
    weights.x.push_back(t), weights.low.push_back(0), weights.high.push_back(read_weights);
    rest.x.push_back(t), rest.low.push_back(read_weights), rest.high.push_back(s);
    past = full && r.workload.context_tokens >= *full;
  }
  const double top = step.points.back().y;
  p.x = Axis{std::string(words.context_axis), "", Scale::linear, 0, static_cast<double>(last)};
  p.y = Axis{say(words.step_time_at_batch, fmt::arg("batch", w.batch)), "s", Scale::linear, 0, top * 1.15};
  p.bands = {weights, rest};
  p.curves = {step};
  if (full) {
    p.shades.push_back(Shade{std::string(words.does_not_fit), static_cast<double>(*full), static_cast<double>(last), kMemoryFull});
    // At one token nothing fits: the weights and the batch's activations, not a context, are the limit.
    const std::string label = *full <= 1 ? say(words.memory_full_any_context, fmt::arg("batch", w.batch))
                                         : say(words.memory_full_context, fmt::arg("t", *full));
    p.rules.push_back(Rule{label, static_cast<double>(*full), true, Stroke{kMemoryFull, 1.2}});
  }
  // An axis run past the model's context to reach the workload's (warned of) marks where the
  // model's ends: past it the step is priced, but no engine serves it.
  if (m.max_context && *m.max_context < last) {
    p.rules.push_back(Rule{say(words.max_context_rule, fmt::arg("t", *m.max_context)), static_cast<double>(*m.max_context),
                           true, Stroke{kMaxContext, 1.2, true}});
  }
  p.markers.push_back(Marker{std::string(words.this_workload),
                             say(words.context_marker, fmt::arg("t", w.context_tokens), fmt::arg("time", human(base.decode.step.time))),
                             "", static_cast<double>(w.context_tokens), base.decode.step.time.value(), kDecode, 6, 'C'});
  return Figure{std::string(words.context_title), subtitle(base, words), {std::move(p)}, notes(base, lang)};
}

}  // namespace roofline::chart
