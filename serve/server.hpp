#pragma once
// One replica's scheduler as an object that can be advanced a step at a time (serve/simulator.hpp
// describes what it models): simulate() hands it every request and runs it to the end; a fleet
// (serve/fleet.hpp) hands each replica the requests its router sends there, and advances every
// replica to an arrival's time to read its load before routing it. Which request waits, is
// admitted or is preempted is its SchedulingPolicy's (serve/scheduling_policy.hpp); how a step
// fills beside the running decodes, its ServerConfig's (unchunked_fit, mixed_steps: each engine's
// scheduler's); the blocks each rank holds, its BlockPool's.
//
// A step admits the requests taken that arrived by its start, so a replica may run a step that
// starts before time t only once every request arriving before t has been routed: run_until(t)
// runs exactly those steps, and the runs are the same however the calls are interleaved.
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <unordered_set>
#include <vector>

#include "serve/block_pool.hpp"
#include "serve/running_list.hpp"
#include "serve/scheduling_policy.hpp"
#include "serve/sequence.hpp"
#include "serve/simulator.hpp"

namespace roofline::serve {

// Whether a replica could ever hold r: its whole context (prompt, output and `drafts` more tokens,
// a last verify's) within the model's max_context, in the blocks one rank holds. A request it
// could not is dropped on arrival, said as too long or as no room (Outcome::dropped_*).
enum class Holds { yes, too_long, no_room };
[[nodiscard]] Holds holds(const Request& r, const ServerConfig& c, long rank_blocks, long drafts = 0);
// The rule a Server of `c` drops an arrival by: holds() in one rank's share of its blocks (of
// `ranks` attention ranks), a last verify's drafts beside it when speculating. Shared with what
// must know beforehand which requests a replica will serve (cli's sizing of an unchunked cache).
[[nodiscard]] Holds replica_holds(const Request& r, const ServerConfig& c, long ranks);

// The seed of a replica's stream of draft acceptances, a stream of its own (stream_seed): replica
// 0's configured seed is the run's, which the traffic draws its gaps and lengths from, and a
// speculating replica 0 drew the same uniforms as its acceptances (the i-th acceptance was the
// i-th gap's draw).
[[nodiscard]] inline std::uint64_t acceptance_seed(std::uint64_t replica_seed) {
  return stream_seed(replica_seed, 0xd1b54a32d192ed03ULL);
}

class Server {
 public:
  // `rows`: where the sequence-steps are counted against config.max_rows (a fleet's, shared by its
  // replicas); null: this server's own count.
  Server(const std::vector<Request>& requests, StepCost& cost, const ServerConfig& config, Timing timing,
         StepCost* draft = nullptr, double* rows = nullptr);

  // Routes request `index` here; requests are taken in the order they arrive.
  void take(std::size_t index);
  // Makes this a disaggregated fleet's decode replica: every request taken arrives without its
  // cache (Request::cached of it is to cross a link), is admitted first come first served as
  // any arrival, its blocks reserved then, and is not computed until its cache has landed in
  // them. `reserved(i, t)`: request i's blocks were reserved at t; it returns when its cache
  // lands. vLLM's decode scheduler (WAITING_FOR_REMOTE_KVS) and TensorRT-LLM's generation
  // executor allocate before they pull; serve/disaggregated.hpp says which engine does what.
  // It may return +infinity: the landing is not known yet (SGLang's decode server reserves before
  // the prefill runs), and land_at sets it once it is.
  void receive_over_link(std::function<double(std::size_t, double)> reserved) { reserved_ = std::move(reserved); }
  // Request `index`, reserved here with its landing not yet known, lands at `at`; the first step
  // starting at or after it admits it. std::logic_error when no such request is on the link here.
  void land_at(std::size_t index, double at);
  // `served(i, t)` hears each request this replica finishes, when its last token is out (a
  // disaggregated prefill replica's: its first token, whose cache then crosses the link).
  void on_served(std::function<void(std::size_t, double)> served) { served_ = std::move(served); }
  // Makes this a disaggregated fleet's prefill replica: a request served keeps its blocks until
  // release_at says when its cache has been read from them (vLLM's and TensorRT-LLM's prefill
  // workers free them once the transfer is done); until then they count against this cache.
  void hold_blocks_when_served() { holds_ = true; }
  // Request `index`, served here holding its blocks, frees them at `at` (the first step starting
  // at or after it sees them free). std::logic_error when no such request holds blocks here.
  void release_at(std::size_t index, double at);
  // Runs every step that starts before `t` (all of them at +infinity).
  void run_until(double t) {
    while (step_before(t)) {
    }
  }
  // When its next step (or its next wait's end) starts: +infinity when it has nothing to do.
  [[nodiscard]] double next_start() const;
  // Runs its next step if it starts before `t`; false when none does. A fleet whose replicas
  // share a link steps them in the order their steps start (serve/disaggregated.cpp).
  bool step_before(double t);
  void run() { run_until(std::numeric_limits<double>::infinity()); }
  // Requests taken that arrived by `t` and are neither finished nor dropped at `t` (waiting or
  // running), after run_until(t); a request this replica will drop is not counted.
  [[nodiscard]] long load(double t) const;
  // NVIDIA Dynamo's KV router's cost of sending `r` here at `t` (serve/router.hpp's kv-aware), in
  // blocks, as a router keeps it from what it routed: the prompts taken that have not yet made a
  // first token (each less what this replica had cached of it when it was taken), the prompts
  // taken and not finished, and `r`'s prompt less what this replica has cached of it. Requests
  // it will drop count in neither.
  [[nodiscard]] long kv_cost(double t, const Request& r) const;
  // Whether every request taken has been served or dropped, and when its latest step ended.
  [[nodiscard]] bool done() const { return next_ == taken_.size() && !busy(); }
  [[nodiscard]] double clock() const { return clock_; }
  // The batch and the cache after run_until(t), at t: the requests taken but not yet admitted
  // wait too (those it will drop aside), and a step ending after t still runs what it finished
  // (their blocks counted free).
  [[nodiscard]] Sample sample_at(double t) const;
  // The run's figures, after run(): what was served, dropped, and timed. Its `end` is when its
  // last request finished (its `start` when none did), not when a later arrival was dropped.
  [[nodiscard]] SimResult finish();

 private:
  // One attention rank's sequences: all of the replica's, or under data-parallel attention one
  // rank's (requests dealt to the ranks round robin as they arrive, as SGLang's DP controller
  // does), each with its own queue, batch, token budget and share of the KV blocks.
  struct Rank {
    std::deque<Seq> waiting;
    RunningList running;
    BlockPool blocks;
    // Decode replica only: admitted, their blocks reserved, their caches on the link, each with
    // when it lands; then landed, holding their blocks, admitted to the batch before any waiting
    // request (a preempted one at the queue's head must not wait on blocks these hold).
    std::vector<std::pair<double, Seq>> receiving;
    // The earliest of their landings: a step skips them until then (under SGLang's order most
    // wait for a prefill that has not run, their landing not yet known).
    double first_landing = std::numeric_limits<double>::infinity();
    // Prefill replica only (hold_blocks_when_served): requests served whose blocks their caches'
    // transfers still read, each with when they are freed (+infinity: not yet known), and the
    // earliest of those.
    struct Held {
      std::size_t req;
      long blocks;
      double release;
    };
    std::vector<Held> sending;
    double first_release = std::numeric_limits<double>::infinity();
    std::deque<Seq> landed;
  };

  [[nodiscard]] long blocks_for(long tokens) const { return serve::blocks_for(cfg_, tokens); }
  // The blocks a sequence admitted with its chunk asks for beyond those it holds, as the policy
  // counts its tokens (a landed cache, a waiting prompt, one tried alone).
  [[nodiscard]] long blocks_to_admit(const Seq& s) const;
  [[nodiscard]] bool busy() const;
  [[nodiscard]] bool receiving() const;
  [[nodiscard]] double next_landing() const;
  void land();
  void release();
  [[nodiscard]] double next_release() const;
  [[nodiscard]] Holds room_for(const Request& r) const;  // holds() on this replica
  [[nodiscard]] long prefill_blocks(const Request& r) const;  // a KV router's, for r here now
  void admit_arrivals();
  [[nodiscard]] Sample occupancy() const;
  void sample();
  void preempt(Rank& k, Seq s);
  // A waiting sequence as it would be admitted now: a preempted one's blocks the prefix cache
  // still holds its own, its computed tokens theirs (at least its cached prefix).
  [[nodiscard]] Seq resumed(const Rank& k, Seq s) const;
  // The blocks free to a resumed sequence beyond its own still held.
  [[nodiscard]] static long free_beside(const Rank& k, const Seq& s) {
    return k.blocks.free() - (s.ticket >= 0 ? s.blocks : 0);
  }
  // Gives a resumed sequence its held blocks back and `need` more; false (nothing changed) when
  // they are not free.
  bool claim(Rank& k, Seq& s, long need);
  bool grant(Rank& k, std::size_t i, long& budget);
  [[nodiscard]] bool runs_alone(const Rank& k) const;
  // Whether a step holds prompts beside decodes (ServerConfig::mixed_steps; a decode replica's always).
  [[nodiscard]] bool mixes() const { return cfg_.mixed_steps || reserved_ != nullptr; }
  bool prefill_alone(Rank& k, long& budget);
  void admit_waiting(Rank& k, long& budget);
  void schedule(Rank& k);
  void gather(const Rank& k, StepMix& mix, StepMix& drafts, StepMix& draft_prompts);
  bool step();
  long decode_yield();
  bool advance(Rank& k, Seq& s);

  const std::vector<Request>& req_;
  StepCost& cost_;
  StepCost* draft_;
  const ServerConfig& cfg_;
  // ServerConfig::retention where it applies (cached_survives_preemption, no windowed layers).
  Retention retain_;
  Timing timing_;
  std::unique_ptr<SchedulingPolicy> policy_;  // orders the queue, admits, picks the victim
  std::unordered_set<std::uint64_t> warm_;  // prefix groups this replica has admitted
  std::vector<std::size_t> taken_;  // the requests routed here, as they arrived
  std::vector<long> taken_prefill_;  // each one's prefill blocks as the KV router counted them
  std::size_t next_ = 0;            // the first of them not yet admitted
  std::size_t dealt_ = 0;
  long until_progress_ = 0;
  double clock_ = 0, next_sample_ = 0, own_rows_ = 0;
  double* rows_;
  long in_system_ = 0;       // admitted, neither finished nor dropped
  long finished_last_ = 0;   // sequences the latest step finished (at clock_, perhaps after a load's time)
  long doomed_pending_ = 0;  // taken, not yet admitted, and to be dropped
  // The KV router's blocks (kv_cost): prefill and decode, and what the latest step took off them.
  long kv_prefill_ = 0, kv_decode_ = 0, kv_prefill_last_ = 0, kv_decode_last_ = 0;
  bool preempted_ = false;
  // Its waiting queue's head cannot have its blocks, nothing runs and nothing was preempted:
  // nothing changes until a cache lands (a decode replica's, whose receiving caches hold the
  // blocks), a served request's blocks are released (a prefill replica's, whose transfers hold
  // them) or a request arrives.
  bool stalled_ = false;
  std::function<double(std::size_t, double)> reserved_;
  std::function<void(std::size_t, double)> served_;
  bool holds_ = false;  // hold_blocks_when_served
  Rng rng_;
  long decode_tokens_;
  std::vector<Rank> ranks_;
  long rank_blocks_;
  std::vector<StepMix> mixes_, drafts_, draft_prompts_;
  SimResult out_;
};

}  // namespace roofline::serve
