#include "model/workload.hpp"

#include <fmt/format.h>

namespace roofline {

namespace {

std::optional<SpecError> validate_tp(const Workload& w, const ModelSpec& m, const GpuSpec& g) {
  if (w.tp < 1) return SpecError{"tp", fmt::format("must be at least 1, got {}", w.tp)};
  if (w.tp == 1) return std::nullopt;
  if (!m.architecture) {
    return SpecError{"tp", "tensor parallelism needs the model's architecture (hidden size, heads); "
                           "this model gives only `params`"};
  }
  if (!g.interconnect) {
    return SpecError{"tp", fmt::format("tp {} needs `interconnect: {{bandwidth, latency}}` in the GPU "
                                       "description of {}",
                                       w.tp, g.name)};
  }
  const Architecture& a = *m.architecture;
  if (a.recurrent) {
    // Split like attention: by heads (Mamba-1: by channels).
    const Recurrent& r = *a.recurrent;
    const bool channels = r.kind == RecurrentKind::mamba;
    const long split = channels ? r.inner : r.heads;
    if (split % w.tp != 0) {
      return SpecError{"tp", fmt::format("tp {} does not divide the recurrent layers' {} {}", w.tp, split,
                                         channels ? "channels" : "heads")};
    }
  }
  if (a.attention_layers() == 0) return std::nullopt;
  if (a.heads % w.tp != 0) {
    return SpecError{"tp", fmt::format("tp {} does not divide the {} attention heads", w.tp, a.heads)};
  }
  // K/V heads are split when there are enough of them, else each is replicated on tp / kv_heads GPUs.
  if (a.kv_heads % w.tp != 0 && w.tp % a.kv_heads != 0) {
    return SpecError{"tp", fmt::format("tp {} neither divides nor is a multiple of the {} kv heads", w.tp,
                                       a.kv_heads)};
  }
  return std::nullopt;
}

}  // namespace

std::optional<SpecError> validate(const Workload& w, const ModelSpec& m, const GpuSpec& g) {
  if (w.batch < 1) return SpecError{"batch", fmt::format("must be at least 1, got {}", w.batch)};
  if (w.prompt_tokens < 1) {
    return SpecError{"prompt", fmt::format("must be at least 1 token, got {}", w.prompt_tokens)};
  }
  if (w.gen_tokens < 1) return SpecError{"gen", fmt::format("must be at least 1 token, got {}", w.gen_tokens)};
  if (w.context_tokens < 1) {
    return SpecError{"context", fmt::format("must be at least 1 token, got {}", w.context_tokens)};
  }
  if (w.precision.group_size < 1) {
    return SpecError{"group-size", fmt::format("must be at least 1, got {}", w.precision.group_size)};
  }
  if (!(w.reserve_fraction >= 0 && w.reserve_fraction < 1)) {
    return SpecError{"reserve", fmt::format("must be in [0, 1), got {}", w.reserve_fraction)};
  }
  if (!g.effective_peak(w.precision.compute)) {
    return SpecError{"compute", fmt::format("{} gives no peak for {}; add compute.peak.{} to it or pick "
                                            "another --compute",
                                            g.name, name(w.precision.compute), name(w.precision.compute))};
  }
  return validate_tp(w, m, g);
}

}  // namespace roofline
