#pragma once
// Capacity planning: how many GPUs a load needs under latency targets, from the engine's
// prefill and decode times: the expected ones by default, or a quantile of them, or the bound.
//
// Assumptions (steady state, continuous batching as in vLLM/TGI): a replica (one GPU, or one
// tensor-parallel group) keeps B sequences decoding; each lives `gen` steps, so B/gen requests
// finish and B/gen new prefills are interleaved per decode step. A sequence therefore waits
// T_decode(B) + (B/gen)·T_prefill per output token, and a replica serves
// B / (gen·T_decode(B) + B·T_prefill) requests/s. TTFT ≈ T_prefill + T_decode(B): a new request
// waits for the step in flight. Queueing delay beyond that is not modelled. A replica is one
// layout (Workload::tp, pp, ep, dp_attention): gpus(w) GPUs. Under data-parallel attention a
// colocated request's prefill is a step of its rank that every rank waits on: T_prefill(1) of the
// replica's time, as the serving simulation finds (prefills of several ranks that meet in a step
// share it, which this leaves out: DeepSeek-V3 on 8 H200s at 2048 + 512 tokens reaches TPOT 50 ms
// in the simulation at 3 to 3.3 req/s a replica, 1.3 to 1.5 times the 2.24 planned). A
// disaggregated prefill pool keeps its ranks on a prompt each: T_prefill(tp)/tp, and a request's
// TTFT is such a pass, T_prefill(tp), every rank busy at the load the pool is sized for.
//
// Disaggregated serving sizes two pools: prefill replicas run prefills back to back (compute-
// bound, one request at a time), decode replicas run batches with no prefill interleaved. The
// prefill replica returns the first token; each request's prompt cache then crosses the link to
// the decode pool (model/kv_transfer.hpp), which its second token waits for: TPOT, the mean gap,
// carries transfer/(gen − 1). The prefill replica moves on to the next prompt meanwhile.
#include <optional>
#include <variant>

#include "model/engine.hpp"

namespace roofline {

// The times a plan is sized on. Real systems reach 0.12-0.85 of the roofline bound, so a fleet
// sized on the bound is short; the expected time's `confidence` quantile is what a run beats with
// that probability (0.5: the central estimate; 0.9: the interval's pessimistic end).
struct Sizing {
  bool bound = false;  // the roofline bound itself: optimistic, no system reaches it
  double confidence = 0.5;
  [[nodiscard]] Seconds time(const PhaseResult& p) const { return bound ? p.time : p.expected.quantile(confidence); }
};

struct LoadTarget {
  double requests_per_s = 1;
  Seconds ttft{1.0};
  Seconds tpot{0.05};
  std::optional<double> price_per_gpu_hour{};
  bool disaggregate = false;
  Sizing sizing{};
};

// Why a plan is not feasible, with the numbers; worded by the output layer.
struct WeightsDoNotFit {
  Bytes needed;  // the weights and one sequence (its cache and activations), the reserve apart
  Bytes capacity;
  Bytes reserve;  // what --reserve holds back of `capacity`
};
struct TpotUnreachable {
  Seconds target;
  Seconds at_batch_1;
};
struct TtftUnreachable {
  Seconds target;
  Seconds at_batch_1;
};
struct TooManyReplicas {
  double most = 0;  // replicas a plan may have
};
// A request (its prompt and what it generates) is longer than the model's context: engines refuse
// it (vLLM's max_model_len), as the serving simulation drops it, so no replica serves the load.
struct BeyondContext {
  long tokens = 0;
  long max_context = 0;
};
using Infeasible = std::variant<WeightsDoNotFit, TpotUnreachable, TtftUnreachable, TooManyReplicas, BeyondContext>;

// The tokens one step of continuous batching carries on an attention rank: a whole prompt beside a
// token for each of the rank's running sequences. What plan --emit sets as the engines' token
// budget (launch/launch_spec.hpp) and what a plan holds one step's activations for.
[[nodiscard]] inline long step_token_budget(long prompt_tokens, long rank_batch) { return prompt_tokens + rank_batch; }

// The ledger of one step of `tokens` tokens on `base`'s layout: its activations are one sequence of
// that length's prefill, as engines profile a step of their token budget (vLLM's profile run); a
// plan holds them beside its caches, and the serving simulation sizes its cache with them
// (serve/kv_capacity.cpp).
[[nodiscard]] MemoryLedger step_ledger(const ModelSpec& m, const GpuSpec& g, const Workload& base, long tokens);
// That step as a workload: one sequence of `tokens` tokens, prefilled, on `base`'s layout.
[[nodiscard]] Workload step_workload(const Workload& base, long tokens);

// The largest batch a replica holds in steady state (CapacityPlan::max_batch): B caches beside one
// step's activations on the fullest GPU. `one`: the point's ledger at batch 1 and these lengths;
// `colocated`: prompts prefilled in the replica's steps (else a decode pool's, a token a sequence).
// 0 where one sequence and one step do not fit; empty where nothing per sequence is modelled.
[[nodiscard]] std::optional<long> steady_max_batch(const ModelSpec& m, const GpuSpec& g, const Workload& base,
                                                   const MemoryLedger& one, bool colocated);

struct CapacityPlan {
  bool feasible = false;
  std::optional<Infeasible> why_not;  // set when not feasible
  long batch = 0;      // sequences per decode replica
  // What memory allows in steady state: B sequences' caches beside the activations of one step (a
  // whole prompt beside a token for each other sequence of a rank; a disaggregated decode pool's,
  // a token a sequence), as engines size their cache from their token budget and as the serving
  // simulation does. Empty: not limited by modelled memory.
  std::optional<long> max_batch;
  Bytes step_activations;  // that step's activations at the planned batch, on the replica's GPUs
  Sizing sizing;         // the times it was sized on
  Seconds decode_step;  // T_decode(batch)
  Seconds prefill;      // T_prefill of one request
  // What one request's prefill costs a replica's time: T_prefill, a pipeline's first stage, or in
  // a disaggregated data-parallel prefill pool a tp-th of tp prefills run at once (one a rank).
  Seconds prefill_per_request;
  Seconds tpot;         // per output token, prefills included when colocated
  Seconds ttft;
  double decode_tokens_per_s = 0;  // per decode replica, prefill stalls included when colocated
  double prefill_share = 0;        // share of a colocated replica's time spent in prefill
  double requests_per_s_per_replica = 0;  // colocated: per replica; disaggregated: per decode replica
  long replicas = 0;          // colocated replicas, or decode replicas
  long prefill_replicas = 0;  // disaggregated only
  long gpus = 0;
  std::optional<double> cost_per_million_tokens;  // output tokens, at the fleet's size
  // The fleet's GPUs at their board power (GpuSpec::power) for as long as a million output
  // tokens take at the target rate, in kWh; empty when the GPU gives no power. GPUs only (no
  // host, network or cooling), each drawing its TDP all the time: a ceiling, as the cost is.
  std::optional<double> kwh_per_million_tokens;
  // Disaggregated: one request's prompt cache sent from the prefill to the decode pool, and how
  // long it takes (empty: colocated, or not priced: see model/kv_transfer.hpp).
  std::optional<Bytes> kv_transfer_bytes;
  std::optional<Seconds> kv_transfer;
};

// What a fleet of `gpus` costs a million output tokens at the target's rate and price, and the
// energy it draws meanwhile at the GPU's board power (each empty where the price or the power is
// not given): the plan's and a percentile plan's alike.
struct FleetCost {
  std::optional<double> usd_per_million_tokens;
  std::optional<double> kwh_per_million_tokens;
};
[[nodiscard]] FleetCost fleet_cost(long gpus, const GpuSpec& g, const LoadTarget& target, long gen_tokens);

// How plans rank, steady or at a percentile: those that meet the target first, then the cheapest
// (where a price is given), then the fewest GPUs.
struct PlanRank {
  bool feasible = false;
  std::optional<double> cost;
  long gpus = 0;
};
[[nodiscard]] bool ranks_before(const PlanRank& a, const PlanRank& b);

// `base` gives the prompt, gen, formats and tp; its batch is what the plan chooses.
[[nodiscard]] CapacityPlan plan_capacity(const ModelSpec& m, const GpuSpec& g, const Workload& base,
                                         const LoadTarget& target);

}  // namespace roofline
