// TensorRT-LLM's GUARANTEED_NO_EVICT capacity scheduler as the simulator runs it: a request is
// admitted, first come first served, only when the blocks of its whole length (prompt, output
// and a last verify's drafts) are free, and takes them all then; a running sequence never needs
// another block, so none is ever preempted. The output it reserves is the client's cap
// (ServerConfig::max_tokens: getRemainingBlocksToCompletion counts prompt + mMaxNewTokens), at
// most the model's context less the drafts (LlmRequest::validate cuts mMaxNewTokens there), and
// never less than the output the request makes; with no cap given, that output itself.
#include <algorithm>

#include "serve/scheduling_policy.hpp"

namespace roofline::serve {

namespace {

class Reserve final : public SchedulingPolicy {
 public:
  Reserve(long max_tokens, long max_context) : max_tokens_(max_tokens), max_context_(max_context) {}
  void arrive(std::deque<Seq>& waiting, const Seq& s) const override { waiting.push_back(s); }
  void requeue(std::deque<Seq>& waiting, const Seq& s) const override { waiting.push_front(s); }
  long admission_tokens(const Seq&, const Request& r, long decode_tokens) const override {
    const long drafts = decode_tokens - 1;
    long whole = r.prompt + std::max(r.gen, max_tokens_);
    if (max_context_ > 0) whole = std::min(whole, std::max(max_context_ - drafts, r.prompt + r.gen));
    return whole + drafts;
  }
  // Unreachable while admissions reserve whole lengths; were it reached, the latest admitted.
  std::size_t victim(const RunningList& running, std::size_t needy) const override {
    return running.size() > needy + 1 ? running.size() - 1 : needy;
  }

 private:
  long max_tokens_ = 0, max_context_ = 0;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> reserve_policy(long max_tokens, long max_context) {
  return std::make_unique<Reserve>(max_tokens, max_context);
}

}  // namespace roofline::serve
