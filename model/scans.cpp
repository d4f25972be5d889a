#include "model/scans.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <variant>

#include "model/bisect.hpp"
#include "model/engine.hpp"
#include "model/layers.hpp"

namespace roofline {

namespace {

Report with(const ModelSpec& m, const GpuSpec& g, Workload w, auto&& change) {
  change(w);
  return evaluate(m, g, w);
}

// A variation the engine refuses at this layout (int4 weights whose groups tp splits) is the point
// itself: nothing it would change is said, where the explanation stopped at it.
Report variation(const Report& base, const ModelSpec& m, const GpuSpec& g, const Workload& w, auto&& change) {
  try {
    return with(m, g, w, change);
  } catch (const std::invalid_argument&) {
    return base;
  }
}

// scan_context's line: the context, and the workload's own prompt where the context leaves its
// generation room (the ledger holds max(context, prompt + gen), so its cache grows with the line
// and its prefill activations stay the workload's); below that the prompt shrinks with it, a
// context never below its prompt. A prompt moved at every context gave its prefill's activations
// to every point: the memory limit of a batch of 32 at 512-token prompts fell 14,220 → 9,400.
void at_context(Workload& x, long context) {
  x.context_tokens = std::max(1L, context);
  x.prompt_tokens = std::clamp(x.context_tokens - x.gen_tokens, 1L, x.prompt_tokens);
}

// What a verification step moves of the recurrent layers' state beyond what an engine moves, a GPU:
// `spec` prices each of a sequence's kVerifyRows rows as a sequence of its own, which reads and
// writes its state and its convolution's kept inputs once. vLLM's speculative decoding reads a
// sequence's state once and writes it at each of its verified positions, to resume from the last
// one accepted (its fused_recurrent_gated_delta_rule keeps "the states for multi-query tokens", one
// a position of spec_state_indices_tensor), and reads and writes the kept inputs once
// (causal_conv1d_update with num_accepted_tokens). A pipeline's memory time is its micro-batches' over the stages.
Seconds state_beyond_engine(const ModelSpec& m, const Workload& w, const Report& base, const Report& spec) {
  if (!m.architecture || !m.architecture->recurrent) return Seconds(0);
  const LayerStack stack = describe_layers(*m.architecture, sharding(w));
  double state = 0, conv = 0;  // one sequence's, on one GPU
  for (const Block& b : stack.blocks) {
    for (const PhasedStep& s : b.steps) {
      if (const auto* r = std::get_if<RecurrentStep>(&s.step)) {
        state += b.layers * r->state_bytes();
        conv += b.layers * r->conv_bytes();
      }
    }
  }
  const auto on_a_gpu = [&](long batch) {
    return std::ceil(static_cast<double>(batch) / stack.data_parallel) / static_cast<double>(w.pp);
  };
  const auto rows = static_cast<double>(Variations::kVerifyRows);
  const double priced = on_a_gpu(spec.workload.batch) * 2 * (state + conv);
  const double engine = on_a_gpu(w.batch) * ((1 + rows) * state + 2 * conv);
  return Bytes(priced - engine) / base.gpu.ceilings.bandwidth;
}

// A verify kernel reads each sequence's cache once for all its rows, the drafted tokens and the one
// before them (FlashMLA's several queries a sequence; serve/step_cost.cpp, verify_attention), but
// the engine prices a decode pass at one query a sequence, so `spec` (kVerifyRows × the batch)
// reads every cache kVerifyRows times. The kDraftedTokens reads past the first are taken off at
// bandwidth: the base step's cache traffic is what its memory time loses at a one-token context.
// Those reads belong to memory-bound attention operators (a few FLOPs a byte, 5 queries or 1), so
// the rows through the linears and the queries' arithmetic stay as priced. A recurrent layer's
// state, which does not grow with the context, is taken to what engines move (state_beyond_engine).
// A naive kernel's score matrix stays as priced: 5 queries do write it 5 times.
Seconds verify_step(const ModelSpec& m, const GpuSpec& g, const Workload& w, const Report& base, const Report& spec) {
  // A one-token context after a one-token prompt (a step's context holds its prompt).
  const Report one_token = with(m, g, w, [](Workload& x) { x.prompt_tokens = x.context_tokens = 1; });
  const Seconds cache = base.decode.step.memory_time - one_token.decode.step.memory_time;
  const Seconds extra =
      static_cast<double>(Variations::kVerifyRows - 1) * cache + state_beyond_engine(m, w, base, spec);
  return std::max(base.decode.step.time, spec.decode.step.time - extra);
}

}  // namespace

std::vector<Report> scan_batch(const ModelSpec& m, const GpuSpec& g, const Workload& w, long last, int points) {
  std::vector<Report> out;
  long previous = 0;
  for (int i = 0; i <= points; ++i) {
    const long b = std::lround(std::pow(static_cast<double>(last), i / static_cast<double>(points)));
    if (b == previous) continue;
    previous = b;
    out.push_back(with(m, g, w, [b](Workload& x) { x.batch = b; }));
  }
  return out;
}

std::vector<Report> scan_context(const ModelSpec& m, const GpuSpec& g, const Workload& w, long last, int points) {
  std::vector<Report> out;
  for (int i = 0; i <= points; ++i) {
    out.push_back(with(m, g, w, [&](Workload& x) { at_context(x, last * i / points); }));
  }
  return out;
}

std::optional<long> first_batch_past_memory(const Report& base, long last) {
  // The ledger's largest batch is exact at these lengths: it holds max_batch, not one more.
  const std::optional<long>& most = base.memory.max_batch;
  if (!most || *most + 1 > last) return std::nullopt;
  return *most + 1;
}

std::optional<long> first_context_past_memory(const ModelSpec& m, const GpuSpec& g, const Workload& w, long last) {
  const auto fits = [&](long t) { return with(m, g, w, [t](Workload& x) { at_context(x, t); }).memory.fits; };
  if (fits(last)) return std::nullopt;
  if (!fits(1)) return 1;
  // A longer context never holds less: the one past the longest that fits.
  return last_holding(1, last - 1, fits) + 1;
}

Variations variations(const ModelSpec& m, const GpuSpec& g, const Workload& w) {
  Variations v{evaluate(m, g, w), {}, {}, {}, {}, {}, {}, {}, {}, {}};
  v.batch1 = with(m, g, w, [](Workload& x) { x.batch = 1; });
  const long twice_critical = std::max(2L, std::lround(2 * v.base.critical_batch.weights_only));
  v.batch64 = with(m, g, w, [](Workload& x) { x.batch = 64; });
  v.twice_critical = with(m, g, w, [twice_critical](Workload& x) { x.batch = twice_critical; });
  // What `--weights int4` quantizes: the block linears; the head and embeddings keep their formats.
  v.int4 = variation(v.base, m, g, w, [](Workload& x) {
    for (TensorClass c : kBlockClasses) x.precision.set(c, WeightFormat::int4);
  });
  v.kv8 = with(m, g, w, [](Workload& x) { x.precision.kv = DType::fp8; });
  v.flash = with(m, g, w, [](Workload& x) { x.attention = AttentionKernel::flash; });
  v.naive = with(m, g, w, [](Workload& x) { x.attention = AttentionKernel::naive; });
  // Verifying the drafted tokens of every sequence is one step over kVerifyRows times the rows
  // (the drafts and the token before them), with one weight read. At kDraftedTokens rows a
  // sequence it had priced one row short of what simulate verifies: Llama-2-7B at batch 48 on an
  // A100, 9.80 ms for 11.96.
  v.speculative = with(m, g, w, [](Workload& x) { x.batch *= Variations::kVerifyRows; });
  v.verify_step = verify_step(m, g, w, v.base, v.speculative);
  return v;
}

}  // namespace roofline
