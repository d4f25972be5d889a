#pragma once
// `rooflineplan simulate`: one replica (or a fleet of them behind a router, or prefill and
// decode pools with each cache crossing a link) serving a stream of requests with continuous
// batching, each step timed by the engine for what it holds (serve/). Latencies come from the
// expected step time, which is what a real server sees; the same run on the roofline bound is
// reported beside them, and stays a bound.
#include <ostream>
#include <string>

#include "cli/command.hpp"
#include "cli/serve_flags.hpp"

namespace roofline::cli {

struct SimulateArgs {
  ServeFlags serve;
  std::string plot;  // a .svg or .png of the batch and the KV cache over time
  std::string requests_out;  // a .csv or .jsonl with a row a request
  std::string format = "table";
  long replicas = 1;                  // --replicas: a fleet of identical replicas behind a router
  std::string router = "round-robin";  // --router: how it picks a replica for each arrival
  // --disaggregate P:D: P prefill and D decode replicas, each cache crossing the link between
  // them (serve/disaggregated.hpp); empty: colocated.
  std::string disaggregate;
  // --prefill-tp N: the prefill pool's tensor parallelism, beside --tp's decode pool; 0: --tp's.
  long prefill_tp = 0;
};

void add_simulate_options(Options& o, SimulateArgs& args);
void run_simulate(const SimulateArgs& args, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
