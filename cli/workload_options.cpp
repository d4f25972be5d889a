#include "cli/workload_options.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "io/input_error.hpp"
#include "io/spec_loader.hpp"

namespace roofline::cli {

using namespace io;

std::optional<DType> dtype_flag(const std::string& value, std::string_view flag) {
  if (value.empty()) return std::nullopt;
  try {
    return parse_dtype(value);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("--{}: {}", flag, e.what()));
  }
}

double quantity_flag(const std::string& value, Dimension d, std::string_view flag) {
  double v = 0;
  try {
    v = parse_quantity(value, d);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("--{}: {}", flag, e.what()));
  }
  if (!(v > 0)) throw InputError(fmt::format("--{}: \"{}\" must be positive", flag, value));
  return v;
}

void add_workload_options(CLI::App& app, WorkloadArgs& a) {
  app.add_option("--model,-m", a.model, "model: a YAML file or a preset name (llama-2-7b)");
  app.add_option("--gpu,-g", a.gpu, "GPU: a YAML file or a preset name (a100-80gb)");
  app.add_option("--batch,-b", a.batch, "sequences decoded together")->capture_default_str();
  app.add_option("--prompt,-p", a.prompt, "prompt tokens per sequence (prefill)")->capture_default_str();
  app.add_option("--gen", a.gen, "generated tokens per sequence (decode)")->capture_default_str();
  app.add_option("--context", a.context, "tokens in the KV cache at the decode step evaluated [prompt + gen/2]");
  app.add_option("--weights", a.weights, "weight format: fp16, bf16, fp8, int8, int4 ... [model dtype]");
  app.add_option("--kv", a.kv, "KV cache format [activation format]");
  app.add_option("--activations", a.activations, "activation format [model dtype, or fp16]");
  app.add_option("--compute", a.compute, "format the matrix units compute in [activation format]");
  app.add_option("--group-size", a.group_size, "weights per quantization scale for sub-byte formats [128]");
  app.add_option("--tp", a.tp, "tensor-parallel GPUs")->capture_default_str();
  app.add_option("--attention", a.attention, "attention kernel: flash (scores on chip) or naive")
      ->check(CLI::IsMember({"flash", "naive"}))
      ->capture_default_str();
  app.add_option("--reserve", a.reserve, "fraction of memory held back (CUDA context, allocator)")->capture_default_str();
}

Workload make_workload(const WorkloadArgs& a, const ModelSpec& m, const GpuSpec& g) {
  Workload w;
  w.batch = a.batch;
  w.prompt_tokens = a.prompt;
  w.gen_tokens = a.gen;
  w.context_tokens = a.context.value_or(default_context(a.prompt, a.gen));
  w.tp = a.tp;
  w.attention = a.attention == "naive" ? AttentionKernel::naive : AttentionKernel::flash;
  w.reserve_fraction = a.reserve;
  const PrecisionOverrides o{dtype_flag(a.weights, "weights"), dtype_flag(a.kv, "kv"),
                             dtype_flag(a.activations, "activations"), dtype_flag(a.compute, "compute"),
                             a.group_size};
  w.precision = resolve_precision(m.dtype, o);
  if (const auto e = validate(w, m, g)) throw InputError(fmt::format("--{}: {}", e->field, e->message));
  return w;
}

}  // namespace roofline::cli
