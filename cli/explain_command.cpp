#include "cli/explain_command.hpp"

#include <fmt/args.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "model/capacity_plan.hpp"
#include "model/engine.hpp"
#include "model/scans.hpp"
#include "report/explain_phrases.hpp"
#include "report/human_units.hpp"
#include "report/warning_text.hpp"
#include "io/input_error.hpp"
#include "chart/plot_charts.hpp"
#include "chart/figure_file.hpp"
#include "io/spec_loader.hpp"
#include "cli/plot_command.hpp"
#include "report/safe_text.hpp"
#include "report/weight_formats.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;
using namespace chart;

namespace {

template <class... Args>
std::string fill(std::string_view phrase, const Args&... args) {
  return fmt::vformat(phrase, fmt::make_format_args(args...));
}

class Writer {
 public:
  Writer(const Phrases& p, std::ostream& out) : p_(p), out_(out) {}

  template <class... Args>
  void say(std::string_view phrase, const Args&... args) {
    out_ << fill(phrase, args...) << "\n";
  }
  [[nodiscard]] std::string bound(Bound b) const {
    return std::string(b == Bound::compute ? p_.compute : b == Bound::memory ? p_.memory : p_.interconnect);
  }
  [[nodiscard]] std::string ratio(FlopsPerByte intensity, FlopsPerByte ridge) const {
    const double r = intensity / ridge;
    return fmt::format(fmt::runtime(r >= 1 ? p_.above : p_.below), fmt::arg("x", three_digits(r >= 1 ? r : 1 / r)));
  }
  const Phrases& p_;

 private:
  std::ostream& out_;
};


// Why the bound is not reached: the expected step's parts (model/expected.hpp), worded.
void explain_expected(const Report& r, Writer& w) {
  const Expected& e = r.decode.step.expected;
  const ExpectedModel m = r.gpu.spec.expected_model();
  // Kernels as they run: an operator fused into the one before it (K and V in Q's GEMM, up in
  // gate's, an attention's second product) launches none of its own under the kernel classes.
  // A pipeline's operators are a stage's share of the step (model/pipeline.cpp), its fixed costs
  // those of every stage the step passes: the kernels and hops counted over all pp stages.
  const auto stages = static_cast<double>(r.workload.pp);
  double kernels = 0;
  for (const OpResult& o : r.decode.step.ops) kernels += m.kernels && o.cost.fused ? 0 : o.cost.launches * stages;
  // The share of the bandwidth weights stream at: measured GEMMs' under the kernel classes.
  const double eta = m.kernels ? m.kernels->gemm.memory : m.memory;
  const Seconds per_kernel = kernels > 0 ? (e.overhead - m.step) / kernels : Seconds(0);
  const Phrases& p = w.p_;
  std::string deq, comm;
  if (e.dequant > Seconds(0)) {
    deq = fmt::format(fmt::runtime(p.expected_dequant), fmt::arg("d", human(e.dequant)),
                      fmt::arg("fmt", r.workload.precision.block_format() ? name(*r.workload.precision.block_format())
                                                                          : std::string_view("quantized")));
  }
  if (gpus(r.workload) > 1) {
    double hops = 0;
    for (const OpResult& o : r.decode.step.ops) hops += o.comm.hops * o.cost.comm_calls * stages;
    comm = fmt::format(fmt::runtime(p.expected_comm), fmt::arg("ar", human(e.comm)), fmt::arg("hops", hops));
  }
  w.say(p.expected, fmt::arg("exp", human(e.time)), fmt::arg("low", human(e.low)), fmt::arg("high", human(e.high)),
        fmt::arg("step", human(r.decode.step.time)), fmt::arg("mem", human(e.memory)),
        fmt::arg("eta", fmt::format("{:.0f}", 100 * eta)), fmt::arg("deq", deq), fmt::arg("comp", human(e.compute)),
        fmt::arg("b", r.workload.batch), fmt::arg("over", human(e.overhead)), fmt::arg("n", kernels),
        fmt::arg("launch", human(per_kernel)), fmt::arg("engine", human(m.step)), fmt::arg("comm", comm));
}

// Said only for models whose layers do not all keep every token (sliding, chunked, recurrent).
void explain_cache_kinds(const Report& r, Writer& w) {
  if (!r.model.spec.architecture) return;
  const Architecture& a = *r.model.spec.architecture;
  const auto n = a.mixer_counts();
  const int windowed = n[static_cast<int>(Mixer::sliding)] + n[static_cast<int>(Mixer::chunked)];
  const int recurrent = n[static_cast<int>(Mixer::linear)] + n[static_cast<int>(Mixer::ssm)];
  if (windowed + recurrent == 0) return;
  const long width = std::max(n[static_cast<int>(Mixer::sliding)] > 0 ? a.sliding_window : 0,
                              n[static_cast<int>(Mixer::chunked)] > 0 ? a.attention_chunk : 0);
  // Only the kinds the model has: Nemotron's recurrent layers beside full attention were said to
  // include "0 [layers that] keep at most 0 tokens".
  std::string which;
  if (windowed > 0) which = fill(w.p_.cache_windowed, fmt::arg("windowed", windowed), fmt::arg("w", width));
  if (recurrent > 0) {
    which += (which.empty() ? "" : std::string(w.p_.cache_and)) + fill(w.p_.cache_recurrent, fmt::arg("recurrent", recurrent));
  }
  w.say(w.p_.cache_kinds, fmt::arg("layers", a.layers), fmt::arg("which", which), fmt::arg("t", held_tokens(r.workload)),
        fmt::arg("cache", human(r.model.cache_bytes_per_sequence)));
}

// 2·B* is often past what the point's memory holds (Llama-3.1-8B on H100: 590 of 438, a batch
// prefilled together): said, with what continuous batching holds (one prompt a step: 604), the
// plan's limit, so that neither reads as the other's contradiction. Empty where it fits.
// The same of batch 64, which a long context or a large model can be past as well. `held`: what
// continuous batching holds at this context (steady_max_batch, a search: worked out once).
std::string beyond_memory(const Report& at_batch, std::optional<long> held, const Phrases& p) {
  const MemoryLedger& at = at_batch.memory;
  if (at.fits || !at.max_batch) return {};
  const long steady = held.value_or(*at.max_batch);
  if (*at.max_batch == 0 && steady == 0) return std::string(p.beyond_memory_none);
  return fill(p.beyond_memory, fmt::arg("most", *at.max_batch), fmt::arg("steady", steady));
}

// What batching buys, as far as memory holds a continuous batch (the plan's limit): to 64 where
// it holds 64, said with what the step then costs; else to what it holds. "Batching to 64 raises
// throughput for little latency" was said of Llama-2-7B at 4000-token prompts on an A100 (7.53 ms
// a step to 73.4 ms, and 29 sequences held).
std::string batching_remedy(const Variations& s, std::optional<long> steady, const Phrases& p) {
  const long held = steady.value_or(s.batch64.memory.fits ? 64 : s.batch64.memory.max_batch.value_or(64));
  if (held <= 0) return std::string(p.remedy_batch_none);
  const Seconds s1 = s.batch1.decode.step.time, s64 = s.batch64.decode.step.time;
  if (held >= 64) {
    return fill(s64 > 1.2 * s1 ? p.remedy_batch_grows : p.remedy_batch_little,
                fmt::arg("tps64", three_digits(s.batch64.decode.tokens_per_s)), fmt::arg("s1", human(s1)),
                fmt::arg("s64", human(s64)));
  }
  Workload w = s.batch1.workload;
  w.batch = held;
  const Report at = evaluate(s.batch1.model.spec, s.batch1.gpu.spec, w);
  return fill(p.remedy_batch_memory, fmt::arg("most", held), fmt::arg("tps", three_digits(at.decode.tokens_per_s)),
              fmt::arg("step", human(at.decode.step.time)));
}

void explain_phases(const Variations& s, Writer& w) {
  const Report& r = s.base;
  const Phrases& p = w.p_;
  const FlopsPerByte ridge = r.gpu.ridge_point();
  const std::string tps = three_digits(r.decode.tokens_per_s), step = human(r.decode.step.time);
  // One stream's rate is a token a step at any batch; the batch's total is named apart from it.
  const std::string per_stream = three_digits(1 / r.decode.step.time.value());
  const Bytes weights = r.decode.step.weight_bytes;
  w.say(p.ridge, fmt::arg("model", terminal_text(r.model.spec.name)), fmt::arg("gpu", terminal_text(r.gpu.spec.name)),
        fmt::arg("peak", human(r.gpu.ceilings.peak)), fmt::arg("bw", human(r.gpu.ceilings.bandwidth)),
        fmt::arg("ridge", three_digits(ridge.value())));
  const std::optional<MoeSpec>& moe = r.model.spec.architecture ? r.model.spec.architecture->moe : std::nullopt;
  w.say(moe ? p.prefill_moe : p.prefill, fmt::arg("n", r.workload.batch * r.workload.prompt_tokens),
        fmt::arg("k", moe ? moe->top_k : 0), fmt::arg("e", moe ? moe->experts : 0),
        fmt::arg("ip", three_digits(r.prefill.intensity().value())), fmt::arg("ratio", w.ratio(r.prefill.intensity(), ridge)),
        fmt::arg("bound", w.bound(r.prefill.bound)), fmt::arg("ttft", human(r.prefill.time)));
  w.say(p.decode, fmt::arg("weights", human(weights)), fmt::arg("formats", weight_formats_text(r)),
        fmt::arg("kv", human(r.decode.step.bytes - weights)),
        fmt::arg("id", three_digits(r.decode.step.intensity().value())),
        fmt::arg("ratio", w.ratio(r.decode.step.intensity(), ridge)), fmt::arg("bound", w.bound(r.decode.step.bound)),
        fmt::arg("step", step), fmt::arg("per_stream", per_stream),
        fmt::arg("total", r.workload.batch == 1 ? std::string()
                                                : fill(p.decode_batch_total, fmt::arg("b", r.workload.batch),
                                                       fmt::arg("tps", tps))));
  explain_cache_kinds(r, w);
  // Batch 1 and batch 64 at the story's context. Where the cache's bytes pass the weights' at
  // batch 64 that is said; where the step grows by more than a fifth (Llama-3.1-8B on H100:
  // 6.07 GB of cache beside 15.0 GB of weights, 4.51 ms to 6.29 ms) it does not "barely grow".
  const PhaseResult& at64 = s.batch64.decode.step;
  const bool cache_dominates = at64.bytes - at64.weight_bytes > at64.weight_bytes;
  const bool grows = at64.time > 1.2 * s.batch1.decode.step.time;
  const std::string_view batching = moe               ? p.batching_moe
                                    : cache_dominates ? p.batching_cache
                                    : grows           ? p.batching_grows
                                                      : p.batching;
  // What memory holds is said once, at the first batch past it (both are at this context).
  const Report& one = s.batch1;
  const std::optional<long> held = steady_max_batch(one.model.spec, one.gpu.spec, one.workload, one.memory, true);
  const std::string fit64 = beyond_memory(s.batch64, held, p);
  w.say(batching, fmt::arg("bstar", three_digits(r.critical_batch.weights_only)), fmt::arg("t", r.workload.context_tokens),
        fmt::arg("s1", human(s.batch1.decode.step.time)), fmt::arg("tps1", three_digits(s.batch1.decode.tokens_per_s)),
        fmt::arg("s64", human(at64.time)), fmt::arg("tps64", three_digits(s.batch64.decode.tokens_per_s)),
        fmt::arg("ps64", three_digits(1 / at64.time.value())), fmt::arg("kv64", human(at64.bytes - at64.weight_bytes)),
        fmt::arg("w", human(at64.weight_bytes)), fmt::arg("b2", s.twice_critical.workload.batch),
        fmt::arg("s2", human(s.twice_critical.decode.step.time)),
        fmt::arg("bound2", w.bound(s.twice_critical.decode.step.bound)),
        fmt::arg("fit64", fit64), fmt::arg("fit2", fit64.empty() ? beyond_memory(s.twice_critical, held, p) : std::string()));
  explain_expected(r, w);
  w.say(p.utilisation, fmt::arg("b", r.workload.batch),
        fmt::arg("util", fmt::format("{:.1f}", 100 * (r.decode.step.compute_time / r.decode.step.time))),
        fmt::arg("ct", human(r.decode.step.compute_time)), fmt::arg("step", step));
  w.say(p.remedies_title);
  w.say(fmt::format("  - {}", p.remedy_prefill), fmt::arg("naive", human(s.naive.prefill.time)),
        fmt::arg("flash", human(s.flash.prefill.time)));
  // A remedy the point already has (int4 or narrower weights, an fp8 or narrower cache) is not
  // offered, nor one that moves the step by less than 1%: an fp4 cache was told an fp8 one
  // "gives" a slower step.
  const Seconds helps = 0.99 * r.decode.step.time;
  const std::string int4 = s.int4.decode.step.time < helps
                               ? fill(p.remedy_int4, fmt::arg("step", step), fmt::arg("step_int4", human(s.int4.decode.step.time)))
                               : std::string();
  const std::string kv8 = s.kv8.decode.step.time < helps
                              ? fill(p.remedy_kv8, fmt::arg("step_kv8", human(s.kv8.decode.step.time)))
                              : std::string();
  w.say(fmt::format("  - {}", p.remedy_decode), fmt::arg("int4", int4), fmt::arg("batching", batching_remedy(s, held, p)),
        fmt::arg("kv8", kv8), fmt::arg("step", step), fmt::arg("spec", human(s.speculative.decode.step.time)));
  w.say(p.wrong_medicine);
}

void explain_quiz(const Variations& s, Writer& w) {
  const Report& r = s.base;
  const Phrases& p = w.p_;
  const std::string bound = w.bound(r.decode.step.bound);
  w.say(p.quiz_title);
  w.say(fmt::format("  Q1. {}", p.q1), fmt::arg("bound", bound));
  w.say(fmt::format("      {}", p.a1), fmt::arg("id", three_digits(r.decode.step.intensity().value())),
        fmt::arg("ratio", w.ratio(r.decode.step.intensity(), r.gpu.ridge_point())),
        fmt::arg("ridge", three_digits(r.gpu.ridge_point().value())), fmt::arg("b", r.workload.batch));
  w.say(fmt::format("  Q2. {}", p.q2));
  // The single stream: batch 1 at the same context, whatever the story's batch.
  w.say(fmt::format("      {}", p.a2), fmt::arg("tps", three_digits(s.batch1.decode.tokens_per_s)),
        fmt::arg("step", human(s.batch1.decode.step.time)), fmt::arg("t", r.workload.context_tokens));
  w.say(fmt::format("  Q3. {}", p.q3));
  std::string answer = fill(p.a3, fmt::arg("bstar", three_digits(r.critical_batch.weights_only)));
  if (r.model.spec.architecture) {
    answer += r.critical_batch.at_context
                  ? fill(p.a3_context, fmt::arg("t", r.workload.context_tokens),
                         fmt::arg("bctx", three_digits(*r.critical_batch.at_context)))
                  : fill(p.a3_no_crossover, fmt::arg("t", r.workload.context_tokens));
  }
  w.say(fmt::format("      {}", answer));
}

void explain_scenario(const Variations& s, const std::string& name, Writer& w) {
  const Report& r = s.base;
  const Phrases& p = w.p_;
  const Seconds total = r.request_time();
  const double share = 100 * (r.prefill.time / total);
  w.say(p.scenario, fmt::arg("name", name), fmt::arg("n", r.workload.prompt_tokens), fmt::arg("g", r.workload.gen_tokens),
        fmt::arg("ttft", human(r.prefill.time)), fmt::arg("step", human(r.decode.step.time)), fmt::arg("total", human(total)),
        fmt::arg("share", fmt::format("{:.0f}", share)), fmt::arg("dshare", fmt::format("{:.0f}", 100 - share)));
  const auto gen = static_cast<double>(r.workload.gen_tokens);
  struct Saving {
    std::string_view what;
    Seconds saved;
  };
  // FlashAttention against naive whichever the point runs (what the scores on chip save, named
  // so); another change that saves nothing here (the point has it already, or it is slower: an
  // fp8 cache beside an fp4 one) is not ranked.
  std::vector<Saving> savings{
      {p.int4, total - s.int4.request_time()},
      {p.kv8, total - s.kv8.request_time()},
      {p.flash, s.naive.request_time() - s.flash.request_time()},
      {p.speculative, r.decode.step.time * gen - s.speculative.decode.step.time * std::ceil(gen / Variations::kDraftedTokens)},
  };
  std::erase_if(savings, [](const Saving& v) { return !(v.saved > Seconds(0)); });
  std::stable_sort(savings.begin(), savings.end(), [](const Saving& a, const Saving& b) { return a.saved > b.saved; });
  w.say(p.ranked_title);
  int i = 1;
  for (const Saving& v : savings) {
    w.say(fmt::format("  {}", p.rank_line), fmt::arg("i", i++), fmt::arg("what", v.what), fmt::arg("saving", human(v.saved)),
          fmt::arg("pct", fmt::format("{:.0f}", 100 * (v.saved / total))));
  }
}

}  // namespace

void add_explain_options(Options& o, ExplainArgs& a) {
  add_workload_options(o, a.workload);
  add_lang_option(o, a.lang);
  o.add("--scenario", a.scenario, "summarize (8k in, 200 out) or chat (50 in, 800 out); --prompt and --gen given win")
      .one_of({"summarize", "chat"});
  o.add("--plot", a.plot, "write the roofline with every operator to this .svg or .png [drawn in characters]")
      .writes_file();
}

void run_explain(const ExplainArgs& a, std::ostream& out) {
  WorkloadFlags flags = a.workload;
  // A scenario's lengths, but those given: --scenario chat --gen 2000 is a chat of long answers.
  if (!a.scenario.empty()) {
    const bool summarize = a.scenario == "summarize";
    if (!flags.prompt_given) flags.prompt = {summarize ? "8192" : "50"};
    if (!flags.gen_given) flags.gen = {summarize ? "200" : "800"};
  }
  const OnePoint p = one_point(flags, "explain");
  const Variations s = variations(p.model, p.gpu, p.workload);
  Writer w(phrases(a.lang), out);
  for (const std::string& warning : warning_texts(s.base, a.lang)) out << warning_label(a.lang) << warning << "\n";
  if (!a.scenario.empty()) {
    explain_scenario(s, a.scenario, w);
    out << "\n";
  }
  explain_phases(s, w);
  out << "\n";
  if (a.plot.empty()) {
    out << text_figure(roofline_figure(s.base, Detail::summary, a.lang), 80, 26) << "\n";
  } else {
    write_figure_file(roofline_figure(s.base, Detail::full, a.lang), a.plot, "plot", out);
  }
  explain_quiz(s, w);
}

}  // namespace roofline::cli
