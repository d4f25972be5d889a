#pragma once
// Everything the engine says about one (model, GPU, workload) point. Tables, JSON, CSV, charts
// and explanations all read this; none of them recomputes a formula. A report is a value: it
// holds copies of the specs it names, so it may outlive them.
#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "hardware/gpu_spec.hpp"
#include "model/critical_batch.hpp"
#include "model/memory_ledger.hpp"
#include "model/model_spec.hpp"
#include "model/phase.hpp"
#include "model/pipeline.hpp"
#include "model/warning.hpp"
#include "model/workload.hpp"

namespace roofline {

struct ModelSummary {
  ModelSpec spec;
  double params = 0;
  double params_active = 0;
  Bytes weight_bytes;
  // K/V a token adds while every layer still keeps it (before any window fills).
  Bytes kv_bytes_per_token;
  Bytes cache_bytes_per_sequence;  // that sequence's K/V and recurrent state, whole model
  // weight_bytes by the class each tensor is stored as (workload.precision says in which format);
  // a class the model lacks holds 0 (a dense model's experts).
  std::array<Bytes, kTensorClassCount> weight_bytes_by_class{};
};

struct GpuSummary {
  GpuSpec spec;
  Ceilings ceilings;  // what the roofline used: measured, or datasheet × efficiency
  [[nodiscard]] FlopsPerByte ridge_point() const { return ceilings.ridge_point(); }
};

struct DecodeResult {
  PhaseResult step;
  double tokens_per_s = 0;  // B / step time, for the whole tensor-parallel group
  Seconds weight_read_time;  // the step's weight bytes at bandwidth: the floor no batch lowers
  double expected_tokens_per_s = 0;  // B / the expected step time
};

struct Report {
  ModelSummary model;
  GpuSummary gpu;
  Workload workload;
  PhaseResult prefill;  // its time is the batch's TTFT, without queueing
  DecodeResult decode;
  // With pipeline stages (workload.pp > 1): how each phase went through them.
  std::optional<Pipeline> prefill_pipeline, decode_pipeline;
  CriticalBatch critical_batch;
  MemoryLedger memory;
  std::vector<Warning> warnings;

  // One request end to end without queueing, at the bound: its prefill, which makes the first
  // token, then gen − 1 decode steps at this step time (simulate's request of --gen 3 runs 2).
  [[nodiscard]] Seconds request_time() const {
    return prefill.time + decode.step.time * static_cast<double>(std::max(0L, workload.gen_tokens - 1));
  }
};

}  // namespace roofline
