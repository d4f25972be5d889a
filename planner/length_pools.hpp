#pragma once
// `plan --pools SPLIT`: one stream of requests routed by prompt length to two pools, prompts of
// at most SPLIT tokens to the short pool and longer ones to the long pool, each pool then sized
// by simulation at its share of the traffic (planner/percentile_search.hpp), as its own fleet
// behind its own router. The split is of the requests themselves (a thinning of the arrivals),
// so each pool sees the stream's own gaps and bursts, not a fresh Poisson stream at its rate.
#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "model/capacity_plan.hpp"
#include "planner/scenario.hpp"
#include "serve/traffic.hpp"

namespace roofline::planner {

// A stream drawn for the pools to share: every pool's check takes the first of its requests, so
// the stream holds enough for a pool of 1/8 of it to see kMostCheckRequests (fleet_check.hpp).
inline constexpr std::size_t kPoolStreamRequests = 400'000;
// Fewer requests than this in a pool, and its P99 would rest on a handful of them: refused.
inline constexpr std::size_t kLeastPoolRequests = 1000;

// One pool's share of the stream, its arrival times as they were.
struct LengthPool {
  std::vector<serve::Request> requests;
  double share = 0;                    // of the stream's requests
  double prompt_mean = 0, gen_mean = 0;  // over its requests
};

struct LengthSplit {
  long split = 0;  // prompts of at most this many tokens go to the short pool
  LengthPool short_pool, long_pool;
};

// Splits `stream` (arrivals from 0, in order) at `split` prompt tokens.
[[nodiscard]] LengthSplit split_by_prompt(const std::vector<serve::Request>& stream, long split);

// One pool of a split made ready to size as a fleet of its own: its share of the whole target's
// rate, the lengths its steady plans price (its own means: a share of a stream is not the
// stream's mean) and the scenario its checks simulate (its own share of the stream).
struct PoolScenario {
  const LengthPool* pool = nullptr;  // into the split it was made from
  LoadTarget target;                 // the whole fleet's, at requests_per_s x share
  long prompt_tokens = 0, gen_tokens = 0;  // its means, rounded, at least one token
  PercentileScenario scenario;
};

// The short pool's and the long pool's scenarios from `whole` (the fleet's target) and `base` (the
// whole stream's scenario: a trace's where its `stream` is set, else drawn from its lengths), in
// that order. Refusal naming --pools where a pool holds fewer than kLeastPoolRequests, before
// either is sized.
[[nodiscard]] std::array<PoolScenario, 2> pool_scenarios(const LengthSplit& split, const PercentileScenario& base,
                                                         const LoadTarget& whole);

// The coefficient of variation of the gaps between successive arrivals (1 for Poisson; 0 with
// fewer than three requests): what the closed form (planner/closed_form.hpp) reads of a stream.
[[nodiscard]] double gap_cv(const std::vector<serve::Request>& stream);

// The whole fleet's cost a million output tokens from each pool's own (each at its own rate and
// mean output): the pools' dollars (or kWh) an hour over their tokens an hour, that is each
// pool's figure weighted by its share of the output tokens. Empty where either pool's is.
[[nodiscard]] std::optional<double> combined_per_million(std::optional<double> short_figure, double short_tokens_per_s,
                                                         std::optional<double> long_figure, double long_tokens_per_s);

}  // namespace roofline::planner
