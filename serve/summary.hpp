#pragma once
// What a simulation says, as operators read it: latency distributions, throughput, and the share
// of requests that met their targets.
#include <optional>
#include <vector>

#include "serve/simulator.hpp"

namespace roofline::serve {

// Percentiles by linear interpolation between order statistics (Hyndman & Fan type 7, numpy's
// default): p50 of {1, 2, 3, 4} is 2.5.
struct Distribution {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
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
  double output_tokens_per_s = 0;  // output tokens over the time from the start to the last token
  double requests_per_s = 0;
  std::optional<double> goodput;   // share of requests (dropped ones count as missing) meeting every target given
  double mean_running = 0, peak_kv_share = 0;
};

// TPOT is taken over requests with more than one output token (one token has no gap).
[[nodiscard]] Summary summarize(const SimResult& r, const Targets& targets);

}  // namespace roofline::serve
