// The engines' scheduler defaults, one row an engine at the versions launch/ writes scripts for.
// Where a value comes from a source file rather than a documentation page, or could not be
// checked against either, the comment beside it says so (docs/engines.md repeats the table).
#include "serve/engine_defaults.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace roofline::serve {

std::string_view engine_name(Engine e) { return kEngineNames[static_cast<std::size_t>(e)]; }

std::optional<Engine> engine_named(std::string_view name) {
  const auto* it = std::find(kEngineNames.begin(), kEngineNames.end(), name);
  if (it == kEngineNames.end()) return std::nullopt;
  return static_cast<Engine>(it - kEngineNames.begin());
}

namespace {

bool names_a100(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("a100") != std::string::npos;
}

// vLLM 0.11, `vllm serve` (the V1 engine).
EngineDefaults vllm(double gpu_gib, std::string_view gpu_name) {
  EngineDefaults d;
  d.engine = Engine::vllm;
  d.label = "vLLM 0.11";
  d.source = "https://docs.vllm.ai/en/v0.11.2/configuration/engine_args.html";
  // V1 schedules chunked prefill: 0.11.0's EngineArgs._set_default_args forces it on for
  // generative models ("V1 always uses chunked prefills and prefix caching for non-pooling tasks");
  // later versions honour --no-enable-chunked-prefill with a warning.
  d.chunked_prefill = true;
  // SchedulerConfig's own 2048 and 128 are "mainly for convenience when testing. In real usage,
  // this should be set in EngineArgs.create_engine_config" (the v0.11.2 scheduler config page).
  // EngineArgs, for the OpenAI server: 8192 tokens and 1024 sequences `if device_memory >= 70 *
  // GiB_bytes and "a100" not in device_name` (an A100's throughput fell with the larger budget,
  // PR #17885), else 2048 and 256 (vllm/engine/arg_utils.py of the 0.11 line; source, not a page).
  const bool large = gpu_gib >= 70 && !names_a100(gpu_name);
  d.max_batched_tokens = large ? 8192 : 2048;
  d.max_batch = large ? 1024 : 256;
  d.block_tokens = 16;  // --block-size: 16 on CUDA (cache.py)
  // V1 preempts by recompute only, popping the running list's last, the latest admitted
  // (vllm/v1/core/sched/scheduler.py); SchedulerPolicy "fcfs" is the default (the 0.11.2
  // scheduler config page lists fcfs and priority).
  d.preemption = Preemption::recompute;
  d.queue_order = "fcfs";
  d.prefix_cache = true;  // --enable-prefix-caching: on by default in V1 (off for hybrid models)
  // A preempted request's full blocks stay hashed in the free queue, freed tail first
  // (KVCacheManager.free, vllm/v1/core/kv_cache_manager.py), found again on its return
  // (get_computed_blocks) unless handed out meanwhile, least recently freed first (block_pool.py).
  d.retention = Retention::computed;
  // Without chunked prefill, SchedulerConfig refuses an explicit max_num_batched_tokens below
  // max_model_len ("makes vLLM reject longer sequences"); a budget left at its default is raised
  // to max_model_len instead (EngineArgs: `self.max_num_batched_tokens = model_config.max_model_len`).
  // From the source, not a documentation page.
  d.unchunked = UnchunkedLimit::model_length;
  // --gpu-memory-utilization 0.9 (CacheConfig.gpu_memory_utilization, the v0.11.2 engine args
  // page): the weights, the profiled step's activations and the cache share 0.9 of the GPU's memory.
  d.memory = MemoryRule::of_total;
  d.memory_fraction = 0.9;
  // Unchunked (0.11.1 on), the V1 scheduler schedules the running requests first, then passes over
  // a waiting prompt longer than the budget they leave and tries the later ones (scheduler.py:
  // `if not chunked_prefill_enabled and num_new_tokens > token_budget: ... skipped_waiting_requests
  // .prepend_request(request); continue`); vLLM 0.12 stops there instead (PR #28911). Prefill and
  // decode share a step either way.
  d.unchunked_fit = UnchunkedFit::skip;
  d.mixed_steps = true;
  return d;
}

// SGLang 0.5, `python -m sglang.launch_server`.
EngineDefaults sglang(double gpu_gib) {
  EngineDefaults d;
  d.engine = Engine::sglang;
  d.label = "SGLang 0.5";
  d.source = "https://docs.sglang.io/advanced_features/server_arguments.html";
  d.chunked_prefill = true;  // --chunked-prefill-size set (-1 turns chunking off)
  // --chunked-prefill-size defaults to None, set by the GPU's memory (server_args.py,
  // _handle_gpu_memory_settings, in MiB: `< 20*1024` and `< 35*1024` 2048, `< 60*1024` 4096,
  // `< 90*1024` and `< 160*1024` 8192, else 16384). From the source of the 0.5 line (0.4.x had no
  // 4096 tier), not the page.
  d.max_batched_tokens = gpu_gib < 35 ? 2048 : gpu_gib < 60 ? 4096 : gpu_gib < 160 ? 8192 : 16384;
  // --max-running-requests defaults to None: model_runner.py sizes the request pool as
  // min(max(cache tokens / context length · 512, 2048), 4096) (newer code also caps it at half
  // the cache's tokens): 2048, the floor, for the long-context models served today, whose cache
  // holds a few contexts. The KV cache binds the batch first at these sizes.
  d.max_batch = 2048;
  d.batch_from_cache = true;
  d.block_tokens = 1;  // --page-size: 1 token a page
  // Out of memory, SGLang retracts running decodes and recomputes them (schedule_batch.py,
  // retract_decode: the fewest output tokens first, which is mostly the latest admitted);
  // modelled as the latest admitted. Its admission also holds back an estimate of the running
  // requests' future tokens (new_token_ratio), not modelled.
  d.preemption = Preemption::recompute;
  // --schedule-policy: "fcfs" (server arguments page; the 0.4.7 source's default too).
  d.queue_order = "fcfs";
  d.prefix_cache = true;  // the radix cache, unless --disable-radix-cache
  // retract_decode (schedule_batch.py) frees a retracted request's tokens past its cached prefix
  // and unlocks that prefix in the radix tree (dec_lock_ref), evictable least recently used: its
  // prompt is found again on its return unless evicted meanwhile; its output is recomputed.
  d.retention = Retention::prompt;
  d.unchunked = UnchunkedLimit::none;  // no refusal found for an unchunked long prompt
  // --enable-mixed-chunk is off by default (server_args.py: enable_mixed_chunk: bool = False):
  // get_next_batch_to_run runs a new prefill batch whenever one can be formed ("Run prefill first
  // if possible"), the running decodes waiting that forward pass, and a decode batch only when none
  // can. A prompt past the budget goes alone as the batch's first (PrefillAdder takes any first).
  d.mixed_steps = false;
  d.unchunked_fit = UnchunkedFit::alone;
  // PD disaggregation: the decode server's PreallocQueue allocates a request's KV before the
  // prefill server leaves its bootstrap queue (python/sglang/srt/disaggregation/decode.py).
  d.decode_reserves_at_arrival = true;
  // --mem-fraction-static left to its default: worked out from the GPU's memory and the server
  // (sglang_static_share); the weights and the KV pool share it, the activations and CUDA graphs
  // live outside it (model_runner.py: rest_memory = free after loading − total × (1 − share)).
  d.memory = MemoryRule::static_share;
  d.memory_fraction = 0;
  return d;
}

// TensorRT-LLM 1.0, `trtllm-serve` on its PyTorch back end.
EngineDefaults trtllm(double) {
  EngineDefaults d;
  d.engine = Engine::trtllm;
  d.label = "TensorRT-LLM 1.0";
  d.source = "https://nvidia.github.io/TensorRT-LLM/1.0.0/commands/trtllm-serve/trtllm-serve.html";
  d.chunked_prefill = false;  // TorchLlmArgs.enable_chunked_prefill: False
  // trtllm-serve's --max_num_tokens and --max_batch_size default to BuildConfig's (tensorrt_llm/
  // builder.py: `max_batch_size: int = 2048`, `max_num_tokens: int = 8192`; serve.py: `default=
  // BuildConfig.max_batch_size`); the page lists the flags without their defaults. serve.py also
  // passes DynamicBatchConfig(enable_batch_size_tuning=True), which may tune the batch at run time:
  // not modelled.
  d.max_batched_tokens = 8192;
  d.max_batch = 2048;
  d.block_tokens = 32;  // KvCacheConfig.tokens_per_block: 32 (the LLM API reference)
  // trtllm-serve passes SchedulerConfig(capacity_scheduler_policy=GUARANTEED_NO_EVICT) itself
  // (serve.py, get_llm_args); requests wait in arrival order.
  d.preemption = Preemption::none;
  d.queue_order = "fcfs";
  d.prefix_cache = true;  // KvCacheConfig.enable_block_reuse: True
  // GUARANTEED_NO_EVICT never preempts; what block reuse keeps of a request paused under
  // --admission grow was not checked: none modelled (it is recomputed from its prompt).
  d.retention = Retention::none;
  // Without chunked prefill the LLM API rejects a prompt longer than max_num_tokens
  // (LLM._check_arguments); from the source, not a documentation page.
  d.unchunked = UnchunkedLimit::prompt;
  // --kv_cache_free_gpu_memory_fraction 0.9 (tensorrt_llm/commands/serve.py, the click option's
  // default): the cache gets 0.9 of what the profiling step's peak (weights, activations and the
  // memory outside torch) leaves of the GPU, (total − peak) × fraction (KvCacheCreator._cal_max_tokens,
  // tensorrt_llm/_torch/pyexecutor/_util.py).
  d.memory = MemoryRule::of_free;
  d.memory_fraction = 0.9;
  // GUARANTEED_NO_EVICT lists the requests generating first, then the new prompts; the micro-batch
  // scheduler walks that list and, unchunked, breaks at the first prompt whose tokens do not fit
  // what max_num_tokens has left (microBatchScheduler.cpp: `if (batchNumTokens + reqNumTokens >
  // maxNumTokensRuntime) break;`): it and every prompt behind it wait for the decodes to leave room.
  d.unchunked_fit = UnchunkedFit::stop;
  d.mixed_steps = true;
  return d;
}

}  // namespace

long sglang_cuda_graph_max_bs(double gpu_mib, int tp) {
  constexpr double kGiB = 1024;  // in MiB, as server_args.py compares
  if (gpu_mib < 20 * kGiB) return 8;
  if (gpu_mib < 35 * kGiB) return tp < 4 ? 24 : 80;
  if (gpu_mib < 60 * kGiB) return tp < 4 ? 32 : 160;
  if (gpu_mib < 160 * kGiB) return tp < 4 ? 256 : 512;  // 60-90 GiB (H100) and 90-160 GiB (H200) alike
  return 512;
}

SglangStatic sglang_static_share(double gpu_mib, long chunk, int tp, int pp, bool dp_attention, SglangDraft draft) {
  SglangStatic s;
  s.cuda_graph_max_bs = sglang_cuda_graph_max_bs(gpu_mib, tp);
  const auto bs = static_cast<double>(s.cuda_graph_max_bs);
  double reserved = 512;  // "constant meta data (e.g., from attention backend)"
  // "For activation during large prefill": --max-prefill-tokens (16384) unchunked.
  reserved += std::max(chunk > 0 ? static_cast<double>(chunk) : 16384.0, 2048.0) * 1.5;
  reserved += bs * 2;                                                 // CUDA graphs
  reserved += static_cast<double>(tp) * static_cast<double>(pp) / 8 * 1024;  // large parallel sizes
  if (dp_attention) {
    // --dp-size is tp under data-parallel attention (launch/sglang_launch.cpp).
    reserved += bs * tp * 3;
    if (s.cuda_graph_max_bs > 300) reserved += bs * tp * 1.5;
  }
  if (gpu_mib > 60 * 1024) reserved = std::max(reserved, 10.0 * 1024);
  if (draft == SglangDraft::standalone) reserved += 6 * 1024;
  if (draft == SglangDraft::eagle) reserved += 2 * 1024;
  s.reserved_mib = reserved;
  s.fraction = std::round((gpu_mib - reserved) / gpu_mib * 1000) / 1000;
  return s;
}

EngineDefaults engine_defaults(Engine e, double gpu_gib, std::string_view gpu_name) {
  switch (e) {
    case Engine::vllm: return vllm(gpu_gib, gpu_name);
    case Engine::sglang: return sglang(gpu_gib);
    case Engine::trtllm: return trtllm(gpu_gib);
  }
  return vllm(gpu_gib, gpu_name);
}

}  // namespace roofline::serve
