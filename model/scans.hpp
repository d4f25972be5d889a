#pragma once
// A point's neighbours: the reports along one axis of its workload, and the variations the
// explanation compares it with. Charts and explain arrange these reports; they never evaluate
// a point or recompute a formula themselves.
#include <optional>
#include <vector>

#include "model/report.hpp"

namespace roofline {

// Decode against batch: `points` + 1 batches spaced geometrically from 1 to `last` (rounded;
// repeats dropped), the rest of the workload as given.
[[nodiscard]] std::vector<Report> scan_batch(const ModelSpec& m, const GpuSpec& g, const Workload& w, long last,
                                             int points);

// Decode against context: `points` + 1 contexts spaced evenly from 0 to `last` (at least 1
// token), at the workload's prompt where the context holds it and its generation, else at what
// the context leaves beside the generation (at least 1 token).
[[nodiscard]] std::vector<Report> scan_context(const ModelSpec& m, const GpuSpec& g, const Workload& w, long last,
                                               int points);

// Where memory runs out, exactly (a scan's samples are 2% to 2048 tokens apart): the first batch
// the ledger cannot hold at the point's lengths, and the first context along scan_context's line
// (the workload's prompt, shortened only below prompt + gen) that it cannot hold at the point's
// batch. Empty: none up to `last`, or (a batch) nothing per sequence is modelled.
[[nodiscard]] std::optional<long> first_batch_past_memory(const Report& base, long last);
[[nodiscard]] std::optional<long> first_context_past_memory(const ModelSpec& m, const GpuSpec& g, const Workload& w,
                                                            long last);

// What the explanation weighs a point against: a bigger batch, twice the critical batch, int4
// weights, an fp8 cache, unfused attention, and speculative verification of 4 drafted tokens.
struct Variations {
  // Speculative decoding verifies this many drafted tokens a sequence in one step.
  static constexpr long kDraftedTokens = 4;
  // The rows a sequence that verify passes through the target: the drafts and the token before
  // them, whose K/V the target has yet to write, as simulate prices it (serve/speculative.cpp:
  // K + 1 queries) and engines run it. All K accepted, it yields K + 1 tokens: the drafts and the
  // target's own next one.
  static constexpr long kVerifyRows = kDraftedTokens + 1;
  // batch1: one sequence at the same context, the single-stream ceiling the story compares with.
  // flash and naive: the two attention kernels, one of them the base's. speculative: the step at
  // kVerifyRows times the batch, each row priced as a sequence of its own.
  Report base, batch1, batch64, twice_critical, int4, kv8, flash, naive, speculative;
  // The verification step: `speculative` with each sequence's cache read once, not once a row, and
  // a recurrent layer's state read once and written once a row, as vLLM keeps it (model/scans.cpp
  // says how); never below the base step.
  Seconds verify_step;
};

[[nodiscard]] Variations variations(const ModelSpec& m, const GpuSpec& g, const Workload& w);

}  // namespace roofline
