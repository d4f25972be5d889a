// Fitting the expected-performance coefficients: the metrics' figures worked by hand, the fit
// finding coefficients that runs were priced with, its bounds, and the held-out checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "model/expected.hpp"
#include "model/fit_expected.hpp"
#include "model/leave_one_source_out.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::test;

namespace {

// A run whose bound takes 2 ms to prefill and 10 ms a step: batch 4, 100 tokens in, 11 out.
MeasuredRun hand_run(Metric metric, double measured) {
  MeasuredRun r;
  r.metric = metric;
  r.measured = measured;
  r.batch = 4;
  r.prompt = 100;
  r.gen = 11;
  r.prefill.time = Seconds(2e-3);
  r.step.time = Seconds(10e-3);
  return r;
}

// The coefficients the synthetic runs below are priced with: none at its prior's centre.
// One layer (no kernel classes): every operator priced by the coefficients the fit moves.
ExpectedModel truth() {
  ExpectedModel m;
  m.kernels.reset();
  m.memory = 0.8;
  m.compute = 0.6;
  m.launch = us(8);
  m.hop_latency = us(2);
  m.dequant_int8 = 0.7;
  m.dequant_int4 = 0.6;
  return m;
}

struct Setting {
  ModelSpec model;
  GpuSpec gpu;
  Metric metric;
  long batch, prompt, gen;
  int tp;
  std::optional<WeightFormat> weights;
};

// Runs that each pin a coefficient: batch-1 decode (memory, launches), a large batch and a long
// prefill (compute), tensor parallelism (hop latency), int8 and int4 weights (dequantisation).
// Each is "measured" at exactly the figure `m` expects, from `source`.
std::vector<MeasuredRun> priced_runs(const ExpectedModel& m, const std::string& source) {
  const std::vector<Setting> settings = {
      {llama_2_7b(), a100_80gb(), Metric::decode_tok_s_per_seq, 1, 5, 200, 1, std::nullopt},
      {llama_2_70b(), h100_sxm(), Metric::decode_tok_s_per_seq, 1, 5, 200, 8, std::nullopt},
      {llama_2_70b(), a100_80gb(), Metric::decode_tok_s_per_seq, 1, 5, 200, 4, std::nullopt},
      {llama_2_7b(), a100_80gb(), Metric::decode_tok_s_total, 256, 128, 128, 1, std::nullopt},
      {llama_2_7b(), h100_sxm(), Metric::ttft_s, 1, 2048, 1, 1, std::nullopt},
      {llama_3_1_8b(), l4(), Metric::prefill_tok_s, 4, 1024, 1, 1, std::nullopt},
      {llama_2_7b(), a100_80gb(), Metric::decode_tok_s_per_seq, 1, 5, 200, 1, WeightFormat::int8},
      {llama_2_70b(), a100_80gb(), Metric::decode_tok_s_per_seq, 1, 5, 200, 1, WeightFormat::int4},
      {llama_3_1_8b(), l4(), Metric::decode_tok_s_per_seq, 1, 5, 200, 1, WeightFormat::int4},
  };
  std::vector<MeasuredRun> runs;
  for (const Setting& s : settings) {
    Workload w = default_workload(s.model, s.batch);
    w.prompt_tokens = s.prompt;
    w.gen_tokens = s.gen;
    w.context_tokens = s.prompt + s.gen / 2;
    w.tp = s.tp;
    w.precision = resolve_precision(s.model, {.weights = s.weights});
    MeasuredRun r = measured_run(source + std::to_string(runs.size()), source, s.metric, 1, evaluate(s.model, s.gpu, w));
    r.kernels.reset();
    const double expected = predict(r, m).figure;
    r.measured = expected;
    runs.push_back(r);
  }
  return runs;
}

std::vector<const MeasuredRun*> pointers(const std::vector<MeasuredRun>& runs) {
  std::vector<const MeasuredRun*> out;
  for (const MeasuredRun& r : runs) out.push_back(&r);
  return out;
}

}  // namespace

TEST_CASE("measured runs: each metric's figure from a prefill time and a step time, worked by hand") {
  // 1 / 10 ms = 100 tokens/s for one sequence.
  CHECK(bound_figure(hand_run(Metric::decode_tok_s_per_seq, 50)) == Approx(100));
  // A static batch: 4 · 11 tokens over one 2 ms prefill and 10 steps of 10 ms: 44 / 0.102 s = 431.4 tokens/s.
  CHECK(bound_figure(hand_run(Metric::decode_tok_s_total, 50)) == Approx(44 / 0.102));
  // 4 · 100 prompt tokens in 2 ms: 200,000 tokens/s.
  CHECK(bound_figure(hand_run(Metric::prefill_tok_s, 50)) == Approx(200'000));
  CHECK(bound_figure(hand_run(Metric::ttft_s, 50)) == Approx(2e-3));
  // A rate measured at half the bound's is 0.5 of it; a time twice the bound's is 0.5 too.
  CHECK(bound_ratio(hand_run(Metric::decode_tok_s_per_seq, 50)) == Approx(0.5));
  CHECK(bound_ratio(hand_run(Metric::ttft_s, 4e-3)) == Approx(0.5));
}

TEST_CASE("measured runs: a source's group is its first word, the project it names") {
  CHECK(source_group("pytorch-labs/gpt-fast README.md @32971d3 (A100-80GB SXM, batch 1)") == "pytorch-labs/gpt-fast");
  CHECK(source_group("pytorch-labs/gpt-fast mixtral-moe/README.md @32971d3") == "pytorch-labs/gpt-fast");
  CHECK(source_group("  vLLM, table 3") == "vLLM");
  CHECK(source_group("llama.cpp: PR 1234") == "llama.cpp");
  CHECK(metric_from_name("ttft_s") == Metric::ttft_s);
  CHECK_FALSE(metric_from_name("ttft"));
}

TEST_CASE("measured runs: a one-phase metric's regime is the phase's own, as model/expected.cpp decides it") {
  for (const MeasuredRun& r : priced_runs(ExpectedModel{}, "a")) {
    const RunPrediction p = predict(r, ExpectedModel{});
    if (r.metric == Metric::decode_tok_s_per_seq) CHECK(p.regime == p.step.regime);
    if (r.metric == Metric::ttft_s || r.metric == Metric::prefill_tok_s) CHECK(p.regime == p.prefill.regime);
  }
}

TEST_CASE("fit: runs priced with known coefficients give those coefficients back") {
  const ExpectedModel known = truth();
  std::vector<MeasuredRun> runs;
  for (int copy = 0; copy < 10; ++copy) {
    const std::vector<MeasuredRun> more = priced_runs(known, "a");
    runs.insert(runs.end(), more.begin(), more.end());
  }
  const ExpectedModel fitted = fit_expected(pointers(runs));
  // At the truth every run's residual is 0; the priors pull away from it, less the more runs say
  // the same (ten copies of each here).
  CHECK(fitted.memory == Approx(known.memory).epsilon(0.02));
  CHECK(fitted.compute == Approx(known.compute).epsilon(0.02));
  CHECK(fitted.launch.value() == Approx(known.launch.value()).epsilon(0.05));
  CHECK(fitted.hop_latency.value() == Approx(known.hop_latency.value()).epsilon(0.1));
  CHECK(fitted.dequant_int8 == Approx(known.dequant_int8).epsilon(0.03));
  CHECK(fitted.dequant_int4 == Approx(known.dequant_int4).epsilon(0.03));
  // And it is a minimum: moving any coefficient by 1% raises the objective.
  const double best = fit_objective(pointers(runs), fitted);
  for (const FittedCoefficient& c : fitted_coefficients()) {
    for (double k : {0.99, 1.01}) {
      ExpectedModel moved = fitted;
      c.set(moved, c.get(fitted) * k);
      CHECK(fit_objective(pointers(runs), moved) > best);
    }
  }
}

TEST_CASE("fit: a share of a ceiling stays at most 1, however fast the runs") {
  // Runs measured at the bound itself: the fit would like more than the whole bandwidth and no
  // launch cost; it stops at the bound of each coefficient.
  std::vector<MeasuredRun> runs = priced_runs(truth(), "a");
  for (MeasuredRun& r : runs) r.measured = bound_figure(r);
  const ExpectedModel fitted = fit_expected(pointers(runs));
  for (const FittedCoefficient& c : fitted_coefficients()) {
    CHECK(c.get(fitted) >= c.prior.lowest);
    CHECK(c.get(fitted) <= c.prior.highest);
  }
  CHECK(fitted.memory == Approx(1.0));
  CHECK(fitted.compute == Approx(1.0));
  // Nor does any expected figure come out faster than the bound.
  for (const MeasuredRun& r : runs) CHECK(predict(r, fitted).log_ratio >= std::log(bound_ratio(r)) - 1e-12);
}

TEST_CASE("fit: what no run says about stays at its prior") {
  // No run has int8 weights: dequant_int8 is its prior's centre, 0.85.
  std::vector<MeasuredRun> runs = priced_runs(truth(), "a");
  std::erase_if(runs, [](const MeasuredRun& r) { return r.id == "a6"; });
  CHECK(fit_expected(pointers(runs)).dequant_int8 == Approx(0.85));
}

TEST_CASE("leave one source out: three sources priced alike predict each other, and the spreads by regime are small") {
  std::vector<MeasuredRun> runs;
  for (const std::string source : {"a", "b", "c"}) {
    const std::vector<MeasuredRun> more = priced_runs(truth(), source);
    runs.insert(runs.end(), more.begin(), more.end());
  }
  const FitCheck f = fit_and_check(runs);
  REQUIRE(f.sources.size() == 3);
  CHECK(f.sources[1].source == "b");
  CHECK(f.sources[1].runs.size() == 9);
  CHECK(f.held_out);
  CHECK(f.nested);
  // Runs priced with one set of coefficients: every held-out run within a few % of its figure
  // (what the priors pull).
  CHECK(f.loso.median_abs < 0.03);
  CHECK(f.loso.within_25 == 1.0);
  for (const RunCheck& c : f.runs) REQUIRE(c.held_out);
  // The spreads are the residuals' rms, shrunk toward the pooled one: all a few % here.
  for (const RegimeSpread& s : f.spreads) CHECK(s.spread < 0.03);
  CHECK(f.model.spread_memory == f.spreads[0].spread);
}

TEST_CASE("leave one source out: the spread of a regime is its rms shrunk toward the pooled rms with 6 runs' weight") {
  // Runs measured 10% fast (log 0.0953) in one source and at the figure in two others.
  std::vector<MeasuredRun> runs;
  for (const std::string source : {"a", "b", "c"}) {
    std::vector<MeasuredRun> more = priced_runs(truth(), source);
    if (source == "a") {
      for (MeasuredRun& r : more) r.measured = r.metric == Metric::ttft_s ? r.measured / 1.1 : r.measured * 1.1;
    }
    runs.insert(runs.end(), more.begin(), more.end());
  }
  const FitCheck f = fit_and_check(runs);
  double pooled = 0;
  for (const RunCheck& c : f.runs) pooled += *c.held_out * *c.held_out;
  pooled /= static_cast<double>(f.runs.size());
  for (const RegimeSpread& s : f.spreads) {
    const auto n = static_cast<double>(s.runs);
    CHECK(s.spread == Approx(std::sqrt((n * s.rms * s.rms + 6 * pooled) / (n + 6))));
  }
}

TEST_CASE("leave one source out: one source has nothing held out, and says so") {
  const FitCheck f = fit_and_check(priced_runs(truth(), "a"));
  CHECK_FALSE(f.held_out);
  CHECK_FALSE(f.nested);
  for (const RunCheck& c : f.runs) CHECK_FALSE(c.held_out);
}
