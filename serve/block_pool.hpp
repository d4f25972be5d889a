#pragma once
// One attention rank's KV blocks: how many are free, and, where the engine runs a prefix cache,
// which of the free ones still hold a preempted sequence's cache. A concrete class, not an
// interface: the server asks it for blocks once a running sequence a step, so a virtual call here
// would be one a token.
//
// A prefix cache frees a preempted sequence's blocks without forgetting them: vLLM V1
// (vllm/v1/core/kv_cache_manager.py, KVCacheManager.free: "We free the blocks in reverse order so
// that the tail blocks are evicted first when caching is enabled"; vllm/v1/core/block_pool.py:
// the free queue hands out its least recently freed block first, and a hashed block is evicted
// only when it is handed out) and SGLang (python/sglang/srt/managers/schedule_batch.py,
// retract_decode: the prompt's prefix stays in the radix tree, its lock dropped, evictable least
// recently used first) both find the blocks not yet handed out again when the sequence returns.
// So a block freed here is of one of two kinds:
// - plain: it holds nothing anyone will ask for (never used, the partial last block of a
//   preempted sequence, SGLang's freed output tokens, and any block freed while nothing is
//   retained, where which goes first is moot);
// - queued: in the order freed, a preempted sequence's retained run of full blocks (remembered
//   by its ticket) or a finished sequence's blocks freed behind one (kept in order: the engines'
//   queues evict least recently freed first, so a retained run freed before them goes before them).
// A take uses plain blocks first, then evicts from the queue's front: an earlier preemption's
// blocks before a later one's, a run's tail first. Each block operation is O(1) amortised: a run
// enters the queue once and leaves it once (evicted, or reclaimed where it lies).
#include <cstdint>
#include <deque>

namespace roofline::serve {

class BlockPool {
 public:
  explicit BlockPool(long blocks = 0) : plain_(blocks), total_(blocks) {}
  [[nodiscard]] long free() const { return plain_ + queued_; }
  [[nodiscard]] long total() const { return total_; }
  // Takes `n` blocks if that many are free (evicting retained ones when the plain ones run out);
  // false (and nothing taken) if not.
  bool take(long n) {
    if (n <= plain_) {
      plain_ -= n;
      return true;
    }
    if (n > plain_ + queued_) return false;
    evict(n - plain_);
    plain_ = 0;
    return true;
  }
  // Frees `n` blocks that hold nothing a prefix cache finds (a partial last block, SGLang's
  // freed output tokens): taken before any cached one is evicted.
  void give_uncached(long n) { plain_ += n; }
  // Frees `n` blocks: a finished sequence's, cached behind the runs retained before them.
  void give(long n) {
    if (live_ == 0 || n == 0) {  // nothing retained: which free block goes first is moot
      plain_ += n;
      return;
    }
    if (!runs_.empty() && !runs_.back().live && runs_.back().blocks > 0) {
      runs_.back().blocks += n;
    } else {
      runs_.push_back({n, false});
    }
    queued_ += n;
  }
  // Frees `n` full blocks of a preempted sequence, remembered: the ticket that reclaims what is
  // left of them (-1 for none).
  std::int64_t retain(long n) {
    if (n <= 0) return -1;
    runs_.push_back({n, true});
    ++live_;
    queued_ += n;
    return base_ + static_cast<std::int64_t>(runs_.size()) - 1;
  }
  // The blocks of a retained run not yet evicted: its sequence's first `held` full blocks.
  [[nodiscard]] long held(std::int64_t ticket) const {
    return ticket < base_ ? 0 : runs_[static_cast<std::size_t>(ticket - base_)].blocks;
  }
  // The run's blocks left are its sequence's again (no longer free); returns how many.
  long reclaim(std::int64_t ticket) {
    if (ticket < base_) return 0;
    Run& r = runs_[static_cast<std::size_t>(ticket - base_)];
    const long n = r.blocks;
    queued_ -= n;
    r.blocks = 0;
    if (r.live) {
      r.live = false;
      --live_;
    }
    settle();
    return n;
  }
  // Blocks retained for preempted sequences, not yet evicted or reclaimed (tests, figures).
  [[nodiscard]] long retained() const {
    long n = 0;
    for (const Run& r : runs_) n += r.live ? r.blocks : 0;
    return n;
  }

 private:
  struct Run {
    long blocks;
    bool live;  // a preempted sequence's, its ticket outstanding
  };
  // Hands out `n` queued blocks from the front (n <= queued_).
  void evict(long n) {
    while (n > 0) {
      Run& r = runs_.front();
      const long k = n < r.blocks ? n : r.blocks;
      r.blocks -= k;
      queued_ -= k;
      n -= k;
      if (r.blocks > 0) break;
      if (r.live) --live_;
      runs_.pop_front();
      ++base_;
    }
    settle();
  }
  // With no retained run left the queue's order is moot: its blocks are plain.
  void settle() {
    if (live_ > 0) return;
    plain_ += queued_;
    queued_ = 0;
    base_ += static_cast<std::int64_t>(runs_.size());
    runs_.clear();
  }

  long plain_, total_;
  long queued_ = 0;  // free blocks in runs_
  long live_ = 0;    // runs in runs_ a preempted sequence may reclaim
  std::deque<Run> runs_;
  std::int64_t base_ = 0;  // the ticket of runs_.front()
};

}  // namespace roofline::serve
