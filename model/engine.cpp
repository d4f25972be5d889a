#include "model/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "model/expected.hpp"
#include "model/operators.hpp"
#include "model/parameters.hpp"
#include "model/pipeline.hpp"

namespace roofline {

namespace {

void check(const std::optional<SpecError>& e) {
  if (e) throw std::invalid_argument(fmt::format("{}: {}", e->field, e->message));
}

std::vector<Warning> warnings_for(const Report& r) {
  std::vector<Warning> out;
  const ModelSpec& m = r.model.spec;
  const Workload& w = r.workload;
  if (!m.architecture) out.emplace_back(ArchitectureUnknown{});
  for (Assumption a : m.assumptions) out.emplace_back(Assumed{a});
  const long longest = std::max(w.context_tokens, w.prompt_tokens + w.gen_tokens);
  if (m.max_context && longest > *m.max_context) out.emplace_back(BeyondMaxContext{longest, *m.max_context});
  // A pipeline's stages hold unequal shares: its fullest GPU against one GPU's capacity says why.
  if (!r.memory.fits && w.pp > 1) {
    out.emplace_back(DoesNotFit{r.memory.fullest_gpu, r.gpu.spec.memory_capacity, w.batch});
  } else if (!r.memory.fits) {
    out.emplace_back(DoesNotFit{r.memory.total, r.memory.capacity, w.batch});
  }
  return out;
}

Sharding sharding(const Workload& w) { return {w.tp, w.ep, w.dp_attention, w.expert_imbalance}; }

// What the replica's GPUs hold, from one GPU of a stage holding all the layers at its widths: tp
// such GPUs hold everything; stages split the layers evenly, and the first and the last also hold
// the embedding and the head.
WeightPlacement place_weights(const WeightBytes& one_gpu, const Workload& w) {
  const Bytes all = one_gpu.total() * static_cast<double>(w.tp);
  if (w.pp == 1) return {all, one_gpu.total()};
  const Bytes ends[] = {one_gpu.of(TensorClass::embedding), one_gpu.of(TensorClass::lm_head)};
  const Bytes layers = one_gpu.total() - ends[0] - ends[1];
  return {all, layers / static_cast<double>(w.pp) + std::max(ends[0], ends[1])};
}

}  // namespace

Report evaluate(const ModelSpec& model, const GpuSpec& gpu, const Workload& workload) {
  check(validate(model));
  check(validate(workload, model, gpu));
  Report r;
  r.workload = workload;
  Workload one = workload;
  one.batch = 1;
  one.microbatches = 0;
  // A pipeline's passes are priced for one micro-batch through every stage, then composed.
  Workload micro = workload;
  micro.batch = microbatch_size(workload);
  ParameterCount params;
  WeightBytes stored;
  WeightPlacement placed;
  OpList prefill, decode, one_sequence;
  Bytes kv_per_token, cache_per_sequence;
  const auto sequence = static_cast<double>(workload.prompt_tokens + workload.gen_tokens);
  std::optional<LayerStack> whole, split;
  if (model.architecture) {
    // The layers are described once for the whole model and, on more than one GPU a stage, once
    // for one GPU of it.
    whole = describe_layers(*model.architecture, 1);
    if (workload.tp > 1) split = describe_layers(*model.architecture, sharding(workload));
    const LayerStack& shard = split ? *split : *whole;
    const WeightPricing pricing(workload.precision, *whole);
    const Weights weights = weigh(*whole, pricing);
    params = weights.params;
    stored = weights.bytes;
    placed = place_weights(split ? weigh(*split, pricing).bytes : stored, workload);
    const CacheElements cache = cache_elements(*whole, sequence);
    const double kvb = bytes_per_element(workload.precision.kv);
    cache_per_sequence = Bytes(cache.total() * kvb);
    kv_per_token = Bytes(cache_elements(*whole, 1).kv * kvb);
    prefill = build_ops(Phase::prefill, shard, micro, ExpertRouting::uniform, pricing);
    decode = build_ops(Phase::decode, shard, micro, ExpertRouting::uniform, pricing);
    one_sequence = build_ops(Phase::decode, shard, one, ExpertRouting::all, pricing);
    if (workload.pp > 1) {
      const auto b = static_cast<double>(micro.batch);
      for (const OpCost& op : pipeline_sends(workload, b * static_cast<double>(workload.prompt_tokens), shard.hidden,
                                             shard, *gpu.interconnect)) {
        prefill.push_back(op);
      }
      for (const OpCost& op : pipeline_sends(workload, b, shard.hidden, shard, *gpu.interconnect)) decode.push_back(op);
    }
  } else {
    params = count_parameters(model);
    stored = weight_bytes(model.declared_params, workload.precision);
    placed = {stored.total(), stored.total()};
    prefill = build_ops(Phase::prefill, model, workload);
    decode = build_ops(Phase::decode, model, workload);
    one_sequence = build_ops(Phase::decode, model, one, ExpertRouting::all);
  }
  r.model = {model, params.total(), params.active(), stored.total(), kv_per_token, cache_per_sequence, stored.by_class};
  r.gpu = {gpu, {*gpu.effective_peak(workload.precision.compute), gpu.effective_bandwidth()}};

  const Ceilings& c = r.gpu.ceilings;
  const ExpectedModel em = gpu.expected_model();
  r.prefill = evaluate_phase(prefill, c, gpu.interconnect, gpu.network);
  r.decode.step = evaluate_phase(decode, c, gpu.interconnect, gpu.network);
  r.prefill.expected = expected_phase(r.prefill, em, c);
  r.decode.step.expected = expected_phase(r.decode.step, em, c);
  if (workload.pp > 1) {
    const long m = microbatches(workload);
    r.prefill = pipelined(r.prefill, Phase::prefill, workload.pp, m, micro.batch, r.prefill_pipeline.emplace());
    r.decode.step = pipelined(r.decode.step, Phase::decode, workload.pp, m, micro.batch, r.decode_pipeline.emplace());
  }
  r.decode.tokens_per_s = static_cast<double>(workload.batch) / r.decode.step.time.value();
  r.decode.expected_tokens_per_s = static_cast<double>(workload.batch) / r.decode.step.expected.time.value();
  r.decode.weight_read_time = r.decode.step.weight_bytes / c.bandwidth;
  r.critical_batch = critical_batch(params, stored.total(), one_sequence, c);
  r.memory = memory_ledger(placed, split ? &*split : whole ? &*whole : nullptr, gpu, workload);
  r.warnings = warnings_for(r);
  return r;
}

}  // namespace roofline
