#include "planner/disaggregated_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "model/kv_transfer.hpp"
#include "planner/refusal.hpp"
#include "planner/replica.hpp"
#include "serve/kv_link.hpp"
#include "serve/summary.hpp"

namespace roofline::planner {

using namespace serve;

namespace {

constexpr int kSteps = 48;  // growth steps a search may take, both pools together

double sorted_percentile(std::vector<double>& v, double p) {
  std::sort(v.begin(), v.end());
  return percentile(v, p);
}

}  // namespace

void check_link(const ModelSpec& m, const SteadyPlan& s) {
  if (s.plan.prefill_replicas == 0 || !s.plan.feasible) return;
  const KvTransfer probe = kv_transfer(m, *s.gpu, s.workload);
  if (!probe.bytes) {
    throw Refusal("--model: known only by its size, its KV cache's bytes are unknown: --disaggregate --percentile "
                  "cannot simulate the cache's trip between the pools; plan without --percentile");
  }
  if (!probe.time) {
    throw Refusal(fmt::format("--gpu: {} names no interconnect: --disaggregate --percentile cannot simulate the "
                              "cache's trip between the pools; give it an interconnect, or plan without --percentile",
                              s.gpu->name));
  }
}

DisaggregatedCheck::DisaggregatedCheck(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t,
                                       const PercentileScenario& scenario)
    : CheckedRow(m, s, t, scenario) {
  check_link(m, s);
  prepare(m, s, false);
  pools_.routing = scenario.routing;
  // The decode blocks reserved before the prefill or after it, as the engine's disaggregated
  // serving does (the table's field depends on the engine alone, not on the GPU's memory).
  pools_.reserve_at_arrival =
      scenario.engine && serve::engine_defaults(*scenario.engine, 0).decode_reserves_at_arrival;
  pools_.transfer_time = kv_link(m, *s.gpu, prefill_workload(s), s.workload).time;
  if (s.prefill) {
    // The prefill pool's replica: its own layout's steps and cache, the same scheduler.
    prefill_cost_.emplace(m, *s.gpu, s.prefill->workload);
    SteadyPlan own = s;
    own.workload = s.prefill->workload;
    own.plan = s.prefill->plan;
    pools_.prefill_cost = &*prefill_cost_;
    const ServerConfig prefill = check_server(m, own, scenario, prefill_cost_->ranks(), false);
    pools_.prefill_kv_blocks = prefill.kv_blocks;
    pools_.prefill_limited_layers = prefill.limited_layers;
  }
}

PoolPoint DisaggregatedCheck::at(PoolCounts n, double rate) {
  const std::vector<Request>& requests = traffic_at(rate);
  pools_.prefill_replicas = static_cast<std::size_t>(n.prefill);
  pools_.decode_replicas = static_cast<std::size_t>(n.decode);
  const DisaggregatedResult r = simulate_disaggregated(requests, cost_, config_, pools_,
                                                       target_.sizing.bound ? Timing::bound : Timing::expected);
  std::vector<double> ttft, tpot, prefill_wait, decode_wait;
  ttft.reserve(r.all.served.size());
  tpot.reserve(r.all.served.size());
  prefill_wait.reserve(r.all.served.size());
  for (const Outcome& o : r.all.served) {
    ttft.push_back(o.ttft);
    if (o.gen > 1) tpot.push_back(o.tpot);
    const Handoff& h = r.handoffs[o.request];
    // queue_wait runs from the arrival to the first prefill step; the prefill replica's own part
    // of it from when the request reached its queue (its arrival, or reserving at arrival its
    // decode blocks' reservation, a decode-side wait counted below). The link's wait is the
    // sender's (or receiver's) link busy, from the later of the reservation and the prefill's end.
    // Its queue also waits for blocks that served requests hold until their transfers, which
    // after the prefill wait on the decode pool's reservations: a decode pool short of blocks
    // lengthens this side's wait too (docs/capacity-planning.md, "Grow the pool that misses").
    const double entry = pools_.reserve_at_arrival ? h.reserved - h.queued : 0;
    prefill_wait.push_back(o.queue_wait - entry + (h.sent - std::max(h.reserved, h.prefill_end)));
  }
  decode_wait.reserve(r.decode.served.size());
  // The decode pool's: its wait for blocks and from landing to its first step (its queue wait
  // runs from when it took the request, the transfer in it, and reserving at arrival the prefill
  // too: both lie between the reservation and the landing). Reserving at arrival, a prefill pool
  // too small to empty its queue holds decode blocks reserved the longer, so its wait can show
  // here first and grow the decode pool; the search's last stage brings each pool back down to
  // the fewest that meet the targets.
  for (const Outcome& o : r.decode.served) {
    const Handoff& h = r.handoffs[o.request];
    decode_wait.push_back(o.queue_wait - (h.landed - h.reserved));
  }
  const double p = scenario_.percentile;
  return {{sorted_percentile(ttft, p), sorted_percentile(tpot, p), r.all.dropped_too_long, r.all.dropped_no_room,
           kept_up(requests, r.all.served)},
          sorted_percentile(prefill_wait, p),
          sorted_percentile(decode_wait, p)};
}

PoolSearch search_pools(PoolCounts start, const LoadTarget& t, const std::function<PoolPoint(PoolCounts)>& check) {
  std::map<PoolCounts, PoolPoint> seen;  // each pair checked once
  const auto at = [&](PoolCounts n) -> PoolPoint {
    if (const auto it = seen.find(n); it != seen.end()) return it->second;
    return seen.emplace(n, check(n)).first->second;
  };
  PoolCounts n{std::max(1L, start.prefill), std::max(1L, start.decode)};
  // Drops come from the requests' lengths, not the load: no count of replicas serves them.
  if (const PoolPoint first = at(n); first.client.too_long + first.client.too_large > 0) return {{}, first, ""};
  long prefill_step = std::max(1L, n.prefill / 8), decode_step = std::max(1L, n.decode / 8);
  for (int steps = 0;; ++steps) {
    const PoolPoint p = at(n);
    if (p.client.meets(t)) break;
    if (steps >= kSteps || n.prefill >= kMaxReplicas || n.decode >= kMaxReplicas) {
      return {{}, p, fmt::format("the latencies miss the targets at {} decode and {} prefill replicas", n.decode, n.prefill)};
    }
    // A TPOT is the decode pool's alone; a TTFT waits on the side that queued it longer.
    const bool decode = p.client.tpot > t.tpot.value() || p.decode_wait > p.prefill_wait;
    long& count = decode ? n.decode : n.prefill;
    long& step = decode ? decode_step : prefill_step;
    count = std::min(kMaxReplicas, count + step);
    step *= 2;
  }
  // The fewest of one pool, the other's count fixed: down from a count that meets by steps that
  // double while they still meet (the answer is often one or two below), then bisection, from
  // the largest count below that missed with the other pool as it is now.
  const auto fewest = [&](long PoolCounts::*pool) {
    long hi = n.*pool, lo = 0;
    for (const auto& [c, p] : seen) {
      PoolCounts same = c;
      same.*pool = n.*pool;
      if (same == n && c.*pool < hi && !p.client.meets(t)) lo = std::max(lo, c.*pool);
    }
    const auto meets_at = [&](long k) {
      PoolCounts c = n;
      c.*pool = k;
      return at(c).client.meets(t);
    };
    for (long down = 1; hi - down > lo; down *= 2) {
      if (!meets_at(hi - down)) {
        lo = hi - down;
        break;
      }
      hi -= down;
    }
    while (hi - lo > 1) {
      const long mid = lo + (hi - lo) / 2;
      (meets_at(mid) ? hi : lo) = mid;
    }
    n.*pool = hi;
  };
  fewest(&PoolCounts::decode);
  fewest(&PoolCounts::prefill);
  return {n, at(n), ""};
}

PercentileRow search_disaggregated(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t,
                                   const PercentileScenario& scenario, const std::function<void(long)>& progress) {
  PercentileRow row;
  row.steady = &s;
  row.routing = scenario.routing;
  const Pool pool = pool_of(prefill_plan(s));
  const double cv = scenario.arrivals.kind == ArrivalProcess::Kind::gamma ? scenario.arrivals.cv : 1;
  row.closed_form = closed_form_replicas(pool, t, cv, scenario.percentile / 100, scenario.routing);
  row.decode_start = s.plan.replicas;
  DisaggregatedCheck c(m, s, t, scenario);
  row.check_requests = c.requests();
  row.check_seconds = c.seconds();
  const auto check = [&](PoolCounts n) {
    const PoolPoint p = c.at(n, t.requests_per_s);
    if (progress) progress(c.checks());
    return p;
  };
  const PoolSearch found = search_pools({std::max(1L, row.closed_form), std::max(1L, row.decode_start)}, t, check);
  row.checks = c.checks();
  if (found.counts.decode == 0) {
    const PercentilePoint& first = found.at.client;
    row.reason = first.too_long + first.too_large > 0
                     ? fmt::format("the simulated pools drop requests ({} longer than the model's context, {} larger {})",
                                   first.too_long, first.too_large, cache_dropped_from(s.workload))
                     : fmt::format("the P{} {}", scenario.percentile, found.reason);
    return row;
  }
  row.replicas = found.counts.prefill;
  row.decode_replicas = found.counts.decode;
  row.at_plan = found.at.client;
  row.feasible = true;
  if (const PoolCounts steady{pool.steady, s.plan.replicas}; steady != found.counts && steady.prefill >= 1) {
    const PoolPoint p = check(steady);
    row.at_steady = p.client;
    row.steady_waits = {p.prefill_wait, p.decode_wait};
  }
  row.cliff = cliff_rate([&](double rate) { return c.at(found.counts, rate).client.cliff_ttft(); }, t.requests_per_s,
                         row.at_plan.ttft, [&] {
                           if (progress) progress(c.checks());
                         }) /
              static_cast<double>(row.decode_replicas);
  row.checks = c.checks();
  return row;
}

}  // namespace roofline::planner
