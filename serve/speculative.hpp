#pragma once
// Speculative decoding (Leviathan, Kalman, Matias 2023; Chen et al. 2023): a draft proposes K
// tokens one decode step at a time, and the target verifies them in one pass of K + 1 tokens a
// sequence, keeping the accepted prefix and one token of its own. With each draft token accepted
// with probability α, independently, a verify step yields (1 − α^(K+1))/(1 − α) tokens. It pays
// while the target's decode is memory-bound, where K + 1 tokens cost little more than one; as the
// batch grows the verify's K + 1 rows reach the compute roof, and past a batch it stops paying.
#include <optional>
#include <vector>

#include "serve/simulator.hpp"
#include "serve/step_cost.hpp"

namespace roofline::serve {

// E[tokens a verify step yields]: K + 1 at α = 1.
[[nodiscard]] double expected_tokens(const Speculation& s);

// Tokens per second of `batch` sequences at `context`, without and with speculation, on the bound
// and on the expected times. draft: the draft model's steps; null: drafts cost nothing (prompt
// lookup, or heads too small to count). reads_target: the draft runs on the target's hidden
// states (MTP, ServerConfig::draft_reads_target), and so its first step of each round also runs
// over the drafts the last verify accepted.
struct SpeculativeRate {
  StepTime plain, draft, verify;  // one decode step; K draft steps; one verify step
  double tokens = 0;              // per sequence per verify step
  [[nodiscard]] double plain_per_s(bool bound) const;        // per sequence
  [[nodiscard]] double speculative_per_s(bool bound) const;  // per sequence
};
[[nodiscard]] SpeculativeRate speculative_rate(StepCost& target, StepCost* draft, long batch, long context,
                                               const Speculation& s, bool reads_target);

// The batches (the replica's: spread over its ranks) at which speculation beats plain decode on
// `timing`'s step times, as ranges [from, to], every batch from 1 to max_batch scanned: with
// experts the weights a pass reads change with its rows, so speculation may pay again past a
// batch where it stopped.
struct BatchRange {
  long from = 0, to = 0;
};
[[nodiscard]] std::vector<BatchRange> paying_batches(StepCost& target, StepCost* draft, long context,
                                                     const Speculation& s, long max_batch, Timing timing,
                                                     bool reads_target);
// The batch from which it pays at no batch up to max_batch; nullopt when it pays at max_batch.
[[nodiscard]] std::optional<long> stops_paying(const std::vector<BatchRange>& paying, long max_batch);

}  // namespace roofline::serve
