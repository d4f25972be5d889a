#pragma once
// Each serving engine's scheduler as it runs when no flag changes it: the one table of them
// (serve/engine_defaults.cpp), every value beside the engine version and the page or source file
// it comes from, and what was not confirmed said there. `simulate --engine` starts from a row of
// it; launch/ (the scripts a plan writes) names the same versions.
#include <array>
#include <optional>
#include <string_view>

#include "serve/simulator.hpp"

namespace roofline::serve {

enum class Engine { vllm, sglang, trtllm };
inline constexpr std::array<std::string_view, 3> kEngineNames{"vllm", "sglang", "trtllm"};
[[nodiscard]] std::string_view engine_name(Engine e);
[[nodiscard]] std::optional<Engine> engine_named(std::string_view name);

// What a running request loses when the cache runs out.
enum class Preemption {
  recompute,  // its blocks freed, the latest admitted first; recomputed from prompt and output later
  none,       // whole lengths reserved at admission: never preempted
};

// How the engine gives its KV cache memory when no flag says (docs/engines.md, "Memory"): the rule
// `simulate --engine` applies where --reserve is not given (planner::engine_memory).
enum class MemoryRule {
  of_total,      // vLLM: gpu_memory_utilization of the GPU's memory for weights, activations and cache
  of_free,       // TensorRT-LLM: kv_cache_free_gpu_memory_fraction of what weights and activations leave
  static_share,  // SGLang: mem_fraction_static of the GPU for weights and cache (sglang_static_share)
};

// Which configurations or requests the engine itself refuses without chunked prefill.
enum class UnchunkedLimit {
  none,
  model_length,  // the token budget below the longest sequence served (vLLM: max_num_batched_tokens < max_model_len)
  prompt,        // a prompt longer than the token budget (TensorRT-LLM: max_num_tokens)
};

struct EngineDefaults {
  Engine engine = Engine::vllm;
  std::string_view label;   // "vLLM 0.11": the version launch/ writes scripts for
  std::string_view source;  // the page the values are read from
  bool chunked_prefill = false;
  long max_batched_tokens = 0;  // vLLM max_num_batched_tokens, SGLang chunked_prefill_size, TensorRT-LLM max_num_tokens
  long max_batch = 0;           // vLLM max_num_seqs, SGLang max_running_requests, TensorRT-LLM max_batch_size
  // SGLang's: sized from the cache, min(max(cache tokens / context · 512, max_batch), 4096) and at
  // most half the tokens (planner/replica.cpp); max_batch is then its floor.
  bool batch_from_cache = false;
  long block_tokens = 0;        // vLLM block_size, SGLang page_size, TensorRT-LLM tokens_per_block
  Preemption preemption = Preemption::recompute;
  std::string_view queue_order;  // the waiting queue's order: "fcfs" for all three
  bool prefix_cache = false;     // on by default: vLLM's prefix caching, SGLang's radix cache, TensorRT-LLM's block reuse
  // What that cache keeps of a preempted request (ServerConfig::retention): vLLM every full block
  // it computed, SGLang its prompt; TensorRT-LLM none modelled (GUARANTEED_NO_EVICT never preempts).
  Retention retention = Retention::none;
  UnchunkedLimit unchunked = UnchunkedLimit::none;
  // What its scheduler does with an unchunked prompt longer than the budget the running decodes
  // leave it: passes over it to later prompts (vLLM 0.11), or stops there (TensorRT-LLM).
  UnchunkedFit unchunked_fit = UnchunkedFit::stop;
  // A step holds prompts beside the running decodes; false: a prefill step runs alone, the decodes
  // waiting it (SGLang's enable_mixed_chunk is False unless --enable-mixed-chunk).
  bool mixed_steps = true;
  // Disaggregated: the decode server reserves a request's blocks when it arrives, before its
  // prefill runs (SGLang), not once the prefill has ended (vLLM, TensorRT-LLM); serve/disaggregated.hpp.
  bool decode_reserves_at_arrival = false;
  MemoryRule memory = MemoryRule::of_total;
  // vLLM's gpu_memory_utilization, TensorRT-LLM's kv_cache_free_gpu_memory_fraction; SGLang's
  // share is worked out from the GPU and the server (sglang_static_share), 0 here.
  double memory_fraction = 0.9;
};

// `gpu_gib`: one GPU's memory as the device reports it, in GiB; vLLM and SGLang size their token
// budgets (vLLM its sequences too) by it, and vLLM keeps an A100's small (`gpu_name`, any case).
[[nodiscard]] EngineDefaults engine_defaults(Engine e, double gpu_gib, std::string_view gpu_name = "");

// SGLang 0.5's --cuda-graph-max-bs left to its default: by the GPU's memory in MiB as the device
// reports it (nvidia-smi's 81559 for an H100) and the tensor-parallel size (server_args.py,
// _handle_gpu_memory_settings): 8 below 20 GiB; 24 below 35 GiB (80 at tp 4 or more); 32 below
// 60 GiB (160); 256 below 160 GiB (512); 512 above. Batches past it decode without a CUDA graph.
[[nodiscard]] long sglang_cuda_graph_max_bs(double gpu_mib, int tp);

// What SGLang's speculative decoding holds back besides (server_args.py): a draft model of its own
// (STANDALONE) 6 GiB, EAGLE and MTP drafts 2 GiB, n-gram lookup nothing.
enum class SglangDraft { none, ngram, eagle, standalone };

// SGLang 0.5's --mem-fraction-static left to its default (server_args.py,
// _handle_gpu_memory_settings, in MiB): reserved = 512 + 1.5 × max(chunk, 2048) (max(16384, 2048)
// unchunked, --max-prefill-tokens' default) + 2 × cuda-graph-max-bs + tp × pp / 8 × 1024, under
// --enable-dp-attention + 3 × bs × dp (and 1.5 × bs × dp more past bs 300); at least 10 GiB on a GPU
// above 60 GiB; then the draft's. The share is round((gpu − reserved) / gpu, 3). `chunk`: the
// server's --chunked-prefill-size (every rank's together), 0 or less without chunked prefill.
struct SglangStatic {
  double reserved_mib = 0;
  long cuda_graph_max_bs = 0;
  double fraction = 0;
};
[[nodiscard]] SglangStatic sglang_static_share(double gpu_mib, long chunk, int tp, int pp, bool dp_attention,
                                               SglangDraft draft);

}  // namespace roofline::serve
