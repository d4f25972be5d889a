#pragma once
// Everything the engine says about one (model, GPU, workload) point. Tables, JSON, CSV and
// explanations all read this; none of them recomputes a formula.
#include <string>
#include <vector>

#include "model/critical_batch.hpp"
#include "model/memory_ledger.hpp"
#include "model/phase.hpp"
#include "model/workload.hpp"

namespace roofline {

struct ModelSummary {
  const ModelSpec* spec = nullptr;
  double params = 0;
  double params_active = 0;
  Bytes weight_bytes;
  Bytes kv_bytes_per_token;
};

struct GpuSummary {
  const GpuSpec* spec = nullptr;
  Ceilings ceilings;  // what the roofline used: measured, or datasheet × efficiency
  [[nodiscard]] FlopsPerByte ridge_point() const { return ceilings.ridge_point(); }
};

struct DecodeResult {
  PhaseResult step;
  double tokens_per_s = 0;  // B / step time, for the whole tensor-parallel group
};

struct Report {
  ModelSummary model;
  GpuSummary gpu;
  Workload workload;
  PhaseResult prefill;  // its time is the batch's TTFT, without queueing
  DecodeResult decode;
  CriticalBatch critical_batch;
  MemoryLedger memory;
  std::vector<std::string> warnings;
};

}  // namespace roofline
