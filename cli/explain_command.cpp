#include "cli/explain_command.hpp"

#include <fmt/args.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "model/capacity_plan.hpp"
#include "model/engine.hpp"
#include "model/scans.hpp"
#include "report/explain_phrases.hpp"
#include "report/human_units.hpp"
#include "report/report_view.hpp"
#include "report/warning_text.hpp"
#include "io/input_error.hpp"
#include "chart/plot_charts.hpp"
#include "chart/figure_file.hpp"
#include "io/spec_loader.hpp"
#include "cli/plot_command.hpp"
#include "report/safe_text.hpp"
#include "report/terminal_width.hpp"
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
  Writer(const Phrases& p, const DeviceWords& device, std::ostream& out) : p_(p), device_(device), out_(out) {}

  // Every phrase may name the device ({device}, {devices}, {Device}).
  template <class... Args>
  void say(std::string_view phrase, const Args&... args) {
    out_ << naming_device(phrase, args...) << "\n";
  }
  [[nodiscard]] std::string bound(Bound b) const {
    return std::string(b == Bound::compute ? p_.compute : b == Bound::memory ? p_.memory : p_.interconnect);
  }
  [[nodiscard]] std::string ratio(FlopsPerByte intensity, FlopsPerByte ridge) const {
    const double r = intensity / ridge;
    return fmt::format(fmt::runtime(r >= 1 ? p_.above : p_.below), fmt::arg("x", three_digits(r >= 1 ? r : 1 / r)));
  }
  // A phrase naming the device ({device}, {devices}, {Device}) filled with its words.
  template <class... Args>
  [[nodiscard]] std::string naming_device(std::string_view phrase, const Args&... args) const {
    return fill(phrase, fmt::arg("device", device_.one), fmt::arg("devices", device_.many),
                fmt::arg("Device", device_.capital), args...);
  }
  const Phrases& p_;

 private:
  const DeviceWords& device_;
  std::ostream& out_;
};


// The sentence on the compute beside the memory traffic. Where every operator's compute hides
// under its reads (none compute-bound, the step's memory outlasting its compute, whether memory or,
// behind it, the interconnect bounds the step) the bound hides the compute under the reads and
// only a real kernel's few rows cannot; else the bound overlaps them, operator by operator, and
// neither is hidden whole in a real kernel. "35.2 ms is compute that the bound hides under the
// memory reads" was said of a compute-bound step, and "21.5 s ... but a GEMM of only 1000000
// row(s) cannot" of Llama-3.1-8B at batch 10^6, memory-bound (28.3 s of bytes at bandwidth) but
// with compute-bound linears that make the step 41.8 s.
bool memory_over_compute(const PhaseResult& step) {
  if (step.bound == Bound::compute || step.memory_time < step.compute_time) return false;
  return std::none_of(step.ops.begin(), step.ops.end(), [](const OpResult& o) { return o.bound == Bound::compute; });
}

// Where a step's hops come from: its collectives as it runs them, each kind over its group with
// the hops a call takes (hardware/collectives.cpp), counted over the pipeline's stages. Under
// data-parallel attention DeepSeek-V3 at tp 8 has only its MoE all-to-alls (58 layers × 2 × 1
// hop), which were said to be "a ring all-reduce over tp GPUs [taking] 2·(tp − 1)".
std::string hop_parts(const PhaseResult& step, double stages, const Writer& w) {
  struct Kind {
    Collective collective;
    int group;
    double hops, calls;
  };
  std::vector<Kind> kinds;
  for (const OpResult& o : step.ops) {
    if (!(o.comm.hops > 0) || !(o.cost.comm_calls > 0)) continue;
    const auto same = [&](const Kind& k) {
      return k.collective == o.cost.collective && k.group == o.cost.group && k.hops == o.comm.hops;
    };
    const auto at = std::find_if(kinds.begin(), kinds.end(), same);
    if (at == kinds.end()) {
      kinds.push_back({o.cost.collective, o.cost.group, o.comm.hops, o.cost.comm_calls * stages});
    } else {
      at->calls += o.cost.comm_calls * stages;
    }
  }
  const Phrases& p = w.p_;
  std::string parts;
  for (const Kind& k : kinds) {
    const std::string_view hop = k.hops == 1 ? p.hop : p.hops;
    std::string part;
    if (k.collective == Collective::send) {
      part = fill(p.hops_send, fmt::arg("calls", k.calls), fmt::arg("h", k.hops), fmt::arg("hop", hop));
    } else if (k.collective == Collective::all_reduce && k.hops == 2.0 * (k.group - 1)) {
      part = w.naming_device(p.hops_ring, fmt::arg("calls", k.calls), fmt::arg("k", k.group), fmt::arg("h", k.hops));
    } else {
      const std::string_view what = k.collective == Collective::all_reduce    ? p.all_reduce
                                    : k.collective == Collective::all_gather  ? p.all_gather
                                    : k.collective == Collective::all_to_all  ? p.all_to_all
                                                                              : p.reduce_scatter;
      part = w.naming_device(p.hops_collective, fmt::arg("calls", k.calls), fmt::arg("what", what),
                             fmt::arg("k", k.group), fmt::arg("h", k.hops), fmt::arg("hop", hop));
    }
    parts += (parts.empty() ? "" : std::string(p.hops_and)) + part;
  }
  return parts;
}

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
  // The share of the bandwidth the step's traffic reaches on average: its bytes at bandwidth over
  // the time the expected step gives them, so that the sentence adds up (the GEMM class's own
  // coefficient, 82% on H100, was said of 18.0 GB in 6.37 ms: 84.5%).
  // Where the kernels overlap part of the stream with their compute (compute-bound GEMMs), the
  // expected memory part is below the bytes at full bandwidth, and that ratio is no share: said so
  // (Mixtral-8x7B on an L4 at batch 512 read "101% of the bandwidth").
  const double eta = e.memory > Seconds(0) ? r.decode.step.memory_time / e.memory : 1.0;
  const Seconds per_kernel = kernels > 0 ? (e.overhead - m.step) / kernels : Seconds(0);
  const Phrases& p = w.p_;
  std::string deq, comm;
  if (e.dequant > Seconds(0)) {
    // Mixed formats (gpt-oss: mxfp4 experts beside bf16) have no one name: the phrase's own word,
    // in its language (zh said "解包 quantized 权重").
    const std::optional<WeightFormat> one = r.workload.precision.block_format();
    deq = one ? fill(p.expected_dequant, fmt::arg("d", human(e.dequant)), fmt::arg("fmt", name(*one)))
              : fill(p.expected_dequant_mixed, fmt::arg("d", human(e.dequant)));
  }
  if (gpus(r.workload) > 1) {
    double hops = 0;
    for (const OpResult& o : r.decode.step.ops) hops += o.comm.hops * o.cost.comm_calls * stages;
    comm = w.naming_device(p.expected_comm, fmt::arg("ar", human(e.comm)), fmt::arg("hops", hops),
                           fmt::arg("parts", hop_parts(r.decode.step, stages, w)));
  }
  w.say(p.expected, fmt::arg("exp", human(e.time)), fmt::arg("low", human(e.low)), fmt::arg("high", human(e.high)),
        fmt::arg("step", human(r.decode.step.time)), fmt::arg("mem", human(e.memory)),
        fmt::arg("traffic", eta <= 1 ? fmt::format(fmt::runtime(p.expected_traffic_share),
                                                   fmt::arg("eta", fmt::format("{:.0f}", 100 * eta)))
                                     : fmt::format(fmt::runtime(p.expected_traffic_hidden),
                                                   fmt::arg("t", human(r.decode.step.memory_time)))),
        fmt::arg("deq", deq),
        fmt::arg("compute",
                 fill(memory_over_compute(r.decode.step) ? p.expected_compute_hidden : p.expected_compute_overlap,
                      fmt::arg("comp", human(e.compute)), fmt::arg("b", per_read(r, r.decode_pipeline).own))),
        fmt::arg("over", human(e.overhead)), fmt::arg("n", kernels),
        fmt::arg("kernels", kernels == 1 ? p.kernel : p.kernels),
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
// continuous batching holds (steady_max_batch, a search: worked out once). Both are sized at the
// sequences' full length (held_tokens: prompt + gen), not at the step's context, which is named
// so: "at context 8704 memory holds 10" was said of 10 sequences of 9216 tokens.
std::string beyond_memory(const Report& at_batch, std::optional<long> held, const Phrases& p) {
  const MemoryLedger& at = at_batch.memory;
  if (at.fits || !at.max_batch) return {};
  const long steady = held.value_or(*at.max_batch);
  if (*at.max_batch == 0 && steady == 0) return std::string(p.beyond_memory_none);
  return fill(p.beyond_memory, fmt::arg("most", *at.max_batch), fmt::arg("steady", steady),
              fmt::arg("len", held_tokens(at_batch.workload)));
}

// What batching buys, as far as memory holds a continuous batch (the plan's limit): to 64 where
// it holds 64, said with what the step then costs; else to what it holds. "Batching to 64 raises
// throughput for little latency" was said of Llama-2-7B at 4000-token prompts on an A100 (7.53 ms
// a step to 73.4 ms, and 29 sequences held). A point at 64 or more is not sent to 64 (batch 1000
// was, at a lower throughput than its own): where it does not fit, what memory holds is said.
// The larger batch's step is weighed against the point's own ("17.5 ms against 1.50 ms", batch 1's,
// was said of gpt-oss-120b at batch 8, whose step is 5.10 ms). Where a continuous batch holds no
// more than the point's batch, a point that does not fit hears how many memory holds, at any batch:
// Llama-3.1-8B at batch 8 of 100000 tokens on an A100 was sent "batching" to the 4 memory holds,
// at 121 tokens/s against its own 136. Batching that would not raise the point's throughput is not
// offered.
std::string batching_remedy(const Variations& s, std::optional<long> steady, const Phrases& p) {
  const Report& r = s.base;
  const auto over = [&]() -> std::string {
    if (r.memory.fits || !r.memory.max_batch) return {};
    if (*r.memory.max_batch == 0) return std::string(p.remedy_batch_none);
    return fill(p.remedy_batch_over, fmt::arg("most", *r.memory.max_batch), fmt::arg("b", r.workload.batch),
                fmt::arg("len", held_tokens(r.workload)));
  };
  if (r.workload.batch >= 64) return over();
  const long held = steady.value_or(s.batch64.memory.fits ? 64 : s.batch64.memory.max_batch.value_or(64));
  if (held <= r.workload.batch) return over();  // no batching past the point: what memory holds of it
  const Seconds step = r.decode.step.time, s64 = s.batch64.decode.step.time;
  if (held >= 64) {
    if (!(s.batch64.decode.tokens_per_s > r.decode.tokens_per_s)) return {};
    return fill(s64 > 1.2 * step ? p.remedy_batch_grows : p.remedy_batch_little,
                fmt::arg("tps64", three_digits(s.batch64.decode.tokens_per_s)), fmt::arg("step", human(step)),
                fmt::arg("s64", human(s64)));
  }
  Workload w = s.batch1.workload;
  w.batch = held;
  const Report at = evaluate(s.batch1.model.spec, s.batch1.gpu.spec, w);
  if (!(at.decode.tokens_per_s > r.decode.tokens_per_s)) return {};
  return fill(p.remedy_batch_memory, fmt::arg("most", held), fmt::arg("len", held_tokens(w)),
              fmt::arg("tps", three_digits(at.decode.tokens_per_s)), fmt::arg("step", human(at.decode.step.time)));
}

// The time of the resource a step is bound by, and the formula that gives it.
Seconds floor_time(const PhaseResult& step) {
  return step.bound == Bound::compute ? step.compute_time : step.bound == Bound::memory ? step.memory_time : step.comm_time;
}
std::string_view formula(Bound b, const Phrases& p) {
  return b == Bound::compute ? p.formula_compute : b == Bound::memory ? p.formula_memory : p.formula_interconnect;
}

// Why a step outlasts its bound's formula: its operators bound by another resource each take
// their own longer time (a memory-bound step at batch 590 has compute-bound GEMMs: 21.2 ms of
// bytes at bandwidth, 24.7 ms a step). The resource whose operators add the most; empty: none
// adds any (a pipeline's bubbles).
std::optional<Bound> lengthened_by(const PhaseResult& step) {
  std::array<Seconds, 3> added{};
  for (const OpResult& o : step.ops) {
    if (o.bound == step.bound) continue;
    const Seconds own = step.bound == Bound::compute ? o.compute_time : step.bound == Bound::memory ? o.memory_time : Seconds(0);
    added[static_cast<std::size_t>(o.bound)] += o.time - own;
  }
  const auto most = std::max_element(added.begin(), added.end());
  if (!(*most > Seconds(0))) return std::nullopt;
  return static_cast<Bound>(most - added.begin());
}

// The sum of a step's operators: one GPU's work. A pipeline's step is longer where its stages wait
// (its bubble) or its busiest stage paces the rest (model/pipeline.hpp).
Seconds operators_time(const PhaseResult& step) {
  Seconds sum{0};
  for (const OpResult& o : step.ops) sum += o.time;
  return sum;
}

// The decode step's formula, and what the step takes past it where the difference shows. In a
// pipeline, what its operators add and what the pipeline adds are told apart: Llama-3.1-70B at
// tp 2, pp 2, batch 1 was said to be made 20.8 ms by its "interconnect-bound operators" (1.5 us
// of all-reduces), its busiest stage idle half the step (decode.bubble 0.49).
std::string decode_longer(const Report& r, const Writer& w) {
  const PhaseResult& step = r.decode.step;
  const Phrases& p = w.p_;
  const std::string at = human(step.time), floor = human(floor_time(step));
  if (at == floor) return {};
  const std::optional<Bound> other = lengthened_by(step);
  const std::string ops = human(operators_time(step));
  const std::optional<Pipeline>& pipe = r.decode_pipeline;
  if (pipe && r.workload.pp > 1 && ops != at) {
    const bool by_ops = other && ops != floor;
    const std::string pct = fmt::format("{:.1f}", 100 * pipe->bubble);
    const std::string other_word = other ? w.bound(*other) : std::string();
    if (pipe->bubble > 0 && pct != "0.0") {
      return fill(by_ops ? p.decode_bubble_ops : p.decode_bubble, fmt::arg("other", other_word), fmt::arg("pct", pct),
                  fmt::arg("m", pipe->microbatches), fmt::arg("pp", r.workload.pp), fmt::arg("step", at));
    }
    return fill(by_ops ? p.decode_stage_ops : p.decode_stage, fmt::arg("other", other_word), fmt::arg("step", at));
  }
  return other ? fill(p.decode_longer, fmt::arg("other", w.bound(*other)), fmt::arg("step", at))
               : fill(p.decode_longer_parts, fmt::arg("step", at));
}

// What the decode step's time beside its compute is spent waiting on, largest first: memory (the
// memory-bound operators past their compute), the collectives, and in a pipeline the other
// stages (the step past its operators: its bubble, a busiest stage's pace). A part under 1% of
// that time is not named. Empty where nothing waits. "The rest is waiting on memory" was said of
// a step 14.7 ms of whose 25.9 ms are collectives.
std::string waiting_on(const Report& r, const Writer& w) {
  const Phrases& p = w.p_;
  const PhaseResult& step = r.decode.step;
  Seconds memory{0}, link{0};
  for (const OpResult& o : step.ops) {
    if (o.bound == Bound::memory) memory += o.time - o.compute_time;
    if (o.bound == Bound::interconnect) link += o.time - o.compute_time;
  }
  const Seconds stages = r.workload.pp > 1 ? std::max(Seconds(0), step.time - operators_time(step)) : Seconds(0);
  const Seconds rest = step.time - step.compute_time;
  std::vector<std::pair<Seconds, std::string>> parts{
      {memory, std::string(p.wait_memory)}, {link, w.naming_device(p.wait_link)}, {stages, std::string(p.wait_stages)}};
  std::erase_if(parts, [&](const auto& part) { return !(part.first > Seconds(0)) || part.first < 0.01 * rest; });
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (parts.empty()) return {};
  std::string what = parts.front().second;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    what += std::string(i + 1 == parts.size() ? p.wait_and : p.wait_comma) + parts[i].second;
  }
  return fill(p.utilisation_rest, fmt::arg("what", what));
}

// The more of a resource that a phase bound by it needs.
std::string_view more_of(Bound b, const Phrases& p) {
  return b == Bound::compute ? p.more_compute : b == Bound::memory ? p.more_memory : p.more_interconnect;
}

// Prefill's medicine (FLOPS) for decode and decode's (bandwidth) for prefill change little only
// where prefill is compute-bound and decode memory-bound; else what holds is said (it was said of
// Qwen3-30B-A3B at int4 on an L40S, both phases memory-bound).
void say_medicine(const Report& r, Writer& w) {
  const Phrases& p = w.p_;
  const Bound pre = r.prefill.bound, dec = r.decode.step.bound;
  if (pre == Bound::compute && dec == Bound::memory) {
    w.say(p.wrong_medicine);
  } else if (pre == dec) {
    w.say(p.medicine_same, fmt::arg("bound", w.bound(pre)), fmt::arg("resource", more_of(pre, p)));
  } else {
    w.say(p.medicine_differ, fmt::arg("pbound", w.bound(pre)), fmt::arg("dbound", w.bound(dec)),
          fmt::arg("presource", more_of(pre, p)), fmt::arg("dresource", more_of(dec, p)));
  }
}

// A remedy is offered where it moves the step by 0.5% or more: one the point already has moves it
// by nothing ("23.0 ms with naive attention → 23.0 ms"), and an fp8 cache beside an fp4 one slows it.
bool helps(Seconds changed, Seconds now) { return changed < 0.995 * now; }

// The prefill line: FlashAttention only where the point runs naive attention and flash helps.
void say_prefill_remedy(const Variations& s, Writer& w) {
  const Phrases& p = w.p_;
  const bool offer = s.base.workload.attention == AttentionKernel::naive && helps(s.flash.prefill.time, s.base.prefill.time);
  const std::string flash = offer ? fill(p.remedy_flash, fmt::arg("naive", human(s.naive.prefill.time)),
                                         fmt::arg("flash", human(s.flash.prefill.time)))
                                  : std::string();
  w.say(fmt::format("  - {}", p.remedy_prefill), fmt::arg("flash", flash));
}

// Whether some of the model's layers are recurrent (a fixed state per sequence).
bool has_recurrent_layers(const Report& r) {
  if (!r.model.spec.architecture) return false;
  const auto n = r.model.spec.architecture->mixer_counts();
  return n[static_cast<int>(Mixer::linear)] + n[static_cast<int>(Mixer::ssm)] > 0;
}

// The decode line: each remedy that helps this point, in one sentence. Speculative verification
// is priced over the drafts and the token before them, each cache read once, a recurrent state
// read once and written once a row (model/scans.cpp, verify_step), and says so; all accepted, a
// verify yields as many tokens as it has rows, which plain decoding takes as many steps to make.
void say_decode_remedies(const Variations& s, std::optional<long> held, Writer& w) {
  const Phrases& p = w.p_;
  const Seconds step = s.base.decode.step.time;
  const auto rows = static_cast<double>(Variations::kVerifyRows);
  std::vector<std::string> remedies;
  if (helps(s.int4.decode.step.time, step)) {
    remedies.push_back(fill(p.remedy_int4, fmt::arg("step", human(step)), fmt::arg("step_int4", human(s.int4.decode.step.time))));
  }
  if (std::string batching = batching_remedy(s, held, p); !batching.empty()) remedies.push_back(std::move(batching));
  if (helps(s.kv8.decode.step.time, step)) remedies.push_back(fill(p.remedy_kv8, fmt::arg("step_kv8", human(s.kv8.decode.step.time))));
  if (helps(s.verify_step, rows * step)) {
    remedies.push_back(fill(has_recurrent_layers(s.base) ? p.remedy_speculative_state : p.remedy_speculative,
                            fmt::arg("spec", human(s.verify_step)), fmt::arg("step", human(step)),
                            fmt::arg("k", Variations::kDraftedTokens), fmt::arg("rows", Variations::kVerifyRows)));
  }
  if (remedies.empty()) {
    w.say(fmt::format("  - {}", p.remedy_decode_none));
    return;
  }
  std::string joined = remedies.front();
  for (std::size_t i = 1; i < remedies.size(); ++i) joined += std::string(p.remedy_and) + remedies[i];
  w.say(fmt::format("  - {}", p.remedy_decode), fmt::arg("remedies", joined));
}

void explain_phases(const Variations& s, Writer& w) {
  const Report& r = s.base;
  const Phrases& p = w.p_;
  const FlopsPerByte ridge = r.gpu.ridge_point();
  const std::string tps = three_digits(r.decode.tokens_per_s), step = human(r.decode.step.time);
  // One stream's rate is a token a step at any batch; the batch's total is named apart from it.
  // Only batch 1's is the most a stream gets: at batch 32 a stream gets less than alone. The
  // expected rate beside the ceiling, as prefill's expected time beside its bound.
  const std::string stream = fill(r.workload.batch == 1 ? p.stream_one : p.stream_each,
                                  fmt::arg("tps", three_digits(1 / r.decode.step.time.value())),
                                  fmt::arg("exp", three_digits(1 / r.decode.step.expected.time.value())));
  const Bytes weights = r.decode.step.weight_bytes;
  w.say(p.ridge, fmt::arg("model", terminal_text(r.model.spec.name)), fmt::arg("gpu", terminal_text(r.gpu.spec.name)),
        fmt::arg("peak", human(r.gpu.ceilings.peak)), fmt::arg("bw", human(r.gpu.ceilings.bandwidth)),
        fmt::arg("ridge", three_digits(ridge.value())));
  const std::optional<MoeSpec>& moe = r.model.spec.architecture ? r.model.spec.architecture->moe : std::nullopt;
  const PerRead pre = per_read(r, r.prefill_pipeline);
  // A mixture of experts in a pipeline's micro-batches: both said ("65536 prompt tokens pass
  // through the model at once" was said of Qwen3-30B-A3B at pp 4, whose reads serve 16384 of them).
  const bool routed = moe && moe->experts > 0;
  const std::string_view prefill = routed ? (pre.microbatches > 1 ? p.prefill_moe_microbatches : p.prefill_moe)
                                   : pre.microbatches > 1 ? p.prefill_microbatches
                                                          : p.prefill;
  w.say(prefill,
        fmt::arg("n", r.workload.batch * r.workload.prompt_tokens), fmt::arg("m", pre.microbatches),
        fmt::arg("per", pre.sequences * r.workload.prompt_tokens), fmt::arg("upto", pre.even ? "" : p.at_most),
        fmt::arg("k", moe ? moe->top_k : 0), fmt::arg("e", moe ? moe->experts : 0),
        fmt::arg("ip", three_digits(r.prefill.intensity().value())), fmt::arg("ratio", w.ratio(r.prefill.intensity(), ridge)),
        fmt::arg("bound", w.bound(r.prefill.bound)), fmt::arg("ttft", human(r.prefill.time)),
        fmt::arg("exp", human(r.prefill.expected.time)));
  // The step's bytes are one GPU's (a stage's, its tp share): said so where the replica spans
  // several ("re-reads 69.5 GB of weights" was said of Llama-3.1-70B at tp 2, whose weights are 141 GB).
  w.say(p.decode, fmt::arg("rereads", gpus(r.workload) > 1 ? w.naming_device(p.rereads_each) : std::string(p.rereads)),
        fmt::arg("weights", human(weights)), fmt::arg("formats", weight_formats_text(r)),
        fmt::arg("kv", human(r.decode.step.bytes - weights)),
        fmt::arg("id", three_digits(r.decode.step.intensity().value())),
        fmt::arg("ratio", w.ratio(r.decode.step.intensity(), ridge)), fmt::arg("bound", w.bound(r.decode.step.bound)),
        fmt::arg("formula", formula(r.decode.step.bound, p)), fmt::arg("floor", human(floor_time(r.decode.step))),
        fmt::arg("longer", decode_longer(r, w)), fmt::arg("stream", stream),
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
  // How often a step reads the weights: once, or once a micro-batch under a pipeline.
  const long m = most_microbatches(r.workload);
  const std::string reads = m > 1 ? fill(p.reads_microbatch, fmt::arg("m", m)) : std::string(p.reads_once);
  const std::string every = m > 1 ? fill(p.every_microbatch, fmt::arg("m", m)) : std::string(p.every_step);
  w.say(batching, fmt::arg("reads", reads), fmt::arg("every", every), fmt::arg("bstar", three_digits(r.critical_batch.weights_only)),
        fmt::arg("t", r.workload.context_tokens),
        fmt::arg("s1", human(s.batch1.decode.step.time)), fmt::arg("tps1", three_digits(s.batch1.decode.tokens_per_s)),
        fmt::arg("s64", human(at64.time)), fmt::arg("tps64", three_digits(s.batch64.decode.tokens_per_s)),
        fmt::arg("ps64", three_digits(1 / at64.time.value())), fmt::arg("kv64", human(at64.bytes - at64.weight_bytes)),
        fmt::arg("w", human(at64.weight_bytes)), fmt::arg("b2", s.twice_critical.workload.batch),
        fmt::arg("s2", human(s.twice_critical.decode.step.time)),
        fmt::arg("bound2", w.bound(s.twice_critical.decode.step.bound)),
        fmt::arg("fit64", fit64), fmt::arg("fit2", fit64.empty() ? beyond_memory(s.twice_critical, held, p) : std::string()));
  explain_expected(r, w);
  w.say(r.decode.step.bound == Bound::compute ? p.utilisation_compute : p.utilisation, fmt::arg("b", r.workload.batch),
        fmt::arg("util", percent_of(r.decode.step.compute_time.value(), r.decode.step.time.value())),
        fmt::arg("ct", human(r.decode.step.compute_time)), fmt::arg("step", step), fmt::arg("rest", waiting_on(r, w)));
  w.say(p.remedies_title);
  say_prefill_remedy(s, w);
  say_decode_remedies(s, held, w);
  say_medicine(r, w);
}

// Where a step's memory-bound operators spend their time, by what they read: each sequence's cache
// (the attention cores, a recurrent layer's scan), the routed experts, the other weights (the
// matrix products), and the rest (norms, activations, the embedding's rows); and the time of the
// compute-bound products outside the routed experts.
struct MemoryBoundTime {
  Seconds cache, experts, weights, rest, weights_compute;
};

bool reads_cache(std::string_view op) {
  return op == "attn_scores" || op == "attn_softmax" || op == "attn_values" || op == "index_scores" ||
         op == "index_softmax" || op == "index_values" || op == "selective_scan" || op == "ssd_scan" ||
         op == "delta_rule";
}

MemoryBoundTime memory_bound_time(const PhaseResult& step) {
  MemoryBoundTime t;
  for (const OpResult& o : step.ops) {
    const bool cache = reads_cache(o.cost.name), expert = o.cost.name.starts_with("expert_");
    const bool product = !cache && !expert && o.cost.shape.count > 0;
    if (o.bound == Bound::compute && product) t.weights_compute += o.time;
    if (o.bound != Bound::memory) continue;
    (cache ? t.cache : expert ? t.experts : product ? t.weights : t.rest) += o.time;
  }
  return t;
}

// What keeps a memory-bound step memory-bound once its weights' reads serve enough tokens that
// most of its products (outside the routed experts) are compute-bound: the cache, the routed
// experts or the activations, as its operators show; empty where the weights' reads still bind.
// Llama-3.1-8B on H100 at batch 400 (B* = 295) was told "each weight read serves only 400
// token(s)": its FFN GEMMs are compute-bound (intensity 355) and its attention over the KV cache
// takes 10.1 ms of the 16.8 ms step.
std::string past_crossover(const Report& r, const Writer& w) {
  const PhaseResult& step = r.decode.step;
  if (step.bound != Bound::memory) return {};
  const MemoryBoundTime t = memory_bound_time(step);
  if (!(t.weights_compute > t.weights)) return {};
  const Phrases& p = w.p_;
  const std::optional<MoeSpec>& moe = r.model.spec.architecture ? r.model.spec.architecture->moe : std::nullopt;
  struct Binder {
    Seconds time;
    std::string words;
  };
  const std::string at = human(step.time);
  std::vector<Binder> binders{
      {t.cache, fill(p.binder_cache, fmt::arg("cache", has_recurrent_layers(r) ? p.kv_cache_state : p.kv_cache),
                     fmt::arg("t", human(t.cache)), fmt::arg("step", at))},
      {t.experts, fill(p.binder_experts, fmt::arg("k", moe ? moe->top_k : 0), fmt::arg("e", moe ? moe->experts : 0),
                       fmt::arg("t", human(t.experts)), fmt::arg("step", at))},
      {t.rest, fill(p.binder_activations, fmt::arg("t", human(t.rest)), fmt::arg("step", at))},
  };
  std::stable_sort(binders.begin(), binders.end(), [](const Binder& a, const Binder& b) { return a.time > b.time; });
  // The weights' own memory-bound products (GQA's narrow K and V) still outlast the rest: no change.
  if (!(binders.front().time > t.weights)) return {};
  // The largest, and any other that takes a tenth of the step.
  std::string words = binders.front().words;
  for (std::size_t i = 1; i < binders.size(); ++i) {
    if (binders[i].time >= 0.1 * step.time) words += std::string(p.binder_and) + binders[i].words;
  }
  return words;
}

void explain_quiz(const Variations& s, Writer& w) {
  const Report& r = s.base;
  const Phrases& p = w.p_;
  const std::string bound = w.bound(r.decode.step.bound);
  w.say(p.quiz_title);
  w.say(fmt::format("  Q1. {}", p.q1), fmt::arg("bound", bound));
  // The answer follows the step's bound: an interconnect-bound step by its collectives (it was
  // answered with its intensity below the ridge), a compute-bound one without "only".
  const PhaseResult& step = r.decode.step;
  const PerRead per = per_read(r, r.decode_pipeline);
  const std::optional<MoeSpec>& moe = r.model.spec.architecture ? r.model.spec.architecture->moe : std::nullopt;
  const bool routed = moe && moe->experts > 0;
  // Under data-parallel attention a read of every weight but the routed experts' serves the GPU's
  // own sequences ("each weight read serves only 8 token(s)" was said of DeepSeek-V3 at tp 8,
  // batch 8, whose GPUs run 1 each); the routed experts run every GPU's tokens' picks.
  const bool dp = per.ranks > 1;
  const std::string_view upto = per.own_even ? "" : p.at_most;
  const std::string dp_words =
      dp ? w.naming_device(p.per_rank, fmt::arg("upto", upto), fmt::arg("b", per.own), fmt::arg("n", per.sequences))
         : std::string();
  // A routed expert's weights serve only the tokens routed to it ("each weight read serves
  // only 16 token(s)" was said of Qwen3-30B-A3B at batch 16, whose experts see ~1.5 each).
  const std::string experts =
      !routed ? std::string()
              : w.naming_device(dp ? p.per_expert_dp : p.per_expert, fmt::arg("k", moe->top_k), fmt::arg("e", moe->experts));
  const std::string binders = past_crossover(r, w);
  w.say(fmt::format("      {}", step.bound == Bound::memory    ? (binders.empty() ? p.a1 : p.a1_past)
                                   : step.bound == Bound::compute ? p.a1_compute
                                                                  : p.a1_interconnect),
        fmt::arg("id", three_digits(step.intensity().value())),
        fmt::arg("ratio", w.ratio(step.intensity(), r.gpu.ridge_point())),
        fmt::arg("ridge", three_digits(r.gpu.ridge_point().value())), fmt::arg("b", per.own),
        fmt::arg("read", dp ? p.read_each_dp : p.read_each), fmt::arg("dp", dp_words),
        fmt::arg("upto", upto), fmt::arg("only", per.own_even ? p.only : p.at_most),
        fmt::arg("mb", per.microbatches > 1 ? fill(p.per_microbatch, fmt::arg("m", per.microbatches)) : std::string()),
        fmt::arg("experts", experts), fmt::arg("binders", binders),
        fmt::arg("gemms", routed ? p.past_gemms_moe : p.past_gemms),
        fmt::arg("comm", human(step.comm_time)), fmt::arg("mem", human(step.memory_time)),
        fmt::arg("comp", human(step.compute_time)));
  w.say(fmt::format("  Q2. {}", p.q2));
  // The single stream: batch 1 at the same context, whatever the story's batch.
  w.say(fmt::format("      {}", p.a2), fmt::arg("tps", three_digits(s.batch1.decode.tokens_per_s)),
        fmt::arg("step", human(s.batch1.decode.step.time)), fmt::arg("t", r.workload.context_tokens));
  w.say(fmt::format("  Q3. {}", p.q3));
  std::string answer = fill(p.a3, fmt::arg("bstar", three_digits(r.critical_batch.weights_only)));
  // No crossover: the compute never catches up with the memory traffic. "Decode stays
  // memory-bound" only of a memory-bound step; an interconnect-bound one hears what bounds it, and
  // a compute-bound one (the formula reads every expert; this step does not) hears nothing of it.
  if (r.model.spec.architecture) {
    const long t = r.workload.context_tokens;
    if (r.critical_batch.at_context) {
      answer += fill(p.a3_context, fmt::arg("t", t), fmt::arg("bctx", three_digits(*r.critical_batch.at_context)));
    } else if (step.bound != Bound::compute) {
      // "Stays memory-bound" only where no link can bind (one GPU): Llama-3.1-8B on L40S at tp 8,
      // memory-bound at batch 1, is interconnect-bound at 2·B* = 838.
      answer += fill(step.bound == Bound::interconnect ? p.a3_no_crossover_link
                     : gpus(r.workload) > 1            ? p.a3_no_crossover_memory
                                                       : p.a3_no_crossover,
                     fmt::arg("t", t));
    }
  }
  w.say(fmt::format("      {}", answer));
}

void explain_scenario(const Variations& s, const std::string& name, Writer& w) {
  const Report& r = s.base;
  const Phrases& p = w.p_;
  const Seconds total = r.request_time();
  const double share = 100 * (r.prefill.time / total);
  // The first token comes out of prefill: gen − 1 decode steps (as simulate runs a request). The
  // bound stays a bound, the expected request beside it: prefill's and the steps' expected times.
  const long steps = std::max(0L, r.workload.gen_tokens - 1);
  const Seconds expected = r.prefill.expected.time + r.decode.step.expected.time * static_cast<double>(steps);
  w.say(p.scenario, fmt::arg("name", name), fmt::arg("n", r.workload.prompt_tokens), fmt::arg("g", r.workload.gen_tokens),
        fmt::arg("s", steps), fmt::arg("steps", steps == 1 ? p.step : p.steps),
        fmt::arg("ttft", human(r.prefill.time)), fmt::arg("step", human(r.decode.step.time)), fmt::arg("total", human(total)),
        fmt::arg("exp", human(expected)),
        fmt::arg("share", fmt::format("{:.0f}", share)), fmt::arg("dshare", fmt::format("{:.0f}", 100 - share)));
  const auto gen = static_cast<double>(steps);
  struct Saving {
    std::string what;
    Seconds saved;
    bool in_use = false;  // what the point runs already: said so, its saving against the other
  };
  // FlashAttention against naive whichever the point runs (what the scores on chip save, named
  // so); another change that saves nothing here (the point has it already, or it is slower: an
  // fp8 cache beside an fp4 one) is not ranked.
  std::vector<Saving> savings{
      {std::string(p.int4), total - s.int4.request_time()},
      {std::string(p.kv8), total - s.kv8.request_time()},
      // FlashAttention is the default: where the point runs it, its saving is against naive
      // attention, not a saving still to be had ("FlashAttention (against naive attention): saves
      // 1.78 s" was ranked under "the time they save" for a point that runs it).
      {std::string(p.flash), s.naive.request_time() - s.flash.request_time(),
       r.workload.attention == AttentionKernel::flash},
      // All kDraftedTokens accepted, a verify yields them and the target's own next token; the
      // request's decode steps make gen − 1 tokens (its first comes out of prefill).
      {fill(p.speculative, fmt::arg("k", Variations::kDraftedTokens), fmt::arg("rows", Variations::kVerifyRows)),
       r.decode.step.time * gen - s.verify_step * std::ceil(gen / Variations::kVerifyRows)},
  };
  std::erase_if(savings, [](const Saving& v) { return !(v.saved > Seconds(0)); });
  std::stable_sort(savings.begin(), savings.end(), [](const Saving& a, const Saving& b) { return a.saved > b.saved; });
  // What the point runs already is not a saving still to be had: said after the ranking, unnumbered.
  std::stable_partition(savings.begin(), savings.end(), [](const Saving& v) { return !v.in_use; });
  w.say(p.ranked_title);
  int i = 1;
  for (const Saving& v : savings) {
    w.say(fmt::format("  {}", v.in_use ? p.rank_flash_in_use : p.rank_line), fmt::arg("i", i++), fmt::arg("what", v.what),
          fmt::arg("saving", human(v.saved)), fmt::arg("pct", fmt::format("{:.0f}", 100 * (v.saved / total))));
  }
}

// The text chart's width: 80 columns, or a terminal's where it is narrower (report::table_width:
// $COLUMNS, else what the terminal says; 0 for a file or a pipe), since a terminal breaks a wider
// row across two and the chart falls apart. Its title and subtitle wrap to the width (chart.cpp).
constexpr int kChartColumns = 80;

int chart_columns(const std::ostream& out) {
  const std::size_t terminal = table_width(out);
  return terminal > 0 && terminal < static_cast<std::size_t>(kChartColumns) ? static_cast<int>(terminal) : kChartColumns;
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
  Writer w(phrases(a.lang), device_words(device_kind(p.gpu.name), a.lang), out);
  for (const std::string& warning : warning_texts(s.base, a.lang)) out << warning_label(a.lang) << warning << "\n";
  if (!a.scenario.empty()) {
    explain_scenario(s, a.scenario, w);
    out << "\n";
  }
  explain_phases(s, w);
  out << "\n";
  if (a.plot.empty()) {
    out << text_figure(roofline_figure(s.base, Detail::summary, a.lang), chart_columns(out), 26) << "\n";
  } else {
    write_figure_file(roofline_figure(s.base, Detail::full, a.lang), a.plot, "plot", out);
  }
  explain_quiz(s, w);
}

}  // namespace roofline::cli
