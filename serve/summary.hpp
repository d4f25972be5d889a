#pragma once
// What a simulation says, as operators read it: latency distributions, throughput, and the share
// of requests that met their targets.
#include <optional>
#include <vector>

#include "serve/simulator.hpp"

namespace roofline::serve {

// Percentiles by linear interpolation between order statistics (Hyndman & Fan type 7, numpy's
// default): p50 of {1, 2, 3, 4} is 2.5.
// `count` 0: nothing to describe (TPOT when every request made one token), shown as - and null.
struct Distribution {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
  std::size_t count = 0;
};
[[nodiscard]] Distribution distribution(std::vector<double> values);
// The p-th percentile (0..100) of values already sorted.
[[nodiscard]] double percentile(const std::vector<double>& sorted, double p);

struct Targets {
  std::optional<double> ttft, tpot;  // seconds
};

struct Summary {
  long served = 0, dropped = 0;
  Distribution ttft, tpot, e2e, queue_wait;
  // Inter-token latency a gap, as vLLM's benchmark reports ITL (SimResult::itl; percentiles within
  // 0.6%), beside TPOT, which is a request's mean gap.
  Distribution itl;
  double output_tokens_per_s = 0;  // output tokens over the time from the start to the last token
  double requests_per_s = 0;
  // Share of the requests judged (dropped ones count as missing) meeting every target given. A
  // one-token request has no TPOT: it is judged on TTFT when that is a target, else not at all
  // (`unjudged`), and with none judged there is no goodput.
  std::optional<double> goodput;
  long unjudged = 0;
  double mean_running = 0;  // time-weighted over the run
  long peak_running = 0;
  double peak_kv_share = 0;
};

// TPOT is taken over requests with more than one output token (one token has no gap).
[[nodiscard]] Summary summarize(const SimResult& r, const Targets& targets);

}  // namespace roofline::serve
