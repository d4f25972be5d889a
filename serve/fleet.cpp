#include "serve/fleet.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "serve/server.hpp"

namespace roofline::serve {

double FleetResult::imbalance() const {
  if (routed.empty()) return 1;
  const double total = std::accumulate(routed.begin(), routed.end(), 0.0);
  if (total == 0) return 1;
  return static_cast<double>(*std::max_element(routed.begin(), routed.end())) /
         (total / static_cast<double>(routed.size()));
}

// The replicas' runs as one (FleetResult::all).
SimResult merge_runs(const std::vector<Request>& requests, std::vector<SimResult>& runs) {
  if (runs.size() == 1) {  // as simulate() gives it, byte for byte
    SimResult one = runs[0];
    runs[0].served.clear();
    runs[0].dropped.clear();
    return one;
  }
  SimResult all;
  if (!requests.empty()) {
    all.start = std::min_element(requests.begin(), requests.end(), [](const Request& a, const Request& b) {
                  return a.arrival < b.arrival;
                })->arrival;
  }
  for (SimResult& r : runs) {
    // The last finish: a replica that served none ends where it started, at its first arrival,
    // which may be after the others' last finish (one request dropped there at 1100 s).
    if (!r.served.empty()) all.end = std::max(all.end, r.end);
    all.served.insert(all.served.end(), r.served.begin(), r.served.end());
    all.dropped.insert(all.dropped.end(), r.dropped.begin(), r.dropped.end());
    r.served.clear();
    r.dropped.clear();
    all.itl.merge(r.itl);
    all.dropped_too_long += r.dropped_too_long;
    all.dropped_no_room += r.dropped_no_room;
    all.preemptions += r.preemptions;
    all.steps += r.steps;
    all.prompt_tokens += r.prompt_tokens;
    all.output_tokens += r.output_tokens;
    all.cached_tokens += r.cached_tokens;
    all.recomputed_tokens += r.recomputed_tokens;
    all.running_seconds += r.running_seconds / static_cast<double>(runs.size());
    all.busy_seconds += r.busy_seconds;
    all.peak_running = std::max(all.peak_running, r.peak_running);
    all.peak_kv_share = std::max(all.peak_kv_share, r.peak_kv_share);
  }
  if (all.served.empty()) all.end = all.start;
  // By when they finished (ties, a step's sequences, keep their replica's order).
  const auto finish = [&](const Outcome& o) { return requests[o.request].arrival + o.e2e; };
  std::stable_sort(all.served.begin(), all.served.end(),
                   [&](const Outcome& a, const Outcome& b) { return finish(a) < finish(b); });
  std::sort(all.dropped.begin(), all.dropped.end(), [](const Dropped& a, const Dropped& b) { return a.request < b.request; });
  return all;
}

FleetResult simulate_fleet(const std::vector<Request>& requests, StepCost& cost, const ServerConfig& config,
                           const FleetConfig& fleet, Timing timing, StepCost* draft) {
  check_server(config);
  if (fleet.replicas == 0) throw std::invalid_argument("simulate: a fleet needs a replica");
  const std::size_t n = fleet.replicas;
  // Each replica's settings: its own speculative draws, and the progress the fleet reports.
  std::vector<ServerConfig> configs(n, config);
  for (std::size_t i = 0; i < n; ++i) {
    configs[i].seed = config.seed + i;
    configs[i].progress = nullptr;
  }
  double rows = 0;
  std::vector<std::unique_ptr<Server>> servers;
  servers.reserve(n);
  for (std::size_t i = 0; i < n; ++i) servers.push_back(std::make_unique<Server>(requests, cost, configs[i], timing, draft, &rows));
  const std::unique_ptr<Router> router = make_router(fleet.routing, n, config.seed);
  FleetResult out;
  out.replica_of.resize(requests.size());
  out.routed.assign(n, 0);
  std::vector<long> load(router->reads_load() ? n : 0);
  const auto report = [&](double share) {
    if (config.progress) config.progress(share);
  };
  // The fleet's samples, on one grid for every replica (one replica keeps its own, as simulate's).
  std::vector<Sample> samples;
  double next_sample = 0;
  const auto sample = [&] {
    Sample all{next_sample, 0, 0, 0};
    for (const auto& s : servers) {
      s->run_until(next_sample);
      const Sample one = s->sample_at(next_sample);
      all.running += one.running;
      all.waiting += one.waiting;
      all.kv_share += one.kv_share / static_cast<double>(n);
    }
    samples.push_back(all);
    next_sample += config.sample_every;
  };
  const bool sampling = n > 1 && config.sample_every > 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const double t = requests[i].arrival;
    while (sampling && next_sample <= t) sample();
    if (router->reads_load()) {
      for (std::size_t k = 0; k < n; ++k) {
        servers[k]->run_until(t);
        load[k] = router->reads() == Load::kv_blocks ? servers[k]->kv_cost(t, requests[i]) : servers[k]->load(t);
      }
    }
    const std::size_t k = router->pick(requests[i], load);
    if (k >= n) throw std::logic_error("simulate: a router picked a replica the fleet does not have");
    servers[k]->take(i);
    out.replica_of[i] = static_cast<std::uint32_t>(k);
    ++out.routed[k];
    if ((i & 0x3fff) == 0) report(0.5 * static_cast<double>(i) / static_cast<double>(requests.size()));
  }
  // On until a sample at or after the last step's end: it finds every replica empty.
  const auto over = [&] {
    return !samples.empty() && std::all_of(servers.begin(), servers.end(), [&](const auto& s) {
      return s->done() && s->clock() <= samples.back().time;
    });
  };
  while (sampling && !over()) sample();
  out.runs.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    servers[k]->run();
    out.runs.push_back(servers[k]->finish());
    report(0.5 + 0.5 * static_cast<double>(k + 1) / static_cast<double>(n));
  }
  out.all = merge_runs(requests, out.runs);
  if (n > 1) out.all.samples = std::move(samples);
  return out;
}

}  // namespace roofline::serve
