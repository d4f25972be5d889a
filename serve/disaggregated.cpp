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
  const double span = (all.end - all.start) * static_cast<double>(prefill_routed.size());
  return span > 0 ? prefill.busy_seconds / span : 0;
}

double DisaggregatedResult::decode_utilisation() const {
  const double span = (all.end - all.start) * static_cast<double>(decode_routed.size());
  return span > 0 ? decode.busy_seconds / span : 0;
}

double DisaggregatedResult::link_utilisation() const {
  const double span = (all.end - all.start) * static_cast<double>(prefill_routed.size());
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

// Both pools, their replicas advanced together, each step in the order they start, since each
// pool's queue waits on the other's: the prefill replicas hold a request's blocks until its cache
// has been read, which (after the prefill) waits for the decode replica's reservation; and
// reserving at arrival (SGLang), the prefill replica takes a request only once its decode blocks
// are reserved. A request's path, by the order (serve/disaggregated.hpp):
//   after the prefill: routed to a pair at its arrival and queued on its prefill replica; its
//     prefill ends, and once the run reaches that end its decode replica queues it (`handed`'s
//     arrival set to it), reserves its blocks when its turn comes, and sends its cache then;
//   at arrival: routed to a pair and queued on its decode replica; reserved there, it reaches
//     its prefill replica's queue (`prompts`' arrival set to that moment); its prefill ends, and
//     once the run reaches that end its cache is sent into the blocks held for it.
// Either way the prefill replica frees the blocks when the transfer ends, and the decode replica
// is told when the cache lands.
class PairedPools {
 public:
  PairedPools(const std::vector<Request>& requests, std::vector<Request>& prompts, std::vector<Request>& handed,
              StepCost& prefill_cost, StepCost& cost, const ServerConfig& prefill_config, const ServerConfig& config,
              const DisaggregatedConfig& pools, Timing timing, DisaggregatedResult& out)
      : requests_(requests), prompts_(prompts), handed_(handed), at_arrival_(pools.reserve_at_arrival),
        transfer_time_(pools.transfer_time),
        prefill_configs_(pools.prefill_replicas, prefill_config), decode_configs_(pools.decode_replicas, config),
        prefill_router_(make_router(pools.routing, pools.prefill_replicas, config.seed)),
        decode_router_(make_router(pools.routing, pools.decode_replicas, config.seed + 1)),
        waiting_(pools.prefill_replicas, 0), waiting_blocks_(pools.prefill_replicas, 0),
        pending_(pools.decode_replicas, 0), pending_blocks_(pools.decode_replicas, 0),
        egress_(pools.prefill_replicas, 0), ingress_(pools.decode_replicas, 0), out_(out) {
    for (std::size_t j = 0; j < prefill_configs_.size(); ++j) {
      prefill_configs_[j].seed = prefill_config.seed + j;
      prefill_configs_[j].progress = nullptr;
      prefill_.push_back(std::make_unique<Server>(prompts, prefill_cost, prefill_configs_[j], timing, nullptr, &prefill_rows_));
      prefill_[j]->hold_blocks_when_served();
      prefill_[j]->on_served([this](std::size_t i, double end) { prefilled(i, end); });
    }
    for (std::size_t k = 0; k < decode_configs_.size(); ++k) {
      decode_configs_[k].seed = config.seed + k;
      decode_configs_[k].progress = nullptr;
      // A preempted request's transferred cache is freed with its blocks: the decode replica
      // recomputes its prompt locally (vLLM's decode worker does), not only its output.
      decode_configs_[k].cached_survives_preemption = false;
      decode_.push_back(std::make_unique<Server>(handed, cost, decode_configs_[k], timing, nullptr, &decode_rows_));
      decode_[k]->receive_over_link([this](std::size_t i, double at) { return reserved(i, at); });
    }
    out.prefill_routed.assign(prefill_.size(), 0);
    out.decode_routed.assign(decode_.size(), 0);
    version_.assign(decode_.size() + prefill_.size(), 0);
  }

  // Request `i` arrives: its pair picked from the loads now and queued on the side that goes
  // first. `prefill_only`: a prompt no prefill replica can hold, which its prefill replica drops
  // (it never reaches the decode pool).
  void route(std::size_t i, bool prefill_only) {
    const Request& r = requests_[i];
    const double t = r.arrival;
    run_until(t);
    Handoff& h = out_.handoffs[i];
    // A prefill replica's load counts the requests waiting on their decode blocks for it (at
    // arrival); a decode replica's those sent to it whose prefill has not yet ended (after).
    h.prefill_replica = pick(*prefill_router_, prefill_, r, t, waiting_, waiting_blocks_);
    ++out_.prefill_routed[h.prefill_replica];
    if (prefill_only) {
      take(prefill_, h.prefill_replica, i);
      return;
    }
    Request plain = r;  // a decode replica holds no prefix group: its cache arrives over the link
    plain.group = 0;
    h.decode_replica = pick(*decode_router_, decode_, plain, t, pending_, pending_blocks_);
    ++out_.decode_routed[h.decode_replica];
    if (at_arrival_) {
      h.queued = t;
      ++waiting_[h.prefill_replica];
      waiting_blocks_[h.prefill_replica] += blocks_of(prefill_configs_, r);
      take(decode_, h.decode_replica, i);
    } else {
      ++pending_[h.decode_replica];
      pending_blocks_[h.decode_replica] += blocks_of(decode_configs_, r);
      take(prefill_, h.prefill_replica, i);
    }
  }

  // Every step that starts before `t`, in the order they start, and each ended prefill handed
  // on once the run reaches its end (by `t` included: a request arriving at t is routed after
  // the prefills ending then). At equal starts the decode replicas' steps go first: their
  // reservations at s are the prefill replicas' arrivals at s, which a prefill step starting at
  // s must admit; a prefill step at s hands nothing on before s. An ended prefill is handed on
  // when the run reaches its end, not when its step was run: a step run before another may end
  // after it, and the decode queues and the links go first come first served by the ends.
  void run_until(double t) {
    for (;;) {
      // The earliest start, the lowest slot on a tie (decode replicas first); an entry a later
      // refresh replaced is dropped here.
      while (!starts_.empty() && starts_.top().version != version_[starts_.top().slot]) starts_.pop();
      const bool steps = !starts_.empty() && starts_.top().start < t;
      const double at = steps ? starts_.top().start : t;
      if (!ended_.empty() && ended_.top().first <= at) {
        const auto [end, i] = ended_.top();
        ended_.pop();
        hand_on(i, end);
        continue;
      }
      if (!steps) return;
      const std::size_t slot = starts_.top().slot;
      starts_.pop();
      const bool decode = slot < decode_.size();
      const std::size_t k = decode ? slot : slot - decode_.size();
      (decode ? decode_ : prefill_)[k]->step_before(t);
      refresh(decode ? decode_ : prefill_, k);
    }
  }

  // The runs to the end, each pool's replicas' own.
  std::pair<std::vector<SimResult>, std::vector<SimResult>> finish() {
    run_until(std::numeric_limits<double>::infinity());
    std::vector<SimResult> pre, dec;
    for (const auto& s : prefill_) {
      if (!s->done()) throw std::logic_error("simulate: a prefill replica still holds a request it never ran");
      pre.push_back(s->finish());
    }
    for (const auto& s : decode_) {
      // A reservation whose prefill never ended would hold its decode replica for ever.
      if (!s->done()) throw std::logic_error("simulate: a decode replica still holds a cache that never left its prefill");
      dec.push_back(s->finish());
    }
    return {std::move(pre), std::move(dec)};
  }

 private:
  // A prompt's blocks on a pool's replicas (the layouts of the two pools may differ).
  [[nodiscard]] static long blocks_of(const std::vector<ServerConfig>& pool, const Request& r) {
    return blocks_for(pool.front(), r.prompt);
  }

  // Each replica's next step's start, kept in a heap: a replica's changes only when it steps,
  // takes a request, or hears of a landing or a release, and these say so (refresh), which
  // replaces its entry (the old one is dropped when it reaches the top): a scan of every
  // replica's start for each step grew with the pools' size.
  struct Start {
    double start;
    std::size_t slot;  // the decode replicas' 0 to D − 1, then the prefill replicas'
    std::uint64_t version;
    bool operator>(const Start& o) const { return start != o.start ? start > o.start : slot > o.slot; }
  };
  void refresh(const std::vector<std::unique_ptr<Server>>& pool, std::size_t k) {
    const std::size_t slot = &pool == &decode_ ? k : decode_.size() + k;
    const double start = pool[k]->next_start();
    ++version_[slot];
    if (start < std::numeric_limits<double>::infinity()) starts_.push({start, slot, version_[slot]});
  }
  void take(const std::vector<std::unique_ptr<Server>>& pool, std::size_t k, std::size_t i) {
    pool[k]->take(i);
    refresh(pool, k);
  }

  std::uint32_t pick(Router& router, const std::vector<std::unique_ptr<Server>>& pool, const Request& r, double t,
                     const std::vector<long>& sent, const std::vector<long>& sent_blocks) {
    load_.assign(router.reads_load() ? pool.size() : 0, 0);
    const bool kv = router.reads() == Load::kv_blocks;
    for (std::size_t k = 0; k < load_.size(); ++k) {
      load_[k] = kv ? pool[k]->kv_cost(t, r) + sent_blocks[k] : pool[k]->load(t) + sent[k];
    }
    const std::size_t k = router.pick(r, load_);
    if (k >= pool.size()) throw std::logic_error("simulate: a router picked a replica the pool does not have");
    return static_cast<std::uint32_t>(k);
  }

  // Its decode replica reserved request `i`'s blocks at `at`. After the prefill: its cache is
  // sent, and lands when this says. At arrival: its prefill replica queues it now, and the
  // landing is not known until that prefill has ended (hand_on tells the decode replica).
  double reserved(std::size_t i, double at) {
    Handoff& h = out_.handoffs[i];
    h.reserved = at;
    if (!at_arrival_) return send(i);
    prompts_[i].arrival = at;
    --waiting_[h.prefill_replica];
    waiting_blocks_[h.prefill_replica] -= blocks_of(prefill_configs_, requests_[i]);
    take(prefill_, h.prefill_replica, i);
    return std::numeric_limits<double>::infinity();
  }

  // Request `i`'s prefill ends at `end`, in a step run now: handed on once the run reaches `end`.
  void prefilled(std::size_t i, double end) {
    out_.handoffs[i].prefill_end = end;
    ended_.emplace(end, i);
  }

  // The run has reached request `i`'s prefill's end: its decode replica queues it (after the
  // prefill), or its cache goes into the blocks already held for it (at arrival).
  void hand_on(std::size_t i, double end) {
    Handoff& h = out_.handoffs[i];
    if (at_arrival_) {
      decode_[h.decode_replica]->land_at(i, send(i));
      refresh(decode_, h.decode_replica);
      return;
    }
    h.queued = end;
    handed_[i].arrival = end;
    --pending_[h.decode_replica];
    pending_blocks_[h.decode_replica] -= blocks_of(decode_configs_, requests_[i]);
    take(decode_, h.decode_replica, i);
  }

  // Request `i`'s blocks reserved and its prefill ended: its cache crosses the link once the
  // sender's link and the receiver's are free, one transfer at a time each way, and the prefill
  // replica's blocks are freed when the transfer ends; when it lands.
  double send(std::size_t i) {
    Handoff& h = out_.handoffs[i];
    const LinkTime link = transfer_time_(requests_[i].prompt);
    h.sent = std::max({h.prefill_end, h.reserved, egress_[h.prefill_replica], ingress_[h.decode_replica]});
    const double free_at = h.sent + link.busy;
    h.landed = free_at + link.latency;
    egress_[h.prefill_replica] = free_at;
    ingress_[h.decode_replica] = free_at;
    out_.link_busy_seconds += link.busy;
    prefill_[h.prefill_replica]->release_at(i, free_at);
    refresh(prefill_, h.prefill_replica);
    return h.landed;
  }

  const std::vector<Request>& requests_;
  std::vector<Request>& prompts_;
  std::vector<Request>& handed_;
  bool at_arrival_;
  std::function<LinkTime(long)> transfer_time_;
  std::vector<ServerConfig> prefill_configs_, decode_configs_;  // each Server holds its own by reference
  double prefill_rows_ = 0, decode_rows_ = 0;  // each pool's sequence-steps, against config.max_rows
  std::vector<std::unique_ptr<Server>> prefill_, decode_;
  std::unique_ptr<Router> prefill_router_, decode_router_;
  // Sent to each prefill replica, their decode blocks not yet reserved (at arrival), and to each
  // decode replica, still in prefill (after it): requests and their prompts' blocks, for the routers.
  std::vector<long> waiting_, waiting_blocks_, pending_, pending_blocks_;
  std::vector<long> load_;
  std::priority_queue<Start, std::vector<Start>, std::greater<>> starts_;
  std::vector<std::uint64_t> version_;  // each slot's latest entry in starts_
  std::vector<double> egress_, ingress_;  // when each prefill replica's link is next free, and each decode replica's
  // Prefills ended in steps already run, by when they ended (ties by request): not yet handed on.
  std::priority_queue<std::pair<double, std::size_t>, std::vector<std::pair<double, std::size_t>>, std::greater<>> ended_;
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
  if (pools.prefill_kv_blocks > 0) {
    prefill_config.kv_blocks = pools.prefill_kv_blocks;
    prefill_config.limited_layers = pools.prefill_limited_layers;
  }
  StepCost& prefill_cost = pools.prefill_cost != nullptr ? *pools.prefill_cost : cost;
  // Every request at its own index in both pools' views: its prompt alone (ending with its first
  // token) on a prefill replica, arriving there at its arrival, or reserving at arrival when its
  // decode blocks are reserved; and on a decode replica holding all its prompt's cache but the
  // last token's (to cross the link), which the decode replica computes to emit the first
  // token, arriving there when its prefill ends, or reserving at arrival at its arrival.
  std::vector<Request> prompts(requests), handed(requests);
  for (Request& p : prompts) p.gen = 1;
  for (Request& d : handed) d = {d.arrival, d.prompt, d.gen, d.prompt - 1, 0};
  const long prefill_rank_blocks = prefill_config.kv_blocks / prefill_cost.ranks();
  PairedPools both(requests, prompts, handed, prefill_cost, cost, prefill_config, config, pools, timing, out);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    // One no decode replica could ever hold (prompt and output, without speculation) is dropped
    // before either pool sees it, never prefilled; one no prefill replica could hold (its prompt
    // and first token) is dropped by its prefill replica, which Server::room_for decides the same way.
    if (const Holds h = holds(requests[i], config, rank_blocks); h != Holds::yes) {
      ++(h == Holds::too_long ? too_long : no_room);
      dropped.push_back({i, h == Holds::too_long, requests[i].gen});
      continue;
    }
    both.route(i, holds(prompts[i], prefill_config, prefill_rank_blocks) != Holds::yes);
    if ((i & 0x3fff) == 0) report(0.8 * static_cast<double>(i) / static_cast<double>(requests.size()));
  }
  auto [pre, dec] = both.finish();
  report(0.9);
  out.prefill = merge_runs(prompts, pre);
  out.decode = merge_runs(handed, dec);
  for (const Dropped& d : out.prefill.dropped) dropped.push_back(d);
  too_long += out.prefill.dropped_too_long;
  no_room += out.prefill.dropped_no_room;

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
        {d.ttft + shift, d.tpot, d.e2e + shift, p.queue_wait + bootstrap, d.gen, d.request, p.preemptions + d.preemptions,
         p.cached});
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
  all.start = out.prefill.start;  // every request arrives at the prefill pool
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
