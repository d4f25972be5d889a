#include "serve/speculative.hpp"

#include <cmath>

namespace roofline::serve {

double expected_tokens(const Speculation& s) {
  if (s.accept >= 1) return s.k + 1;
  return (1 - std::pow(s.accept, s.k + 1)) / (1 - s.accept);
}

double SpeculativeRate::plain_per_s(bool bound) const { return 1 / (bound ? plain.bound : plain.expected).value(); }

double SpeculativeRate::speculative_per_s(bool bound) const {
  const Seconds step = bound ? draft.bound + verify.bound : draft.expected + verify.expected;
  return tokens / step.value();
}

SpeculativeRate speculative_rate(StepCost& target, StepCost* draft, long batch, long context, const Speculation& s) {
  SpeculativeRate r;
  r.tokens = expected_tokens(s);
  r.plain = target.uniform({0, 1, 1, target.decode_attention(context)}, batch);
  // The verify pass: K + 1 queries a sequence after its context, every one through the LM head.
  const long rows = s.k + 1;
  r.verify = target.uniform({0, rows, rows, target.verify_attention(context, rows)}, batch);
  if (draft) {
    const StepTime step = draft->uniform({0, 1, 1, draft->decode_attention(context)}, batch);
    r.draft = {step.bound * s.k, step.expected * s.k};
  }
  return r;
}

std::optional<long> break_even_batch(StepCost& target, StepCost* draft, long context, const Speculation& s,
                                     long max_batch, Timing timing) {
  const bool bound = timing == Timing::bound;
  const auto pays = [&](long b) {
    const SpeculativeRate r = speculative_rate(target, draft, b, context, s);
    return r.speculative_per_s(bound) > r.plain_per_s(bound);
  };
  if (pays(max_batch)) return std::nullopt;
  if (!pays(1)) return 1;
  long lo = 1, hi = max_batch;  // pays at lo, not at hi
  while (hi - lo > 1) {
    const long mid = lo + (hi - lo) / 2;
    (pays(mid) ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace roofline::serve
