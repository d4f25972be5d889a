#pragma once
// One attention rank's KV blocks: how many are free. A concrete class, not an interface: the
// server asks it for blocks once a running sequence a step, so a virtual call here would be one
// a token. A pool that shares blocks between sequences (a radix tree's) replaces this class.
namespace roofline::serve {

class BlockPool {
 public:
  explicit BlockPool(long blocks = 0) : free_(blocks), total_(blocks) {}
  [[nodiscard]] long free() const { return free_; }
  [[nodiscard]] long total() const { return total_; }
  // Takes `n` blocks if that many are free; false (and nothing taken) if not.
  bool take(long n) {
    if (n > free_) return false;
    free_ -= n;
    return true;
  }
  void give(long n) { free_ += n; }

 private:
  long free_, total_;
};

}  // namespace roofline::serve
