#include "cli/workload_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "cli/value_lists.hpp"
#include "io/input_error.hpp"
#include "io/spec_loader.hpp"

namespace roofline::cli {

using namespace io;

namespace {

constexpr std::array<std::string_view, kWorkloadFlags> kNames = {
    "model", "gpu", "attention", "reserve", "tp", "pp", "ep", "weights", "lm-head", "group-size", "kv", "activations",
    "compute", "prompt", "gen", "context", "batch"};

// The first value that an earlier one equals, as their two positions (the earlier first); none when
// each value is given once. A range never repeats, so a list in increasing order is passed over
// in one look however many values its ranges hold; another is sorted.
template <class T>
std::optional<std::pair<std::size_t, std::size_t>> repeat_in(const std::vector<T>& values) {
  if (std::adjacent_find(values.begin(), values.end(), [](const T& a, const T& b) { return !(a < b); }) == values.end()) {
    return std::nullopt;
  }
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::optional<std::pair<std::size_t, std::size_t>> first;
  for (std::size_t k = 1; k < order.size(); ++k) {
    if (values[order[k - 1]] == values[order[k]] && (!first || order[k] < first->second)) first = {order[k - 1], order[k]};
  }
  return first;
}

// A value given twice along a flag is one point twice: a sweep wrote its rows twice, a plan ranked
// its GPU or layout twice (counted twice by --top) and --emit wrote two scripts on the same GPUs
// and port. Refused by the flag's name and the value: `-b 1,1,2`, `--tp 1..4,2`, `--kv fp8,fp8`.
// `shown(i)` is the i-th value as the error names it (the item typed, where items are values).
template <class T, class Shown>
void refuse_repeats(const std::vector<T>& values, std::string_view flag, std::string_view typed, Shown&& shown) {
  const auto r = repeat_in(values);
  if (!r) return;
  const std::string a = shown(r->first), b = shown(r->second);
  throw InputError(a == b ? fmt::format("--{}: {} is given twice ({}); give each value once", flag, b, typed)
                          : fmt::format("--{}: {} is {} again ({}); give each value once", flag, b, a, typed));
}

// The flag's items as typed, for the error: "1,1,2", "1..4,2".
std::string typed_of(const std::vector<std::string>& items) { return fmt::format("{}", fmt::join(items, ",")); }

// A list of items, each one value (a name, a format, a kernel): the repeat named as typed.
template <class T>
void refuse_repeated_items(const std::vector<T>& values, const std::vector<std::string>& items, std::string_view flag) {
  refuse_repeats(values, flag, typed_of(items), [&](std::size_t i) { return items[i]; });
}

// A list of counts, whose ranges expand: the repeat named as the number.
void refuse_repeated_counts(const std::vector<long>& values, const std::vector<std::string>& items, std::string_view flag) {
  refuse_repeats(values, flag, typed_of(items), [&](std::size_t i) { return fmt::format("{}", values[i]); });
}

// A format flag: empty means "follow the model"; a typo is an InputError naming the flag.
std::optional<DType> dtype_flag(const std::string& value, std::string_view flag) {
  if (value.empty()) return std::nullopt;
  try {
    return parse_dtype(value);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("--{}: {}", flag, e.what()));
  }
}

std::vector<std::optional<DType>> dtype_list(const std::vector<std::string>& items, std::string_view flag) {
  if (items.empty()) return {std::nullopt};
  std::vector<std::optional<DType>> out;
  for (const std::string& item : items) out.push_back(dtype_flag(item, flag));
  refuse_repeated_items(out, items, flag);
  return out;
}

// A weight format flag: a format's name, or a dtype's (tf32 weights are stored as fp32).
std::optional<WeightFormat> weight_format_flag(const std::string& value, std::string_view flag) {
  if (value.empty()) return std::nullopt;
  if (const auto t = dtype_from_name(value); t && !weight_format_from_name(value)) return weight_format_of(*t);
  try {
    return parse_weight_format(value);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("--{}: {}", flag, e.what()));
  }
}

std::vector<std::optional<WeightFormat>> weight_format_list(const std::vector<std::string>& items,
                                                           std::string_view flag) {
  if (items.empty()) return {std::nullopt};
  std::vector<std::optional<WeightFormat>> out;
  for (const std::string& item : items) out.push_back(weight_format_flag(item, flag));
  refuse_repeated_items(out, items, flag);
  return out;
}

// Counts up to a documented maximum (below int's for those the engine keeps in an int: tp,
// group size), so that no value is narrowed and no product of them overflows.
std::vector<long> counts(const std::vector<std::string>& items, std::string_view flag, long most, std::string_view unit) {
  std::vector<long> out = expand_counts(items, flag);
  for (long v : out) {
    if (v > most) throw InputError(fmt::format("--{}: {} is more than the largest value it takes, {} {}", flag, v, most, unit));
  }
  refuse_repeated_counts(out, items, flag);
  return out;
}

template <class T>
std::vector<std::optional<T>> optional_list(const std::vector<T>& values) {
  if (values.empty()) return {std::nullopt};
  return {values.begin(), values.end()};
}

}  // namespace

std::string_view flag_name(WorkloadFlag f) { return kNames[static_cast<std::size_t>(f)]; }

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

// No engine schedules to a microsecond, and a target past a day is a typo: --ttft 1e300s was
// taken, and its header printed 300 digits of seconds.
double latency_target(const std::string& value, std::string_view flag) {
  constexpr double kShortest = 1e-6, kLongest = 86'400;
  const double v = quantity_flag(value, Dimension::time, flag);
  if (v < kShortest || v > kLongest) {
    throw InputError(fmt::format("--{}: \"{}\" is outside 1 us to a day (86400 s)", flag, value));
  }
  return v;
}

void add_workload_options(Options& o, WorkloadFlags& f, std::initializer_list<WorkloadFlag> omit) {
  using enum WorkloadFlag;
  auto wants = [omit](WorkloadFlag flag) { return std::find(omit.begin(), omit.end(), flag) == omit.end(); };
  if (wants(model)) o.add("--model,-m", f.model, "model: a YAML file or a preset name (llama-2-7b)");
  if (wants(gpu)) o.add("--gpu,-g", f.gpu, "GPU: a YAML file or a preset name (a100-80gb)");
  if (wants(batch)) o.add("--batch,-b", f.batch, "sequences decoded together").show_default();
  if (wants(prompt)) {
    o.add("--prompt,-p", f.prompt, "prompt tokens per sequence (prefill)").show_default().given(f.prompt_given);
  }
  if (wants(gen)) o.add("--gen", f.gen, "generated tokens per sequence (decode)").show_default().given(f.gen_given);
  if (wants(context)) o.add("--context", f.context, "tokens in the KV cache at the decode step evaluated; past prompt + gen, what a sequence holds [prompt + gen/2]");
  if (wants(weights)) {
    o.add("--weights", f.weights,
          fmt::format("format of the block linears (attention, FFN, experts): {} [the checkpoint's, or the model "
                      "dtype]",
                      weight_format_names(", ")));
  }
  if (wants(lm_head)) {
    o.add("--lm-head", f.lm_head,
          "format of the LM head (of the tied embedding table too), any --weights format [the checkpoint's; 16 "
          "bits beside quantized blocks]");
  }
  if (wants(kv)) o.add("--kv", f.kv,
                                 "KV cache format [the one the checkpoint declares (kv_cache_quant_algo, kv_cache_scheme), "
                                 "else the activation format]");
  if (wants(activations)) o.add("--activations", f.activations, "activation format [model dtype, or fp16]");
  if (wants(compute)) {
    o.add("--compute", f.compute,
          "format the matrix units compute in [fp8 for a checkpoint that quantizes its activations, or fp8 weights, "
          "where the GPU has an fp8 peak; else the activation format]");
  }
  if (wants(group_size)) {
    o.add("--group-size", f.group_size, "weights per scale of int4, awq, gptq, fp4 and fp6 [the checkpoint's, or 128]");
  }
  if (wants(tp)) o.add("--tp", f.tp, "tensor-parallel GPUs (of each pipeline stage)").show_default();
  if (wants(pp)) {
    o.add("--pp", f.pp, "pipeline stages, each on --tp GPUs of its own").show_default();
    o.add("--microbatches", f.microbatches, "micro-batches a pass is split into through the pipeline, one value (a sweep's too) [min(pp, batch)]");
  }
  if (wants(ep)) {
    o.add("--ep", f.ep, "GPUs of a stage the routed experts are sharded over (--tp a multiple of it)").show_default();
    o.flag("--dp-attention", f.dp_attention,
          "attention, dense FFNs and shared experts data-parallel over the stage's GPUs, routed experts over --ep = --tp "
          "(DeepSeek-style)");
    o.add("--expert-imbalance", f.expert_imbalance,
          "the busiest GPU's expert rows over the mean under --ep (1: perfectly balanced)").show_default();
  }
  if (wants(attention)) {
    o.add("--attention", f.attention, "attention kernel: flash (scores on chip) or naive").one_of({"flash", "naive"}).show_default();
  }
  if (wants(reserve)) o.add("--reserve", f.reserve, "fraction of memory held back (CUDA context, allocator)").show_default();
}

std::array<std::size_t, kWorkloadFlags> WorkloadAxes::sizes() const {
  return {model.size(),   gpu.size(),     attention.size(), reserve.size(),    tp.size(),
          pp.size(),      ep.size(),      weights.size(),   lm_head.size(),    group_size.size(),
          kv.size(),      activations.size(), compute.size(), prompt.size(),   gen.size(),
          context.size(), batch.size()};
}

void WorkloadAxes::require_one(std::initializer_list<WorkloadFlag> lists) const {
  const auto n = sizes();
  for (std::size_t i = 0; i < n.size(); ++i) {
    const auto flag = static_cast<WorkloadFlag>(i);
    if (n[i] > 1 && std::find(lists.begin(), lists.end(), flag) == lists.end()) {
      throw InputError(fmt::format("--{}: takes one value here, got {}; lists and ranges are for `rooflineplan sweep`",
                                   flag_name(flag), n[i]));
    }
  }
}

// Every list is read here, for every command, and each refuses a value given twice (refuse_repeats).
WorkloadAxes parse_workload(const WorkloadFlags& f) {
  WorkloadAxes x;
  x.model = f.model;
  refuse_repeated_items(x.model, f.model, "model");
  x.gpu = f.gpu;
  refuse_repeated_items(x.gpu, f.gpu, "gpu");
  for (const std::string& a : f.attention) x.attention.push_back(a == "naive" ? AttentionKernel::naive : AttentionKernel::flash);
  refuse_repeated_items(x.attention, f.attention, "attention");
  x.reserve = f.reserve;
  refuse_repeats(x.reserve, "reserve", fmt::format("{}", fmt::join(f.reserve, ",")),
                 [&](std::size_t i) { return fmt::format("{}", x.reserve[i]); });
  static_assert(kMaxTp <= std::numeric_limits<int>::max() && kMaxGroupSize <= std::numeric_limits<int>::max());
  x.tp = counts(f.tp, "tp", kMaxTp, "GPUs");
  x.pp = counts(f.pp, "pp", kMaxTp, "stages");
  x.ep = counts(f.ep, "ep", kMaxTp, "GPUs");
  if (f.microbatches && (*f.microbatches < 1 || *f.microbatches > kMaxBatch)) {
    throw InputError(fmt::format("--microbatches: must be 1 … {}, got {}", kMaxBatch, *f.microbatches));
  }
  if (!(f.expert_imbalance >= 1 && f.expert_imbalance <= static_cast<double>(kMaxTp))) {
    throw InputError(fmt::format("--expert-imbalance: must be 1 … ep, got {}", f.expert_imbalance));
  }
  x.dp_attention = f.dp_attention;
  x.microbatches = f.microbatches.value_or(0);  // 0: the engine's default
  x.expert_imbalance = f.expert_imbalance;
  x.weights = weight_format_list(f.weights, "weights");
  x.lm_head = weight_format_list(f.lm_head, "lm-head");
  x.group_size = optional_list(f.group_size.empty() ? std::vector<long>{} : counts(f.group_size, "group-size", kMaxGroupSize, "weights"));
  x.kv = dtype_list(f.kv, "kv");
  x.activations = dtype_list(f.activations, "activations");
  x.compute = dtype_list(f.compute, "compute");
  x.prompt = counts(f.prompt, "prompt", kMaxTokens, "tokens");
  x.gen = counts(f.gen, "gen", kMaxTokens, "tokens");
  x.context = optional_list(f.context.empty() ? std::vector<long>{} : counts(f.context, "context", kMaxTokens, "tokens"));
  x.batch = counts(f.batch, "batch", kMaxBatch, "sequences");
  return x;
}

Workload workload_at(const WorkloadAxes& x, std::span<const std::size_t> i, const ModelSpec& m, const GpuSpec& g) {
  auto at = [&i](const auto& axis, WorkloadFlag f) { return axis[i[static_cast<std::size_t>(f)]]; };
  using enum WorkloadFlag;
  Workload w;
  w.batch = at(x.batch, batch);
  w.prompt_tokens = at(x.prompt, prompt);
  w.gen_tokens = at(x.gen, gen);
  w.context_tokens = at(x.context, context).value_or(default_context(w.prompt_tokens, w.gen_tokens));
  w.tp = static_cast<int>(at(x.tp, tp));
  w.pp = static_cast<int>(at(x.pp, pp));
  w.ep = static_cast<int>(at(x.ep, ep));
  w.dp_attention = x.dp_attention;
  w.microbatches = static_cast<int>(x.microbatches);
  w.expert_imbalance = x.expert_imbalance;
  w.attention = at(x.attention, attention);
  w.reserve_fraction = at(x.reserve, reserve);
  const std::optional<long> group = at(x.group_size, group_size);
  w.precision = resolve_precision(m, {at(x.weights, weights), at(x.lm_head, lm_head), at(x.kv, kv),
                                      at(x.activations, activations), at(x.compute, compute),
                                      group ? std::optional<int>(static_cast<int>(*group)) : std::nullopt},
                                 g);
  return w;
}

std::optional<SpecError> workload_error(const Workload& w, const ModelSpec& m, const GpuSpec& g) {
  if (auto e = validate(w, m, g)) return e;
  // The engine splits a batch into at most as many micro-batches as it has sequences; more, asked
  // for, would be priced as fewer without a word.
  if (w.microbatches > w.batch) {
    return SpecError{"microbatches", fmt::format("{} micro-batches of a batch of {}: each holds a sequence at least; "
                                                 "lower --microbatches or raise --batch",
                                                 w.microbatches, w.batch)};
  }
  if (w.context_tokens < w.prompt_tokens) {
    return SpecError{"context", fmt::format("{} tokens is below the prompt's {}: the decode step's context includes the prompt",
                                            w.context_tokens, w.prompt_tokens)};
  }
  return std::nullopt;
}

void require_valid(const Workload& w, const ModelSpec& m, const GpuSpec& g) {
  if (const auto e = workload_error(w, m, g)) throw InputError(fmt::format("--{}: {}", e->field, e->message));
}

OnePoint one_point(const WorkloadFlags& f, std::string_view command) {
  const WorkloadAxes x = parse_workload(f);
  x.require_one();
  if (x.model.empty() || x.gpu.empty()) {
    throw InputError(fmt::format("{}{}--model and --gpu are required (files or preset names; `rooflineplan presets` "
                                 "lists them)",
                                 command, command.empty() ? "" : ": "));
  }
  OnePoint p{read_flag_file("--model", x.model.front(), [&] { return load_model(x.model.front()); }),
             read_flag_file("--gpu", x.gpu.front(), [&] { return load_gpu(x.gpu.front()); }), {}};
  p.workload = workload_at(x, std::vector<std::size_t>(kWorkloadFlags, 0), p.model, p.gpu);
  require_valid(p.workload, p.model, p.gpu);
  return p;
}

}  // namespace roofline::cli
