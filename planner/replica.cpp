#include "planner/replica.hpp"

#include <fmt/format.h>

#include <algorithm>

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
  EnginePreset p{serve::engine_defaults(*s.engine, g.memory_capacity.value() / kGiB, g.name), {}};
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
  r.cache = serve::cache_blocks(m, g, w, s.block_tokens, s.max_batched_tokens, r.draft ? &*r.draft : nullptr);
  if (r.cache.blocks == 0) {
    throw Refusal(fmt::format("--model: the weights{} and one step's activations ({} tokens) leave no room for a "
                              "KV cache on {} x {}; raise --tp or lower --max-batched-tokens",
                              r.draft ? " (the draft's with them)" : "", s.max_batched_tokens, w.tp, g.name));
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
  r.config.reserve_whole = s.reserve_whole;
  r.config.block_tokens = s.block_tokens;
  r.config.kv_blocks = r.cache.blocks;
  r.config.limited_layers = r.cache.limited;
  r.config.max_context = m.max_context.value_or(0);
  return r;
}

std::string_view cache_dropped_from(const Workload& w) {
  return w.dp_attention ? "than the KV cache one attention rank holds, an equal share (lower --reserve, --prompt or --gen)"
                        : "than the whole KV cache (raise --tp, or lower --reserve, --prompt or --gen)";
}

}  // namespace roofline::planner
