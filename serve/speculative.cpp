#include "serve/speculative.hpp"

#include <algorithm>
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

SpeculativeRate speculative_rate(StepCost& target, StepCost* draft, long batch, long context, const Speculation& s,
                                 bool reads_target) {
  SpeculativeRate r;
  r.tokens = expected_tokens(s);
  r.plain = target.uniform({0, 1, 1, target.decode_attention(context)}, batch);
  // The verify pass: K + 1 queries a sequence after its context, every one through the LM head.
  const long rows = s.k + 1;
  r.verify = target.uniform({0, rows, rows, target.verify_attention(context, rows)}, batch);
  if (draft) {
    const AttentionWork one = draft->decode_attention(context);
    const StepTime step = draft->uniform({0, 1, 1, one}, batch);
    r.draft = {step.bound * s.k, step.expected * s.k};
    // The catch-up, as the simulator's first draft step runs it: a drafts accepted with
    // probability α^a (1 − α), all K with α^K, after the context − 1 tokens cached before the
    // new one. Every sequence of the batch is taken to keep the same a: exact at batch 1; at
    // larger batches the sequences' draws spread and their total rows cluster near batch·E[a],
    // which (expert reads growing slower than rows) costs somewhat more than this mixture.
    if (reads_target) {
      for (long a = 1; a <= s.k; ++a) {
        const double p = a < s.k ? std::pow(s.accept, a) * (1 - s.accept) : std::pow(s.accept, s.k);
        if (p == 0) continue;
        AttentionWork attention = one;
        attention += draft->verify_attention(std::max(0L, context - 1 - a), a);
        const StepTime first = draft->uniform({0, 1 + a, 1, attention}, batch);
        r.draft.bound += (first.bound - step.bound) * p;
        r.draft.expected += (first.expected - step.expected) * p;
      }
    }
  }
  return r;
}

std::vector<BatchRange> paying_batches(StepCost& target, StepCost* draft, long context, const Speculation& s,
                                       long max_batch, Timing timing, bool reads_target) {
  const bool bound = timing == Timing::bound;
  std::vector<BatchRange> paying;
  for (long b = 1; b <= max_batch; ++b) {
    const SpeculativeRate r = speculative_rate(target, draft, b, context, s, reads_target);
    if (r.speculative_per_s(bound) <= r.plain_per_s(bound)) continue;
    if (!paying.empty() && paying.back().to == b - 1) {
      paying.back().to = b;
    } else {
      paying.push_back({b, b});
    }
  }
  return paying;
}

std::optional<long> stops_paying(const std::vector<BatchRange>& paying, long max_batch) {
  if (paying.empty()) return 1;
  if (paying.back().to == max_batch) return std::nullopt;
  return paying.back().to + 1;
}

}  // namespace roofline::serve
