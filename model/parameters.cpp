#include "model/parameters.hpp"

#include <algorithm>
#include <variant>

namespace roofline {

namespace {

// Adds each step's weights, over its block's layers, to the class it is stored in. Steps that run
// in decode only hold weights that prefill's steps already hold (latent attention's absorbed
// forms), so parameters are counted from what prefill runs.
struct Counter {
  ParameterCount& p;
  double layers;

  void operator()(const LinearStep& l) const {
    p.small += layers * l.bias;
    if (!l.counted) return;
    const double matrix = l.in * l.out;
    switch (l.weights) {
      case WeightClass::attention:
      case WeightClass::dense_ffn:
      case WeightClass::experts:
        p.linear_total += layers * matrix * l.copies;
        p.linear_active += layers * matrix * (l.routed ? l.rows_per_token : l.copies);
        break;
      case WeightClass::lm_head: p.lm_head += layers * matrix * l.copies; break;
      case WeightClass::small: p.small += layers * matrix * l.copies; break;
    }
  }
  void operator()(const NormStep& n) const {
    p.small += layers * (n.param_width > 0 ? n.param_width : n.width) * n.params_per_element;
  }
  void operator()(const GatherStep& g) const { p.embedding += g.rows * g.width; }
  void operator()(const ConvStep& c) const { p.small += layers * c.channels * (c.kernel + (c.bias ? 1 : 0)); }
  void operator()(const RecurrentStep& r) const { p.small += layers * r.params; }
  void operator()(const AttentionStep& a) const { p.small += layers * a.params; }
  void operator()(const ActivationStep&) const {}
  void operator()(const AllReduceStep&) const {}
};

}  // namespace

ParameterCount count_parameters(const ModelSpec& m) {
  ParameterCount p;
  if (!m.architecture) {
    p.linear_total = p.linear_active = m.declared_params;
    return p;
  }
  return count_parameters(describe_layers(*m.architecture, 1));
}

ParameterCount count_parameters(const LayerStack& whole) {
  ParameterCount p;
  for (const Block& block : whole.blocks) {
    const Counter count{p, block.layers};
    for (const PhasedStep& s : block.steps) {
      if (s.runs_in(Phase::prefill)) std::visit(count, s.step);
    }
  }
  return p;
}

Bytes weight_bytes(const ParameterCount& p, const Precision& prec) {
  return Bytes(p.linear_total * prec.weight_bytes_per_element() +
               (p.embedding + p.lm_head) * bytes_per_element(prec.embedding_dtype()) +
               p.small * bytes_per_element(prec.activations));
}

double held_tokens(const Block& b, double tokens) {
  if (b.window > 0) return std::min(tokens, b.window);
  if (b.chunk > 0) return std::min(tokens, b.chunk);
  return tokens;
}

CacheElements cache_elements(const LayerStack& stack, double tokens) {
  CacheElements c;
  for (const Block& block : stack.blocks) {
    const double held = held_tokens(block, tokens);
    for (const PhasedStep& s : block.steps) {
      if (const auto* l = std::get_if<LinearStep>(&s.step); l && l->to_cache) c.kv += block.layers * l->out * held;
      if (const auto* r = std::get_if<RecurrentStep>(&s.step)) c.state += block.layers * (r->state + r->conv_state);
    }
  }
  return c;
}

Bytes cache_bytes_per_sequence(const ModelSpec& m, const Precision& prec, double tokens) {
  if (!m.architecture) return Bytes(0);
  return Bytes(cache_elements(describe_layers(*m.architecture, 1), tokens).total() * bytes_per_element(prec.kv));
}

}  // namespace roofline

namespace roofline {

Bytes kv_bytes_per_token(const ModelSpec& m, const Precision& prec) {
  if (!m.architecture) return Bytes(0);
  return Bytes(cache_elements(describe_layers(*m.architecture, 1), 1).kv * bytes_per_element(prec.kv));
}

}  // namespace roofline
