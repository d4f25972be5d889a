#pragma once
// What is asked of the model: how many sequences, how long, in which formats, over how many GPUs.
#include <optional>

#include "model/model_spec.hpp"
#include "model/precision.hpp"
#include "model/spec_error.hpp"
#include "hardware/gpu_spec.hpp"

namespace roofline {

// flash: scores stay on chip (FlashAttention); naive: the n×n score matrix is written to memory,
// masked half included, as eager PyTorch attention does.
enum class AttentionKernel { flash, naive };

struct Workload {
  long batch = 1;
  long prompt_tokens = 512;
  long gen_tokens = 256;
  long context_tokens = 640;  // tokens in the KV cache during the decode step that is evaluated
  int tp = 1;
  AttentionKernel attention = AttentionKernel::flash;
  Precision precision;
  double reserve_fraction = 0.1;  // capacity held back (CUDA context, allocator, workspace)
};

// The decode step is evaluated mid-generation by default: context = prompt + gen / 2.
[[nodiscard]] inline long default_context(long prompt, long gen) { return prompt + gen / 2; }

// The first rule the workload breaks on this model and GPU, naming the option.
[[nodiscard]] std::optional<SpecError> validate(const Workload& w, const ModelSpec& m, const GpuSpec& g);

}  // namespace roofline
