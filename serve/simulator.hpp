#pragma once
// One replica serving with continuous batching, as vLLM and SGLang schedule it: a waiting queue
// served first come first served, a running batch limited by max_batch and by the KV cache's
// blocks (allocated block by block as tokens are computed; when a running sequence needs a block
// and none is free, the latest admitted sequence is preempted, its blocks freed, and it is
// recomputed later from its prompt and the tokens it had produced, past what an engine's prefix
// cache still holds of it: ServerConfig::retention), and a token budget per step
// that a prefill fills whole or, chunked, in pieces. Each step is timed by StepCost for what it
// holds: its prefill tokens and each decode sequence at its own context. Under data-parallel
// attention (StepCost::ranks() > 1) each rank is such a server over its share of the blocks, the
// requests dealt to the ranks round robin, and the ranks step together.
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "serve/gap_histogram.hpp"
#include "serve/step_cost.hpp"
#include "serve/traffic.hpp"

namespace roofline::serve {

// Speculative decoding: K draft tokens a step, each accepted with probability `accept`.
struct Speculation {
  int k = 0;
  double accept = 0;
};

// What a step does with a whole (unchunked) prompt longer than the token budget the running decodes
// leave it, as each engine's scheduler does (serve/server.cpp's schedule; docs/engines.md).
enum class UnchunkedFit {
  // It runs alone in a step of its own, the decodes waiting that step: the simulator's own rule,
  // without --engine.
  alone,
  // It waits, and later prompts that fit beside the decodes are admitted past it: vLLM 0.11's V1
  // scheduler (a prompt over the budget is skipped; vLLM 0.12 stops at it instead).
  skip,
  // It waits, and every prompt behind it: TensorRT-LLM's micro-batch scheduler walks the running
  // generations and then the new prompts and breaks at the first that does not fit max_num_tokens.
  stop,
};

// What a prefix cache keeps of a preempted sequence (serve/server.cpp's preempt, serve/block_pool.hpp):
// its full blocks are freed but remembered, evicted least recently freed first, and on its return
// the sequence recomputes only what was evicted.
enum class Retention {
  none,      // nothing but Request::cached (cached_survives_preemption): no --engine, TensorRT-LLM
  computed,  // every full block it had computed, prompt and output: vLLM V1's prefix caching
  prompt,    // its prompt's full blocks, its output tokens freed: SGLang's radix cache (retract_decode)
};

struct ServerConfig {
  long max_batch = 256;            // sequences running at once (a rank's, under data-parallel attention)
  long max_batched_tokens = 8192;  // tokens a step computes (decodes count one each; a rank's)
  bool chunked_prefill = false;    // a prompt may be split over steps; else it goes whole
  UnchunkedFit unchunked_fit = UnchunkedFit::alone;  // a whole prompt past what the decodes leave
  // A step holds prompt tokens beside the running decodes. False: SGLang without
  // --enable-mixed-chunk (its default), whose scheduler runs a step of prompts (or a chunk) alone
  // whenever it can admit one, the decodes waiting it, and a decode step only when it cannot. A
  // disaggregated decode replica mixes either way (its prompts have come over the link).
  bool mixed_steps = true;
  // Admission as TensorRT-LLM's GUARANTEED_NO_EVICT: a request is admitted only when the blocks of
  // its whole length (prompt and output) are free, and takes them all then, so no running sequence
  // ever needs another and none is preempted. Else (vLLM, SGLang) blocks are taken as tokens are
  // computed, and a shortage preempts the latest admitted sequence, recomputed later.
  bool reserve_whole = false;
  // The client's cap on a request's output (its max_tokens), 0: none given. A reserving admission
  // reserves prompt + this (at most the model's context less a verify's drafts, as TensorRT-LLM
  // clamps max_new_tokens), not the output the request will make, which the engine cannot know.
  long max_tokens = 0;
  // A preempted sequence's cached prompt tokens (Request::cached) stay cached, so its recompute
  // starts past them: a prefix cache's blocks outlive the sequence (vLLM, SGLang). False: its
  // whole prompt is recomputed, as a disaggregated decode replica's request is (its cache came over
  // the link; vLLM's decode worker recomputes the prompt locally once its blocks are freed). The
  // cached tokens are still counted as arrived cached, so the recomputed ones are counted.
  bool cached_survives_preemption = true;
  // What the engine's prefix cache keeps of a preempted sequence beyond that (Retention), where
  // cached_survives_preemption holds and no layer keeps a window (vLLM turns prefix caching off
  // for hybrid models): a disaggregated decode replica keeps none, its request recomputed whole as
  // that flag says (vLLM's decode worker does cache the received blocks, `cache_blocks` in
  // Scheduler._update_waiting_for_remote_kv, so there its recompute is overstated: not modelled).
  Retention retention = Retention::none;
  long block_tokens = 16;          // tokens a KV block holds
  // Layers that keep at most a window's (or a chunk's) tokens of a sequence, each as {those tokens,
  // their share of a block's bytes} (serve/kv_capacity.cpp): a sequence holds their blocks for its
  // last tokens only, as vLLM's hybrid allocator frees the rest as the window slides. Empty: every
  // layer keeps every token, and a sequence of t tokens holds ⌈t / block_tokens⌉ blocks.
  std::vector<std::pair<long, double>> limited_layers{};
  long kv_blocks = 0;              // blocks the cache holds (the replica's: each rank holds its share)
  long max_context = 0;            // longest prompt + output served; 0: no limit but the cache
  double sample_every = 1;         // seconds between samples of the batch and the cache
  // Decode as speculation: each decoding sequence verifies K + 1 tokens a step and keeps the
  // accepted draft tokens and one more (drawn with `seed`); the draft's K steps are timed first.
  std::optional<Speculation> speculation;
  // The draft reads the target's hidden states (MTP, EAGLE): after a verify it runs again over
  // the draft tokens accepted, to draft from them, in its first step; a separate draft model
  // cached its own drafts and runs on the target's one token only.
  bool draft_reads_target = false;
  std::uint64_t seed = 1;
  // The most sequence-steps (a running sequence in a step: one token's work, or a chunk's) a run
  // may take before it stops with WorkLimit; 0: no limit. A cache that thrashes recomputes
  // without end in sight, and a long output at batch 1 takes a step a token.
  double max_rows = 0;
  // Called now and then with the share of the requests that have arrived (0 to 1).
  std::function<void(double)> progress;
  // Where set, the run stops with CapReached once its percentile is sure to pass the cap's limits
  // (LatencyCap); a fleet's replicas share it through their copies of this config.
  struct LatencyCap* cap = nullptr;
};

// The blocks a sequence of `tokens` tokens holds under `c`: ⌈tokens / block_tokens⌉ at every
// layer, less, for the layers that keep a window (limited_layers), their share of each block past
// the window's ⌈L / block_tokens⌉ + 1 (a window straddles a block boundary); rounded up.
[[nodiscard]] long blocks_for(const ServerConfig& c, long tokens);

// Limits on a run's TTFT and TPOT percentiles that stop it as soon as they are sure to be passed:
// when more requests than `*_allowed` are over a limit, the percentile is (a plan's check that
// fails need not run to its end). The counts are the run's, kept here.
struct LatencyCap {
  double ttft = std::numeric_limits<double>::infinity(), tpot = std::numeric_limits<double>::infinity();
  long ttft_allowed = std::numeric_limits<long>::max(), tpot_allowed = std::numeric_limits<long>::max();
  long ttft_over = 0, tpot_over = 0;
};

// A run stopped at its ServerConfig::cap.
class CapReached : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A run stopped at ServerConfig::max_rows.
class WorkLimit : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which time a step takes in the simulation: the expected one, or the roofline bound.
enum class Timing { expected, bound };

// A served request's times, in seconds.
struct Outcome {
  double ttft = 0;        // arrival to its first token
  double tpot = 0;        // between its later tokens, on average (0 with one output token: none to time)
  double e2e = 0;         // arrival to its last token
  double queue_wait = 0;  // arrival to its first step
  long gen = 0;
  std::size_t request = 0;  // its index in the requests simulated
  long preemptions = 0;     // times it was preempted and recomputed
  // Prompt tokens its replica's prefix cache held: the request's own (Request::cached), or none
  // where it came first of its group to that replica.
  long cached = 0;
};

// A request the server could not take, and why.
struct Dropped {
  std::size_t request = 0;
  bool too_long = false;  // longer than max_context; else more blocks than the whole cache
  long gen = 0;           // its output tokens: one has no TPOT to miss (summarize)
};

struct Sample {
  double time = 0;
  long running = 0;
  long waiting = 0;
  double kv_share = 0;  // blocks held / blocks in the cache
};

struct SimResult {
  std::vector<Outcome> served;  // in the order they finished
  GapHistogram itl;             // every gap between a served or running stream's emissions
  long dropped_too_long = 0;    // longer than max_context
  long dropped_no_room = 0;     // more blocks than the whole cache holds
  std::vector<Dropped> dropped;  // each of them, in the order they arrived
  long preemptions = 0;
  long steps = 0;
  double end = 0;               // when the last request finished
  // When the first request arrived: a replayed trace's window need not open at 0 (the Azure hour's
  // second half, replayed, reported half its rate served). Rates are over [start, end].
  double start = 0;
  double prompt_tokens = 0, output_tokens = 0;  // of the served requests
  double cached_tokens = 0;      // prompt tokens the prefix cache skipped
  double recomputed_tokens = 0;  // computed again after a preemption
  std::vector<Sample> samples;   // for the plot, every sample_every seconds
  // Over every step, not the samples: the sequences running integrated over time (divide by
  // `end` for the mean), and the most sequences and the largest share of the cache any step held.
  double running_seconds = 0;
  // The time the replica spent in steps (a fleet's: its replicas' summed): over `end`, how busy.
  double busy_seconds = 0;
  long peak_running = 0;
  double peak_kv_share = 0;
};

// std::invalid_argument when the server has no cache, batch or token budget.
void check_server(const ServerConfig& config);
// draft: the draft model's steps under speculation (null: drafts cost nothing).
[[nodiscard]] SimResult simulate(const std::vector<Request>& requests, StepCost& cost, const ServerConfig& config,
                                 Timing timing, StepCost* draft = nullptr);

}  // namespace roofline::serve
