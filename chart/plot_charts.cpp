#include "chart/plot_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "model/scans.hpp"
#include "report/human_units.hpp"
#include "report/layout_label.hpp"
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

// The decade at or below v, and at or above it: log axes start and end on a power of ten.
double decade_below(double v) { return std::pow(10.0, std::floor(std::log10(v) + 1e-9)); }
double decade_above(double v) { return std::pow(10.0, std::ceil(std::log10(v) - 1e-9)); }

std::string subtitle(const Report& r) {
  const Workload& w = r.workload;
  return fmt::format("{} on {} · batch {} · context {} · {} weights{}", r.model.spec.name, r.gpu.spec.name, w.batch,
                     w.context_tokens, block_format_name(r), gpus(w) > 1 ? " · " + report::layout_label(w) : "");
}

Marker op_marker(std::string_view phase, const OpResult& op, Color color, char glyph) {
  const double x = op.intensity().value(), y = (op.cost.flops / op.time).value();
  const std::string label =
      op.cost.layers.empty() ? std::string(op.cost.name) : fmt::format("{} ({})", op.cost.name, op.cost.layers);
  return Marker{fmt::format("{} operators", phase), label,
                fmt::format("{} {}: {} FLOP/B, {} attained, {}, {}-bound", phase, label, three_digits(x),
                            si(y, "FLOP/s"), human(op.time), name(op.bound)),
                x, y, color, 3.5, glyph};
}

Marker phase_marker(std::string_view phase, const PhaseResult& p, Color color, char glyph) {
  const double x = p.intensity().value(), y = (p.flops / p.time).value();
  return Marker{fmt::format("{} (whole phase)", phase), std::string(phase),
                fmt::format("{}: {} FLOP/B, {} attained, {}, {}-bound", phase, three_digits(x), si(y, "FLOP/s"),
                            human(p.time), name(p.bound)),
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

Figure roofline_figure(const Report& r, Detail detail) {
  Panel p;
  const double bw = r.gpu.ceilings.bandwidth.value(), ridge = r.gpu.ridge_point().value();
  const DType compute = r.workload.precision.compute;
  if (detail == Detail::full) {
    for (const auto& [phase, result, color, glyph] :
         {std::tuple{"prefill", &r.prefill, kPrefill, 'p'}, std::tuple{"decode", &r.decode.step, kDecode, 'd'}}) {
      for (const OpResult& op : result->ops) {
        if (op.cost.flops.value() > 0 && op.cost.bytes.value() > 0) p.markers.push_back(op_marker(phase, op, color, glyph));
      }
    }
  }
  p.markers.push_back(phase_marker("prefill", r.prefill, kPrefill, 'P'));
  p.markers.push_back(phase_marker("decode", r.decode.step, kDecode, 'D'));

  const auto roof_table = roofs(r.gpu.spec, compute, detail);
  const double top_roof = roof_table.rbegin()->first;
  double x_lo = ridge, x_hi = ridge, y_lo = top_roof;
  for (const Marker& m : p.markers) x_lo = std::min(x_lo, m.x), x_hi = std::max(x_hi, m.x), y_lo = std::min(y_lo, m.y);
  x_hi = std::max(x_hi, top_roof / bw);
  p.x = Axis{"arithmetic intensity (FLOP per byte moved)", "", Scale::log, decade_below(x_lo / 2), decade_above(x_hi * 2)};
  p.y = Axis{"attainable performance", "FLOP/s", Scale::log, decade_below(y_lo / 2), decade_above(top_roof * 1.5)};

  p.curves.push_back(Curve{fmt::format("memory bandwidth {}", human(r.gpu.ceilings.bandwidth)),
                           {{p.x.min, bw * p.x.min}, {top_roof / bw, top_roof}}, Stroke{kRoof, 2}});
  for (const auto& [peak, dtypes] : roof_table) {
    const bool own = std::abs(peak - r.gpu.ceilings.peak.value()) <= 1e-9 * peak;
    p.curves.push_back(Curve{fmt::format("{} roof {}", dtypes, si(peak, "FLOP/s")),
                             {{peak / bw, peak}, {p.x.max, peak}},
                             own ? Stroke{kRoof, 2.5, false, false, '='} : Stroke{kOtherRoof, 1.2, true, false, '.'}});
  }
  p.rules.push_back(Rule{fmt::format("ridge {} FLOP/B", three_digits(ridge)), ridge, true, Stroke{kRidge, 1.2, true}});
  // The title says what this report found: a short MoE prefill can be memory-bound too.
  return Figure{fmt::format("Roofline: prefill is {}-bound, decode {}-bound ({} compute)", name(r.prefill.bound),
                            name(r.decode.step.bound), name(compute)),
                subtitle(r), {std::move(p)}};
}

Figure batch_figure(const Report& base) {
  const ModelSpec& m = base.model.spec;
  const Workload& w = base.workload;
  const double bstar = base.critical_batch.weights_only;
  const double last = std::clamp(decade_above(2 * std::max({bstar, 50.0, static_cast<double>(w.batch)})), 100.0, 1e6);
  Panel time, rate;
  Curve step{"decode step time", {}, Stroke{kDecode, 2.5}}, mem{"memory time (all bytes at bandwidth)", {}, Stroke{kRoof, 1.2, true, false, '.'}},
      comp{"compute time (all FLOPs at peak)", {}, Stroke{kCompute, 1.2, true, false, ':'}}, tps{"tokens/s", {}, Stroke{kPrefill, 2.5}};
  // What real runs take (model/expected.hpp): the central estimate and its 10-90% band, above the bound.
  Curve expected{"expected step time (10-90% shaded)", {}, Stroke{kDecode, 1.5, true, false, '~'}},
      expected_tps{"expected tokens/s", {}, Stroke{kPrefill, 1.5, true, false, '~'}};
  Band interval{"expected, 10-90%", {}, {}, {}, kDecode, 0.15};
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
  const Report* overflow = first_overflow(scan);
  const long full = overflow ? overflow->workload.batch : 0;  // 0: every batch scanned fits
  const Axis batch{"batch (sequences decoded together)", "", Scale::log, 1, last};
  auto range = [](const std::vector<Pt>& pts) {
    const auto [lo, hi] = std::minmax_element(pts.begin(), pts.end(), [](Pt a, Pt b) { return a.y < b.y; });
    return std::pair{decade_below(lo->y), decade_above(hi->y * 1.01)};
  };
  const double t_lo = range(step.points).first;
  const double t_hi = decade_above(*std::max_element(interval.high.begin(), interval.high.end()) * 1.01);
  time.x = rate.x = batch;
  time.y = Axis{"decode step time", "s", Scale::log, t_lo, t_hi};
  const auto [r_lo_bound, r_hi] = range(tps.points);
  const double r_lo = std::min(r_lo_bound, decade_below(expected_tps.points.front().y));
  rate.y = Axis{"throughput (tokens/s, whole group)", "", Scale::log, r_lo, r_hi};
  time.curves = {step, mem, comp, expected};  // the parts over the total: dashes show where they coincide
  time.bands = {interval};
  rate.curves = {tps, expected_tps};
  for (Panel* p : {&time, &rate}) {
    p->rules.push_back(Rule{fmt::format("B* = {}", three_digits(bstar)), bstar, true, Stroke{kCritical, 1.2, true}});
    // A model known only by its size has no KV cache: its B* at context is the classic one again.
    if (const auto& at = base.critical_batch.at_context; at && m.architecture) {
      p->rules.push_back(Rule{fmt::format("B* with KV at {} tokens = {}", w.context_tokens, three_digits(*at)), *at, true,
                              Stroke{kCritical, 1.2, true}});
    }
    if (full > 0) {
      p->shades.push_back(Shade{"does not fit in memory", static_cast<double>(full), last, kMemoryFull});
      p->rules.push_back(Rule{fmt::format("memory full at batch {}", full), static_cast<double>(full), true,
                              Stroke{kMemoryFull, 1.2}});
    }
  }
  const double b = static_cast<double>(w.batch);
  time.markers.push_back(Marker{"this workload", fmt::format("batch {}: {}", w.batch, human(base.decode.step.time)), "", b,
                                base.decode.step.time.value(), kDecode, 6, 'B'});
  rate.markers.push_back(Marker{"this workload", fmt::format("{} tokens/s", three_digits(base.decode.tokens_per_s)), "", b,
                                base.decode.tokens_per_s, kDecode, 6, 'B'});
  return Figure{"Decode against batch: step time and throughput, with B* and the memory limit", subtitle(base),
                {std::move(time), std::move(rate)}};
}

Figure context_figure(const Report& base) {
  const ModelSpec& m = base.model.spec;
  const Workload& w = base.workload;
  const long last = m.max_context.value_or(std::max(32768L, 2 * w.context_tokens));
  Panel p;
  Curve step{"decode step time", {}, Stroke{kDecode, 2.5}};
  Band weights{"reading the weights", {}, {}, {}, kRoof, 0.25}, rest{"KV cache, activations, compute", {}, {}, {}, kDecode, 0.3};
  std::optional<long> full;
  for (const Report& r : scan_context(m, base.gpu.spec, w, last, 64)) {
    const auto t = static_cast<double>(r.workload.context_tokens);
    const double s = r.decode.step.time.value();
    const double read_weights = std::min(s, r.decode.weight_read_time.value());
    step.points.push_back({t, s});
    if (full) continue;  // past the memory limit the split is moot: only the total is drawn
    weights.x.push_back(t), weights.low.push_back(0), weights.high.push_back(read_weights);
    rest.x.push_back(t), rest.low.push_back(read_weights), rest.high.push_back(s);
    if (!r.memory.fits) full = r.workload.context_tokens;
  }
  const double top = step.points.back().y;
  p.x = Axis{"context (tokens in the KV cache per sequence)", "", Scale::linear, 0, static_cast<double>(last)};
  p.y = Axis{fmt::format("decode step time at batch {}", w.batch), "s", Scale::linear, 0, top * 1.15};
  p.bands = {weights, rest};
  p.curves = {step};
  if (full) {
    p.shades.push_back(Shade{"does not fit in memory", static_cast<double>(*full), static_cast<double>(last), kMemoryFull});
    p.rules.push_back(Rule{fmt::format("memory full at {} tokens", *full), static_cast<double>(*full), true,
                           Stroke{kMemoryFull, 1.2}});
  }
  p.markers.push_back(Marker{"this workload", fmt::format("context {}: {}", w.context_tokens, human(base.decode.step.time)),
                             "", static_cast<double>(w.context_tokens), base.decode.step.time.value(), kDecode, 6, 'C'});
  return Figure{"Decode against context: the KV cache read grows with every token", subtitle(base), {std::move(p)}};
}

}  // namespace roofline::chart
