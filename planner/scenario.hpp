#pragma once
// What `plan --percentile` is asked, in the planner's terms (cli/ maps the flags to it): each row's
// steady plan, and the traffic, percentile, engine and router its fleet is checked under.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/capacity_plan.hpp"
#include "serve/engine_defaults.hpp"
#include "serve/router.hpp"
#include "serve/traffic.hpp"

namespace roofline::planner {

// One row's steady (closed-form) plan: a GPU, a layout, and what model::plan_capacity made of them.
struct SteadyPlan {
  const GpuSpec* gpu = nullptr;
  Workload workload;
  CapacityPlan plan;
  std::string reason;                        // why the steady plan is infeasible, in words
  std::optional<double> price_per_gpu_hour;  // --price for this row's GPU
  // Disaggregated with a prefill layout of its own (plan --prefill-tp): that layout and the steady
  // plan made of it, whose prefill count and times are the prefill pool's; empty: the decode
  // pool's layout for both.
  struct PrefillPool {
    Workload workload;
    CapacityPlan plan;
  };
  std::optional<PrefillPool> prefill;
  // What the point's pricing assumed (model/engine.hpp input_warnings), in words: a JSON array,
  // and one CSV cell joined by " | ".
  std::vector<std::string> warnings;
};

// The prefill pool's layout and steady plan: its own, or the row's.
[[nodiscard]] inline const Workload& prefill_workload(const SteadyPlan& s) { return s.prefill ? s.prefill->workload : s.workload; }
[[nodiscard]] inline const CapacityPlan& prefill_plan(const SteadyPlan& s) { return s.prefill ? s.prefill->plan : s.plan; }

// The router a plan assumes unless told: round robin, NVIDIA Dynamo's frontend default
// (`--router-mode`, default round-robin: docs.nvidia.com/dynamo, Router Guide, v1.2.0) and
// kube-proxy's in IPVS mode (`--ipvs-scheduler`, default rr). The closed form reads the router
// (planner::routed_ca2: round robin's every n-th arrival, random's thinning; least-loaded and
// kv-aware approximated by round robin's). Least-loaded joins the replica with the fewest
// sequences waiting and running, which under bursts usually needs no more replicas; it balances
// sequence counts, not work: a replica of a few long prompts looks as free as one of a few short.
inline constexpr serve::Routing kDefaultPlanRouting = serve::Routing::round_robin;

struct PercentileScenario {
  double percentile = 99;          // 50 to below 100
  serve::ArrivalProcess arrivals;  // the fleet's one stream: poisson, or gamma of a CV
  double duration = 600;           // seconds of traffic a check simulates, cut to the bounds in fleet_check.hpp
  std::uint64_t seed = 1;
  std::optional<serve::Engine> engine;  // the checks' replicas run its scheduler (the plan's batch kept)
  serve::Routing routing = kDefaultPlanRouting;
  // The traffic's lengths where they are not the steady plan's fixed ones (the steady plan then
  // prices their mean): drawn from these distributions by each row's checks...
  std::optional<serve::LengthDistribution> prompt, gen;
  // ... or taken from this stream, arrivals from 0 at the target's rate: a trace rescaled, or one
  // pool's share of the traffic (planner/length_pools.hpp). A check takes its first
  // check_count() requests, all of them where it holds fewer but at least least_check_count()
  // (its `arrivals` then unused); a stream shorter than that is refused (check_traffic).
  std::shared_ptr<const std::vector<serve::Request>> stream;
  // The flag a refusal of the stream's length names: --arrivals for a trace, --pools for a pool's
  // share, and what the stream is in words. `drawn`: its lengths were drawn from --prompt and --gen (a refusal of their tail names
  // those), not read from a trace (named --arrivals).
  std::string stream_flag = "arrivals", stream_words = "the trace";
  bool drawn = false;
  // The cliff (up to 13 more checks a row: 9 factors, 4 bisections) is searched; --pools reports none, so skips it.
  bool cliff = true;
};

}  // namespace roofline::planner
