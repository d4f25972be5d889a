#include "serve/disaggregated.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "serve/fleet.hpp"
#include "serve/server.hpp"

namespace roofline::serve {

double DisaggregatedResult::prefill_utilisation() const {
  const double span = all.end * static_cast<double>(prefill_routed.size());
  return span > 0 ? prefill.busy_seconds / span : 0;
}

double DisaggregatedResult::decode_utilisation() const {
  const double span = all.end * static_cast<double>(decode_routed.size());
  return span > 0 ? decode.busy_seconds / span : 0;
}

double DisaggregatedResult::link_utilisation() const {
  const double span = all.end * static_cast<double>(prefill_routed.size());
  return span > 0 ? link_busy_seconds / span : 0;
}

HandoffTimes handoff_times(const std::vector<Request>& requests, const DisaggregatedResult& r) {
  HandoffTimes t;
  for (const Outcome& o : r.all.served) {
    const Handoff& h = r.handoffs[o.request];
    t.transfer.push_back(h.landed - h.prefill_end);
    t.link_wait.push_back(h.sent - h.prefill_end);
    t.prefill.push_back(h.prefill_end - requests[o.request].arrival);
  }
  for (const Outcome& o : r.decode.served) t.decode_wait.push_back(o.queue_wait);
  return t;
}

namespace {

// What a decode replica must hold of a request (as Server::fits: prompt and output, without
// speculation); false when it never could, so the request is dropped on arrival, never prefilled.
bool decode_fits(const Request& r, const ServerConfig& c, long rank_blocks, bool& too_long) {
  too_long = c.max_context > 0 && r.prompt + r.gen > c.max_context;
  if (too_long) return false;
  return (r.prompt + r.gen + c.block_tokens - 1) / c.block_tokens <= rank_blocks;
}

// The decode pool: its replicas, the router picking one at each arrival, and the links into them.
class DecodePool {
 public:
  DecodePool(const std::vector<Request>& landed, StepCost& cost, const ServerConfig& config, const DisaggregatedConfig& pools,
             Timing timing, DisaggregatedResult& out)
      : n_(pools.decode_replicas), configs_(n_, config), router_(make_router(pools.routing, n_, config.seed + 1)),
        load_(router_->reads_load() ? n_ : 0), pending_(n_, 0), ingress_(n_, 0), last_landed_(n_, 0), out_(out) {
    for (std::size_t i = 0; i < n_; ++i) {
      configs_[i].seed = config.seed + i;
      configs_[i].progress = nullptr;
      // A preempted request's transferred cache is freed with its blocks: the decode replica
      // recomputes its prompt locally (vLLM's decode worker does), not only its output.
      configs_[i].cached_survives_preemption = false;
    }
    servers_.reserve(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      servers_.push_back(std::make_unique<Server>(landed, cost, configs_[i], timing, nullptr, &rows_));
    }
    out.decode_routed.assign(n_, 0);
  }

  // Request `i` arrives at `t`: its decode replica, chosen now from the loads now.
  void route(std::size_t i, const Request& r, double t) {
    if (router_->reads_load()) {
      for (std::size_t k = 0; k < n_; ++k) {
        servers_[k]->run_until(t);
        // Sent here and still in prefill or on the link: the router knows it sent them.
        load_[k] = servers_[k]->load(t) + pending_[k];
      }
    }
    // A decode replica holds no prefix group: its cache arrives over the link.
    Request plain = r;
    plain.group = 0;
    const std::size_t k = router_->pick(plain, load_);
    if (k >= n_) throw std::logic_error("simulate: a router picked a decode replica the pool does not have");
    out_.handoffs[i].decode_replica = static_cast<std::uint32_t>(k);
    ++out_.decode_routed[k];
    ++pending_[k];
  }

  // Its cache has landed at `landed_at`, the replica's ingress free from `free_at`.
  [[nodiscard]] double ingress_free(std::size_t k) const { return ingress_[k]; }
  void land(std::size_t i, std::size_t k, double free_at, double landed_at) {
    ingress_[k] = free_at;
    // A replica takes its requests in the order they arrive: its ingress is first come first
    // served and the latency one link's, so each lands after the one before.
    if (landed_at < last_landed_[k]) throw std::logic_error("simulate: a decode replica's caches landed out of order");
    last_landed_[k] = landed_at;
    servers_[k]->take(i);
    --pending_[k];
  }

  std::vector<SimResult> finish() {
    std::vector<SimResult> runs;
    runs.reserve(n_);
    for (const auto& s : servers_) {
      s->run();
      runs.push_back(s->finish());
    }
    return runs;
  }

 private:
  std::size_t n_;
  std::vector<ServerConfig> configs_;
  double rows_ = 0;
  std::vector<std::unique_ptr<Server>> servers_;
  std::unique_ptr<Router> router_;
  std::vector<long> load_, pending_;
  std::vector<double> ingress_, last_landed_;
  DisaggregatedResult& out_;
};

}  // namespace

DisaggregatedResult simulate_disaggregated(const std::vector<Request>& requests, StepCost& cost, const ServerConfig& config,
                                           const DisaggregatedConfig& pools, Timing timing) {
  check_server(config);
  if (pools.prefill_replicas == 0 || pools.decode_replicas == 0) {
    throw std::invalid_argument("simulate: a disaggregated fleet needs a prefill and a decode replica");
  }
  if (!pools.transfer_time) throw std::invalid_argument("simulate: a disaggregated fleet needs its link's transfer time");
  if (config.speculation) throw std::invalid_argument("simulate: speculative decoding is not modelled disaggregated");
  const auto report = [&](double share) {
    if (config.progress) config.progress(share);
  };
  DisaggregatedResult out;
  out.handoffs.assign(requests.size(), {});
  std::vector<Dropped> dropped;
  long too_long = 0, no_room = 0;

  // The prefill pool's requests: those a decode replica could hold, each ending with its first token.
  const long rank_blocks = config.kv_blocks / cost.ranks();
  std::vector<Request> prompts;
  std::vector<std::size_t> origin;  // each prompt's request
  for (std::size_t i = 0; i < requests.size(); ++i) {
    bool long_one = false;
    if (!decode_fits(requests[i], config, rank_blocks, long_one)) {
      ++(long_one ? too_long : no_room);
      dropped.push_back({i, long_one});
      continue;
    }
    Request p = requests[i];
    p.gen = 1;
    prompts.push_back(p);
    origin.push_back(i);
  }
  ServerConfig prefill_config = config;
  prefill_config.progress = [&](double share) { report(0.5 * share); };
  FleetResult pre = simulate_fleet(prompts, cost, prefill_config, {pools.prefill_replicas, pools.routing}, timing);
  out.prefill_routed = pre.routed;
  std::vector<bool> prefilled(requests.size(), false);
  for (Outcome& o : pre.all.served) {
    o.request = origin[o.request];
    Handoff& h = out.handoffs[o.request];
    h.prefill_end = requests[o.request].arrival + o.ttft;
    prefilled[o.request] = true;
  }
  for (std::size_t j = 0; j < prompts.size(); ++j) out.handoffs[origin[j]].prefill_replica = pre.replica_of[j];
  for (Dropped& d : pre.all.dropped) {
    d.request = origin[d.request];
    dropped.push_back(d);
  }
  too_long += pre.all.dropped_too_long;
  no_room += pre.all.dropped_no_room;

  // The decode pool, fed two streams in time order: arrivals (each routed to a decode replica
  // then) and prefills ending (each cache sent then, or when its links are free). A prefill ends
  // after its arrival and a cache lands after its prefill, so a decode replica is advanced to a
  // time only once every request landing before it has been taken.
  std::vector<std::size_t> ends;  // prefilled requests by when their prefill ended
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (prefilled[i]) ends.push_back(i);
  }
  std::stable_sort(ends.begin(), ends.end(),
                   [&](std::size_t a, std::size_t b) { return out.handoffs[a].prefill_end < out.handoffs[b].prefill_end; });
  std::vector<Request> landed(requests.size());  // the decode replicas' view: arriving as the cache lands
  DecodePool decode(landed, cost, config, pools, timing, out);
  std::vector<double> egress(pools.prefill_replicas, 0);  // when each prefill replica's link is next free
  std::size_t next_end = 0;
  const auto hand_off = [&](std::size_t i) {
    Handoff& h = out.handoffs[i];
    const Request& r = requests[i];
    const LinkTime link = pools.transfer_time(r.prompt);
    const std::size_t k = h.decode_replica;
    h.sent = std::max({h.prefill_end, egress[h.prefill_replica], decode.ingress_free(k)});
    const double free_at = h.sent + link.busy;
    h.landed = free_at + link.latency;
    egress[h.prefill_replica] = free_at;
    out.link_busy_seconds += link.busy;
    // It holds the whole prompt's cache but the last token's, which the decode replica computes
    // to emit the first token.
    landed[i] = {h.landed, r.prompt, r.gen, r.prompt - 1, 0};
    decode.land(i, k, free_at, h.landed);
  };
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!prefilled[i]) continue;
    const double t = requests[i].arrival;
    while (next_end < ends.size() && out.handoffs[ends[next_end]].prefill_end <= t) hand_off(ends[next_end++]);
    decode.route(i, requests[i], t);
    if ((i & 0x3fff) == 0) report(0.5 + 0.25 * static_cast<double>(i) / static_cast<double>(requests.size()));
  }
  while (next_end < ends.size()) hand_off(ends[next_end++]);
  std::vector<SimResult> runs = decode.finish();
  report(0.9);
  out.decode = merge_runs(landed, runs);
  out.prefill = std::move(pre.all);

  // The client's view: each request served by the decode pool, timed from its own arrival.
  SimResult& all = out.all;
  std::vector<const Outcome*> prefill_of(requests.size(), nullptr);
  for (const Outcome& o : out.prefill.served) prefill_of[o.request] = &o;
  for (const Outcome& d : out.decode.served) {
    const double shift = landed[d.request].arrival - requests[d.request].arrival;
    const Outcome& p = *prefill_of[d.request];
    all.served.push_back({d.ttft + shift, d.tpot, d.e2e + shift, p.queue_wait, d.gen, d.request, p.preemptions + d.preemptions});
  }
  for (const Dropped& d : out.decode.dropped) dropped.push_back(d);
  too_long += out.decode.dropped_too_long;
  no_room += out.decode.dropped_no_room;
  std::sort(dropped.begin(), dropped.end(), [](const Dropped& a, const Dropped& b) { return a.request < b.request; });
  all.dropped = std::move(dropped);
  all.dropped_too_long = too_long;
  all.dropped_no_room = no_room;
  all.itl = out.decode.itl;
  all.preemptions = out.prefill.preemptions + out.decode.preemptions;
  all.steps = out.prefill.steps + out.decode.steps;
  all.end = std::max(out.prefill.end, out.decode.end);
  all.prompt_tokens = out.decode.prompt_tokens;
  all.output_tokens = out.decode.output_tokens;
  all.cached_tokens = out.prefill.cached_tokens;
  all.recomputed_tokens = out.prefill.recomputed_tokens + out.decode.recomputed_tokens;
  all.running_seconds = out.decode.running_seconds;
  all.busy_seconds = out.prefill.busy_seconds + out.decode.busy_seconds;
  all.peak_running = out.decode.peak_running;
  all.peak_kv_share = out.decode.peak_kv_share;
  report(1);
  return out;
}

}  // namespace roofline::serve
