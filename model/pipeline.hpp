#pragma once
// Pipeline parallelism: pp stages, each holding its own layers, and the batch split into m
// micro-batches that follow one another through them (GPipe, Huang et al. 2019).
//
// One micro-batch takes T through all stages: t_s = (T − S)/pp in each (layers split evenly) and S
// for its activations across the pp − 1 boundaries. A prefill of the batch finishes after
// (m + pp − 1)·t_s + S: the first micro-batch fills the pipeline, the others follow a stage behind,
// and the stages idle (pp − 1)/(m + pp − 1) of the time: the bubble. A decode step advances every
// sequence one token: with m ≥ pp micro-batches in flight each stage is always busy and the step
// takes m·t_s; with fewer, a micro-batch's next token waits for its last one to come round,
// pp·t_s + S. Work and op costs are one GPU's: each stage holds 1/pp of the layers. Neither phase is faster than on one GPU holding all the layers at that micro-batch:
// a pipeline buys memory and throughput, not latency.
#include <optional>
#include <span>

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
  double bubble = 0;      // share of the stages' time spent idle
};

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
};

// The pass of the whole batch: its time the pipeline's (the stages keep pace with the largest
// micro-batch), its work and op costs those of one GPU (every micro-batch through one stage: the
// sum over stages / pp), the expected time scaled with the bound (its parts and interval in
// proportion).
[[nodiscard]] PhaseResult pipelined(std::span<const MicroBatches> parts, Phase phase, int stages, Pipeline& out);

}  // namespace roofline
