// vLLM's V1 scheduler as the simulator runs it: the waiting queue first come first served, a
// preempted request back at its head, blocks taken as a step's tokens are computed, and on a
// shortage the latest admitted running request preempted (vllm/v1/core/sched/scheduler.py of the
// 0.11 line pops the running list's last) and later recomputed from its prompt and output (but
// for what its prefix cache still holds of it: the server's, ServerConfig::retention).
#include "serve/scheduling_policy.hpp"

namespace roofline::serve {

namespace {

class Recompute final : public SchedulingPolicy {
 public:
  void arrive(std::deque<Seq>& waiting, const Seq& s) const override { waiting.push_back(s); }
  void requeue(std::deque<Seq>& waiting, const Seq& s) const override { waiting.push_front(s); }
  long admission_tokens(const Seq& s, const Request&, long) const override { return s.computed + s.chunk; }
  // The running list is in admission order: its last is the latest admitted.
  std::size_t victim(const RunningList& running, std::size_t needy) const override {
    return running.size() > needy + 1 ? running.size() - 1 : needy;
  }
};

}  // namespace

std::unique_ptr<SchedulingPolicy> recompute_policy() { return std::make_unique<Recompute>(); }

}  // namespace roofline::serve
