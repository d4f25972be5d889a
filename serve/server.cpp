#include "serve/server.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace roofline::serve {

Server::Server(const std::vector<Request>& r, StepCost& c, const ServerConfig& cfg, Timing t, StepCost* draft,
               double* rows)
    : req_(r), cost_(c), draft_(draft), cfg_(cfg),
      retain_(cfg.cached_survives_preemption && cfg.limited_layers.empty() ? cfg.retention : Retention::none), timing_(t), policy_(make_policy(cfg)),
      rows_(rows != nullptr ? rows : &own_rows_), rng_(acceptance_seed(cfg.seed)), decode_tokens_(cfg.speculation ? cfg.speculation->k + 1 : 1),
      ranks_(static_cast<std::size_t>(c.ranks())), rank_blocks_(cfg.kv_blocks / c.ranks()) {
  for (Rank& k : ranks_) k.blocks = BlockPool(rank_blocks_);
}

void Server::take(std::size_t index) {
  const Request& r = req_[index];
  if (taken_.empty()) out_.start = r.arrival;
  taken_.push_back(index);
  const bool room = room_for(r) == Holds::yes;
  const long prefill = room ? prefill_blocks(r) : 0;
  taken_prefill_.push_back(prefill);
  if (!room) {
    ++doomed_pending_;
    return;
  }
  kv_prefill_ += prefill;
  kv_decode_ += blocks_for(r.prompt);
}

long Server::prefill_blocks(const Request& r) const {
  // A request of no group finds its cached prefix anywhere; a group's, once this replica has
  // admitted one of its requests (as admit_arrivals counts it).
  const long cached = r.group == 0 || warm_.contains(r.group) ? r.cached : 0;
  if (!cfg_.limited_layers.empty()) return blocks_for(r.prompt) - blocks_for(cached);
  return blocks_for(r.prompt) - cached / cfg_.block_tokens;
}

long Server::kv_cost(double t, const Request& r) const {
  // The latest step may have ended after t: what it took off was still there at t.
  const bool ended_after = clock_ > t;
  return kv_prefill_ + kv_decode_ + (ended_after ? kv_prefill_last_ + kv_decode_last_ : 0) + prefill_blocks(r);
}

double Server::next_start() const {
  constexpr double never = std::numeric_limits<double>::infinity();
  const bool runnable = std::any_of(ranks_.begin(), ranks_.end(), [&](const Rank& k) {
    return !k.running.empty() || !k.landed.empty() || (!k.waiting.empty() && !stalled_);
  });
  // Idle, the next step starts when the next request arrives or the next cache lands. A step
  // admits every request that arrived by its start, so one starting at t or later waits until
  // t's arrivals are routed.
  double start = runnable ? clock_ : never;
  if (next_ < taken_.size()) start = std::min(start, std::max(clock_, req_[taken_[next_]].arrival));
  if (receiving()) start = std::min(start, std::max(clock_, next_landing()));
  // Stalled for blocks that served requests' transfers hold, it waits for their release too.
  if (stalled_ && holds_) start = std::min(start, std::max(clock_, next_release()));
  return start;
}

bool Server::step_before(double t) {
  const double start = next_start();
  if (!(start < t)) return false;
  if (cfg_.progress && --until_progress_ < 0) {
    cfg_.progress(static_cast<double>(next_) / static_cast<double>(std::max<std::size_t>(1, req_.size())));
    until_progress_ = 1 << 14;
  }
  clock_ = start;
  land();
  release();
  admit_arrivals();
  sample();
  if (!busy()) return true;  // every arrival so far was dropped
  bool preempted = false;
  for (Rank& k : ranks_) {
    schedule(k);
    preempted = preempted || preempted_;
  }
  // Nothing ran: a decode replica waiting for caches to land, a prefill replica waiting for
  // blocks its served requests' transfers hold, or a step that preempted all it ran (its landed
  // requests admitted at the same time next).
  stalled_ = !step() && !preempted;
  return true;
}

bool Server::receiving() const {
  return std::any_of(ranks_.begin(), ranks_.end(), [](const Rank& k) { return !k.receiving.empty(); });
}

double Server::next_landing() const {
  double first = std::numeric_limits<double>::infinity();
  for (const Rank& k : ranks_) {
    first = std::min(first, k.first_landing);
  }
  return first;
}

// Caches landed by now are ready for the batch, in the order they landed, holding their blocks
// (vLLM keeps a request whose remote cache has arrived at its waiting queue's head).
void Server::land() {
  for (Rank& k : ranks_) {
    if (k.receiving.empty() || k.first_landing > clock_) continue;
    std::vector<std::pair<double, Seq>> still, landed;
    k.first_landing = std::numeric_limits<double>::infinity();
    for (auto& r : k.receiving) {
      if (r.first <= clock_) {
        landed.push_back(r);
      } else {
        still.push_back(r);
        k.first_landing = std::min(k.first_landing, r.first);
      }
    }
    std::stable_sort(landed.begin(), landed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& r : landed) k.landed.push_back(r.second);
    k.receiving = std::move(still);
  }
}

void Server::land_at(std::size_t index, double at) {
  for (Rank& k : ranks_) {
    for (auto& [when, s] : k.receiving) {
      if (s.req != index) continue;
      when = at;  // seen by the first step starting at or after it
      k.first_landing = std::min(k.first_landing, at);
      return;
    }
  }
  throw std::logic_error("simulate: a landing for a request that is not on the link");
}

double Server::next_release() const {
  double first = std::numeric_limits<double>::infinity();
  for (const Rank& k : ranks_) first = std::min(first, k.first_release);
  return first;
}

// Blocks whose caches' transfers have ended by now are free again.
void Server::release() {
  for (Rank& k : ranks_) {
    if (k.first_release > clock_) continue;
    k.first_release = std::numeric_limits<double>::infinity();
    std::erase_if(k.sending, [&](const Rank::Held& h) {
      if (h.release <= clock_) {
        k.blocks.give(h.blocks);
        return true;
      }
      k.first_release = std::min(k.first_release, h.release);
      return false;
    });
  }
}

void Server::release_at(std::size_t index, double at) {
  for (Rank& k : ranks_) {
    for (Rank::Held& h : k.sending) {
      if (h.req != index) continue;
      h.release = at;
      k.first_release = std::min(k.first_release, at);
      return;
    }
  }
  throw std::logic_error("simulate: a release for a request that holds no blocks here");
}

long Server::load(double t) const {
  // The latest step may have ended after t: what it finished was still in the system at t.
  const long finishing = clock_ > t ? finished_last_ : 0;
  return in_system_ + static_cast<long>(taken_.size() - next_) - doomed_pending_ + finishing;
}

Sample Server::sample_at(double t) const {
  Sample s = occupancy();
  s.time = t;
  s.waiting += static_cast<long>(taken_.size() - next_) - doomed_pending_;
  if (clock_ > t) s.running += finished_last_;
  return s;
}

SimResult Server::finish() {
  // `end` was set as each request finished (advance): the clock may have moved on since, to a
  // later arrival dropped on admission, which stretched the makespan the rates are over (a request
  // finishing at 1000.08 s and one dropped at 1100: 0.1 output tokens/s for 127).
  if (out_.served.empty()) out_.end = out_.start;
  // Every prompt token not cached was computed once; what else went through prefill was recomputed.
  out_.recomputed_tokens -= out_.prompt_tokens - out_.cached_tokens;
  return std::move(out_);
}

long blocks_for(const ServerConfig& c, long tokens) {
  const long whole = (tokens + c.block_tokens - 1) / c.block_tokens;
  if (c.limited_layers.empty()) return whole;
  // Gemma 3's 52 sliding layers of 62 keep 1024 tokens: at 33792 tokens a sequence holds 396
  // blocks of 16 tokens, not 2112.
  double held = static_cast<double>(whole);
  for (const auto& [limit, share] : c.limited_layers) {
    const long kept = std::min(whole, (limit + c.block_tokens - 1) / c.block_tokens + 1);
    held -= share * static_cast<double>(whole - kept);
  }
  return std::min(whole, static_cast<long>(std::ceil(held - 1e-9)));
}

Holds holds(const Request& r, const ServerConfig& c, long rank_blocks, long drafts) {
  const long context = r.prompt + r.gen;
  if (c.max_context > 0 && context > c.max_context) return Holds::too_long;
  return blocks_for(c, context + drafts) <= rank_blocks ? Holds::yes : Holds::no_room;
}

// A last verify's drafts need room too.
Holds replica_holds(const Request& r, const ServerConfig& c, long ranks) {
  return holds(r, c, c.kv_blocks / ranks, c.speculation ? c.speculation->k : 0);
}

Holds Server::room_for(const Request& r) const { return replica_holds(r, cfg_, static_cast<long>(ranks_.size())); }

bool Server::busy() const {
  return std::any_of(ranks_.begin(), ranks_.end(),
                     [](const Rank& k) {
                       return !k.waiting.empty() || !k.running.empty() || !k.receiving.empty() || !k.landed.empty();
                     });
}

void Server::admit_arrivals() {
  for (; next_ < taken_.size() && req_[taken_[next_]].arrival <= clock_; ++next_) {
    const std::size_t i = taken_[next_];
    const Request& r = req_[i];
    if (const Holds h = room_for(r); h != Holds::yes) {
      --doomed_pending_;  // counted in neither of the KV router's sums (take)
      const bool too_long = h == Holds::too_long;
      ++(too_long ? out_.dropped_too_long : out_.dropped_no_room);
      out_.dropped.push_back({i, too_long, r.gen});
    } else {
      ++in_system_;
      // A group's first request here finds none of its prefix cached (Request::group).
      const long cached = r.group == 0 || !warm_.insert(r.group).second ? r.cached : 0;
      policy_->arrive(ranks_[dealt_++ % ranks_.size()].waiting,
                      {.req = i, .target = r.prompt, .computed = cached, .gen = r.gen, .cached = cached,
                       .routed_prefill = taken_prefill_[next_], .remote = reserved_ != nullptr});
    }
  }
}

// The ranks' sequences and the share of the cache they hold, now.
Sample Server::occupancy() const {
  long running = 0, waiting = 0, free = 0;
  for (const Rank& k : ranks_) {
    running += static_cast<long>(k.running.size());
    waiting += static_cast<long>(k.waiting.size() + k.landed.size());
    free += k.blocks.free();
  }
  const auto all = static_cast<double>(rank_blocks_ * static_cast<long>(ranks_.size()));
  return {clock_, running, waiting, (all - static_cast<double>(free)) / all};
}

void Server::sample() {
  if (clock_ < next_sample_) return;
  out_.samples.push_back(occupancy());
  next_sample_ = clock_ + cfg_.sample_every;
}

// Frees a sequence's blocks and queues it first, to be recomputed from its prompt and output:
// under a prefix cache (retain_) only what of it the cache has evicted by its return. vLLM V1
// (vllm/v1/core/sched/scheduler.py, Scheduler._preempt_request) frees the request's blocks and sets
// num_computed_tokens = 0, but its full blocks keep their hashes in the free queue (freed tail
// first, KVCacheManager.free) until handed out, and on its return get_computed_blocks hits every
// one still there; the partial last block, never hashed, is lost. SGLang (schedule_batch.py,
// retract_decode) frees the tokens past the request's cached prefix (its prompt, in the radix tree:
// `last_uncached_pos = len(req.prefix_indices)`) and unlocks that prefix (dec_lock_ref), evictable
// least recently used, evicted as needed; the output tokens are lost.
void Server::preempt(Rank& k, Seq s) {
  const Request& r = req_[s.req];
  const long survives = cfg_.cached_survives_preemption ? s.cached : 0;
  if (retain_ == Retention::none) {
    k.blocks.give(s.blocks);
    s.blocks = 0;
    s.computed = survives;
  } else {
    const long kept = retain_ == Retention::prompt ? std::min(s.computed, r.prompt) : s.computed;
    const long full = std::min(kept / cfg_.block_tokens, s.blocks);
    k.blocks.give_uncached(s.blocks - full);  // the partial block (and SGLang's output): nothing to find
    s.ticket = k.blocks.retain(full);
    s.blocks = 0;
    s.computed = std::max(full * cfg_.block_tokens, survives);  // as resumed() reads it now
  }
  s.chunk = 0;
  s.target = r.prompt + s.generated;
  s.accepted = 0;
  ++s.preemptions;
  policy_->requeue(k.waiting, s);
  ++out_.preemptions;
  preempted_ = true;
}

// Gives a running sequence its tokens for this step, preempting the policy's victims while the
// cache has no block for them. False when it was preempted itself.
bool Server::grant(Rank& k, std::size_t i, long& budget) {
  Seq& s = k.running[i];
  // A decode computes its last token (and, speculating, the K drafts after it), or waits a step.
  s.chunk = s.prefilling() ? std::min(s.target - s.computed, budget) : (budget >= decode_tokens_ ? decode_tokens_ : 0);
  if (s.chunk == 0) return true;
  // Reserved at admission, a sequence's blocks already cover every token it will compute.
  // Compared before dividing: most steps a sequence's blocks already hold its tokens, and the
  // division was a tenth of a step's work for each sequence.
  const long tokens = s.computed + s.chunk;
  // At least 0: blocks reserved at admission for a windowed sequence's whole length (fewer than
  // its tokens over block_tokens) were handed back here, and its growth then preempted.
  const long need = tokens > s.blocks * cfg_.block_tokens ? std::max(0L, blocks_for(tokens) - s.blocks) : 0;
  while (!k.blocks.take(need)) {
    const std::size_t v = policy_->victim(k.running, i);
    preempt(k, k.running[v]);
    k.running.erase(v);
    if (v == i) return false;
  }
  k.running[i].blocks += need;
  budget -= k.running[i].chunk;
  return true;
}

Seq Server::resumed(const Rank& k, Seq s) const {
  if (s.ticket < 0) return s;
  s.blocks = k.blocks.held(s.ticket);
  s.computed = std::max(s.blocks * cfg_.block_tokens, cfg_.cached_survives_preemption ? s.cached : 0);
  return s;
}

bool Server::claim(Rank& k, Seq& s, long need) {
  if (s.ticket >= 0) {
    // vLLM's allocate_slots counts the cached blocks a request touches among the free ones it may
    // not take; here they are its own again only when the rest fits (else they stay where they lie).
    if (need > free_beside(k, s)) return false;
    k.blocks.reclaim(s.ticket);
    s.ticket = -1;
  }
  if (!k.blocks.take(need)) return false;
  s.blocks += need;
  return true;
}

long Server::blocks_to_admit(const Seq& s) const {
  return std::max(0L, blocks_for(policy_->admission_tokens(s, req_[s.req], decode_tokens_)) - s.blocks);
}

// Unchunked, a prompt longer than what the token budget leaves beside the running decodes fits no
// step with them. The simulator's own rule (UnchunkedFit::alone, without --engine): it runs alone
// in one, they wait that step. Granting the decodes first left it waiting until every running
// sequence had finished (a prompt one token past the budget's rest behind one 2000-token decode:
// 14 s), and every later arrival behind it. Only where its blocks are free: otherwise the decodes
// run (and free blocks) as before. No engine does this (vLLM 0.11 passes over it, TensorRT-LLM stops
// at it: admit_waiting), and in SGLang's unmixed steps it is moot.
bool Server::runs_alone(const Rank& k) const {
  if (cfg_.chunked_prefill || cfg_.unchunked_fit != UnchunkedFit::alone || !mixes() || k.waiting.empty() ||
      static_cast<long>(k.running.size()) >= cfg_.max_batch) {
    return false;
  }
  Seq s = resumed(k, k.waiting.front());
  const long beside = cfg_.max_batched_tokens - static_cast<long>(k.running.size()) * decode_tokens_;
  if (s.remote || s.target - s.computed <= beside) return false;
  s.chunk = s.target - s.computed;  // as admitted below: the blocks it asks for count its whole prompt
  return blocks_to_admit(s) <= free_beside(k, s);
}

// SGLang without --enable-mixed-chunk (get_next_batch_to_run: "Run prefill first if possible"): a
// step runs the prompts it can take alone, the running decodes waiting it: first the running
// sequences still prefilling (a chunked prompt's next chunk, SGLang's chunked_req), then the
// waiting queue's, as admit_waiting takes them. True when the step holds prompt tokens; false when
// it holds none (nothing to prefill, the queue's head short of blocks or the batch full), no block
// taken: the step is the decodes'.
bool Server::prefill_alone(Rank& k, long& budget) {
  for (std::size_t i = 0; i < k.running.size(); ++i) {
    if (!k.running[i].prefilling()) {
      k.running[i].chunk = 0;
      continue;
    }
    if (!grant(k, i, budget)) break;
  }
  if (!preempted_) admit_waiting(k, budget);
  return budget < cfg_.max_batched_tokens;
}

void Server::schedule(Rank& k) {
  long budget = cfg_.max_batched_tokens;
  preempted_ = false;
  if (!mixes()) {
    if (prefill_alone(k, budget)) return;
    // Nothing to prefill: a decode step, which admits nothing (the queue's head could not be
    // admitted with the whole budget).
    for (std::size_t i = 0; i < k.running.size(); ++i) {
      if (!grant(k, i, budget)) break;
    }
    return;
  }
  if (runs_alone(k)) {
    // They wait this step; admit_waiting admits it with the whole budget.
    for (std::size_t i = 0; i < k.running.size(); ++i) k.running[i].chunk = 0;
  } else {
    for (std::size_t i = 0; i < k.running.size(); ++i) {
      if (!grant(k, i, budget)) break;
    }
    if (preempted_) return;  // no admissions in a step that had to preempt
    // Landed caches first: their blocks are held, their last prompt token's slot in them.
    while (!k.landed.empty() && static_cast<long>(k.running.size()) < cfg_.max_batch && budget > 0) {
      Seq s = k.landed.front();
      s.chunk = std::min(s.target - s.computed, budget);
      const long need = blocks_to_admit(s);
      if (!k.blocks.take(need)) break;
      s.blocks += need;
      budget -= s.chunk;
      if (s.first_step < 0) s.first_step = clock_;
      k.landed.pop_front();
      k.running.push_back(s);
    }
  }
  admit_waiting(k, budget);
}

// Admits waiting requests in the queue's order while the batch and the budget have room, each
// with its blocks, and stops at the first whose blocks are not free. Unchunked, a prompt goes
// whole: past what the budget has left only alone in its step (the whole budget untouched), and
// otherwise as the engine does (ServerConfig::unchunked_fit): it and every prompt behind it wait
// (TensorRT-LLM's micro-batch scheduler breaks there; the simulator's own rule, whose runs_alone
// gave it the next step), or it waits and later ones that fit go past it (vLLM 0.11's V1 scheduler
// skips it). A prompt past the whole budget runs alone all the same, as no engine would run it
// (they refuse it: cli's check_engine), so that a run always ends.
void Server::admit_waiting(Rank& k, long& budget) {
  std::size_t j = 0;
  while (j < k.waiting.size() && static_cast<long>(k.running.size()) < cfg_.max_batch && budget > 0) {
    Seq s = resumed(k, k.waiting[j]);
    const long rest = s.target - s.computed;
    const bool alone = budget == cfg_.max_batched_tokens;
    if (!cfg_.chunked_prefill && rest > budget && !alone) {
      if (s.remote || cfg_.unchunked_fit != UnchunkedFit::skip) break;
      ++j;
      continue;
    }
    s.chunk = cfg_.chunked_prefill ? std::min(rest, budget) : rest;
    if (!claim(k, s, blocks_to_admit(s))) break;
    k.waiting.erase(k.waiting.begin() + static_cast<std::ptrdiff_t>(j));
    if (s.remote) {
      // Its blocks reserved, its cache crosses the link into them; it computes nothing until
      // then, so takes none of this step's tokens.
      s.remote = false;
      s.chunk = 0;
      const double lands = reserved_(s.req, clock_);
      k.receiving.emplace_back(lands, s);
      k.first_landing = std::min(k.first_landing, lands);
      continue;
    }
    budget -= std::min(s.chunk, budget);
    if (s.first_step < 0) s.first_step = clock_;
    k.running.push_back(s);
  }
}

// What one rank's sequences compute this step, and what its drafts do: K steps of `drafts`,
// the first of them also taking in `draft_prompts`: the prompt tokens (a draft caches the
// prompt as the target does) and, for a draft that reads the target, the tokens it accepted.
void Server::gather(const Rank& k, StepMix& mix, StepMix& drafts, StepMix& draft_prompts) {
  for (std::size_t i = 0; i < k.running.size(); ++i) {
    const Seq& s = k.running[i];
    if (s.chunk == 0) continue;
    if (s.prefilling()) {
      mix.prefill += s.chunk;
      mix.attention += cost_.prefill_attention(s.computed, s.chunk);
      if (cost_.split_phases()) mix.decompressed += s.computed;
      if (s.computed + s.chunk == s.target) ++mix.emitting;
      if (draft_) {
        draft_prompts.prefill += s.chunk;
        draft_prompts.attention += draft_->prefill_attention(s.computed, s.chunk);
      }
    } else if (cfg_.speculation) {
      // The verify pass: the last token and K drafts after the context, each through the head.
      mix.decode += s.chunk;
      mix.attention += cost_.verify_attention(s.computed, s.chunk);
      mix.emitting += s.chunk;
      if (draft_) {
        ++drafts.decode;
        ++drafts.emitting;
        drafts.attention += draft_->decode_attention(s.computed + 1);
        if (cfg_.draft_reads_target && s.accepted > 0) {  // before its first draft, the tokens it missed
          draft_prompts.decode += s.accepted;
          draft_prompts.attention += draft_->verify_attention(s.computed - s.accepted, s.accepted);
        }
      }
    } else {
      ++mix.decode;
      ++mix.emitting;
      mix.attention += cost_.decode_attention(s.computed + 1);
    }
  }
}

// Prices and applies one step; false when nothing runs (a decode replica whose caches are all
// still on the link, or whose queue's head waits for the blocks they hold; a prefill replica
// whose queue's head waits for blocks its served requests' transfers hold).
bool Server::step() {
  mixes_.assign(ranks_.size(), StepMix{});
  drafts_.assign(ranks_.size(), StepMix{});
  draft_prompts_.assign(ranks_.size(), StepMix{});
  long rows = 0, drafting = 0, prompting = 0;
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    gather(ranks_[r], mixes_[r], drafts_[r], draft_prompts_[r]);
    rows += mixes_[r].prefill + mixes_[r].decode;
    drafting += drafts_[r].decode;
    prompting += draft_prompts_[r].prefill;
  }
  if (rows == 0) {
    const bool held = std::any_of(ranks_.begin(), ranks_.end(), [](const Rank& k) { return !k.sending.empty(); });
    if (reserved_ || held) return false;  // waiting on caches landing, or on blocks a transfer holds
    throw std::logic_error("simulate: a step with nothing to compute");
  }
  const Sample now = occupancy();
  *rows_ += static_cast<double>(now.running);
  if (cfg_.max_rows > 0 && *rows_ > cfg_.max_rows) {
    throw WorkLimit(fmt::format("the run passed {:g} sequence-steps at {:.3g} s of {:.3g} s of arrivals ({} steps)",
                                cfg_.max_rows, clock_, req_.empty() ? 0.0 : req_.back().arrival, out_.steps));
  }
  out_.peak_running = std::max(out_.peak_running, now.running);
  out_.peak_kv_share = std::max(out_.peak_kv_share, now.kv_share);
  StepTime t = cost_.time(mixes_);
  if (draft_ && drafting + prompting > 0) {
    // The draft's first step takes the prompt tokens and catch-up rows with its first drafts;
    // K - 1 more follow.
    const StepTime later = drafting > 0 ? draft_->time(drafts_) : StepTime{};
    for (std::size_t r = 0; r < ranks_.size(); ++r) draft_prompts_[r] += drafts_[r];
    const StepTime first = draft_->time(draft_prompts_);
    const double more = drafting > 0 ? cfg_.speculation->k - 1 : 0;
    t = {t.bound + first.bound + later.bound * more, t.expected + first.expected + later.expected * more};
  }
  const double dt = (timing_ == Timing::expected ? t.expected : t.bound).value();
  clock_ += dt;
  out_.running_seconds += dt * static_cast<double>(now.running);
  out_.busy_seconds += dt;
  ++out_.steps;
  finished_last_ = kv_prefill_last_ = kv_decode_last_ = 0;
  for (Rank& k : ranks_) {
    k.running.remove_if([&](Seq& s) { return advance(k, s); });
  }
  return true;
}

// Tokens a decode step yields: one, or speculating the accepted drafts and one of the target's.
long Server::decode_yield() {
  if (!cfg_.speculation) return 1;
  long accepted = 0;
  while (accepted < cfg_.speculation->k && rng_.uniform() < cfg_.speculation->accept) ++accepted;
  return accepted + 1;
}

// Applies this step to a sequence; true when it finished.
bool Server::advance(Rank& k, Seq& s) {
  if (s.chunk == 0) return false;
  long emitted = 0;
  if (s.prefilling()) {
    out_.recomputed_tokens += static_cast<double>(s.chunk);  // less the first pass, at the end
    s.computed += s.chunk;
    emitted = s.computed == s.target ? 1 : 0;
  } else {
    emitted = std::min(decode_yield(), s.gen - s.generated);
    s.computed += emitted;  // the rejected drafts' K/V is dropped
    s.accepted = emitted - 1;
  }
  s.chunk = 0;
  if (emitted == 0) return false;
  s.generated += emitted;
  out_.output_tokens += static_cast<double>(emitted);
  // A gap a stream sees, as vLLM's benchmark counts ITL: from one emission to the next (a
  // speculative step's tokens arrive together; a preemption's wait is in the gap after it).
  if (s.first_token < 0) {
    s.first_token = clock_;
    kv_prefill_ -= s.routed_prefill;
    kv_prefill_last_ += s.routed_prefill;
    if (LatencyCap* cap = cfg_.cap; cap && s.first_token - req_[s.req].arrival > cap->ttft && ++cap->ttft_over > cap->ttft_allowed) {
      throw CapReached("the TTFT percentile passed its cap");
    }
  } else {
    out_.itl.add(clock_ - s.last_token);
  }
  s.last_token = clock_;
  if (s.generated < s.gen) return false;
  const Request& r = req_[s.req];
  if (holds_) {
    k.sending.push_back({s.req, s.blocks, std::numeric_limits<double>::infinity()});
  } else {
    k.blocks.give(s.blocks);
  }
  --in_system_;
  ++finished_last_;
  kv_decode_ -= blocks_for(r.prompt);
  kv_decode_last_ += blocks_for(r.prompt);
  out_.prompt_tokens += static_cast<double>(r.prompt);
  out_.cached_tokens += static_cast<double>(s.cached);
  const double tpot = r.gen > 1 ? (clock_ - s.first_token) / static_cast<double>(r.gen - 1) : 0;
  if (LatencyCap* cap = cfg_.cap; cap && r.gen > 1 && tpot > cap->tpot && ++cap->tpot_over > cap->tpot_allowed) {
    throw CapReached("the TPOT percentile passed its cap");
  }
  out_.served.push_back(
      {s.first_token - r.arrival, tpot, clock_ - r.arrival, s.first_step - r.arrival, r.gen, s.req, s.preemptions,
       s.cached});
  out_.end = clock_;
  if (served_) served_(s.req, clock_);
  return true;
}

}  // namespace roofline::serve
