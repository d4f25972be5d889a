#pragma once
// A fleet: N identical replicas, each with its own waiting queue, KV cache and scheduler
// (serve::Server), fed by one stream of arrivals through a router (serve/router.hpp). The router
// decides at each request's arrival from the replicas' state at that moment: every replica is
// advanced to the arrival (every step that starts before it) before a router that reads loads
// picks. The replicas share one StepCost, whose tables are filled once for all of them.
#include <cstdint>
#include <vector>

#include "serve/router.hpp"
#include "serve/simulator.hpp"

namespace roofline::serve {

struct FleetConfig {
  std::size_t replicas = 1;
  Routing routing = Routing::round_robin;
};

struct FleetResult {
  // Every replica's run as one: the served in the order they finished, the dropped in the order
  // they arrived, the gaps, tokens, preemptions and steps summed, `end` the last replica's.
  // running_seconds is a replica's mean (the sum over replicas / N), busy_seconds the sum, the
  // peaks the largest any replica reached. Its samples are the fleet's, every config.sample_every seconds from 0 until
  // every replica is done, each replica advanced to the sample's time: the sequences running and
  // waiting in all of them, and the mean replica's share of its cache (one replica's own samples
  // are in `runs`).
  SimResult all;
  std::vector<SimResult> runs;           // each replica's own (served and dropped moved into `all`)
  std::vector<std::uint32_t> replica_of;  // each request's replica, by its index
  std::vector<long> routed;              // requests sent to each replica
  // The most requests a replica was sent over the mean a replica (1: even).
  [[nodiscard]] double imbalance() const;
};

// Replicas' runs as one, as FleetResult::all describes (served and dropped moved out of `runs`;
// one run is kept as it is). `requests`: those the runs' indices name.
[[nodiscard]] SimResult merge_runs(const std::vector<Request>& requests, std::vector<SimResult>& runs);

// One fleet run. Replica i draws its speculative acceptances from acceptance_seed(config.seed + i)
// and the random router from config.seed, mixed (serve/router.cpp); config.max_rows bounds the
// fleet's sequence-steps together, and config.progress hears the share routed, then the share of
// replicas run out. With one replica, `all` is simulate()'s result exactly.
[[nodiscard]] FleetResult simulate_fleet(const std::vector<Request>& requests, StepCost& cost, const ServerConfig& config,
                                         const FleetConfig& fleet, Timing timing, StepCost* draft = nullptr);

}  // namespace roofline::serve
