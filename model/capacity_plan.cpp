#include "model/capacity_plan.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "model/bisect.hpp"
#include "model/kv_transfer.hpp"

namespace roofline {

namespace {

// Batches beyond this are not searched when memory does not bound them (a model known only by
// its size): no serving stack runs a million sequences on one replica.
constexpr long kLargestSearchedBatch = 1L << 20;

struct Latency {
  Seconds decode_step;
  Seconds tpot;
  Seconds ttft;
};

// At batch B a sequence waits the decode step, plus (colocated) the B/gen prefills interleaved
// with each step; a new request waits its prefill, plus (colocated) the step in flight.
// Disaggregated, the prefill pool returns the first token and the second waits for the prompt's
// cache to reach the decode pool (`handoff`, Splitwise's second-token delay): gen − 1 gaps share it.
// `prefill`: one request's prefill as it waits for it; `per_request`: what it costs the replica
// (a pipeline's busiest stage's share; a disaggregated data-parallel pool's tp-th of tp prefills at once).
Latency latency_at(const ModelSpec& m, const GpuSpec& g, Workload w, long batch, Seconds prefill, Seconds per_request,
                   bool colocated, const Sizing& sizing, Seconds handoff = Seconds(0)) {
  w.batch = batch;
  const Seconds step = sizing.time(evaluate(m, g, w).decode.step);
  if (!colocated) return {step, step + handoff / static_cast<double>(std::max(1L, w.gen_tokens - 1)), prefill};
  return {step, step + per_request * (static_cast<double>(batch) / static_cast<double>(w.gen_tokens)), prefill + step};
}

bool meets(const Latency& l, const LoadTarget& t) { return l.tpot <= t.tpot && l.ttft <= t.ttft; }

// The largest batch in [1, limit] that meets both targets; 0 if none. Both latencies grow with
// the batch, so a binary search finds the edge.
long largest_batch(const ModelSpec& m, const GpuSpec& g, const Workload& w, long limit, Seconds prefill,
                   Seconds per_request, bool colocated, const LoadTarget& target, Seconds handoff) {
  const auto meets_at = [&](long b) {
    return meets(latency_at(m, g, w, b, prefill, per_request, colocated, target.sizing, handoff), target);
  };
  if (limit < 1 || !meets_at(1)) return 0;
  return last_holding(1, limit, meets_at);
}

// Tokens one step carries at batch B on the fullest rank: colocated, the token budget the launch
// scripts set and engines profile (step_token_budget); a disaggregated decode pool's, a token a
// sequence.
long step_tokens(const Workload& base, long batch, long ranks, bool colocated) {
  const long rank_batch = (batch + ranks - 1) / ranks;
  return colocated ? step_token_budget(base.prompt_tokens, rank_batch) : rank_batch;
}

// More replicas than this is not a plan: the load or the model is a typo.
constexpr double kMostReplicas = 1e12;

// Replicas to serve `rate`, or nullopt past kMostReplicas (the quotient of a huge rate and a
// tiny per-replica rate is past any long, and a cast of it would be undefined).
std::optional<long> replicas_for(double rate, double per_replica) {
  const double n = std::ceil(rate / per_replica - 1e-9);
  if (!(n <= kMostReplicas)) return std::nullopt;
  return std::max(1L, static_cast<long>(n));
}

}  // namespace

Workload step_workload(const Workload& base, long tokens) {
  Workload w = base;
  w.batch = 1;
  w.microbatches = 0;
  w.prompt_tokens = tokens;
  w.gen_tokens = 1;
  w.context_tokens = tokens;
  return w;
}

MemoryLedger step_ledger(const ModelSpec& m, const GpuSpec& g, const Workload& base, long tokens) {
  return evaluate(m, g, step_workload(base, tokens)).memory;
}

// The largest batch whose caches and one step's activations fit on the fullest GPU (`one`: the
// point's ledger at batch 1, its parts). The point's own ledger holds B whole prompts'
// activations, a batch prefilled in one pass: Llama-3.1-8B on an H100 at 1024 + 256 tokens held
// back 18.9 GB for them and stopped at 249 sequences.
std::optional<long> steady_max_batch(const ModelSpec& m, const GpuSpec& g, const Workload& base, const MemoryLedger& one,
                                     bool colocated) {
  if (!one.max_batch) return std::nullopt;
  const long ranks = std::max(1L, one.attention_ranks);
  const auto fits = [&](long b) {
    const Bytes step = step_ledger(m, g, base, step_tokens(base, b, ranks, colocated)).activations_per_sequence_fullest;
    const double held = std::ceil(static_cast<double>(b) / static_cast<double>(ranks));
    return one.fixed_fullest + one.cache_per_sequence_fullest * held + step <= g.memory_capacity;
  };
  if (!fits(1)) return 0;
  // Past the batch whose caches alone fill the GPU nothing fits; without a cache, the search's end.
  long hi = kLargestSearchedBatch;
  if (one.cache_per_sequence_fullest > Bytes(0)) {
    const double alone = std::floor((g.memory_capacity - one.fixed_fullest) / one.cache_per_sequence_fullest);
    hi = static_cast<long>(std::min(static_cast<double>(ranks) * alone, static_cast<double>(kLargestSearchedBatch)));
  }
  return last_holding(1, std::max(1L, hi), fits);
}

CapacityPlan plan_capacity(const ModelSpec& m, const GpuSpec& g, const Workload& base, const LoadTarget& target) {
  CapacityPlan p;
  Workload one = base;
  one.batch = 1;
  const Report single = evaluate(m, g, one);
  p.sizing = target.sizing;
  p.prefill = target.sizing.time(single.prefill);
  Seconds per_request = p.prefill;
  // A pipeline takes the next prompt as soon as this one has left the stage that paces it, its
  // busiest (stage_time: the largest micro-batch through one stage), not its first.
  if (single.prefill_pipeline && single.prefill.time > Seconds(0)) {
    per_request = p.prefill * (single.prefill_pipeline->stage_time / single.prefill.time);
  }
  // Under data-parallel attention a disaggregated prefill pool keeps every rank on a prompt of its
  // own: tp prefills take about as long as one, and each costs the pool a tp-th of that. Colocated,
  // requests arrive at the ranks one by one, and each prefill is a step of its rank that every rank
  // waits on (the experts are shared): a step of its own. Priced as a tp-th, DeepSeek-V3 on 8 H200s
  // at 2048 + 512 tokens was planned at 8.75 req/s at TPOT 50 ms, which the simulated replica
  // reaches at about 3 (TPOT 72 ms at 8.75).
  // Its first token then waits for such a pass, not for its prompt alone: the pool is sized for
  // passes of tp prompts (DeepSeek-V3 on 8 H200s at 4096 + 1024 tokens: 0.46 s, not 0.33).
  Seconds first_token = p.prefill;
  if (base.dp_attention && target.disaggregate) {
    Workload ranks = base;
    ranks.batch = base.tp;
    first_token = target.sizing.time(evaluate(m, g, ranks).prefill);
    per_request = first_token / static_cast<double>(base.tp);
  }
  p.prefill_per_request = per_request;
  const bool colocated = !target.disaggregate;
  const double gen = static_cast<double>(base.gen_tokens);
  // In steady state a step's activations are those of one prompt beside the others' tokens, not
  // every prompt's (the point's ledger, a batch prefilled at once). The column means that on every
  // row, one refused for its length too: Llama-2-7B on an H200 at 8192 + 10 tokens holds 28 so,
  // as explain says, where the point's ledger holds 25.
  const std::optional<long> steady = steady_max_batch(m, g, base, single.memory, colocated);

  // The serving simulation (serve::holds) and plan --percentile drop such requests; sized here
  // they made a load feasible that those call impossible.
  if (const long request = base.prompt_tokens + base.gen_tokens; m.max_context && request > *m.max_context) {
    p.max_batch = steady;
    p.why_not = BeyondContext{request, *m.max_context};
    return p;
  }
  // What does not fit, the reserve apart: the totals where they are over the GPUs' capacity, else
  // the fullest GPU (a pipeline's stage) against its own; a pipeline's totals that fit had been
  // said ("47.8 GB beside the 23.2 GB --reserve holds back of 72.5 GB") of a stage over its 24.2 GB.
  const auto does_not_fit = [&] {
    if (single.memory.total > single.memory.capacity) {
      return WeightsDoNotFit{single.memory.total - single.memory.reserve, single.memory.capacity, single.memory.reserve};
    }
    const Bytes reserve_each = g.memory_capacity * base.reserve_fraction;
    return WeightsDoNotFit{single.memory.fullest_gpu - reserve_each, g.memory_capacity, reserve_each};
  };
  if (single.memory.max_batch && *single.memory.max_batch < 1) {
    p.max_batch = 0;  // not one sequence, as the point holds it
    p.why_not = does_not_fit();
    return p;
  }
  // One sequence fits as the point holds it. At batch 1 the two ledgers are one.
  p.max_batch = steady;
  if (p.max_batch && *p.max_batch < 1) {
    // One step's activations and a cache do not fit beside the weights on the fullest GPU (a
    // pipeline's stage holds a whole sequence's, where the point's max batch counts a pp-th).
    p.why_not = does_not_fit();
    return p;
  }
  Seconds handoff;
  if (!colocated) {
    const KvTransfer kv = kv_transfer(m, g, base);
    p.kv_transfer_bytes = kv.bytes;
    p.kv_transfer = kv.time;
    handoff = kv.time.value_or(Seconds(0));
  }
  const long limit = p.max_batch ? std::min(*p.max_batch, kLargestSearchedBatch) : kLargestSearchedBatch;
  p.batch = largest_batch(m, g, base, limit, first_token, per_request, colocated, target, handoff);
  const Latency at =
      latency_at(m, g, base, std::max(p.batch, 1L), first_token, per_request, colocated, target.sizing, handoff);
  p.decode_step = at.decode_step;
  p.tpot = at.tpot;
  p.ttft = at.ttft;
  if (single.memory.max_batch) {
    const long ranks = std::max(1L, single.memory.attention_ranks);
    // Under data-parallel attention every rank runs such a step at once.
    p.step_activations =
        step_ledger(m, g, base, step_tokens(base, std::max(p.batch, 1L), ranks, colocated)).activations * static_cast<double>(ranks);
  }
  if (p.batch == 0) {
    if (at.tpot > target.tpot) p.why_not = TpotUnreachable{target.tpot, at.tpot};
    else p.why_not = TtftUnreachable{target.ttft, at.ttft};
    return p;
  }
  const auto B = static_cast<double>(p.batch);
  p.decode_tokens_per_s = B / p.tpot.value();
  p.requests_per_s_per_replica = p.decode_tokens_per_s / gen;
  const std::optional<long> replicas = replicas_for(target.requests_per_s, p.requests_per_s_per_replica);
  const std::optional<long> prefill_replicas =
      colocated ? std::optional<long>(0) : replicas_for(target.requests_per_s, 1.0 / per_request.value());
  if (!replicas || !prefill_replicas) {
    p.why_not = TooManyReplicas{kMostReplicas};
    return p;
  }
  p.replicas = *replicas;
  p.prefill_replicas = *prefill_replicas;
  if (colocated) p.prefill_share = (per_request * (B / gen)) / p.tpot;
  p.gpus = (p.replicas + p.prefill_replicas) * gpus(base);
  p.feasible = true;
  const FleetCost cost = fleet_cost(p.gpus, g, target, base.gen_tokens);
  p.cost_per_million_tokens = cost.usd_per_million_tokens;
  p.kwh_per_million_tokens = cost.kwh_per_million_tokens;
  return p;
}

FleetCost fleet_cost(long gpus, const GpuSpec& g, const LoadTarget& target, long gen_tokens) {
  FleetCost c;
  const double gen = static_cast<double>(gen_tokens), n = static_cast<double>(gpus);
  if (target.price_per_gpu_hour) {
    const double tokens_per_hour = target.requests_per_s * gen * 3600;
    c.usd_per_million_tokens = *target.price_per_gpu_hour * n * 1e6 / tokens_per_hour;
  }
  if (g.power) {
    const double seconds_per_million = 1e6 / (target.requests_per_s * gen);
    c.kwh_per_million_tokens = n * g.power->value() * seconds_per_million / 3.6e6;
  }
  return c;
}

bool ranks_before(const PlanRank& a, const PlanRank& b) {
  if (a.feasible != b.feasible) return a.feasible;
  const double ca = a.cost.value_or(0), cb = b.cost.value_or(0);
  if (ca != cb) return ca < cb;
  return a.gpus < b.gpus;
}

}  // namespace roofline
