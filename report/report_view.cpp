#include "report/report_view.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <iterator>

#include "report/human_units.hpp"
#include "report/report_columns.hpp"
#include "report/safe_text.hpp"
#include "report/weight_formats.hpp"

namespace roofline::report {

namespace {

std::string bound_cell(const PhaseResult& p) { return std::string(name(p.bound)); }

// "3.28× above the ridge point" or "156× below the ridge point".
std::string versus_ridge(FlopsPerByte intensity, FlopsPerByte ridge) {
  const double ratio = intensity / ridge;
  if (ratio >= 1) return fmt::format("{}× above the ridge point", three_digits(ratio));
  return fmt::format("{}× below the ridge point", three_digits(1 / ratio));
}

// Per token while every layer keeps every token; per sequence once windows cap some layers or
// recurrent layers hold a fixed state, where a per-token figure would mislead.
std::string cache_text(const Report& r) {
  const auto tokens = static_cast<double>(held_tokens(r.workload));
  const Bytes per_token = r.model.kv_bytes_per_token, per_sequence = r.model.cache_bytes_per_sequence;
  const std::string_view kv = name(r.workload.precision.kv);
  // A sequence holds tokens × per_token when every layer keeps every token; the product rounds.
  if (std::abs((per_token * tokens - per_sequence).value()) <= 1e-9 * per_sequence.value()) {
    return fmt::format("KV cache {}/token ({})", human(per_token), kv);
  }
  return fmt::format("cache {} a sequence of {} tokens ({}; windowed layers keep fewer, recurrent ones a fixed state)",
                     human(per_sequence), tokens, kv);
}

// "9.80 ms (8.90 ms-11.6 ms)": the expected time beside the bound, never below it.
std::string expected_cell(const Expected& e) {
  return fmt::format("{} ({}-{})", human(e.time), human(e.low), human(e.high));
}

// ", tensor parallel over 8 GPUs", or the whole layout when there is more than tensor parallelism.
std::string layout_text(const Workload& w) {
  if (gpus(w) == 1) return "";
  if (w.pp == 1 && w.ep == 1 && !w.dp_attention) return fmt::format(", tensor parallel over {} GPUs", w.tp);
  std::string s = fmt::format(", {} GPUs: ", gpus(w));
  if (w.pp > 1) s += fmt::format("{} pipeline stages ({} micro-batches) × ", w.pp, microbatches(w));
  s += fmt::format("tp {}", w.tp);
  if (w.ep > 1) s += fmt::format(", experts over ep {}", w.ep);
  if (w.ep > 1) {
    s += w.expert_imbalance > 1 ? fmt::format(" (imbalance {})", three_digits(w.expert_imbalance))
                                : " (balanced: --expert-imbalance 1)";
  }
  if (w.dp_attention) s += ", attention data-parallel";
  return s;
}

// How many prompt tokens share a read of the weights: a micro-batch's where a pipeline splits the
// batch (each reads its stage's weights again), and of a mixture of experts each expert's share of
// them, top_k of every `experts` tokens on average ("65536 prompt tokens share each weight read" was
// said of Qwen3-30B-A3B at batch 16 of 4096, whose experts each serve 4096 of them).
std::string tokens_per_read(const Report& r) {
  const Workload& w = r.workload;
  const PerRead per = per_read(r, r.prefill_pipeline);
  const long tokens = per.sequences * w.prompt_tokens;
  // Micro-batches of unequal sizes: the largest's, named so.
  const std::string micro =
      per.microbatches <= 1 ? std::string()
                            : fmt::format("{} {} micro-batches, each reading its stage's weights again",
                                          per.even ? "one of" : "the largest of", per.microbatches);
  const std::optional<MoeSpec>& moe = r.model.spec.architecture ? r.model.spec.architecture->moe : std::nullopt;
  if (!moe || moe->experts <= 0) {
    return fmt::format("{} prompt tokens share each weight read{}", tokens, micro.empty() ? "" : " (" + micro + ")");
  }
  const double routed = static_cast<double>(tokens) * moe->top_k / moe->experts;
  return fmt::format("each expert's weights serve {} prompt tokens a read on average ({} tokens, each routed to {} of "
                     "the {} experts{})",
                     three_digits(routed), tokens, moe->top_k, moe->experts, micro.empty() ? "" : "; " + micro);
}

}  // namespace

PerRead per_read(const Report& r, const std::optional<Pipeline>& pipeline) {
  PerRead p;
  if (!pipeline || pipeline->microbatches <= 1) {
    p.sequences = r.workload.batch;
  } else {
    p.sequences = pipeline->microbatch;
    p.microbatches = pipeline->microbatches;
    p.even = r.workload.batch % pipeline->microbatches == 0;
  }
  p.ranks = attention_ranks(r.workload);
  p.own = (p.sequences + p.ranks - 1) / p.ranks;
  p.own_even = p.even && p.sequences % p.ranks == 0;
  return p;
}

std::string percent_of(double part, double whole) {
  const double pct = 100 * part / whole;
  std::string s = fmt::format("{:.1f}", pct);
  if (s != "100.0" || part == whole || !std::isfinite(pct)) return s;
  for (int decimals = 2; decimals <= 9; ++decimals) {
    s = fmt::format("{:.{}f}", pct, decimals);
    if (s != "100." + std::string(static_cast<std::size_t>(decimals), '0')) return s;
  }
  return part > whole ? ">100" : "<100";
}

std::vector<std::string> summary_lines(const Report& r) {
  const ModelSpec& m = r.model.spec;
  const Workload& w = r.workload;
  const Precision& p = w.precision;
  std::vector<std::string> out;
  std::string params = human_count(r.model.params) + " params";
  if (r.model.params_active < r.model.params) params += fmt::format(" ({} active)", human_count(r.model.params_active));
  out.push_back(fmt::format("model     {}: {}, weights {} ({}), {}", terminal_text(m.name), params,
                            human(r.model.weight_bytes), weight_formats_text(r), cache_text(r)));
  out.push_back(fmt::format("gpu       {}: {}, {} {}, ridge point {} FLOP/byte, {}{}", terminal_text(r.gpu.spec.name),
                            human(r.gpu.ceilings.bandwidth), human(r.gpu.ceilings.peak), name(p.compute),
                            three_digits(r.gpu.ridge_point().value()), human(r.gpu.spec.memory_capacity),
                            r.gpu.spec.calibration ? " (calibrated)" : ""));
  out.push_back(fmt::format("workload  batch {}, prompt {} tokens, generate {}, decode step at context {}{}", w.batch,
                            w.prompt_tokens, w.gen_tokens, w.context_tokens, layout_text(w)));
  return out;
}

TextTable phase_table(const Report& r) {
  const PhaseResult& pre = r.prefill;
  const PhaseResult& dec = r.decode.step;
  TextTable t{"Phases", {"", "prefill", "decode step"}, {}};
  t.rows.push_back({"FLOPs", human(pre.flops), human(dec.flops)});
  t.rows.push_back({"bytes", human(pre.bytes), human(dec.bytes)});
  const double ridge = r.gpu.ridge_point().value();
  t.rows.push_back({fmt::format("intensity (ridge {} FLOP/B)", three_digits(ridge)), human(pre.intensity()),
                    human(dec.intensity())});
  t.rows.push_back({"compute time", human(pre.compute_time), human(dec.compute_time)});
  t.rows.push_back({"memory time", human(pre.memory_time), human(dec.memory_time)});
  if (gpus(r.workload) > 1) t.rows.push_back({"communication time", human(pre.comm_time), human(dec.comm_time)});
  t.rows.push_back({"time", human(pre.time) + " (TTFT)", human(dec.time)});
  if (r.prefill_pipeline && r.decode_pipeline) {
    t.rows.push_back({"pipeline bubble", fmt::format("{:.1f}%", 100 * r.prefill_pipeline->bubble),
                      fmt::format("{:.1f}%", 100 * r.decode_pipeline->bubble)});
  }
  t.rows.push_back({"expected (10-90%)", expected_cell(pre.expected), expected_cell(dec.expected)});
  t.rows.push_back({"bound", bound_cell(pre), bound_cell(dec)});
  t.rows.push_back({"tokens/s", "", three_digits(r.decode.tokens_per_s)});
  t.rows.push_back({"expected tokens/s", "", three_digits(r.decode.expected_tokens_per_s)});
  return t;
}

TextTable memory_table(const Report& r) {
  const MemoryLedger& l = r.memory;
  const Workload& w = r.workload;
  TextTable t{fmt::format("Memory (batch {} × {} tokens{})", w.batch, held_tokens(w),
                          l.gpus > 1 ? fmt::format(", {} GPUs", l.gpus) : ""),
              {"", "bytes", "share"},
              {}};
  // Shares of the capacity, to the digit that tells a part just over it from all of it.
  auto row = [&](std::string label, Bytes b) {
    t.rows.push_back({std::move(label), human(b), percent_of(b.value(), l.capacity.value()) + "%"});
  };
  row("weights", l.weights);
  row("KV cache", l.kv_cache);
  row("activations (prefill peak)", l.activations);
  row(fmt::format("reserve ({:g}%)", 100 * w.reserve_fraction), l.reserve);  // as given: 0.004 is 0.4%, not 0%
  row("total", l.total);
  row("capacity", l.capacity);
  // Whether it fits is decided here: a GPU over by 0.03% read "85.5 GB  100.0% of its 85.5 GB".
  if (l.gpus > 1) {
    const Bytes each = r.gpu.spec.memory_capacity;
    const auto [fullest, capacity] = human_apart(l.fullest_gpu, each);
    t.rows.push_back({"fullest GPU", fullest,
                      fmt::format("{}% of its {}", percent_of(l.fullest_gpu.value(), each.value()), capacity)});
  }
  t.rows.push_back({"free", l.fits ? human(l.capacity - l.total) : "none: does NOT fit", ""});
  t.rows.push_back({"max batch at this length",
                    l.max_batch ? fmt::format("{}", *l.max_batch) : "not limited by modelled memory", ""});
  return t;
}

TextTable ops_table(const Report& r) {
  TextTable t{"Operators (all layers, per GPU)",
              {"phase", "operator", "FLOPs", "bytes", "FLOP/B", "time", "share", "bound", "expected"},
              {}};
  for (const OpRow& row : op_rows(r)) {
    const OpResult& o = row.op;
    const PhaseResult& phase = row.phase == Phase::prefill ? r.prefill : r.decode.step;
    const std::string intensity = o.cost.bytes > Bytes(0) ? three_digits(o.intensity().value()) : "-";
    const std::string op = o.cost.layers.empty() ? std::string(o.cost.name)
                                                  : fmt::format("{} ({})", o.cost.name, o.cost.layers);
    t.rows.push_back({std::string(name(row.phase)), op, human(o.cost.flops), human(o.cost.bytes), intensity,
                      human(o.time), fmt::format("{:.1f}%", 100.0 * (o.time / phase.time)), std::string(name(o.bound)),
                      human(row.expected)});
  }
  return t;
}

namespace {

// What B* leaves out, as the point's own figures show it: B* counts the weights only, read once a
// step, so below it a step costs about the same whatever the batch only where nothing else grows
// with the batch. A mixture of experts reads more of its experts as the batch grows (Qwen3-30B-A3B
// on H100: B* = 2933, yet 1.84 ms at batch 1 and 12.2 ms at 16), a pipeline reads its weights once
// a micro-batch, tensor parallelism's collectives carry every sequence's activations, and each
// sequence reads its own cache: c = the step's bytes past its weights, a sequence; where B*
// sequences' c would make the step's bytes more than a fifth larger than one sequence's (W + B*·c
// > 1.2·(W + c), W the step's weights, the threshold explain's "grows" uses), the cache is named
// with its figures (Llama-3.1-8B on H100 at 640 tokens: 295 × 94.8 MB = 28.0 GB beside 15.0 GB).
std::string below_critical(const Report& r) {
  const CriticalBatch& b = r.critical_batch;
  // B₁ < 1: one sequence's arithmetic on the weights already outlasts their reading.
  if (b.weights_only < 1) return "from one sequence on, the weights' arithmetic outlasts their reading";
  const PhaseResult& step = r.decode.step;
  const Workload& w = r.workload;
  const long m = most_microbatches(w);
  std::vector<std::string> grows;
  const std::optional<MoeSpec>& moe = r.model.spec.architecture ? r.model.spec.architecture->moe : std::nullopt;
  if (moe && moe->experts > 0 && moe->top_k < moe->experts) {
    grows.push_back(fmt::format("each token reads only the {} of the {} experts it picks, so a larger batch reads more of "
                                "them (B* counts every expert read)",
                                moe->top_k, moe->experts));
  }
  if (m > 1) grows.push_back(fmt::format("the weights are read once a micro-batch, up to {} times a step", m));
  if (w.tp > 1) grows.push_back(fmt::format("the collectives between the {} GPUs of tensor parallelism carry every "
                                            "sequence's activations", w.tp));
  const Bytes per_sequence = (step.bytes - step.weight_bytes) / static_cast<double>(w.batch);
  const Bytes at_critical = per_sequence * b.weights_only;
  if (step.weight_bytes + at_critical > 1.2 * (step.weight_bytes + per_sequence)) {
    grows.push_back(fmt::format("each sequence reads its own KV cache and activations ({} a sequence at {} tokens, {} "
                                "for B* of them beside {} of weights)",
                                human(per_sequence), w.context_tokens, human(at_critical), human(step.weight_bytes)));
  }
  std::string line = "below it the weights' reading outlasts their arithmetic";
  if (grows.empty()) return line + ", so a decode step costs about the same whatever the batch";
  line += ", but a decode step still grows with the batch: ";
  for (std::size_t i = 0; i < grows.size(); ++i) {
    if (i > 0) line += i + 1 == grows.size() ? ", and " : ", ";
    line += grows[i];
  }
  return line;
}

}  // namespace

std::string critical_batch_line(const Report& r) {
  const CriticalBatch& b = r.critical_batch;
  // A pipeline's step reads the weights once a micro-batch (model/critical_batch.hpp): m·B₁ where B₁ ≥ 1.
  const long m = most_microbatches(r.workload);
  std::string line = fmt::format(
      "critical batch B* = {}(weights streamed / bandwidth) × peak / (2 × weights multiplied) = {}: {}",
      m > 1 && b.weights_only >= static_cast<double>(m) ? fmt::format("{} micro-batches × ", m) : std::string(),
      three_digits(b.weights_only), below_critical(r));
  if (!r.model.spec.architecture) return line;
  if (b.at_context) {
    return line + fmt::format("; with the KV cache at {} tokens, B* = {}", r.workload.context_tokens,
                              three_digits(*b.at_context));
  }
  // No crossover: the compute never catches up with the memory traffic. "Stays memory-bound" only
  // where no link can bind (one GPU); across several, what bounds this step (Llama-3.1-8B on L40S
  // at tp 8, batch 128: the collectives' 4.63 ms over memory's 4.44 ms). A compute-bound step (the
  // formula reads every expert; this step does not) hears nothing of it, as in explain.
  const PhaseResult& step = r.decode.step;
  if (step.bound == Bound::compute) return line;
  if (gpus(r.workload) == 1) {
    return line + fmt::format("; with the KV cache at {} tokens there is no crossover: decode stays memory-bound at "
                              "this context (KV traffic grows as fast as compute)",
                              r.workload.context_tokens);
  }
  return line + fmt::format("; with the KV cache at {} tokens there is no crossover: its compute never catches up with "
                            "its memory traffic (KV traffic grows as fast as compute), and at this batch {} bounds the step",
                            r.workload.context_tokens, step.bound == Bound::memory ? "memory" : "the interconnect");
}

std::vector<std::string> verdicts(const Report& r) {
  const PhaseResult& pre = r.prefill;
  const PhaseResult& dec = r.decode.step;
  const FlopsPerByte ridge = r.gpu.ridge_point();
  const Workload& w = r.workload;
  std::vector<std::string> out;
  // Where the TTFT is more than its FLOPs at the peak (memory-bound operators, collectives), how
  // much of it they are: DeepSeek-V3 at tp 8 said "TTFT 184 ms (178 TFLOP
  // of compute at 1.98 PFLOP/s)", which is 90 ms.
  // The attention over fp8 keys multiplies at the fp8 peak (model/phase.hpp arithmetic_peak): said,
  // or "5.93 PFLOP of compute at 989 TFLOP/s take 4.85 s" reads as a slip (6.0 s at that peak).
  const bool fp8_part = pre.compute_time.value() < pre.flops.value() / r.gpu.ceilings.peak.value() * (1 - 1e-9);
  const std::string at = fp8_part ? fmt::format("{} (the attention over fp8 keys at {})", human(r.gpu.ceilings.peak),
                                                human(r.gpu.ceilings.peak_fp8))
                                  : human(r.gpu.ceilings.peak);
  std::string ttft = fmt::format("TTFT {} ({} of compute at {})", human(pre.time), human(pre.flops), at);
  // A pipeline's FLOPs and collectives are a stage's, its TTFT every stage's in turn: no split.
  if (!r.prefill_pipeline && pre.time > pre.compute_time * 1.01) {
    ttft = fmt::format("TTFT {}, of which its {} of compute at {} take {}", human(pre.time), human(pre.flops), at,
                       human(pre.compute_time));
    if (pre.comm_time > Seconds(0)) ttft += fmt::format(" and its collectives {}", human(pre.comm_time));
  }
  out.push_back(fmt::format("prefill is {}-bound: {}, intensity {} FLOP/B is {}; {}", name(pre.bound),
                            tokens_per_read(r), three_digits(pre.intensity().value()),
                            versus_ridge(pre.intensity(), ridge), ttft));
  const Bytes weights = dec.weight_bytes;
  out.push_back(fmt::format(
      "decode is {}-bound: each step reads {} ({} weights, {} KV cache and activations) to make {} token{}, "
      "intensity {} FLOP/B is {}; step {} → {} tokens/s",
      name(dec.bound), human(dec.bytes), human(weights), human(dec.bytes - weights), w.batch, w.batch == 1 ? "" : "s",
      three_digits(dec.intensity().value()), versus_ridge(dec.intensity(), ridge), human(dec.time),
      three_digits(r.decode.tokens_per_s)));
  // Whether it fits is decided on the fullest GPU (model/memory_ledger.hpp), so that is what is
  // said: "batch 332 needs 340 GB but the 4 GPUs hold 342 GB" was said of a pipeline whose last
  // stage needs 85.55 GB of its 85.52 GB.
  if (!r.memory.fits) {
    const auto [needed, holds] = human_apart(r.memory.fullest_gpu, r.gpu.spec.memory_capacity);
    out.push_back(r.memory.gpus == 1
                      ? fmt::format("memory: does NOT fit: batch {} needs {} but the GPU holds {}", w.batch, needed, holds)
                      : fmt::format("memory: does NOT fit: at batch {} the fullest of the {} GPUs needs {} but holds {}",
                                    w.batch, r.memory.gpus, needed, holds));
  }
  return out;
}

// Both renderings tell the same story in the same order; only the table syntax differs.
std::string render_report(const Report& r, bool with_ops, std::string (*render)(const TextTable&),
                          std::string_view bullet) {
  std::string out;
  auto table = [&](const TextTable& t) { fmt::format_to(std::back_inserter(out), "\n{}", render(t)); };
  table(phase_table(r));
  table(memory_table(r));
  if (with_ops) table(ops_table(r));
  fmt::format_to(std::back_inserter(out), "\n{}\n\n", critical_batch_line(r));
  for (const std::string& v : verdicts(r)) fmt::format_to(std::back_inserter(out), "{} {}\n", bullet, v);
  return out;
}

std::string render_report_plain(const Report& r, bool with_ops) {
  return fmt::format("{}\n{}", fmt::join(summary_lines(r), "\n"), render_report(r, with_ops, [](const TextTable& t) { return render_plain(t); }, "*"));
}

std::string render_report_markdown(const Report& r, bool with_ops) {
  return fmt::format("## {} on {}\n\n- {}\n{}", terminal_text(r.model.spec.name), terminal_text(r.gpu.spec.name),
                     fmt::join(summary_lines(r), "\n- "), render_report(r, with_ops, render_markdown, "-"));
}

}  // namespace roofline::report
