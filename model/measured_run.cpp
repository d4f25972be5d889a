#include "model/measured_run.hpp"

#include <cmath>
#include <utility>

#include "model/expected.hpp"

namespace roofline {

namespace {

constexpr std::array<std::string_view, kMetrics.size()> kMetricNames = {"decode_tok_s_per_seq", "decode_tok_s_total",
                                                                         "prefill_tok_s", "ttft_s"};

// How much of the metric's time each phase is: a static batch's total throughput pays one
// prefill and gen − 1 steps; the others read one phase.
struct PhaseWeights {
  double prefill, step;
};
PhaseWeights weights_of(const MeasuredRun& r) {
  switch (r.metric) {
    case Metric::decode_tok_s_per_seq: return {0, 1};
    case Metric::decode_tok_s_total: return {1, static_cast<double>(r.gen - 1)};
    case Metric::prefill_tok_s:
    case Metric::ttft_s: return {1, 0};
  }
  return {0, 1};
}

}  // namespace

std::string_view name(Metric m) { return kMetricNames[static_cast<std::size_t>(m)]; }

std::optional<Metric> metric_from_name(std::string_view word) {
  for (Metric m : kMetrics) {
    if (name(m) == word) return m;
  }
  return std::nullopt;
}

MeasuredRun measured_run(std::string id, std::string source, Metric metric, double measured, const Report& report) {
  const Workload& w = report.workload;
  return {std::move(id), std::move(source), metric, measured, w.batch, w.prompt_tokens, w.gen_tokens, w.tp,
          report.prefill, report.decode.step, report.gpu.ceilings,
          report.gpu.spec.expected_model().kernels};
}

std::string source_group(std::string_view source) {
  const std::size_t start = source.find_first_not_of(" \t");
  if (start == std::string_view::npos) return "";
  std::string_view word = source.substr(start);
  word = word.substr(0, word.find_first_of(" \t"));
  // "gpt-fast, table 3" and "gpt-fast: table 3" are one project.
  while (!word.empty() && (word.back() == ',' || word.back() == ':' || word.back() == ';')) word.remove_suffix(1);
  return std::string(word);
}

double figure(const MeasuredRun& r, Seconds prefill, Seconds step) {
  const auto batch = static_cast<double>(r.batch);
  switch (r.metric) {
    case Metric::decode_tok_s_per_seq: return 1.0 / step.value();
    case Metric::decode_tok_s_total:
      return batch * static_cast<double>(r.gen) / (prefill + step * static_cast<double>(r.gen - 1)).value();
    case Metric::prefill_tok_s: return batch * static_cast<double>(r.prompt) / prefill.value();
    case Metric::ttft_s: return prefill.value();
  }
  return 0;
}

double performance_ratio(const MeasuredRun& r, double figure) {
  return r.metric == Metric::ttft_s ? figure / r.measured : r.measured / figure;
}

RunPrediction predict(const MeasuredRun& r, const ExpectedModel& fitted) {
  ExpectedModel m = fitted;
  m.kernels = r.kernels;
  RunPrediction p;
  p.prefill = expected_phase(r.prefill, m, r.ceilings);
  p.step = expected_phase(r.step, m, r.ceilings);
  p.figure = figure(r, p.prefill.time, p.step.time);
  p.log_ratio = std::log(performance_ratio(r, p.figure));
  const PhaseWeights w = weights_of(r);
  const auto mix = [&w](Seconds pre, Seconds step) { return pre.value() * w.prefill + step.value() * w.step; };
  const double total = mix(p.prefill.time, p.step.time);
  if (total > 0) {
    p.fixed_share = mix(p.prefill.overhead + p.prefill.comm, p.step.overhead + p.step.comm) / total;
    p.compute_share = mix(p.prefill.compute, p.step.compute) / total;
  }
  p.regime = regime_of(p.fixed_share, p.compute_share);
  return p;
}

double bound_figure(const MeasuredRun& r) { return figure(r, r.prefill.time, r.step.time); }

double bound_ratio(const MeasuredRun& r) { return performance_ratio(r, bound_figure(r)); }

}  // namespace roofline
