#include "planner/fleet_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "planner/refusal.hpp"
#include "planner/replica.hpp"
#include "serve/fleet.hpp"
#include "serve/summary.hpp"

namespace roofline::planner {

using namespace serve;

double check_steps(const SteadyPlan& s) {
  return pool_of(s.plan).prefill_only ? 2 : static_cast<double>(s.workload.gen_tokens) + 1;
}

void check_bounded(const SteadyPlan& s) {
  const double least = kLeastCheckRequests * check_steps(s);
  if (s.plan.feasible && least > kMaxCheckSteps) {
    throw Refusal(fmt::format("--gen: a --percentile check simulates at least {:g} requests of {} output tokens "
                              "({:.3g} sequence-steps), over the {:g} a check may take; lower --gen, or plan without "
                              "--percentile",
                              kLeastCheckRequests, s.workload.gen_tokens, least, kMaxCheckSteps));
  }
}

namespace {

// The steady plan's replica as the scenario's server: the plan's batch (a rank's share under
// data-parallel attention) and a token budget that holds a whole prompt, chunked prefill; with an
// engine, its prefill chunking, KV block size and admission. A prefill pool's replica runs one
// whole prompt at a time.
ServerSettings settings_of(const SteadyPlan& s, const Pool& pool, const PercentileScenario& scenario, long ranks) {
  ServerSettings set;
  set.max_batch = pool.prefill_only ? 1 : (s.plan.batch + ranks - 1) / ranks;
  set.max_batched_tokens = std::max(set.max_batched_tokens, s.workload.prompt_tokens);
  set.chunked_prefill = !pool.prefill_only;
  set.engine = scenario.engine;
  set.given.max_batch = set.given.max_batched_tokens = true;
  set.given.chunked_prefill = pool.prefill_only;
  set.seed = scenario.seed;
  return set;
}

}  // namespace

FleetCheck::FleetCheck(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario)
    : plan_(s), target_(t), scenario_(scenario), pool_(pool_of(s.plan)), cost_(m, *s.gpu, s.workload) {
  config_ = assemble_replica(m, *s.gpu, s.workload, settings_of(s, pool_, scenario, cost_.ranks())).config;
  config_.sample_every = 1e9;  // no samples: the plan reads percentiles only
  const double steps = check_steps(s);
  const double most = std::max(kLeastCheckRequests, std::min(kMostCheckRequests, kFastCheckSteps / steps));
  const double count = std::clamp(t.requests_per_s * scenario.duration, kLeastCheckRequests, most);
  const auto n = static_cast<std::size_t>(count);
  // Twice a check's work: a cache that thrashes stops there (WorkLimit) rather than run on.
  config_.max_rows = 2 * count * steps;
  const LengthDistribution prompt{LengthDistribution::Kind::fixed, static_cast<double>(s.workload.prompt_tokens), 0};
  // A prefill replica's work ends with the first token.
  const LengthDistribution gen{LengthDistribution::Kind::fixed,
                               pool_.prefill_only ? 1.0 : static_cast<double>(s.workload.gen_tokens), 0};
  // Exactly n arrivals: the draws stop past n - 1, however long they take.
  requests_ = generate(scenario.arrivals, t.requests_per_s, std::numeric_limits<double>::infinity(), prompt, gen, 0,
                       config_.block_tokens, scenario.seed, n - 1);
  requests_.resize(std::min(requests_.size(), n));
}

PercentilePoint FleetCheck::at(long replicas, double rate) {
  ++checks_;
  const std::vector<Request>* requests = &requests_;
  if (rate != target_.requests_per_s) {
    const double scale = target_.requests_per_s / rate;
    scaled_ = requests_;
    for (Request& r : scaled_) r.arrival *= scale;
    requests = &scaled_;
  }
  const FleetResult f = simulate_fleet(*requests, cost_, config_, {static_cast<std::size_t>(replicas), scenario_.routing},
                                       target_.sizing.bound ? Timing::bound : Timing::expected);
  std::vector<double> ttft, tpot;
  ttft.reserve(f.all.served.size());
  tpot.reserve(f.all.served.size());
  for (const Outcome& o : f.all.served) {
    ttft.push_back(o.ttft);
    if (o.gen > 1) tpot.push_back(o.tpot);
  }
  std::sort(ttft.begin(), ttft.end());
  std::sort(tpot.begin(), tpot.end());
  const double tpot_p = pool_.prefill_only ? plan_.plan.tpot.value() : percentile(tpot, scenario_.percentile);
  return {percentile(ttft, scenario_.percentile), tpot_p, f.all.dropped_too_long, f.all.dropped_no_room};
}

}  // namespace roofline::planner
