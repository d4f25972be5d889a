#include "model/engine.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "model/parameters.hpp"

namespace roofline {

namespace {

void check(const std::optional<SpecError>& e) {
  if (e) throw std::invalid_argument(fmt::format("{}: {}", e->field, e->message));
}

std::vector<std::string> warnings_for(const Report& r) {
  std::vector<std::string> out;
  const ModelSpec& m = *r.model.spec;
  const Workload& w = r.workload;
  if (!m.architecture) {
    out.push_back("architecture unknown (only `params` given): KV cache, attention and activations are "
                  "not modelled; decode reads the weights only");
  }
  const long longest = std::max(w.context_tokens, w.prompt_tokens + w.gen_tokens);
  if (m.max_context && longest > *m.max_context) {
    out.push_back(fmt::format("{} tokens exceed the model's max_context of {}", longest, *m.max_context));
  }
  if (!r.memory.fits) {
    out.push_back(fmt::format("does not fit: needs {:.1f} GB of {:.1f} GB at batch {}", r.memory.total.value() / 1e9,
                              r.memory.capacity.value() / 1e9, w.batch));
  }
  return out;
}

}  // namespace

Report evaluate(const ModelSpec& model, const GpuSpec& gpu, const Workload& workload) {
  check(validate(model));
  check(validate(workload, model, gpu));
  Report r;
  r.workload = workload;
  const ParameterCount params = count_parameters(model);
  r.model = {&model, params.total(), params.active(), weight_bytes(params, workload.precision),
             kv_bytes_per_token(model, workload.precision)};
  r.gpu = {&gpu, {*gpu.effective_peak(workload.precision.compute), gpu.effective_bandwidth()}};

  const Ceilings& c = r.gpu.ceilings;
  r.prefill = evaluate_phase(build_ops(Phase::prefill, model, workload), c, gpu.interconnect, workload.tp);
  r.decode.step = evaluate_phase(build_ops(Phase::decode, model, workload), c, gpu.interconnect, workload.tp);
  r.decode.tokens_per_s = static_cast<double>(workload.batch) / r.decode.step.time.value();
  r.critical_batch = critical_batch(model, workload, c);
  r.memory = memory_ledger(model, gpu, workload);
  r.warnings = warnings_for(r);
  return r;
}

}  // namespace roofline
