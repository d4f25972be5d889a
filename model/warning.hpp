#pragma once
// What the engine wants the reader to know about a point it still prices: typed, with the
// numbers, never worded here. The output layer words each kind (report/warning_text.hpp) in the
// reader's language and units.
#include <array>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "hardware/kernel_classes.hpp"
#include "hardware/quantity.hpp"
#include "model/model_spec.hpp"
#include "model/precision.hpp"

namespace roofline {

// Only `params` given: KV cache, attention and activations are not modelled.
struct ArchitectureUnknown {};

// The workload's longest sequence is past the model's trained context.
struct BeyondMaxContext {
  long tokens = 0;
  long max_context = 0;
};

// The fullest GPU's memory at this batch (its weights, caches, activations and the reserve held
// back: model/memory_ledger.hpp) is above one GPU's capacity.
struct DoesNotFit {
  Bytes needed;
  Bytes capacity;
  long batch = 0;
};

// What the model's reader assumed or left out (ModelSpec::assumptions): a config without a dtype
// priced in bf16, a vision tower or multi-token-prediction layers not priced.
struct Assumed {
  Assumption what;
};

// The compute format came from the weights, not from --compute: the checkpoint quantizes its
// linears' inputs, or every block class the model has is fp8 (W8A8 either way), so the compute bound is at that
// format's peak; or the GPU has no such peak and they run weight-only in `compute`
// (ComputeSource::no_peak).
struct ComputeFromCheckpoint {
  ComputeSource source = ComputeSource::checkpoint;
  DType compute = DType::fp8;
  DType checkpoint = DType::fp8;
  std::string gpu;  // the GPU without the peak, named: a plan compares several
  DType activations = DType::bf16;  // the weight-only alternative `--compute` would name
};

// The KV cache's format came from the checkpoint, not from --kv: it declares one (ModelOpt's
// kv_cache_quant_algo, compressed-tensors' kv_cache_scheme), which vLLM's default --kv-cache-dtype
// auto takes, so the cache's bytes (and the batch that fits) are priced in it.
struct KvFromCheckpoint {
  DType kv = DType::fp8;
};

// The GPU's expected-time coefficients were fitted on other GPUs' kernel tables (its preset says
// so: KernelCoefficients::own_tables): none was measured on this one, so its expected times are
// a transfer, not a fit; the bound holds either way.
struct ExpectedBorrowed {
  std::string gpu;
  // Empty: no kernel of it was measured. Else its own tables were fitted but lacked these classes
  // (KernelCoefficients::borrowed), whose coefficients are other GPUs' or the shipped defaults.
  std::vector<KernelClass> classes;
};

// --group-size was given, but no weights of this point are stored in a format that takes it (int4,
// awq, gptq, fp4, fp6): it changes nothing, and a reader who meant int4 weights is told so. Not
// refused: a sweep over --weights int4,fp16 gives it to both.
struct GroupSizeUnused {
  int group_size = 0;
  // The block weights' formats, each once in the classes' order: gpt-oss's bf16 attention and
  // mxfp4 experts (its attention's alone had said "the weights are bf16" of a mostly mxfp4 model).
  std::vector<WeightFormat> weights;
};

// The compute format (--compute, or the checkpoint's) is narrower than some block weights are
// stored in (fp8 arithmetic over bf16 weights): the bound prices their GEMMs at that format's
// peak, while an engine runs them at the weights' width or quantizes the weights first, which
// changes their bytes. Priced as asked.
struct ComputeNarrowerThanWeights {
  DType compute = DType::fp8;
  WeightFormat stored = WeightFormat::bf16;  // the widest block weights' format
  std::vector<std::string> classes;          // the block classes stored wider than the compute
};

// Operators of the model's layer kinds that no kernel class prices (model/operators.hpp,
// unclassed_operators: Mamba's scans, DeepSeek-V3.2's indexer and sparse latent attention, Gated
// DeltaNet at shapes not measured): their expected times keep the end-to-end coefficients, a fit to
// whole models' runs, not to their kernels. Said where the GPU's expected times use kernel classes.
// The names (the layer description's own literals) in a fixed list: the warning is built at every
// evaluation of such a model, where a vector of strings allocated each time (+2.5% a DeepSeek-V3.2
// sweep row).
class OperatorNames {
 public:
  OperatorNames() = default;
  OperatorNames(std::initializer_list<std::string_view> names) {
    for (const std::string_view n : names) push_back(n);
  }
  void push_back(std::string_view name) {
    if (count_ == names_.size()) throw std::logic_error("OperatorNames: more names than it holds");
    names_[count_++] = name;
  }
  [[nodiscard]] const std::string_view* begin() const { return names_.data(); }
  [[nodiscard]] const std::string_view* end() const { return names_.data() + count_; }
  [[nodiscard]] bool empty() const { return count_ == 0; }

 private:
  std::array<std::string_view, 6> names_{};
  std::size_t count_ = 0;
};
struct ExpectedUnclassed {
  OperatorNames operators;
};

using Warning = std::variant<ArchitectureUnknown, BeyondMaxContext, DoesNotFit, Assumed, ComputeFromCheckpoint,
                             KvFromCheckpoint, ExpectedBorrowed, GroupSizeUnused, ComputeNarrowerThanWeights,
                             ExpectedUnclassed>;

}  // namespace roofline
