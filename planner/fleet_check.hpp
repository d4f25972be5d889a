#pragma once
// One row of a percentile plan, checked by simulation: the fleet of n replicas of the steady
// plan's server behind the scenario's router, fed one stream of arrivals at a total rate, and the
// P-th percentiles of TTFT and TPOT over every request it served. The replica's server is
// assembled once (planner/replica.hpp), its steps priced once (one serve::StepCost for every
// check), and its traffic drawn once: a check at another rate scales the same arrival times
// (exact for a renewal process: gamma gaps scaled stay gamma of the same CV).
#include <cstddef>
#include <limits>
#include <vector>

#include "planner/closed_form.hpp"
#include "planner/scenario.hpp"
#include "serve/simulator.hpp"
#include "serve/step_cost.hpp"

namespace roofline::planner {

// A check's traffic: `duration` at the planned rate, but at least kLeastCheckRequests requests (a
// 99th percentile of 50 above it) and at most kMostCheckRequests, or as many as
// kFastCheckSteps sequence-steps allow (a request: its output tokens and its prefill), whichever
// is fewer, never under the least: about 0.1 s a check on one core, some 15 checks a row.
// Whatever those give, the arrivals span at least kCheckLatencies of one request's steady
// latency (the steady plan's TTFT + gen x TPOT): a fleet starts empty and finishes nothing for
// one latency, so a shorter window sees a fleet that cannot keep up before its queue has grown
// (at 2000 req/s of 256 tokens the 2.5e6 steps were 4.9 s of arrivals against a 5.2 s request).
// And they hold at least kTailRequests above the P-th percentile (tail_check_count): a P99 of
// 5000 rests on 50 requests, but a P99.9 of them on 5 and a P99.999 of 9727 on the greatest
// alone, a sample's maximum and no percentile.
// Past kMaxCheckSteps for the least requests, for that span or for that tail, a plan is refused
// (check_bounded, naming --gen, --rate or --percentile) rather than simulated shorter.
inline constexpr double kLeastCheckRequests = 5000, kMostCheckRequests = 50000, kFastCheckSteps = 2.5e6,
                        kMaxCheckSteps = 2e7, kCheckLatencies = 10, kTailRequests = 10;
// A fleet keeps up when, over the second half of the arrivals, it finished at least kKeptUp of
// as many requests as arrived (see kept_up).
inline constexpr double kKeptUp = 0.98;

// A request's sequence-steps in a check: its output tokens and its prompt, one chunk; disaggregated,
// its prompt and first token on the prefill pool too.
[[nodiscard]] double check_steps(const SteadyPlan& s);
// One request's steady latency: the steady plan's TTFT + gen x TPOT.
[[nodiscard]] double steady_latency(const SteadyPlan& s);
// The fewest requests with kTailRequests above their P-th percentile: 10 / (1 − P/100), 1000 for
// P99, 10 000 for P99.9, 10^6 for P99.999 (allowed_over of that many is 10).
[[nodiscard]] double tail_check_count(double percentile);
// The requests a check simulates at the target's rate (the bounds above).
[[nodiscard]] double check_count(const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario);
// The fewest a check may simulate: kLeastCheckRequests, spanning kCheckLatencies, with the tail of
// tail_check_count. A stream holding fewer is refused: kept_up counts the last latency's arrivals
// as unfinished, so on a shorter window every fleet looks behind, and a P99 of a few hundred
// requests is a few requests.
[[nodiscard]] double least_check_count(const SteadyPlan& s, const LoadTarget& t, double percentile);
// Refusal naming --gen when a plan's least check would pass kMaxCheckSteps, --percentile when the
// tail of its percentile would, or --rate when kCheckLatencies of arrivals at it would.
void check_bounded(const SteadyPlan& s, const LoadTarget& t, double percentile);

// Served over offered in the second half of the arrival window [T/2, T], T the last arrival:
// the requests that finished in it (arrival + e2e) over those that arrived in it. A fleet that
// keeps up finishes requests as fast as they arrive once it has filled (the first half leaves
// out the fill: nothing finishes for one latency, at most a tenth of the window); one that falls
// behind finishes at its capacity, below the arrivals, its queue and every latency growing with
// the window, so its percentiles describe the window, not the fleet. The number in the fleet
// of a fleet that keeps up drifts only by its fluctuation: kKeptUp's 2% of the second half's
// arrivals is a tenth of the requests in flight (kCheckLatencies / 2 x 2%) at the least window.
// Dropped requests never finish (they fail a check already).
[[nodiscard]] double kept_up(const std::vector<serve::Request>& requests, const std::vector<serve::Outcome>& served);

// A check's replica: the steady plan's batch (a rank's share under data-parallel attention) and a
// token budget that holds a whole prompt, chunked prefill; with an engine, its prefill chunking,
// KV block size and admission. Both pools of a disaggregated check run it too. A colocated check
// with an engine runs what `plan --emit` writes into that engine's script: the plan's own token
// budget (step_token_budget: a prompt beside a token for each sequence of a rank); else the
// simulator's 8192 tokens a step, at least a prompt.
[[nodiscard]] serve::ServerConfig check_server(const ModelSpec& m, const SteadyPlan& s, const PercentileScenario& scenario,
                                               long ranks, bool colocated);

// A check's traffic at the target's rate: exactly as many requests as the bounds above allow, of
// the steady plan's prompt and output lengths (or the scenario's stream's first; Refusal naming
// its flag where it holds fewer than least_check_count). Sets config.max_rows to twice their work, so that
// a cache that thrashes stops there (serve::WorkLimit) rather than run on.
[[nodiscard]] std::vector<serve::Request> check_traffic(const SteadyPlan& s, const LoadTarget& t,
                                                        const PercentileScenario& scenario, serve::ServerConfig& config);

// The same arrivals at another total rate: each arrival time scaled (exact for a renewal process:
// gamma gaps scaled stay gamma of the same CV).
void scale_traffic(const std::vector<serve::Request>& at_target, double target_rate, double rate,
                   std::vector<serve::Request>& into);

// The most of `n` values that may be over a limit with their P-th percentile (serve::percentile)
// at or under it: it reads between the sorted values at floor(P/100 · (n − 1)) and the next, so
// once n − that many are over, it is. None given: no bound.
[[nodiscard]] long allowed_over(std::size_t n, double p);

struct PercentilePoint {
  double ttft = 0, tpot = 0;
  long too_long = 0, too_large = 0;  // requests dropped: a percentile of the rest says nothing
  double kept_up = 1;                // served over offered, late in the run (kept_up above)
  bool stopped = false;              // stopped at a limit (FleetCheck::at): it misses, and says no more
  [[nodiscard]] bool behind() const { return kept_up < kKeptUp; }
  [[nodiscard]] bool meets(const LoadTarget& t) const {
    return too_long + too_large == 0 && !behind() && ttft <= t.ttft.value() && tpot <= t.tpot.value();
  }
  // The P-th TTFT the cliff search reads: unbounded for a fleet that fell behind.
  [[nodiscard]] double cliff_ttft() const;
};

// What every check of a row shares, colocated or disaggregated: its target and scenario, the
// steps priced once, the replica's server and the traffic drawn once at the target's rate.
class CheckedRow {
 public:
  [[nodiscard]] std::size_t requests() const { return requests_.size(); }
  [[nodiscard]] double seconds() const { return requests_.empty() ? 0 : requests_.back().arrival; }
  [[nodiscard]] long checks() const { return checks_; }

 protected:
  // Prices the steps; prepare() then assembles the server and draws the traffic, so that a
  // check refusing what it cannot simulate (a disaggregated link) refuses before either.
  CheckedRow(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario);
  void prepare(const ModelSpec& m, const SteadyPlan& s, bool colocated);
  // The drawn arrivals at `rate` requests/s in all (scaled, when not the target's), a check counted.
  [[nodiscard]] const std::vector<serve::Request>& traffic_at(double rate);

  const LoadTarget& target_;
  const PercentileScenario& scenario_;
  serve::StepCost cost_;
  serve::ServerConfig config_;

 private:
  std::vector<serve::Request> requests_;  // at target_.requests_per_s
  std::vector<serve::Request> scaled_;    // the same at another rate
  long checks_ = 0;
};

class FleetCheck : public CheckedRow {
 public:
  // The plan must be feasible, colocated and simulable (serve::unsupported(s.workload) empty).
  FleetCheck(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario);
  // The P-th percentiles of a fleet of `replicas` at `rate` requests/s in all. With limits, the
  // run stops once its P-th TTFT is sure to be over `ttft_over` or its TPOT over `tpot_over`
  // (serve::LatencyCap): the point then has `stopped`, that percentile infinite and the other
  // unknown (infinite too), and its drops uncounted. A search asks so of the counts it only
  // needs to tell meeting from missing.
  [[nodiscard]] PercentilePoint at(long replicas, double rate,
                                   double ttft_over = std::numeric_limits<double>::infinity(),
                                   double tpot_over = std::numeric_limits<double>::infinity());
};

}  // namespace roofline::planner
