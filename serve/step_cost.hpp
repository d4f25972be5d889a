#pragma once
// The time of one serving step for whatever it holds: prefill chunks and decode sequences at
// their own contexts, mixed, as a continuous-batching server runs them. model::evaluate prices a
// uniform batch; a mixed step is priced here from the engine's own operators (build_ops over the
// one layer description), split into what scales with the tokens in the step (every linear, norm,
// activation and all-reduce), the LM head (run on each sequence that emits a token) and attention
// (its FLOPs and bytes summed over the step's sequences, each at its own context). Each part is
// tabulated on first use, so a simulated step costs a few table reads.
//
// Bound and expected time are both kept: the bound is Σ per-operator roofline time, the
// attention operators of the step merged into one (max(ΣF/peak, ΣB/BW), never above the sum of
// their own maxima: the bound stays a bound); the expected time prices the same operators with
// the GPU's ExpectedModel (model/expected.hpp), never below the bound.
#include <optional>
#include <string>
#include <vector>

#include "hardware/gpu_spec.hpp"
#include "model/layers.hpp"
#include "model/model_spec.hpp"
#include "model/parameters.hpp"
#include "model/workload.hpp"

namespace roofline::serve {

// Attention's work for some queries of a step, summed over its operators (scores, values).
struct AttentionWork {
  double flops = 0, bytes = 0;
  AttentionWork& operator+=(const AttentionWork& o) {
    flops += o.flops;
    bytes += o.bytes;
    return *this;
  }
};

struct StepTime {
  Seconds bound, expected;
};

// Why a model cannot be priced step by step (nullopt: it can). A mixed step is priced from one
// list of operators, so a model whose prefill and decode run different steps (latent attention's
// absorbed decode) or which holds a recurrent state per sequence is refused by name.
[[nodiscard]] std::optional<std::string> unsupported(const ModelSpec& m);
// Why a layout cannot be (nullopt: it can): a pipeline (pp > 1) or data-parallel attention,
// whose steps the simulator does not compose.
[[nodiscard]] std::optional<std::string> unsupported(const Workload& w);

class StepCost {
 public:
  // `base`: the workload's formats, tp, attention kernel and reserve; its batch and lengths are
  // not read. std::invalid_argument when unsupported(m).
  StepCost(const ModelSpec& m, const GpuSpec& g, const Workload& base);

  // One decode query against `context` keys (itself included), as the engine's decode step at
  // batch 1 and that context prices it.
  [[nodiscard]] AttentionWork decode_attention(long context);
  // `fresh` prompt tokens after `cached` ones already in the cache (an earlier chunk, a prefix
  // hit): the pairs the fresh queries see, and the cached keys read once.
  [[nodiscard]] AttentionWork prefill_attention(long cached, long fresh);
  // A step of `tokens` rows through the linears, `emitting` sequences through the LM head, and
  // the summed attention work of its sequences.
  [[nodiscard]] StepTime time(long tokens, long emitting, const AttentionWork& attention);

  [[nodiscard]] const Ceilings& ceilings() const { return ceilings_; }

 private:
  struct Entry {
    StepTime t;
    bool filled = false;
  };
  struct Work {
    AttentionWork w;
    bool filled = false;
  };
  [[nodiscard]] AttentionWork prefill_table(long tokens);
  [[nodiscard]] AttentionWork attention_of(Phase p, long tokens) const;
  [[nodiscard]] StepTime price(long rows, bool head) const;

  LayerStack stack_;
  WeightPricing pricing_;
  Workload base_;
  Ceilings ceilings_;
  std::optional<Interconnect> link_;
  std::optional<Network> network_;
  ExpectedModel expected_;
  std::vector<bool> attention_op_;  // per operator of a pass: depends on the context
  std::size_t head_op_ = 0;         // the LM head's operator
  double attention_launches_ = 0;
  std::vector<Entry> tokens_, head_;
  std::vector<Work> decode_, prefill_;
};

}  // namespace roofline::serve
