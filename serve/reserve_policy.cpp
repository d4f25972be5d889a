// TensorRT-LLM's GUARANTEED_NO_EVICT capacity scheduler as the simulator runs it: a request is
// admitted, first come first served, only when the blocks of its whole length (prompt, output
// and a last verify's drafts) are free, and takes them all then; a running sequence never needs
// another block, so none is ever preempted.
#include "serve/scheduling_policy.hpp"

namespace roofline::serve {

namespace {

class Reserve final : public SchedulingPolicy {
 public:
  void arrive(std::deque<Seq>& waiting, const Seq& s) const override { waiting.push_back(s); }
  void requeue(std::deque<Seq>& waiting, const Seq& s) const override { waiting.push_front(s); }
  long admission_tokens(const Seq&, const Request& r, long decode_tokens) const override {
    return r.prompt + r.gen + decode_tokens - 1;
  }
  // Unreachable while admissions reserve whole lengths; were it reached, the latest admitted.
  std::size_t victim(const RunningList& running, std::size_t needy) const override {
    return running.size() > needy + 1 ? running.size() - 1 : needy;
  }
};

}  // namespace

std::unique_ptr<SchedulingPolicy> reserve_policy() { return std::make_unique<Reserve>(); }

}  // namespace roofline::serve
