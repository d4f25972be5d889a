#include "planner/replica.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "model/capacity_plan.hpp"
#include "model/workload.hpp"
#include "planner/refusal.hpp"
#include "serve/step_cost.hpp"

namespace roofline::planner {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The settings as run: their own values, or with an engine that engine's defaults where a value
// was not given (each one given listed as an override).
std::optional<EnginePreset> apply_engine(ServerSettings& s, const ModelSpec& m, const GpuSpec& g, const Workload& w) {
  if (!s.engine) return std::nullopt;
  EnginePreset p{serve::engine_defaults(*s.engine, g.memory_capacity.value() / kGiB, g.name), {}, std::nullopt};
  serve::EngineDefaults d = p.defaults;
  // The simulator's batch and budget are a rank's. SGLang divides --chunked-prefill-size by
  // --dp-size (server_args.py; launch/sglang_launch.cpp), and a --max-running-requests given, but
  // left to its default each rank's scheduler takes its own request pool (scheduler.py; sized in
  // assemble_replica). vLLM's data parallel ranks are engine cores with a scheduler each, and
  // TensorRT-LLM's limits are taken as a rank's too (not confirmed in its documentation).
  if (const long ranks = attention_ranks(w); d.engine == serve::Engine::sglang && ranks > 1) {
    d.max_batched_tokens = std::max(1L, d.max_batched_tokens / ranks);
  }
  const auto pick = [&](bool given, auto& into, auto preset, std::string override_text) {
    if (given) {
      p.overrides.push_back(std::move(override_text));
    } else {
      into = preset;
    }
  };
  pick(s.given.max_batch, s.max_batch, d.max_batch, fmt::format("--max-batch {}", s.max_batch));
  pick(s.given.max_batched_tokens, s.max_batched_tokens, d.max_batched_tokens,
       fmt::format("--max-batched-tokens {}", s.max_batched_tokens));
  pick(s.given.chunked_prefill, s.chunked_prefill, d.chunked_prefill,
       s.chunked_prefill ? "--chunked-prefill" : "--no-chunked-prefill");
  pick(s.given.admission, s.reserve_whole, d.preemption == serve::Preemption::none,
       fmt::format("--admission {}", s.reserve_whole ? "reserve" : "grow"));
  pick(s.given.block_tokens, s.block_tokens, d.block_tokens, fmt::format("--block-tokens {}", s.block_tokens));
  // vLLM without chunked prefill raises a token budget left at its default to max_model_len (an
  // explicit smaller one it refuses: cli's check_engine).
  if (d.unchunked == serve::UnchunkedLimit::model_length && !s.chunked_prefill && !s.given.max_batched_tokens &&
      m.max_context && *m.max_context > s.max_batched_tokens) {
    s.max_batched_tokens = *m.max_context;
    p.overrides.push_back(fmt::format("max_num_batched_tokens raised to max_model_len {}, as {} does without chunked "
                                      "prefill",
                                      s.max_batched_tokens, d.label));
  }
  return p;
}

}  // namespace

AssembledReplica assemble_replica(const ModelSpec& m, const GpuSpec& g, const Workload& w, ServerSettings s) {
  AssembledReplica r;
  r.engine = apply_engine(s, m, g, w);
  if (const auto why = serve::unsupported(m)) throw Refusal(fmt::format("--model: {}", *why));
  if (const auto why = serve::unsupported(w)) throw Refusal(*why);
  r.draft = std::move(s.draft);
  if (s.speculation) {
    r.config.speculation = s.speculation;
    r.config.draft_reads_target = r.draft && r.draft->reads_target;
    if (const auto e = r.draft ? validate(w, r.draft->model, g) : std::nullopt) {
      throw Refusal(fmt::format("--speculative: the draft {} runs in the target's layout, and --{}: {}",
                                r.draft->model.name, e->field, e->message));
    }
    if (s.max_batched_tokens < s.speculation->k + 1) {
      throw Refusal(fmt::format("--max-batched-tokens: {} cannot hold one verify step of --speculative K = {} "
                                "({} tokens)",
                                s.max_batched_tokens, s.speculation->k, s.speculation->k + 1));
    }
  }
  r.config.seed = s.seed;
  // The cache is sized beside the largest step the scheduler runs: the token budget's, or unchunked
  // the longest prompt past it, alone in its step.
  const long step = serve::largest_step(s.max_batched_tokens, s.chunked_prefill, s.longest_prompt);
  r.cache = serve::cache_blocks(m, g, w, s.block_tokens, step, r.draft ? &*r.draft : nullptr);
  if (r.cache.blocks == 0) {
    throw Refusal(fmt::format("--model: the weights{} and one step's activations ({} tokens) leave no room for a "
                              "KV cache on {} x {}; raise --tp or lower --max-batched-tokens{}",
                              r.draft ? " (the draft's with them)" : "", step, w.tp, g.name,
                              step > s.max_batched_tokens ? " (or give --chunked-prefill: a whole prompt runs in one step)" : ""));
  }
  if (const int ranks = attention_ranks(w); r.cache.blocks < ranks) {
    throw Refusal(fmt::format("--dp-attention: the KV cache holds {} blocks of {} tokens, fewer than its {} ranks "
                              "need (one each at least); lower --block-tokens or --reserve",
                              r.cache.blocks, s.block_tokens, ranks));
  }
  // SGLang sizes its request pool from its cache (model_runner.py): min(max(cache tokens / context
  // length · 512, 2048), 4096), and at most half the cache's tokens, a rank's. The preset's 2048
  // is that floor; a small model's large cache runs more (Llama-3.1-8B on an H200: 3546).
  if (r.engine && r.engine->defaults.batch_from_cache && !s.given.max_batch && m.max_context) {
    const double rank_tokens = static_cast<double>(r.cache.blocks) * static_cast<double>(s.block_tokens) /
                               static_cast<double>(attention_ranks(w));
    const auto floor = static_cast<double>(r.engine->defaults.max_batch);
    const double pool = std::clamp(std::floor(rank_tokens / static_cast<double>(*m.max_context) * 512), floor, 4096.0);
    s.max_batch = static_cast<long>(std::max(1.0, std::min(pool, std::floor(rank_tokens / 2))));
  }
  r.config.max_batch = s.max_batch;
  r.config.max_batched_tokens = s.max_batched_tokens;
  r.config.chunked_prefill = s.chunked_prefill;
  if (r.engine) {
    r.config.unchunked_fit = r.engine->defaults.unchunked_fit;
    r.config.mixed_steps = r.engine->defaults.mixed_steps;
    r.config.retention = r.engine->defaults.retention;  // what its prefix cache keeps of a preempted request
  }
  if (s.mixed_steps) r.config.mixed_steps = *s.mixed_steps;
  r.config.reserve_whole = s.reserve_whole;
  r.config.block_tokens = s.block_tokens;
  r.config.kv_blocks = r.cache.blocks;
  r.config.limited_layers = r.cache.limited;
  r.config.max_context = m.max_context.value_or(0);
  return r;
}

namespace {

// A size in the rules' sentences, named for GB, its usual unit: three significant digits, never an
// exponent ({:.3g} wrote DeepSeek-V3's 8 x H200 as "1.21e+03 GB"): past 999.5 GB in TB (and on),
// below 0.0001 GB in MB (and down). planner/ cannot reach report/'s human(Bytes)
// (docs/architecture.md).
std::string gb(double bytes) {
  static constexpr std::array<const char*, 7> kUnits{"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  std::size_t unit = 3;
  double v = bytes / 1e9;
  while (std::fabs(v) >= 999.5 && unit + 1 < kUnits.size()) {
    v /= 1000;
    ++unit;
  }
  while (v != 0 && std::fabs(v) < 1e-4 && unit > 0) {
    v *= 1000;
    --unit;
  }
  return fmt::format("{:.3g} {}", v, kUnits[unit]);
}

}  // namespace

EngineMemory engine_memory(const serve::EngineDefaults& d, const ModelSpec& m, const GpuSpec& g, const Workload& w,
                           const serve::ServerConfig& c, const std::optional<serve::Draft>& draft, long step_tokens) {
  // The memory as serve/kv_capacity.cpp deals it, with nothing held back: C, one step's
  // activations A (each attention rank's step, held on every rank) and F, what the weights, a
  // draft's and A leave. The step the cache is sized beside (largest_step: unchunked, the longest
  // prompt's), else the token budget's: the rule had said SGLang's unchunked cache was 42.5 GB
  // where the one sized beside a 59,868-token prompt ran 38.7.
  const long step = step_tokens > 0 ? step_tokens : c.max_batched_tokens;
  Workload bare = w;
  bare.reserve_fraction = 0;
  const MemoryLedger l = step_ledger(m, g, bare, step);
  const serve::CacheBlocks left = serve::cache_blocks(m, g, bare, c.block_tokens, step, draft ? &*draft : nullptr);
  const double C = l.capacity.value();
  const double A = l.activations.value() * static_cast<double>(attention_ranks(w));
  const double F = left.free.value();
  const double weights = C - A - F;  // a draft's beside the target's
  const double gpus = C / g.memory_capacity.value();
  const std::string engine(serve::engine_name(d.engine));
  EngineMemory out;
  double cache = 0;
  switch (d.memory) {
    case serve::MemoryRule::of_total: {
      const double u = d.memory_fraction;
      cache = u * C - (C - F);
      out.reserve_fraction = std::round((1 - u) * 1e9) / 1e9;  // 0.1, not 0.09999999999999998
      out.rule = fmt::format("{}'s gpu_memory_utilization {:g}: the weights ({}), one step's activations ({}) and "
                             "the cache share {:g} of the {}",
                             d.label, u, gb(weights), gb(A), u, gb(C));
      break;
    }
    case serve::MemoryRule::of_free: {
      const double f = d.memory_fraction;
      cache = f * F;
      out.reserve_fraction = std::max(0.0, (1 - f) * F / C);
      out.rule = fmt::format("{}'s kv_cache_free_gpu_memory_fraction {:g}: the cache takes {:g} of the {} the weights "
                             "({}) and one step's activations ({}) leave of the {}, {} (the memory outside torch, "
                             "which its profile counts too, is not priced)",
                             d.label, f, f, gb(F), gb(weights), gb(A), gb(C), gb(cache));
      break;
    }
    case serve::MemoryRule::static_share: {
      const double mib = g.memory_capacity.value() / 1048576.0;
      // SGLang's --chunked-prefill-size is every attention rank's together (it divides it by --dp-size).
      const long chunk = c.chunked_prefill ? c.max_batched_tokens * attention_ranks(w) : 0;
      const serve::SglangDraft drafting = !c.speculation ? serve::SglangDraft::none
                                          : !draft       ? serve::SglangDraft::ngram
                                          : draft->reads_target ? serve::SglangDraft::eagle
                                                                : serve::SglangDraft::standalone;
      const serve::SglangStatic s = serve::sglang_static_share(mib, chunk, w.tp, w.pp, w.dp_attention, drafting);
      cache = F + A - (1 - s.fraction) * C;
      out.reserve_fraction = std::max(0.0, 1 - s.fraction - A / C);
      out.rule = fmt::format("{}'s mem_fraction_static {:g}, its GPU's {:.0f} MiB less the {:.0f} MiB it holds back "
                             "(--chunked-prefill-size {}, --cuda-graph-max-bs {}, tp x pp {}): the weights ({}) and the "
                             "cache share {} a GPU, a {} cache{}",
                             d.label, s.fraction, mib, s.reserved_mib, chunk > 0 ? chunk : -1, s.cuda_graph_max_bs,
                             w.tp * w.pp, gb(weights), gb(s.fraction * C / gpus), gb(std::max(cache, 0.0)),
                             1 - s.fraction < A / C ? fmt::format(" (it holds back less than the step's activations "
                                                                  "priced, {}: the cache is what they leave)",
                                                                  gb(A))
                                                    : "");
      if (!(cache >= left.per_block.value())) {
        throw Refusal(fmt::format("--engine {}: {}'s default --mem-fraction-static {:g} gives the weights and the KV "
                                  "cache {} a GPU, and the weights take {}: SGLang stops as it starts (\"Not enough "
                                  "memory. Please try to increase --mem-fraction-static\"); raise --tp, or give "
                                  "--reserve to simulate a server started with a larger --mem-fraction-static",
                                  engine, d.label, s.fraction, gb(s.fraction * C / gpus), gb(weights / gpus)));
      }
      break;
    }
  }
  if (!(cache >= left.per_block.value())) {
    throw Refusal(fmt::format("--engine {}: {}: no room for one KV block of {} tokens, and the engine would not start; "
                              "raise --tp or lower --max-batched-tokens",
                              engine, out.rule, c.block_tokens));
  }
  return out;
}

std::string_view cache_dropped_from(const Workload& w) {
  return w.dp_attention ? "than the KV cache one attention rank holds, an equal share (lower --reserve, --prompt or --gen)"
                        : "than the whole KV cache (raise --tp, or lower --reserve, --prompt or --gen)";
}

}  // namespace roofline::planner
