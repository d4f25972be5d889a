#include "serve/step_cost.hpp"

#include <algorithm>
#include <stdexcept>
#include <variant>

#include "model/expected.hpp"
#include "model/operators.hpp"
#include "model/phase.hpp"

namespace roofline::serve {

namespace {

// A pass on which the operators are compared to tell attention (its cost moves with the context)
// from the rest; long enough to pass any window a layer keeps.
constexpr long kProbeContext = 1L << 20;

std::string_view head_name(const LayerStack& s) {
  for (const Block& b : s.blocks) {
    for (const PhasedStep& p : b.steps) {
      if (const auto* l = std::get_if<LinearStep>(&p.step); l && l->last_token) return l->name;
    }
  }
  return {};
}

WeightPricing pricing_for(const ModelSpec& m, const Workload& w) {
  if (const auto why = unsupported(m)) throw std::invalid_argument(*why);
  return WeightPricing(w.precision, describe_layers(*m.architecture, 1));
}

}  // namespace

std::optional<std::string> unsupported(const ModelSpec& m) {
  if (!m.architecture) return "the model is known only by its size: a step's attention cannot be priced";
  for (const Block& b : describe_layers(*m.architecture, 1).blocks) {
    for (const PhasedStep& p : b.steps) {
      if (std::holds_alternative<RecurrentStep>(p.step)) {
        return "the model holds a recurrent state per sequence, which the simulator does not allocate";
      }
      if (p.phases != Phases::both) {
        return "the model runs different steps in prefill and decode (latent attention), which a mixed step "
               "cannot price from one list of operators";
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> unsupported(const Workload& w) {
  if (w.pp > 1) return "--pp: the simulator runs one pipeline stage; its steps do not model micro-batches in flight";
  if (w.dp_attention) return "--dp-attention: the simulator runs one attention group, not a batch split over ranks";
  return std::nullopt;
}

StepCost::StepCost(const ModelSpec& m, const GpuSpec& g, const Workload& base)
    : pricing_(pricing_for(m, base)),
      base_(base),
      ceilings_{*g.effective_peak(base.precision.compute), g.effective_bandwidth()},
      link_(g.interconnect),
      network_(g.network),
      expected_(g.expected_model()) {
  if (const auto why = unsupported(base)) throw std::invalid_argument(*why);
  stack_ = describe_layers(*m.architecture, Sharding{base.tp, base.ep, base.dp_attention, base.expert_imbalance});
  base_.batch = 1;
  base_.context_tokens = 1;
  const OpList near = build_ops(Phase::decode, stack_, base_, ExpertRouting::uniform, pricing_);
  Workload far = base_;
  far.context_tokens = kProbeContext;
  const OpList probe = build_ops(Phase::decode, stack_, far, ExpertRouting::uniform, pricing_);
  const std::string_view head = head_name(stack_);
  for (std::size_t i = 0; i < near.size(); ++i) {
    const bool moves = near[i].flops != probe[i].flops || near[i].bytes != probe[i].bytes;
    attention_op_.push_back(moves);
    if (moves) attention_launches_ += near[i].launches;
    if (near[i].name == head) head_op_ = i;
  }
}

AttentionWork StepCost::attention_of(Phase p, long tokens) const {
  Workload w = base_;
  (p == Phase::decode ? w.context_tokens : w.prompt_tokens) = tokens;
  const OpList ops = build_ops(p, stack_, w, ExpertRouting::uniform, pricing_);
  if (ops.size() != attention_op_.size()) throw std::logic_error("step cost: passes list different operators");
  AttentionWork a;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (attention_op_[i]) a += {ops[i].flops.value(), ops[i].bytes.value()};
  }
  return a;
}

AttentionWork StepCost::decode_attention(long context) {
  const auto i = static_cast<std::size_t>(context);
  if (i >= decode_.size()) decode_.resize(std::max(i + 1, decode_.size() * 2));
  Work& e = decode_[i];
  if (!e.filled) e = {attention_of(Phase::decode, context), true};
  return e.w;
}

AttentionWork StepCost::prefill_table(long tokens) {
  const auto i = static_cast<std::size_t>(tokens);
  if (i >= prefill_.size()) prefill_.resize(std::max(i + 1, prefill_.size() * 2));
  Work& e = prefill_[i];
  if (!e.filled) e = {tokens == 0 ? AttentionWork{} : attention_of(Phase::prefill, tokens), true};
  return e.w;
}

AttentionWork StepCost::prefill_attention(long cached, long fresh) {
  // The engine's prefill of n tokens sees pairs_seen(n) pairs and reads each token's K/V once:
  // the fresh queries' share is the difference of two prompts, plus the cached keys read (a
  // decode query's reads at that context, less its own query and output).
  const AttentionWork all = prefill_table(cached + fresh);
  const AttentionWork before = prefill_table(cached);
  AttentionWork a{all.flops - before.flops, all.bytes - before.bytes};
  if (cached > 0) {
    const double keys = decode_attention(cached).bytes;
    a.bytes += keys - decode_attention(0).bytes;
  }
  return a;
}

StepTime StepCost::price(long rows, bool head) const {
  Workload w = base_;
  w.batch = rows;
  const OpList ops = build_ops(Phase::decode, stack_, w, ExpertRouting::uniform, pricing_);
  OpList part;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (head ? i == head_op_ : !attention_op_[i] && i != head_op_) part.push_back(ops[i]);
  }
  const PhaseResult r = evaluate_phase(part, ceilings_, link_, network_);
  const Expected e = expected_phase(r, expected_, ceilings_);
  // The per-pass cost is the step's once: the token part carries it.
  return {r.time, head ? e.time - expected_.step : e.time};
}

StepTime StepCost::time(long tokens, long emitting, const AttentionWork& attention) {
  const auto lookup = [this](std::vector<Entry>& table, long n, bool head) -> const StepTime& {
    const auto i = static_cast<std::size_t>(n);
    if (i >= table.size()) table.resize(std::max(i + 1, table.size() * 2));
    Entry& e = table[i];
    if (!e.filled) e = {n == 0 ? StepTime{} : price(n, head), true};
    return e.t;
  };
  const StepTime t = lookup(tokens_, tokens, false);
  const StepTime h = lookup(head_, emitting, true);
  const Seconds bound = std::max(Flops(attention.flops) / ceilings_.peak, Bytes(attention.bytes) / ceilings_.bandwidth);
  Seconds expected = bound;
  if (attention.bytes > 0) {
    const KernelWork k{Flops(attention.flops), Bytes(attention.bytes), Bytes(0), 0, attention_launches_, Dequant::none};
    expected = std::max(bound, expected_.kernel_time(k, ceilings_).total());
  }
  return {t.bound + h.bound + bound, t.expected + h.expected + expected};
}

}  // namespace roofline::serve
