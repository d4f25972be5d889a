#include "report/report_columns.hpp"

#include <array>

#include "model/expected.hpp"
#include "report/weight_formats.hpp"

namespace roofline::report {

namespace {

// A class's format, or null where the model has no weights of that class.
template <TensorClass C>
Cell format_cell(const Report& r) {
  const std::optional<WeightFormat> f = class_format(r, C);
  return f ? Cell(name(*f)) : Cell();
}

// The workload's group size, where a class the model has is in a format that takes it.
Cell group_size_cell(const Report& r) {
  for (int c = 0; c < kTensorClassCount; ++c) {
    const std::optional<WeightFormat> f = class_format(r, static_cast<TensorClass>(c));
    if (f && takes_group_size(*f)) {
      return static_cast<long>(r.workload.precision.group_size);
    }
  }
  return {};
}

// Written as a table so that the JSON keys and CSV columns read side by side.
const std::array kColumns = {
    Column{"model.name", "model_name", [](const Report& r) -> Cell { return std::string_view(r.model.spec.name); }},
    Column{"model.params", "model_params", [](const Report& r) -> Cell { return r.model.params; }},
    Column{"model.params_active", "model_params_active", [](const Report& r) -> Cell { return r.model.params_active; }},
    Column{"model.weight_bytes", "model_weight_bytes", [](const Report& r) -> Cell { return r.model.weight_bytes.value(); }},
    Column{"model.kv_bytes_per_token", "model_kv_bytes_per_token",
           [](const Report& r) -> Cell { return r.model.kv_bytes_per_token.value(); }},
    Column{"model.cache_bytes_per_sequence", "model_cache_bytes_per_sequence",
           [](const Report& r) -> Cell { return r.model.cache_bytes_per_sequence.value(); }},
    Column{"gpu.name", "gpu_name", [](const Report& r) -> Cell { return std::string_view(r.gpu.spec.name); }},
    Column{"gpu.bandwidth", "gpu_bandwidth_bytes_per_s",
           [](const Report& r) -> Cell { return r.gpu.ceilings.bandwidth.value(); }},
    Column{"gpu.peak_flops", "gpu_peak_flop_per_s", [](const Report& r) -> Cell { return r.gpu.ceilings.peak.value(); }},
    Column{"gpu.ridge_point", "gpu_ridge_point_flop_per_byte",
           [](const Report& r) -> Cell { return r.gpu.ridge_point().value(); }},
    Column{"gpu.memory_capacity", "gpu_memory_capacity_bytes",
           [](const Report& r) -> Cell { return r.gpu.spec.memory_capacity.value(); }},
    Column{"workload.batch", "workload_batch", [](const Report& r) -> Cell { return r.workload.batch; }},
    Column{"workload.prompt_tokens", "workload_prompt_tokens",
           [](const Report& r) -> Cell { return r.workload.prompt_tokens; }},
    Column{"workload.gen_tokens", "workload_gen_tokens", [](const Report& r) -> Cell { return r.workload.gen_tokens; }},
    Column{"workload.context_tokens", "workload_context_tokens",
           [](const Report& r) -> Cell { return r.workload.context_tokens; }},
    Column{"workload.tp", "workload_tp", [](const Report& r) -> Cell { return static_cast<long>(r.workload.tp); }},
    Column{"workload.pp", "workload_pp", [](const Report& r) -> Cell { return static_cast<long>(r.workload.pp); }},
    Column{"workload.ep", "workload_ep", [](const Report& r) -> Cell { return static_cast<long>(r.workload.ep); }},
    Column{"workload.dp_attention", "workload_dp_attention", [](const Report& r) -> Cell { return r.workload.dp_attention; }},
    Column{"workload.gpus", "workload_gpus", [](const Report& r) -> Cell { return static_cast<long>(gpus(r.workload)); }},
    Column{"workload.microbatches", "workload_microbatches",
           [](const Report& r) -> Cell { return microbatches(r.workload); }},
    Column{"workload.expert_imbalance", "workload_expert_imbalance",
           [](const Report& r) -> Cell { return r.workload.expert_imbalance; }},
    Column{"workload.weights", "workload_weights", [](const Report& r) -> Cell { return block_format_name(r); }},
    Column{"workload.weight_formats.attention", "workload_weight_formats_attention",
           format_cell<TensorClass::attention>},
    Column{"workload.weight_formats.dense_ffn", "workload_weight_formats_dense_ffn",
           format_cell<TensorClass::dense_ffn>},
    Column{"workload.weight_formats.experts", "workload_weight_formats_experts", format_cell<TensorClass::experts>},
    Column{"workload.weight_formats.shared_experts", "workload_weight_formats_shared_experts",
           format_cell<TensorClass::shared_experts>},
    Column{"workload.weight_formats.lm_head", "workload_weight_formats_lm_head", format_cell<TensorClass::lm_head>},
    Column{"workload.weight_formats.embedding", "workload_weight_formats_embedding",
           format_cell<TensorClass::embedding>},
    Column{"workload.group_size", "workload_group_size", group_size_cell},
    Column{"workload.kv", "workload_kv", [](const Report& r) -> Cell { return name(r.workload.precision.kv); }},
    Column{"workload.compute", "workload_compute", [](const Report& r) -> Cell { return name(r.workload.precision.compute); }},
    // Both change the answer (--activations fp8 halves the activations' bytes; a naive kernel
    // writes its n×n scores), and a sweep over either wrote rows no column told apart.
    Column{"workload.activations", "workload_activations",
           [](const Report& r) -> Cell { return name(r.workload.precision.activations); }},
    Column{"workload.attention", "workload_attention", [](const Report& r) -> Cell {
             return std::string_view(r.workload.attention == AttentionKernel::naive ? "naive" : "flash");
           }},
    Column{"prefill.flops", "prefill_flops", [](const Report& r) -> Cell { return r.prefill.flops.value(); }},
    Column{"prefill.bytes", "prefill_bytes", [](const Report& r) -> Cell { return r.prefill.bytes.value(); }},
    Column{"prefill.intensity", "prefill_intensity_flop_per_byte",
           [](const Report& r) -> Cell { return r.prefill.intensity().value(); }},
    Column{"prefill.compute_time", "prefill_compute_time_s",
           [](const Report& r) -> Cell { return r.prefill.compute_time.value(); }},
    Column{"prefill.memory_time", "prefill_memory_time_s",
           [](const Report& r) -> Cell { return r.prefill.memory_time.value(); }},
    Column{"prefill.comm_time", "prefill_comm_time_s", [](const Report& r) -> Cell { return r.prefill.comm_time.value(); }},
    Column{"prefill.time", "prefill_time_s", [](const Report& r) -> Cell { return r.prefill.time.value(); }},
    Column{"prefill.bound", "prefill_bound", [](const Report& r) -> Cell { return name(r.prefill.bound); }},
    // The pipeline's idle share (null without stages).
    Column{"prefill.bubble", "prefill_bubble",
           [](const Report& r) -> Cell { return r.prefill_pipeline ? Cell(r.prefill_pipeline->bubble) : Cell(); }},
    // Expected beside the bound (model/expected.hpp): low and high are the 10th and 90th percentile times.
    Column{"prefill.expected.time", "prefill_expected_time_s",
           [](const Report& r) -> Cell { return r.prefill.expected.time.value(); }},
    Column{"prefill.expected.low", "prefill_expected_low_s",
           [](const Report& r) -> Cell { return r.prefill.expected.low.value(); }},
    Column{"prefill.expected.high", "prefill_expected_high_s",
           [](const Report& r) -> Cell { return r.prefill.expected.high.value(); }},
    Column{"prefill.expected.regime", "prefill_expected_regime",
           [](const Report& r) -> Cell { return name(r.prefill.expected.regime); }},
    Column{"decode.flops", "decode_flops", [](const Report& r) -> Cell { return r.decode.step.flops.value(); }},
    Column{"decode.bytes", "decode_bytes", [](const Report& r) -> Cell { return r.decode.step.bytes.value(); }},
    Column{"decode.intensity", "decode_intensity_flop_per_byte",
           [](const Report& r) -> Cell { return r.decode.step.intensity().value(); }},
    Column{"decode.compute_time", "decode_compute_time_s",
           [](const Report& r) -> Cell { return r.decode.step.compute_time.value(); }},
    Column{"decode.memory_time", "decode_memory_time_s",
           [](const Report& r) -> Cell { return r.decode.step.memory_time.value(); }},
    Column{"decode.comm_time", "decode_comm_time_s",
           [](const Report& r) -> Cell { return r.decode.step.comm_time.value(); }},
    Column{"decode.step_time", "decode_step_time_s", [](const Report& r) -> Cell { return r.decode.step.time.value(); }},
    Column{"decode.tokens_per_s", "decode_tokens_per_s", [](const Report& r) -> Cell { return r.decode.tokens_per_s; }},
    Column{"decode.bound", "decode_bound", [](const Report& r) -> Cell { return name(r.decode.step.bound); }},
    Column{"decode.bubble", "decode_bubble",
           [](const Report& r) -> Cell { return r.decode_pipeline ? Cell(r.decode_pipeline->bubble) : Cell(); }},
    Column{"decode.expected.step_time", "decode_expected_step_time_s",
           [](const Report& r) -> Cell { return r.decode.step.expected.time.value(); }},
    Column{"decode.expected.tokens_per_s", "decode_expected_tokens_per_s",
           [](const Report& r) -> Cell { return r.decode.expected_tokens_per_s; }},
    Column{"decode.expected.low", "decode_expected_low_s",
           [](const Report& r) -> Cell { return r.decode.step.expected.low.value(); }},
    Column{"decode.expected.high", "decode_expected_high_s",
           [](const Report& r) -> Cell { return r.decode.step.expected.high.value(); }},
    Column{"decode.expected.regime", "decode_expected_regime",
           [](const Report& r) -> Cell { return name(r.decode.step.expected.regime); }},
    Column{"critical_batch.weights_only", "critical_batch_weights_only",
           [](const Report& r) -> Cell { return r.critical_batch.weights_only; }},
    Column{"critical_batch.at_context", "critical_batch_at_context",
           [](const Report& r) -> Cell { return optional_cell(r.critical_batch.at_context); }},
    Column{"memory.weights", "memory_weights_bytes", [](const Report& r) -> Cell { return r.memory.weights.value(); }},
    Column{"memory.kv_cache", "memory_kv_cache_bytes", [](const Report& r) -> Cell { return r.memory.kv_cache.value(); }},
    Column{"memory.activations", "memory_activations_bytes",
           [](const Report& r) -> Cell { return r.memory.activations.value(); }},
    Column{"memory.reserve", "memory_reserve_bytes", [](const Report& r) -> Cell { return r.memory.reserve.value(); }},
    Column{"memory.total", "memory_total_bytes", [](const Report& r) -> Cell { return r.memory.total.value(); }},
    Column{"memory.capacity", "memory_capacity_bytes", [](const Report& r) -> Cell { return r.memory.capacity.value(); }},
    Column{"memory.gpus", "memory_gpus", [](const Report& r) -> Cell { return static_cast<long>(r.memory.gpus); }},
    Column{"memory.fullest_gpu", "memory_fullest_gpu_bytes",
           [](const Report& r) -> Cell { return r.memory.fullest_gpu.value(); }},
    Column{"memory.fits", "memory_fits", [](const Report& r) -> Cell { return r.memory.fits; }},
    Column{"memory.max_batch", "memory_max_batch", [](const Report& r) -> Cell { return optional_cell(r.memory.max_batch); }},
};

// An all-reduce moves no bytes through HBM in this model: its intensity is not a number.
Cell op_intensity(const OpResult& o) {
  return o.cost.bytes > Bytes(0) ? Cell(o.intensity().value()) : Cell();
}

const std::array kOpColumns = {
    OpColumn{"phase", "phase", [](const OpRow& r) -> Cell { return name(r.phase); }},
    OpColumn{"name", "name", [](const OpRow& r) -> Cell { return r.op.cost.name; }},
    // Which kind of layer the operator runs in (sliding, chunked, linear, ssm, moe); empty: the
    // model's one kind, or the embedding and head.
    OpColumn{"layers", "layers",
             [](const OpRow& r) -> Cell { return r.op.cost.layers.empty() ? Cell() : Cell(r.op.cost.layers); }},
    OpColumn{"flops", "flops", [](const OpRow& r) -> Cell { return r.op.cost.flops.value(); }},
    OpColumn{"bytes", "bytes", [](const OpRow& r) -> Cell { return r.op.cost.bytes.value(); }},
    OpColumn{"weight_bytes", "weight_bytes", [](const OpRow& r) -> Cell { return r.op.cost.weight_bytes.value(); }},
    OpColumn{"intensity", "intensity_flop_per_byte", [](const OpRow& r) -> Cell { return op_intensity(r.op); }},
    OpColumn{"compute_time", "compute_time_s", [](const OpRow& r) -> Cell { return r.op.compute_time.value(); }},
    OpColumn{"memory_time", "memory_time_s", [](const OpRow& r) -> Cell { return r.op.memory_time.value(); }},
    OpColumn{"time", "time_s", [](const OpRow& r) -> Cell { return r.op.time.value(); }},
    OpColumn{"bound", "bound", [](const OpRow& r) -> Cell { return name(r.op.bound); }},
    // Beside the bound, never below it: what a kernel measured alone should take.
    OpColumn{"expected_time", "expected_time_s", [](const OpRow& r) -> Cell { return r.expected.value(); }},
};

}  // namespace

std::span<const Column> report_columns() { return kColumns; }
std::span<const OpColumn> op_columns() { return kOpColumns; }

std::vector<OpRow> op_rows(const Report& r) {
  const ExpectedModel m = r.gpu.spec.expected_model();
  std::vector<OpRow> rows;
  for (const auto& [phase, pass] : {std::pair{Phase::prefill, &r.prefill}, std::pair{Phase::decode, &r.decode.step}}) {
    const std::vector<Seconds> expected = expected_op_times(*pass, m, r.gpu.ceilings);
    for (std::size_t i = 0; i < pass->ops.size(); ++i) rows.push_back({phase, pass->ops[i], expected[i]});
  }
  return rows;
}

}  // namespace roofline::report
