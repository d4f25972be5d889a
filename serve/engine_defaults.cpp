// The engines' scheduler defaults, one row an engine at the versions launch/ writes scripts for.
// Where a value comes from a source file rather than a documentation page, or could not be
// checked against either, the comment beside it says so (docs/engines.md repeats the table).
#include "serve/engine_defaults.hpp"

#include <algorithm>

namespace roofline::serve {

std::string_view engine_name(Engine e) { return kEngineNames[static_cast<std::size_t>(e)]; }

std::optional<Engine> engine_named(std::string_view name) {
  const auto* it = std::find(kEngineNames.begin(), kEngineNames.end(), name);
  if (it == kEngineNames.end()) return std::nullopt;
  return static_cast<Engine>(it - kEngineNames.begin());
}

namespace {

// vLLM 0.11, `vllm serve` (the V1 engine).
EngineDefaults vllm(double gpu_gib) {
  EngineDefaults d;
  d.engine = Engine::vllm;
  d.label = "vLLM 0.11";
  d.source = "https://docs.vllm.ai/en/v0.11.2/configuration/engine_args.html";
  // V1 always schedules chunked prefill unless --no-enable-chunked-prefill (engine args page).
  d.chunked_prefill = true;
  // SchedulerConfig has "no static default" for these: EngineArgs sets them by usage context
  // (docs.vllm.ai/en/v0.10.2/api/vllm/config/scheduler.html). For the OpenAI server on a GPU of
  // 70 GiB or more, 8192 tokens and 1024 sequences; below, 2048 and 256 (vllm/engine/arg_utils.py
  // of the 0.11 line, get_batch_defaults). The numbers are read from the source, not confirmed on
  // a documentation page.
  const bool large = gpu_gib >= 70;
  d.max_batched_tokens = large ? 8192 : 2048;
  d.max_batch = large ? 1024 : 256;
  d.block_tokens = 16;  // --block-size: 16 on CUDA (cache.py)
  // V1 preempts by recompute only, popping the running list's last, the latest admitted
  // (vllm/v1/core/sched/scheduler.py); SchedulerPolicy "fcfs" is the default (the 0.11.2
  // scheduler config page lists fcfs and priority).
  d.preemption = Preemption::recompute;
  d.queue_order = "fcfs";
  d.prefix_cache = true;  // --enable-prefix-caching: on by default in V1
  // SchedulerConfig refuses max_num_batched_tokens < max_model_len without chunked prefill
  // ("makes vLLM reject longer sequences"); from scheduler.py, not a documentation page.
  d.unchunked = UnchunkedLimit::model_length;
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
  // _handle_gpu_memory_settings): 2048 below 35 GB, 4096 below 60 GB, 8192 below 160 GB (H100,
  // H200), 16384 above. From the source of the 0.5 line as remembered; not confirmed on the page.
  d.max_batched_tokens = gpu_gib < 35 ? 2048 : gpu_gib < 60 ? 4096 : gpu_gib < 160 ? 8192 : 16384;
  // --max-running-requests defaults to None: the request pool model_runner.py sizes between 2048
  // and 4096 from the cache over the context length, 2048 for the long-context models served
  // today. Not confirmed on the page; the KV cache binds the batch first at these sizes.
  d.max_batch = 2048;
  d.block_tokens = 1;  // --page-size: 1 token a page
  // Out of memory, SGLang retracts running decodes and recomputes them (schedule_batch.py,
  // retract_decode: the fewest output tokens first, which is mostly the latest admitted);
  // modelled as the latest admitted. Its admission also holds back an estimate of the running
  // requests' future tokens (new_token_ratio), not modelled.
  d.preemption = Preemption::recompute;
  // --schedule-policy: "fcfs" in 0.5 (historically "lpm", longest prefix match, which SGLang
  // itself drops to fcfs past 128 waiting requests).
  d.queue_order = "fcfs";
  d.prefix_cache = true;  // the radix cache, unless --disable-radix-cache
  d.unchunked = UnchunkedLimit::none;  // no refusal found for an unchunked long prompt
  return d;
}

// TensorRT-LLM 1.0, `trtllm-serve` on its PyTorch back end.
EngineDefaults trtllm(double) {
  EngineDefaults d;
  d.engine = Engine::trtllm;
  d.label = "TensorRT-LLM 1.0";
  d.source = "https://nvidia.github.io/TensorRT-LLM/1.0.0/commands/trtllm-serve/trtllm-serve.html";
  d.chunked_prefill = false;  // TorchLlmArgs.enable_chunked_prefill: False
  // trtllm-serve's --max_num_tokens and --max_batch_size default to BuildConfig's 8192 and 2048
  // in 1.0 (tensorrt_llm/commands/serve.py); the page lists the flags without their defaults,
  // and other versions' pages differ (256, 8): not confirmed on the 1.0 page.
  d.max_batched_tokens = 8192;
  d.max_batch = 2048;
  d.block_tokens = 32;  // KvCacheConfig.tokens_per_block: 32 (the LLM API reference)
  // SchedulerConfig.capacity_scheduler_policy: GUARANTEED_NO_EVICT, waiting_queue_policy: FCFS
  // (the LLM API reference's SchedulerConfig page).
  d.preemption = Preemption::none;
  d.queue_order = "fcfs";
  d.prefix_cache = true;  // KvCacheConfig.enable_block_reuse: True
  // Without chunked prefill the LLM API rejects a prompt longer than max_num_tokens
  // (LLM._check_arguments); from the source, not a documentation page.
  d.unchunked = UnchunkedLimit::prompt;
  return d;
}

}  // namespace

EngineDefaults engine_defaults(Engine e, double gpu_gib) {
  switch (e) {
    case Engine::vllm: return vllm(gpu_gib);
    case Engine::sglang: return sglang(gpu_gib);
    case Engine::trtllm: return trtllm(gpu_gib);
  }
  return vllm(gpu_gib);
}

}  // namespace roofline::serve
