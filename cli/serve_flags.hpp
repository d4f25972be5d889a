#pragma once
// The flags of a serving simulation as typed, parsed into the simulator's terms: length
// distributions (512, lognormal:MEAN:SIGMA, uniform:A:B), arrival processes (poisson, gamma:CV,
// a trace file) and the replica's server settings. Every error names its flag.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/workload_options.hpp"
#include "planner/replica.hpp"
#include "serve/draft.hpp"
#include "serve/engine_defaults.hpp"
#include "serve/kv_capacity.hpp"
#include "serve/simulator.hpp"
#include "serve/summary.hpp"
#include "serve/traffic.hpp"

namespace roofline::cli {

struct ServeFlags {
  WorkloadFlags workload;  // model, GPU, tp, formats; the lengths are --prompt/--gen below
  std::optional<double> rate;  // --rate; none given: required without a trace, refused with one
  std::string arrivals = "poisson";
  std::optional<double> trace_rate;  // --trace-rate: a trace's arrivals rescaled to this mean rate
  std::string prompt, gen;
  // --max-tokens: the client's cap on a request's output (its max_tokens). An output drawn (or a
  // trace's) past it is cut at it, as the engine stops there; a reserving admission reserves
  // prompt + this for each request (ServerConfig::max_tokens). Unset: no cap, and a reserving
  // admission reserves each request's own output (reserve_warning says so where they vary).
  std::optional<long> max_tokens;
  std::string duration = "3600s";
  long max_batch = 256, max_batched_tokens = 8192, block_tokens = 16;
  bool chunked_prefill = false;  // --chunked-prefill, or false by --no-chunked-prefill
  std::string admission = "grow";  // grow (vLLM, SGLang) or reserve (TensorRT-LLM's GUARANTEED_NO_EVICT)
  // --engine vllm|sglang|trtllm: the server settings above start from that engine's defaults
  // (serve/engine_defaults.hpp), and only the ones given on the command line override them.
  std::string engine;
  struct Given {
    bool max_batch = false, max_batched_tokens = false, block_tokens = false, chunked_prefill = false,
         admission = false;
  } given;
  double prefix_hit = 0;
  long prefix_groups = 0;  // --prefix-groups: requests dealt to this many groups sharing a prefix; 0 none
  long seed = 1;
  std::string ttft, tpot;
  std::string speculative;  // K:ACCEPT[:draft-model|mtp]
};

// Declares them; `plan` leaves out the ones it decides (the rate is per replica there).
void add_serve_options(Options& o, ServeFlags& f);

// Throws InputError naming the flag.
[[nodiscard]] serve::LengthDistribution length_flag(const std::string& value, std::string_view flag);
[[nodiscard]] std::string describe(const serve::LengthDistribution& d);

// --engine's preset, and the flags given that override it ("--max-batch 64"), in flag order.
using planner::EnginePreset;

// A replica ready to simulate: the specs, the server and its cache (assembled by
// planner::assemble_replica, the one place a ServerConfig is built), and the engine's warnings.
struct Replica {
  OnePoint point;
  serve::ServerConfig config;
  serve::CacheBlocks cache;
  std::vector<std::string> warnings;
  std::optional<serve::Draft> draft;  // --speculative's draft, run in the target's formats
  std::optional<EnginePreset> engine;  // with --engine
};
// `longest_prompt`: without chunked prefill, the longest prompt the replica serves; one past the
// token budget runs whole in a step of its own, and the cache is sized beside it (serve::largest_step,
// sized_beside_longest).
[[nodiscard]] Replica replica(const ServeFlags& f, std::string_view command, long longest_prompt = 0);

// What a request dropped as too large did not fit, and what to change (planner/replica.hpp).
using planner::cache_dropped_from;

// The requests, generated at `rate` (per replica) or read from the trace --arrivals names.
struct Traffic {
  std::vector<serve::Request> requests;  // each arrival counted from the run's start
  std::string description;  // "Poisson at 50 req/s for 3600 s, prompt ..., output ..."
  double duration = 0;
  bool trace = false;
  // Where the run's start lies on the clock its requests came from: a trace's first arrival as
  // it stands (0 for generated traffic, or a trace rescaled by --trace-rate, which starts at 0).
  // The simulator never sees it: a double's spacing at 10^15 s is 0.125 s, past a 10 ms step, so
  // a trace run on its own clock there timed every step as 0. --requests-out adds it back, so that
  // a request's row carries the arrival its trace gave it (cli/requests_out.hpp).
  double origin = 0;
};
[[nodiscard]] Traffic traffic(const ServeFlags& f, std::optional<double> rate, long block_tokens);
// Without chunked prefill, `r` (assembled beside a step of its token budget) sized beside the step
// of the longest prompt past the budget that it serves: a prompt runs whole in a step of its own,
// and the cache is what the memory leaves beside that step's activations. A request its server
// drops on arrival (longer than the model's context, or larger than the cache: serve::replica_holds)
// sizes nothing: the cache is the one beside the shortest such step at which no longer prompt is
// admitted. `at(longest)`: the replica assembled beside that prompt's step (refusing where that
// leaves no room for a cache). Chunked, or with no prompt past the budget served, `r` itself.
[[nodiscard]] Replica sized_beside_longest(Replica r, const Traffic& t, const std::function<Replica(long)>& at);

// --speculative K:ACCEPT[:draft-model|mtp] for `target`; InputError naming the flag.
struct SpeculativeFlag {
  serve::Speculation speculation;
  std::optional<serve::Draft> draft;
};
[[nodiscard]] SpeculativeFlag speculative_flag(const std::string& value, const ModelSpec& target);

// A run's work, counted before it starts: a sequence in a step (one output token, or one prefill
// chunk under the token budget) costs 20 ns of the simulator's time in a large batch, 50 ns
// alone (measured: 3.5 × 10^8 steps at --max-batch 1 took 34 s for the two runs), so 2 × 10^8
// of them take 4 to 10 s a run, and a run may take at most that many. A cache that thrashes
// recomputes beyond the estimate: the simulator itself stops at twice the limit.
inline constexpr double kMaxSequenceSteps = 2e8;
// The run's sequence-steps, estimated (every output token and prefill chunk); throws InputError
// naming --gen, --rate and --duration past the limit.
double require_bounded_work(const Traffic& t, const serve::ServerConfig& c);

// What --engine's engine refuses of this replica and traffic, as InputError naming the flag: vLLM
// a token budget below its longest sequence without chunked prefill, TensorRT-LLM a prompt longer
// than the budget without it. Nothing without --engine.
void check_engine(const Replica& r, const Traffic& t);

// A reserving admission's output lengths (ServerConfig::max_tokens), for `r` and `t`: with --max-tokens,
// InputError naming it where a request's reservation would outgrow a rank's whole cache (it would wait
// for ever) or the run is disaggregated (the prefill pool would reserve the cap too); without it, where
// the traffic's outputs vary, the warning that each request reserved its own output, as though the
// client had known it. Nothing for an admission that grows.
[[nodiscard]] std::optional<std::string> reserve_warning(const Replica& r, const Traffic& t, const ServeFlags& f,
                                                         bool disaggregated);

// What a simulation of a model whose layers keep only a window (or a chunk) says of its cache
// blocks, simulate's and plan --percentile's checks alike.
inline constexpr std::string_view kWindowBlocks =
    "some layers keep only a window (or a chunk) of each sequence: a sequence holds their blocks for its last tokens "
    "only, as the engines free the rest as the window slides, counted as those layers' share of each block";
// Whether the model has such layers (sliding or chunked).
[[nodiscard]] bool keeps_windows(const ModelSpec& m);

// --ttft and --tpot, when given.
[[nodiscard]] serve::Targets targets(const ServeFlags& f);

}  // namespace roofline::cli
