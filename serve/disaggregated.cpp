#include "serve/disaggregated.hpp"

#include <algorithm>
#include <memory>
#include <limits>
#include <numeric>
#include <queue>
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
    t.link_wait.push_back(h.sent - std::max(h.reserved, h.prefill_end));
    t.prefill.push_back(h.prefill_end - requests[o.request].arrival);
  }
  // The decode replica's queue wait runs from when it took the request; its wait after the cache
  // landed is what is left once the blocks, the link (and, reserving at arrival, the prefill)
  // are taken out.
  for (const Outcome& o : r.decode.served) {
    const Handoff& h = r.handoffs[o.request];
    t.block_wait.push_back(h.reserved - h.queued);
    t.decode_wait.push_back(o.queue_wait - (h.landed - h.queued));
  }
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

// Request `i`'s cache, its prefill ended at `end` on its prefill replica, crosses the link into
// its decode replica's reserved blocks once the sender's link and the receiver's are free, one
// transfer at a time each way; when it lands.
double send_cache(const LinkTime& link, Handoff& h, double end, std::vector<double>& egress, std::vector<double>& ingress,
                  double& busy) {
  h.sent = std::max({end, h.reserved, egress[h.prefill_replica], ingress[h.decode_replica]});
  const double free_at = h.sent + link.busy;
  h.landed = free_at + link.latency;
  egress[h.prefill_replica] = free_at;
  ingress[h.decode_replica] = free_at;
  busy += link.busy;
  return h.landed;
}

// The decode pool: its replicas, the router picking one at each arrival, and the links into them.
class DecodePool {
 public:
  DecodePool(const std::vector<Request>& requests, const std::vector<Request>& handed, StepCost& cost,
             const ServerConfig& config, const DisaggregatedConfig& pools, Timing timing, DisaggregatedResult& out)
      : requests_(requests), transfer_time_(pools.transfer_time), n_(pools.decode_replicas), configs_(n_, config),
        router_(make_router(pools.routing, n_, config.seed + 1)), load_(router_->reads_load() ? n_ : 0), pending_(n_, 0),
        pending_blocks_(n_, 0),
        egress_(pools.prefill_replicas, 0), ingress_(n_, 0), out_(out) {
    for (std::size_t i = 0; i < n_; ++i) {
      configs_[i].seed = config.seed + i;
      configs_[i].progress = nullptr;
      // A preempted request's transferred cache is freed with its blocks: the decode replica
      // recomputes its prompt locally (vLLM's decode worker does), not only its output.
      configs_[i].cached_survives_preemption = false;
    }
    servers_.reserve(n_);
    for (std::size_t k = 0; k < n_; ++k) {
      servers_.push_back(std::make_unique<Server>(handed, cost, configs_[k], timing, nullptr, &rows_));
      servers_[k]->receive_over_link([this, k](std::size_t i, double at) { return send(i, k, at); });
    }
    out.decode_routed.assign(n_, 0);
  }

  // Request `i` arrives at `t`: its decode replica, chosen now from the loads now.
  void route(std::size_t i, const Request& r, double t) {
    // A decode replica holds no prefix group: its cache arrives over the link.
    Request plain = r;
    plain.group = 0;
    const bool kv = router_->reads() == Load::kv_blocks;
    if (router_->reads_load()) {
      run_until(t);
      // Sent here and still in prefill: the router knows it sent them (the KV router, their
      // prompts' blocks, which the decode replica will hold).
      for (std::size_t k = 0; k < n_; ++k) {
        load_[k] = kv ? servers_[k]->kv_cost(t, plain) + pending_blocks_[k] : servers_[k]->load(t) + pending_[k];
      }
    }
    const std::size_t k = router_->pick(plain, load_);
    if (k >= n_) throw std::logic_error("simulate: a router picked a decode replica the pool does not have");
    out_.handoffs[i].decode_replica = static_cast<std::uint32_t>(k);
    ++out_.decode_routed[k];
    ++pending_[k];
    pending_blocks_[k] += blocks_of(r);
  }

  [[nodiscard]] long blocks_of(const Request& r) const {
    return (r.prompt + configs_[0].block_tokens - 1) / configs_[0].block_tokens;
  }

  // Request `i`'s prefill has ended: its decode replica queues it, to reserve its blocks.
  void hand(std::size_t i) {
    const std::size_t k = out_.handoffs[i].decode_replica;
    out_.handoffs[i].queued = out_.handoffs[i].prefill_end;
    servers_[k]->take(i);
    --pending_[k];
    pending_blocks_[k] -= blocks_of(requests_[i]);
  }

  // Runs every replica's steps that start before `t`, all replicas' in the order they start: a
  // reservation starts a transfer on a prefill replica's link that other decode replicas'
  // reservations share, first come first served.
  void run_until(double t) {
    using Next = std::pair<double, std::size_t>;
    std::priority_queue<Next, std::vector<Next>, std::greater<>> next;
    for (std::size_t k = 0; k < n_; ++k) {
      if (const double at = servers_[k]->next_start(); at < t) next.emplace(at, k);
    }
    while (!next.empty()) {
      const std::size_t k = next.top().second;
      next.pop();
      servers_[k]->step_before(t);
      if (const double at = servers_[k]->next_start(); at < t) next.emplace(at, k);
    }
  }

  std::vector<SimResult> finish() {
    run_until(std::numeric_limits<double>::infinity());
    std::vector<SimResult> runs;
    runs.reserve(n_);
    for (const auto& s : servers_) runs.push_back(s->finish());
    return runs;
  }

 private:
  // Decode replica `k` reserved request `i`'s blocks at `at`: its cache goes once the sender's
  // link and the receiver's are free, one transfer at a time each way; when it lands.
  double send(std::size_t i, std::size_t k, double at) {
    Handoff& h = out_.handoffs[i];
    if (h.decode_replica != k) throw std::logic_error("simulate: a cache reserved on a decode replica it was not sent to");
    h.reserved = at;
    return send_cache(transfer_time_(requests_[i].prompt), h, h.prefill_end, egress_, ingress_, out_.link_busy_seconds);
  }

  const std::vector<Request>& requests_;
  std::function<LinkTime(long)> transfer_time_;
  std::size_t n_;
  std::vector<ServerConfig> configs_;
  double rows_ = 0;
  std::vector<std::unique_ptr<Server>> servers_;
  std::unique_ptr<Router> router_;
  std::vector<long> load_, pending_;
  std::vector<long> pending_blocks_;  // their prompts' blocks, for the KV router
  std::vector<double> egress_;   // when each prefill replica's link is next free
  std::vector<double> ingress_;  // when each decode replica's is
  DisaggregatedResult& out_;
};

// SGLang's order (DisaggregatedConfig::reserve_at_arrival): both pools' replicas advanced
// together, each step in the order they start. A request's decode replica takes it at its
// arrival and reserves its blocks when its turn comes; only then does its prefill replica take
// it (`prompts[i].arrival` set to that moment: the bootstrap queue's wait), and once that
// prefill ends its cache is sent and the decode replica told when it lands.
class PreallocFleet {
 public:
  PreallocFleet(const std::vector<Request>& requests, std::vector<Request>& prompts, const std::vector<Request>& handed,
                StepCost& prefill_cost, StepCost& cost, const ServerConfig& prefill_config, const ServerConfig& config,
                const DisaggregatedConfig& pools, Timing timing, DisaggregatedResult& out)
      : requests_(requests), prompts_(prompts), transfer_time_(pools.transfer_time), block_tokens_(config.block_tokens),
        prefill_configs_(pools.prefill_replicas, prefill_config), decode_configs_(pools.decode_replicas, config),
        prefill_router_(make_router(pools.routing, pools.prefill_replicas, config.seed)),
        decode_router_(make_router(pools.routing, pools.decode_replicas, config.seed + 1)),
        bootstrap_(pools.prefill_replicas, 0), bootstrap_blocks_(pools.prefill_replicas, 0),
        egress_(pools.prefill_replicas, 0), ingress_(pools.decode_replicas, 0), out_(out) {
    for (std::size_t j = 0; j < prefill_configs_.size(); ++j) {
      prefill_configs_[j].seed = prefill_config.seed + j;
      prefill_configs_[j].progress = nullptr;
      prefill_.push_back(std::make_unique<Server>(prompts, prefill_cost, prefill_configs_[j], timing, nullptr, &prefill_rows_));
      prefill_[j]->on_served([this](std::size_t i, double end) { prefilled(i, end); });
    }
    for (std::size_t k = 0; k < decode_configs_.size(); ++k) {
      decode_configs_[k].seed = config.seed + k;
      decode_configs_[k].progress = nullptr;
      decode_configs_[k].cached_survives_preemption = false;  // as DecodePool's
      decode_.push_back(std::make_unique<Server>(handed, cost, decode_configs_[k], timing, nullptr, &decode_rows_));
      decode_[k]->receive_over_link([this](std::size_t i, double at) { return reserved(i, at); });
    }
    out.prefill_routed.assign(prefill_.size(), 0);
    out.decode_routed.assign(decode_.size(), 0);
  }

  // Request `i` arrives: its pair picked from the loads now, and its decode replica queues it.
  void route(std::size_t i) {
    const Request& r = requests_[i];
    const double t = r.arrival;
    run_until(t);
    Handoff& h = out_.handoffs[i];
    // A prefill replica's load counts the requests waiting on their decode blocks for it.
    h.prefill_replica = pick(*prefill_router_, prefill_, r, t, &bootstrap_, &bootstrap_blocks_);
    Request plain = r;  // a decode replica holds no prefix group: its cache arrives over the link
    plain.group = 0;
    h.decode_replica = pick(*decode_router_, decode_, plain, t, nullptr, nullptr);
    h.queued = t;
    ++out_.prefill_routed[h.prefill_replica];
    ++out_.decode_routed[h.decode_replica];
    ++bootstrap_[h.prefill_replica];
    bootstrap_blocks_[h.prefill_replica] += blocks_of(r);
    decode_[h.decode_replica]->take(i);
  }

  // Every replica's steps that start before `t`, in the order they start: a step of one pool
  // may queue a request on, or land a cache in, a replica of the other. At equal starts the
  // decode replicas' go first: their reservations at s are the prefill replicas' arrivals at s,
  // which a prefill step starting at s must admit (a prefill step at s lands nothing before s).
  // A cache is sent when its prefill's step has ended, not when that step was run: a step run
  // before another may end after it, and the links go first come first served by the ends.
  void run_until(double t) {
    for (;;) {
      Server* first = nullptr;
      double at = t;
      for (auto* pool : {&decode_, &prefill_}) {
        for (const auto& s : *pool) {
          if (const double start = s->next_start(); start < at) at = start, first = s.get();
        }
      }
      if (!ready_.empty() && ready_.top().first < t && ready_.top().first <= at) {
        send(ready_.top().second, ready_.top().first);
        ready_.pop();
        continue;
      }
      if (first == nullptr) return;
      first->step_before(t);
    }
  }

  // The runs to the end, each pool's replicas' own.
  std::pair<std::vector<SimResult>, std::vector<SimResult>> finish() {
    run_until(std::numeric_limits<double>::infinity());
    std::vector<SimResult> pre, dec;
    for (const auto& s : prefill_) pre.push_back(s->finish());
    for (const auto& s : decode_) {
      // A reservation whose prefill never ended would hold its decode replica for ever.
      if (!s->done()) throw std::logic_error("simulate: a decode replica still holds a cache that never left its prefill");
      dec.push_back(s->finish());
    }
    return {std::move(pre), std::move(dec)};
  }

 private:
  [[nodiscard]] long blocks_of(const Request& r) const { return (r.prompt + block_tokens_ - 1) / block_tokens_; }

  std::uint32_t pick(Router& router, const std::vector<std::unique_ptr<Server>>& pool, const Request& r, double t,
                     const std::vector<long>* waiting, const std::vector<long>* waiting_blocks) {
    load_.assign(router.reads_load() ? pool.size() : 0, 0);
    const bool kv = router.reads() == Load::kv_blocks;
    for (std::size_t k = 0; k < load_.size(); ++k) {
      load_[k] = kv ? pool[k]->kv_cost(t, r) + (waiting_blocks ? (*waiting_blocks)[k] : 0)
                    : pool[k]->load(t) + (waiting ? (*waiting)[k] : 0);
    }
    const std::size_t k = router.pick(r, load_);
    if (k >= pool.size()) throw std::logic_error("simulate: a router picked a replica the pool does not have");
    return static_cast<std::uint32_t>(k);
  }

  // Decode replica's blocks for request `i` reserved at `at`: its prefill replica queues it now.
  double reserved(std::size_t i, double at) {
    Handoff& h = out_.handoffs[i];
    h.reserved = at;
    prompts_[i].arrival = at;
    --bootstrap_[h.prefill_replica];
    bootstrap_blocks_[h.prefill_replica] -= blocks_of(requests_[i]);
    prefill_[h.prefill_replica]->take(i);
    return std::numeric_limits<double>::infinity();  // landed once its prefill has ended (prefilled)
  }

  // Request `i`'s prefill ends at `end`, in a step run now: its cache is sent once the run reaches `end`.
  void prefilled(std::size_t i, double end) {
    out_.handoffs[i].prefill_end = end;
    ready_.emplace(end, i);
  }

  void send(std::size_t i, double end) {
    Handoff& h = out_.handoffs[i];
    const double landed = send_cache(transfer_time_(requests_[i].prompt), h, end, egress_, ingress_, out_.link_busy_seconds);
    decode_[h.decode_replica]->land_at(i, landed);
  }

  const std::vector<Request>& requests_;
  std::vector<Request>& prompts_;
  std::function<LinkTime(long)> transfer_time_;
  long block_tokens_;
  std::vector<ServerConfig> prefill_configs_, decode_configs_;  // each Server holds its own by reference
  double prefill_rows_ = 0, decode_rows_ = 0;  // each pool's sequence-steps, against config.max_rows
  std::vector<std::unique_ptr<Server>> prefill_, decode_;
  std::unique_ptr<Router> prefill_router_, decode_router_;
  std::vector<long> bootstrap_, bootstrap_blocks_;  // sent to each prefill replica, their decode blocks not yet reserved
  std::vector<long> load_;
  std::vector<double> egress_, ingress_;
  // Prefills ended in steps already run, by when they ended: their caches not yet sent.
  std::priority_queue<std::pair<double, std::size_t>, std::vector<std::pair<double, std::size_t>>, std::greater<>> ready_;
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
  // A cap counts one run's requests against one allowance; here each request runs twice (its
  // prompt on a prefill replica, its output on a decode one).
  if (config.cap != nullptr) throw std::logic_error("simulate_disaggregated: a latency cap is for a colocated run");
  DisaggregatedResult out;
  out.handoffs.assign(requests.size(), {});
  std::vector<Dropped> dropped;
  long too_long = 0, no_room = 0;
  const long rank_blocks = config.kv_blocks / cost.ranks();
  ServerConfig prefill_config = config;
  prefill_config.progress = [&](double share) { report(0.5 * share); };
  if (pools.prefill_kv_blocks > 0) prefill_config.kv_blocks = pools.prefill_kv_blocks;
  StepCost& prefill_cost = pools.prefill_cost != nullptr ? *pools.prefill_cost : cost;
  // The decode replicas' view: each request holding all its prompt's cache but the last token's
  // (to cross the link), which the decode replica computes to emit the first token; it arrives
  // there when its prefill ends, or (reserving at arrival) when it arrives.
  std::vector<Request> handed(requests.size());
  const auto hand_over = [&](std::size_t i, double at) {
    const Request& r = requests[i];
    handed[i] = {at, r.prompt, r.gen, r.prompt - 1, 0};
  };

  if (pools.reserve_at_arrival) {
    // Every request at its own index; its prompt arrives at its prefill replica when its decode
    // blocks are reserved, and one the prefill replica could never hold is dropped here, as one
    // the decode replica could never hold is (its reservation would wait on it for ever).
    std::vector<Request> prompts(requests);
    const long prefill_rank_blocks = prefill_config.kv_blocks / prefill_cost.ranks();
    std::vector<std::size_t> kept;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      bool long_one = false;
      const bool room = decode_fits(requests[i], config, rank_blocks, long_one) &&
                        (requests[i].prompt + config.block_tokens) / config.block_tokens <= prefill_rank_blocks;
      if (!room) {
        ++(long_one ? too_long : no_room);
        dropped.push_back({i, long_one});
        continue;
      }
      prompts[i].gen = 1;
      hand_over(i, requests[i].arrival);
      kept.push_back(i);
    }
    PreallocFleet fleet(requests, prompts, handed, prefill_cost, cost, prefill_config, config, pools, timing, out);
    for (std::size_t n = 0; n < kept.size(); ++n) {
      fleet.route(kept[n]);
      if ((n & 0x3fff) == 0) report(0.8 * static_cast<double>(n) / static_cast<double>(kept.size()));
    }
    auto [pre, dec] = fleet.finish();
    report(0.9);
    out.prefill = merge_runs(prompts, pre);
    out.decode = merge_runs(handed, dec);
  } else {
    // The prefill pool's requests: those a decode replica could hold, each ending with its first token.
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
    FleetResult pre = simulate_fleet(prompts, prefill_cost, prefill_config, {pools.prefill_replicas, pools.routing}, timing);
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
    // then) and prefills ending (each queued on its decode replica then, its blocks reserved when
    // its turn comes and its cache sent into them). A prefill ends after its arrival, so a decode
    // replica is advanced to a time only once every request reaching it before then is queued.
    std::vector<std::size_t> ends;  // prefilled requests by when their prefill ended
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (prefilled[i]) ends.push_back(i);
    }
    std::stable_sort(ends.begin(), ends.end(),
                     [&](std::size_t a, std::size_t b) { return out.handoffs[a].prefill_end < out.handoffs[b].prefill_end; });
    for (const std::size_t i : ends) hand_over(i, out.handoffs[i].prefill_end);
    DecodePool decode(requests, handed, cost, config, pools, timing, out);
    std::size_t next_end = 0;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (!prefilled[i]) continue;
      const double t = requests[i].arrival;
      while (next_end < ends.size() && out.handoffs[ends[next_end]].prefill_end <= t) decode.hand(ends[next_end++]);
      decode.route(i, requests[i], t);
      if ((i & 0x3fff) == 0) report(0.5 + 0.25 * static_cast<double>(i) / static_cast<double>(requests.size()));
    }
    while (next_end < ends.size()) decode.hand(ends[next_end++]);
    std::vector<SimResult> runs = decode.finish();
    report(0.9);
    out.decode = merge_runs(handed, runs);
    out.prefill = std::move(pre.all);
  }

  // The client's view: each request served by the decode pool, timed from its own arrival.
  SimResult& all = out.all;
  std::vector<const Outcome*> prefill_of(requests.size(), nullptr);
  for (const Outcome& o : out.prefill.served) prefill_of[o.request] = &o;
  for (const Outcome& d : out.decode.served) {
    const double shift = handed[d.request].arrival - requests[d.request].arrival;
    const Outcome& p = *prefill_of[d.request];
    // Reserving at arrival, the prefill replica's queue began at the reservation.
    const double bootstrap = pools.reserve_at_arrival ? out.handoffs[d.request].reserved - requests[d.request].arrival : 0;
    all.served.push_back(
        {d.ttft + shift, d.tpot, d.e2e + shift, p.queue_wait + bootstrap, d.gen, d.request, p.preemptions + d.preemptions});
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
