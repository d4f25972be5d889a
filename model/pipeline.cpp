#include "model/pipeline.hpp"

#include <algorithm>

namespace roofline {

namespace {

bool is_send(const OpResult& o) { return o.bound == Bound::interconnect && o.cost.collective == Collective::send; }

}  // namespace

std::vector<int> stage_split(int layers, int stages) {
  std::vector<int> split(static_cast<std::size_t>(std::max(stages, 1)), std::max(layers, 0) / std::max(stages, 1));
  const int remainder = std::max(layers, 0) % std::max(stages, 1);
  for (int i = 2; i < remainder + 2; ++i) ++split[split.size() - static_cast<std::size_t>(i)];
  return split;
}

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

PhaseResult pipelined(std::span<const MicroBatches> parts, Phase phase, int stages, Pipeline& out) {
  const auto p = static_cast<double>(stages);
  // The expected time scales with the composition priced with every collective at the expected
  // time's floor (a ring's transfer and a latency a call: what the bound charged before it became
  // bandwidth alone), `floored`; the bound composes the collectives' bounds.
  Seconds busy, slowest, sends_of_slowest;
  Seconds floored_busy, floored_slowest, floored_sends_of_slowest, floored_reference;
  // One micro-batch's trip through every stage, the slowest's and the rest: pp stages of the even
  // split, or, where the busiest stage takes more, the whole pass (the stages' sum) of which it
  // is one. The busiest stage paces the steady part alone (m of them), not the trip.
  struct Trip {
    Seconds all, rest;
  };
  Trip trip, floored_trip;
  long count = 0;
  const MicroBatches* largest = &parts.front();
  for (const MicroBatches& part : parts) {
    Seconds sends, floored_sends, floored_pass = part.pass->time;
    for (const OpResult& o : part.pass->ops) {
      if (o.bound != Bound::interconnect) continue;
      const Seconds floor = o.comm.floor() * o.cost.comm_calls;
      floored_pass += floor - o.time;
      if (!is_send(o)) continue;
      sends += o.time;
      floored_sends += floor;
    }
    // The even split, or the busiest stage's layers where pp leaves it more; the floored
    // composition in the same proportion.
    const Seconds even = (part.pass->time - sends) / p, stage = std::max(even, part.heaviest);
    const bool uneven = stage > even;
    const Seconds floored_stage = (floored_pass - floored_sends) / p * (uneven ? stage / even : 1.0);
    const auto trip_of = [&](Seconds one, Seconds whole) {
      return uneven ? Trip{whole, whole - one} : Trip{one * p, one * (p - 1)};
    };
    const auto n = static_cast<double>(part.count);
    busy += stage * n;
    floored_busy += floored_stage * n;
    floored_reference += floored_pass * n;
    count += part.count;
    if (stage >= slowest) {
      slowest = stage;
      sends_of_slowest = sends;
      trip = trip_of(stage, part.pass->time - sends);
      largest = &part;
    }
    if (floored_stage >= floored_slowest) {
      floored_slowest = floored_stage;
      floored_sends_of_slowest = floored_sends;
      floored_trip = trip_of(floored_stage, floored_pass - floored_sends);
    }
  }
  const auto compose = [&](Seconds all, const Trip& one, Seconds sends) {
    return phase == Phase::prefill ? all + one.rest + sends : std::max(all, one.all + sends);
  };
  const Seconds time = compose(busy, trip, sends_of_slowest);
  const Seconds floored_time = compose(floored_busy, floored_trip, floored_sends_of_slowest);
  out = {stages, count, largest->size, slowest, sends_of_slowest, time > Seconds(0) ? 1.0 - (busy / time) : 0.0};

  // Work and costs: Σ count × part, over the stages.
  PhaseResult r = *largest->pass;
  r.flops = Flops(0);
  r.bytes = r.weight_bytes = Bytes(0);
  r.compute_time = r.memory_time = r.comm_time = Seconds(0);
  for (OpResult& o : r.ops) {
    o.cost.flops = Flops(0);
    o.cost.bytes = o.cost.weight_bytes = o.cost.comm_bytes = Bytes(0);
    o.cost.comm_calls = o.cost.launches = 0;
    o.compute_time = o.memory_time = o.time = Seconds(0);
  }
  Expected e = largest->pass->expected;
  for (Seconds* s : {&e.time, &e.overhead, &e.comm, &e.compute, &e.memory, &e.dequant, &e.low, &e.high}) *s = Seconds(0);
  for (const MicroBatches& part : parts) {
    const PhaseResult& m = *part.pass;
    const double k = static_cast<double>(part.count) / p;
    r.flops += m.flops * k;
    r.bytes += m.bytes * k;
    r.weight_bytes += m.weight_bytes * k;
    r.compute_time += m.compute_time * k;
    r.memory_time += m.memory_time * k;
    r.comm_time += m.comm_time * k;
    for (std::size_t i = 0; i < r.ops.size() && i < m.ops.size(); ++i) {
      OpResult& o = r.ops[i];
      const OpResult& q = m.ops[i];
      o.cost.flops += q.cost.flops * k;
      o.cost.bytes += q.cost.bytes * k;
      o.cost.weight_bytes += q.cost.weight_bytes * k;
      o.cost.comm_bytes += q.cost.comm_bytes * k;
      o.cost.comm_calls += q.cost.comm_calls * k;
      o.cost.launches += q.cost.launches * k;
      o.compute_time += q.compute_time * k;
      o.memory_time += q.memory_time * k;
      o.time += q.time * k;
    }
    const auto n = static_cast<double>(part.count);
    const Expected& q = m.expected;
    e.time += q.time * n;
    e.overhead += q.overhead * n;
    e.comm += q.comm * n;
    e.compute += q.compute * n;
    e.memory += q.memory * n;
    e.dequant += q.dequant * n;
    e.low += q.low * n;
    e.high += q.high * n;
  }
  r.time = time;
  // The expected time follows the composition: its parts scale with it.
  const double k = floored_reference > Seconds(0) ? floored_time / floored_reference : 1.0;
  for (Seconds* s : {&e.time, &e.overhead, &e.comm, &e.compute, &e.memory, &e.dequant, &e.high}) *s = *s * k;
  e.bound = time;
  e.low = std::max(time, e.low * k);
  r.expected = e;
  return r;
}

}  // namespace roofline
