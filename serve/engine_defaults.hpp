#pragma once
// Each serving engine's scheduler as it runs when no flag changes it: the one table of them
// (serve/engine_defaults.cpp), every value beside the engine version and the page or source file
// it comes from, and what was not confirmed said there. `simulate --engine` starts from a row of
// it; launch/ (the scripts a plan writes) names the same versions.
#include <array>
#include <optional>
#include <string_view>

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
  UnchunkedLimit unchunked = UnchunkedLimit::none;
  // Disaggregated: the decode server reserves a request's blocks when it arrives, before its
  // prefill runs (SGLang), not once the prefill has ended (vLLM, TensorRT-LLM); serve/disaggregated.hpp.
  bool decode_reserves_at_arrival = false;
};

// `gpu_gib`: one GPU's memory as the device reports it, in GiB; vLLM and SGLang size their token
// budgets (vLLM its sequences too) by it, and vLLM keeps an A100's small (`gpu_name`, any case).
[[nodiscard]] EngineDefaults engine_defaults(Engine e, double gpu_gib, std::string_view gpu_name = "");

}  // namespace roofline::serve
