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
    t.link_wait.push_back(h.sent - h.reserved);
    t.prefill.push_back(h.prefill_end - requests[o.request].arrival);
  }
  // The decode replica's queue wait runs from the prefill's end; its wait after the cache landed
  // is what is left once the blocks and the link are taken out.
  for (const Outcome& o : r.decode.served) {
    const Handoff& h = r.handoffs[o.request];
    t.block_wait.push_back(h.reserved - h.prefill_end);
    t.decode_wait.push_back(o.queue_wait - (h.landed - h.prefill_end));
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
    const LinkTime link = transfer_time_(requests_[i].prompt);
    h.reserved = at;
    h.sent = std::max({at, egress_[h.prefill_replica], ingress_[k]});
    const double free_at = h.sent + link.busy;
    h.landed = free_at + link.latency;
    egress_[h.prefill_replica] = free_at;
    ingress_[k] = free_at;
    out_.link_busy_seconds += link.busy;
    return h.landed;
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
  // A cap counts one run's requests against one allowance; here each request runs twice (its
  // prompt on a prefill replica, its output on a decode one).
  if (config.cap != nullptr) throw std::logic_error("simulate_disaggregated: a latency cap is for a colocated run");
  ServerConfig prefill_config = config;
  prefill_config.progress = [&](double share) { report(0.5 * share); };
  if (pools.prefill_kv_blocks > 0) prefill_config.kv_blocks = pools.prefill_kv_blocks;
  StepCost& prefill_cost = pools.prefill_cost != nullptr ? *pools.prefill_cost : cost;
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
  // The decode replicas' view: each request arriving as its prefill ends, holding all its
  // prompt's cache but the last token's (to cross the link), which the decode replica computes
  // to emit the first token.
  std::vector<Request> handed(requests.size());
  for (const std::size_t i : ends) {
    const Request& r = requests[i];
    handed[i] = {out.handoffs[i].prefill_end, r.prompt, r.gen, r.prompt - 1, 0};
  }
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

  // The client's view: each request served by the decode pool, timed from its own arrival.
  SimResult& all = out.all;
  std::vector<const Outcome*> prefill_of(requests.size(), nullptr);
  for (const Outcome& o : out.prefill.served) prefill_of[o.request] = &o;
  for (const Outcome& d : out.decode.served) {
    const double shift = handed[d.request].arrival - requests[d.request].arrival;
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
