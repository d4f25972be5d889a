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
  const double colocated = static_cast<double>(s.workload.gen_tokens) + 1;
  return s.plan.prefill_replicas > 0 ? colocated + 2 : colocated;
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

ServerConfig check_server(const ModelSpec& m, const SteadyPlan& s, const PercentileScenario& scenario, long ranks) {
  ServerSettings set;
  set.max_batch = (s.plan.batch + ranks - 1) / ranks;
  set.max_batched_tokens = std::max(set.max_batched_tokens, s.workload.prompt_tokens);
  set.chunked_prefill = true;
  set.engine = scenario.engine;
  set.given.max_batch = set.given.max_batched_tokens = true;
  set.seed = scenario.seed;
  ServerConfig config = assemble_replica(m, *s.gpu, s.workload, set).config;
  config.sample_every = 1e9;  // no samples: the plan reads percentiles only
  return config;
}

std::vector<Request> check_traffic(const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario,
                                   ServerConfig& config) {
  const double steps = check_steps(s);
  const double most = std::max(kLeastCheckRequests, std::min(kMostCheckRequests, kFastCheckSteps / steps));
  const double count = std::clamp(t.requests_per_s * scenario.duration, kLeastCheckRequests, most);
  const auto n = static_cast<std::size_t>(count);
  config.max_rows = 2 * count * steps;
  const LengthDistribution prompt{LengthDistribution::Kind::fixed, static_cast<double>(s.workload.prompt_tokens), 0};
  const LengthDistribution gen{LengthDistribution::Kind::fixed, static_cast<double>(s.workload.gen_tokens), 0};
  // Exactly n arrivals: the draws stop past n - 1, however long they take.
  std::vector<Request> requests = generate(scenario.arrivals, t.requests_per_s, std::numeric_limits<double>::infinity(),
                                           prompt, gen, 0, config.block_tokens, scenario.seed, n - 1);
  requests.resize(std::min(requests.size(), n));
  return requests;
}

void scale_traffic(const std::vector<Request>& at_target, double target_rate, double rate, std::vector<Request>& into) {
  const double scale = target_rate / rate;
  into = at_target;
  for (Request& r : into) r.arrival *= scale;
}

FleetCheck::FleetCheck(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario)
    : target_(t), scenario_(scenario), cost_(m, *s.gpu, s.workload) {
  config_ = check_server(m, s, scenario, cost_.ranks());
  requests_ = check_traffic(s, t, scenario, config_);
}

PercentilePoint FleetCheck::at(long replicas, double rate) {
  ++checks_;
  const std::vector<Request>* requests = &requests_;
  if (rate != target_.requests_per_s) {
    scale_traffic(requests_, target_.requests_per_s, rate, scaled_);
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
  return {percentile(ttft, scenario_.percentile), percentile(tpot, scenario_.percentile), f.all.dropped_too_long,
          f.all.dropped_no_room};
}

}  // namespace roofline::planner
