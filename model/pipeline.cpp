#include "model/pipeline.hpp"

#include <algorithm>

namespace roofline {

namespace {

bool is_send(const OpResult& o) { return o.bound == Bound::interconnect && o.cost.collective == Collective::send; }

}  // namespace

OpList pipeline_sends(const Workload& w, double rows, double hidden, const LayerStack& stack, const Interconnect& link) {
  // Each GPU of a stage sends its rows' residual stream (its own sequences' under data-parallel
  // attention; under tensor parallelism every GPU holds all of them) to its peer in the next stage.
  const double bytes = rows / stack.data_parallel * hidden * bytes_per_element(w.precision.activations);
  double within = 0, across = 0;
  for (int s = 1; s < w.pp; ++s) ((s * w.tp) % link.domain == 0 ? across : within) += 1;
  OpList ops;
  for (const auto& [calls, leaves] : {std::pair{within, false}, std::pair{across, true}}) {
    if (calls == 0) continue;
    OpCost op{"pipeline_send", leaves ? "network" : "", Flops(0), Bytes(0), Bytes(0), Bytes(bytes * calls), calls};
    op.collective = Collective::send;
    op.group = 2;
    op.across = leaves;
    ops.push_back(op);
  }
  return ops;
}

PhaseResult pipelined(const PhaseResult& micro, Phase phase, int stages, long microbatches, long microbatch,
                      Pipeline& out) {
  const auto p = static_cast<double>(stages), m = static_cast<double>(microbatches);
  Seconds sends;
  for (const OpResult& o : micro.ops) {
    if (is_send(o)) sends += o.time;
  }
  const Seconds stage = (micro.time - sends) / p;
  const Seconds busy = stage * m;
  const Seconds time = phase == Phase::prefill ? stage * (m + p - 1) + sends : std::max(busy, stage * p + sends);
  out = {stages, microbatches, microbatch, stage, sends, time > Seconds(0) ? 1.0 - (busy / time) : 0.0};

  PhaseResult r = micro;
  const auto times = [m](auto q) { return q * m; };
  r.flops = times(micro.flops);
  r.bytes = times(micro.bytes);
  r.weight_bytes = times(micro.weight_bytes);
  r.compute_time = times(micro.compute_time);
  r.memory_time = times(micro.memory_time);
  r.comm_time = times(micro.comm_time);
  for (OpResult& o : r.ops) {
    o.cost.flops = times(o.cost.flops);
    o.cost.bytes = times(o.cost.bytes);
    o.cost.weight_bytes = times(o.cost.weight_bytes);
    o.cost.comm_bytes = times(o.cost.comm_bytes);
    o.cost.comm_calls *= m;
    o.cost.launches *= m;
    o.compute_time = times(o.compute_time);
    o.memory_time = times(o.memory_time);
    o.time = times(o.time);
  }
  r.time = time;
  // The expected time follows the bound's composition: its parts scale with it.
  const double k = micro.time > Seconds(0) ? time / micro.time : 1.0;
  Expected& e = r.expected;
  for (Seconds* s : {&e.time, &e.overhead, &e.comm, &e.compute, &e.memory, &e.dequant, &e.high}) *s = *s * k;
  e.bound = time;
  e.low = std::max(time, e.low * k);
  return r;
}

}  // namespace roofline
