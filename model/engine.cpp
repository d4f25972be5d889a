#include "model/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "model/expected.hpp"
#include "model/operators.hpp"
#include "model/parameters.hpp"

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
  if (!r.memory.fits) out.emplace_back(DoesNotFit{r.memory.total, r.memory.capacity, w.batch});
  return out;
}

}  // namespace

Report evaluate(const ModelSpec& model, const GpuSpec& gpu, const Workload& workload) {
  check(validate(model));
  check(validate(workload, model, gpu));
  Report r;
  r.workload = workload;
  Workload one = workload;
  one.batch = 1;
  ParameterCount params;
  WeightBytes stored;
  OpList prefill, decode, one_sequence;
  Bytes kv_per_token, cache_per_sequence;
  const auto sequence = static_cast<double>(workload.prompt_tokens + workload.gen_tokens);
  std::optional<LayerStack> whole, split;
  if (model.architecture) {
    // The layers are described once for the whole model and, under tensor parallelism, once for
    // one GPU of the group.
    whole = describe_layers(*model.architecture, 1);
    if (workload.tp > 1) split = describe_layers(*model.architecture, workload.tp);
    const LayerStack& shard = split ? *split : *whole;
    const WeightPricing pricing(workload.precision, *whole);
    const Weights weights = weigh(*whole, pricing);
    params = weights.params;
    stored = weights.bytes;
    const CacheElements cache = cache_elements(*whole, sequence);
    const double kvb = bytes_per_element(workload.precision.kv);
    cache_per_sequence = Bytes(cache.total() * kvb);
    kv_per_token = Bytes(cache_elements(*whole, 1).kv * kvb);
    prefill = build_ops(Phase::prefill, shard, workload, ExpertRouting::uniform, pricing);
    decode = build_ops(Phase::decode, shard, workload, ExpertRouting::uniform, pricing);
    one_sequence = build_ops(Phase::decode, shard, one, ExpertRouting::all, pricing);
  } else {
    params = count_parameters(model);
    stored = weight_bytes(model.declared_params, workload.precision);
    prefill = build_ops(Phase::prefill, model, workload);
    decode = build_ops(Phase::decode, model, workload);
    one_sequence = build_ops(Phase::decode, model, one, ExpertRouting::all);
  }
  r.model = {model, params.total(), params.active(), stored.total(), kv_per_token, cache_per_sequence, stored.by_class};
  r.gpu = {gpu, {*gpu.effective_peak(workload.precision.compute), gpu.effective_bandwidth()}};

  const Ceilings& c = r.gpu.ceilings;
  r.prefill = evaluate_phase(prefill, c, gpu.interconnect, workload.tp);
  r.decode.step = evaluate_phase(decode, c, gpu.interconnect, workload.tp);
  r.decode.tokens_per_s = static_cast<double>(workload.batch) / r.decode.step.time.value();
  const ExpectedModel em = gpu.expected_model();
  r.prefill.expected = expected_phase(r.prefill, em, c, gpu.interconnect, workload.tp);
  r.decode.step.expected = expected_phase(r.decode.step, em, c, gpu.interconnect, workload.tp);
  r.decode.expected_tokens_per_s = static_cast<double>(workload.batch) / r.decode.step.expected.time.value();
  r.decode.weight_read_time = r.decode.step.weight_bytes / c.bandwidth;
  r.critical_batch = critical_batch(params, stored.total(), one_sequence, c);
  r.memory = memory_ledger(stored.total(), split ? &*split : whole ? &*whole : nullptr, gpu, workload);
  r.warnings = warnings_for(r);
  return r;
}

}  // namespace roofline
