#pragma once
// What one GPU's experts receive in a row of aiconfigurator's MoE tables (`*_moe.csv`): the picks
// (rows through the grouped GEMMs) and the distinct experts they reach, on the GPU the row timed.
// Its collector (collector/helper.py, `balanced_logits` and `power_law_logits_v3`, called by
// collector/trtllm/collect_moe.py) hands the MoE all `num_tokens` tokens with router logits that
// pick fixed experts, and runs the experts of EP rank 0 (experts 0 … E/ep − 1):
// - balanced: token i's j-th pick is expert (i + j·s) mod E, s = ⌈E/top_k⌉ (spread as i·s/n + j·s
//   when n < s): the picks are dealt evenly, and worked out here exactly;
// - power_law_α: each expert's share drawn from a power law (density ∝ x^−α on [1, 0.8 n] when
//   n·top_k > E, else [0.01, 2]), scaled to n·top_k picks and rounded; an expert's picks capped at
//   n (a token picks it once), and the picks the cap and the rounding lost dealt one a GPU, round
//   after round, to each GPU's quietest expert (an excess taken from each GPU's busiest:
//   `_generate_power_law_distribution`); the EP rank with the most picks swapped to rank 0, so the
//   row times the busiest GPU; five draws timed, their mean reported. Worked out here as the mean
//   over draws of the same generator, seeded: an expectation, not the draws the collector made.
namespace roofline::io {

struct ExpertLoad {
  double rows = 0;     // picks on the GPU timed
  double experts = 0;  // distinct experts of its E/ep that they reach
};

[[nodiscard]] ExpertLoad balanced_load(long tokens, long top_k, long experts, long ep);
[[nodiscard]] ExpertLoad power_law_load(long tokens, long top_k, long experts, long ep, double alpha);

}  // namespace roofline::io
