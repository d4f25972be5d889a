#pragma once
// Pipeline parallelism: pp stages, each holding its own layers, and the batch split into m
// micro-batches that follow one another through them (GPipe, Huang et al. 2019).
//
// One micro-batch takes T through all stages: t_s = (T − S)/pp in each were they even, and S for
// its activations across the pp − 1 boundaries. The stages are not even (stage_split deals the
// layers, the first holds the embedding, the last the head, and layers differ): the busiest, t_s,
// paces the steady part: a prefill takes m·t_s + (T − S − t_s) + S, a decode step max(m·t_s, T).
// Were they even, a prefill of the batch would finish after (m + pp − 1)·t_s + S: the first
// micro-batch fills the pipeline, the others follow a stage behind, and each stage idles
// (pp − 1)/(m + pp − 1) of the time: the bubble. Uneven, the bubble is the busiest stage's idle
// share of the pass, 1 − m·t_s/time (a lighter stage idles longer; docs/capacity-planning.md's
// T_req = (1 − bubble)·T reads the busiest stage's busy time from it). A decode step advances
// every sequence one token: with m ≥ pp micro-batches in flight each stage is always busy and
// the step takes m·t_s; with fewer, a micro-batch's next token waits for its last one to come
// round. Work and op costs are one GPU's: the sum over the stages over pp. Neither phase is
// faster than on one GPU holding all the layers at that micro-batch: a pipeline buys memory and
// throughput, not latency.
#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "model/layers.hpp"
#include "model/operators.hpp"
#include "model/phase.hpp"

namespace roofline {

struct Pipeline {
  int stages = 1;
  long microbatches = 1;
  long microbatch = 1;    // sequences in the largest
  Seconds stage_time;     // the largest micro-batch through one stage
  Seconds send_time;      // its activations over every boundary
  double bubble = 0;      // the busiest stage's idle share of the phase, 1 − microbatches·stage_time/time (the others idle longer)
};

// The layers each of `stages` stages holds, in order, as vLLM splits them unless told otherwise
// (get_pp_indices, vllm/distributed/utils.py; SGLang takes the same): ⌊L/pp⌋ each, and the
// remainder one each to the stages before the last, from the second-to-last back, so that the last
// (which runs the head) and, while it can, the first (the embedding) hold no more. 61 layers on 4:
// 15, 15, 16, 15. A stage's share of each block of layers is layers_in (model/layers.hpp).
[[nodiscard]] std::vector<int> stage_split(int layers, int stages);

// How `shard`'s blocks lie on `stages` pipeline stages, the one deal that a stage's time
// (model/engine.cpp busiest_stage) and what it holds (pipeline_stages) are both read from:
// `on(block, held)` once a block, held[i] its layers on stage i (stage_split, layers_in); an end,
// a block of no layers (the embedding, an MTP module's input, the final norm and head), whole on
// the first stage where it comes before the layers, on the last where after.
template <class On>
void deal_stages(const Architecture& a, const LayerStack& shard, int stages, On&& on) {
  const std::vector<int> split = stage_split(a.layers, stages);
  std::vector<int> held(split.size());
  bool past_layers = false;
  for (const Block& b : shard.blocks) {
    std::fill(held.begin(), held.end(), 0);
    if (b.selection.of == LayerSelection::Of::none) {
      (past_layers ? held.back() : held.front()) = 1;
    } else {
      past_layers = true;
      int begin = 0;
      for (std::size_t i = 0; i < split.size(); ++i) {
        held[i] = layers_in(a, b, begin, begin + split[i]);
        begin += split[i];
      }
    }
    on(b, std::span<const int>(held));
  }
}

// The activations one micro-batch of `rows` tokens sends across the stage boundaries, as
// collectives (sends) for evaluate_phase: boundaries inside a domain and those between domains.
[[nodiscard]] OpList pipeline_sends(const Workload& w, double rows, double hidden, const LayerStack& stack,
                                    const Interconnect& link);

// `count` micro-batches whose pass through every stage (its sends included) is `pass`. A batch
// that the micro-batches do not divide evenly has two sizes: B mod m of ⌈B/m⌉, the rest ⌊B/m⌋.
struct MicroBatches {
  const PhaseResult* pass;
  long count;
  long size;
  // What the busiest stage takes: its layers and ends, each block priced alone (model/engine.cpp
  // busiest_stage); never less than the even split's (T − S)/pp.
  Seconds heaviest{0};
};

// The pass of the whole batch: its time the pipeline's (the stages keep pace with the largest
// micro-batch), its work and op costs those of one GPU (every micro-batch through one stage: the
// sum over stages / pp), the expected time scaled with the bound (its parts and interval in
// proportion).
[[nodiscard]] PhaseResult pipelined(std::span<const MicroBatches> parts, Phase phase, int stages, Pipeline& out);

}  // namespace roofline
