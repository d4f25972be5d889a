#pragma once
// The model that drafts for speculative decoding: a small model of its own, or the target's
// multi-token-prediction modules (DeepSeek-V3, arXiv 2412.19437 §2.2). An MTP module is one
// transformer block of the model's last layer's kind, fed the target's last hidden state joined
// with the next token's embedding through a projection (2·hidden × hidden), and it emits through
// the target's own LM head. Each draft step runs one module (K steps past the modules reuse the
// last, as SGLang and vLLM run DeepSeek's one module K times).
#include "model/model_spec.hpp"

namespace roofline::serve {

struct Draft {
  ModelSpec model;             // what one draft step runs
  int modules = 1;             // copies held in memory
  bool shares_tables = false;  // uses the target's embedding and LM head: held once, by the target
  bool reads_target = false;   // drafts from the target's hidden states (MTP): ServerConfig::draft_reads_target
};

// A separate draft model, in the target's formats and layout.
[[nodiscard]] Draft model_draft(ModelSpec m);
// The target's MTP modules as a draft; std::invalid_argument when it ships none.
[[nodiscard]] Draft mtp_draft(const ModelSpec& target);

}  // namespace roofline::serve
