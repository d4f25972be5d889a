#pragma once
// A replica as the simulator runs it, assembled in one place from a scenario's server settings:
// the server (batch, token budget, prefill chunking, admission, KV block size, speculation), its
// cache in blocks, and the engine's preset applied where a setting was not given. `simulate` (cli/serve_flags) and `plan --percentile` (planner/fleet_check) both build
// their serve::ServerConfig here, by the same rules.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "model/workload.hpp"
#include "serve/draft.hpp"
#include "serve/engine_defaults.hpp"
#include "serve/kv_capacity.hpp"
#include "serve/simulator.hpp"

namespace roofline::planner {

// The server a scenario asks for: its own values, or with `engine` that engine's defaults where
// a value was not `given`.
struct ServerSettings {
  long max_batch = 256, max_batched_tokens = 8192, block_tokens = 16;
  bool chunked_prefill = false;
  bool reserve_whole = false;  // admission: reserve (TensorRT-LLM's GUARANTEED_NO_EVICT), else grow
  std::optional<serve::Engine> engine;
  // A step holds prompts beside decodes; unset: the engine's default (SGLang's: unmixed), else yes.
  // plan --percentile's checks set what its launch script writes (--enable-mixed-chunk).
  std::optional<bool> mixed_steps;
  // Without chunked prefill, the longest prompt the replica is to admit: one past the token budget
  // runs whole in a step of its own, and the cache is sized beside that step (0: none past it).
  long longest_prompt = 0;
  struct Given {
    bool max_batch = false, max_batched_tokens = false, block_tokens = false, chunked_prefill = false,
         admission = false;
  } given;
  std::optional<serve::Speculation> speculation;
  std::optional<serve::Draft> draft;  // the speculation's draft (none: drafts cost nothing)
  std::uint64_t seed = 1;
};

// The memory the engine's KV cache was given, as the run took it: the engine's own rule where
// --reserve was not given (engine_memory), else the --reserve given in its place.
struct EngineMemoryTaken {
  std::string rule;              // in words, with its figures
  double reserve_fraction = 0;   // the --reserve the simulator ran at
  bool reserve_given = false;
};

// The engine's preset, and the settings given that override it ("--max-batch 64"), in order.
struct EnginePreset {
  serve::EngineDefaults defaults;
  std::vector<std::string> overrides;
  std::optional<EngineMemoryTaken> memory;  // set by the command that applied it (simulate)
};

// A replica ready to simulate: the server and its cache, the draft, the preset. (Its warnings are
// words: the report layer's, from the engine's typed ones.)
struct AssembledReplica {
  serve::ServerConfig config;
  serve::CacheBlocks cache;
  std::optional<serve::Draft> draft;
  std::optional<EnginePreset> engine;
};

// Refusal naming the flag: a model or layout the simulator cannot run, no room for a cache (or
// fewer blocks than data-parallel ranks), a token budget below one verify step.
[[nodiscard]] AssembledReplica assemble_replica(const ModelSpec& m, const GpuSpec& g, const Workload& w,
                                                ServerSettings settings);

// The engine's own rule for its KV cache's memory (serve::MemoryRule) at this layout and server,
// as the --reserve that leaves the simulator the same cache (its free memory is the capacity
// less the reserve, the weights as stored, a draft's and one step's activations:
// serve/kv_capacity.hpp). With C the replica's memory, A one step's activations (every attention
// rank's) and F what the weights, a draft and A leave of C:
//   vLLM, gpu_memory_utilization u: cache u·C − (C − F), reserve 1 − u;
//   TensorRT-LLM, free fraction f: cache f·F, reserve (1 − f)·F / C (the memory outside torch,
//     which its profile also counts, is not priced: its cache is that much smaller);
//   SGLang, static share s: cache s·C − weights = F + A − (1 − s)·C, reserve 1 − s − A / C (at
//     least 0: where SGLang holds back less than A, the cache is F).
// Refusal naming --engine where the engine's cache would hold no block: it would not start
// (SGLang: "Not enough memory. Please try to increase --mem-fraction-static").
struct EngineMemory {
  double reserve_fraction = 0;
  std::string rule;
};
[[nodiscard]] EngineMemory engine_memory(const serve::EngineDefaults& d, const ModelSpec& m, const GpuSpec& g,
                                         const Workload& w, const serve::ServerConfig& c,
                                         const std::optional<serve::Draft>& draft, long step_tokens = 0);

// What a request dropped as too large did not fit, and what to change: the whole cache, or under
// data-parallel attention one rank's share of it.
[[nodiscard]] std::string_view cache_dropped_from(const Workload& w);

}  // namespace roofline::planner
