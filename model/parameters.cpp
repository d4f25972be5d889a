#include "model/parameters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <variant>

namespace roofline {

namespace {

// Visits each weight the stack stores, once: a linear's matrices (over its block's layers),
// the gathered tables, and the small tensors as element counts. Steps that run in decode only
// hold weights that prefill's steps already hold (latent attention's absorbed forms), and a head
// tied to the embedding holds none of its own, so weights are taken from what prefill runs.
template <class Sink>
struct WeightWalk {
  Sink& sink;
  double layers;

  void operator()(const LinearStep& l) const {
    sink.small(layers * l.bias);
    if (l.counted) sink.matrix(l, layers);
  }
  void operator()(const NormStep& n) const {
    sink.small(layers * (n.param_width > 0 ? n.param_width : n.width) * n.params_per_element);
  }
  void operator()(const GatherStep& g) const { sink.table(g); }
  void operator()(const ConvStep& c) const { sink.small(layers * c.channels * (c.kernel + (c.bias ? 1 : 0))); }
  void operator()(const RecurrentStep& r) const { sink.small(layers * r.params); }
  void operator()(const AttentionStep& a) const { sink.small(layers * a.params); }
  void operator()(const ActivationStep&) const {}
  void operator()(const CollectiveStep&) const {}
};

template <class Sink>
void walk_weights(const LayerStack& whole, Sink& sink) {
  if (whole.tower_params > 0) sink.towers(whole.tower_params);
  for (const Block& block : whole.blocks) {
    const WeightWalk<Sink> walk{sink, block.layers};
    for (const PhasedStep& s : block.steps) {
      if (s.runs_in(Phase::prefill)) std::visit(walk, s.step);
    }
  }
}

// Parameters by the class they are stored in, and (with a pricing) their bytes as stored.
struct WeightSink {
  ParameterCount& p;
  WeightBytes* b = nullptr;
  const WeightPricing* pricing = nullptr;

  void matrix(const LinearStep& l, double layers) const {
    const double matrix = l.in * l.out;
    switch (l.weights) {
      case WeightClass::attention:
      case WeightClass::dense_ffn:
      case WeightClass::experts:
      case WeightClass::shared_experts:
        p.linear_total += layers * matrix * l.copies;
        p.linear_active += layers * matrix * (l.routed ? l.picks : l.copies);
        break;
      case WeightClass::lm_head: p.lm_head += layers * matrix * l.copies; break;
      case WeightClass::small: p.small += layers * matrix * l.copies; break;
    }
    if (!b) return;
    const Bytes bytes(layers * pricing->matrices(l, l.copies));
    if (const auto c = tensor_class(l.weights)) b->by_class[static_cast<std::size_t>(*c)] += bytes;
    else b->small += bytes;
  }
  // `tables` matrices of rows / (tables · split) rows each on one GPU; whole at tp = 1 (exact for
  // every scaling: elements, rows and matrices all add up).
  void table(const GatherStep& g) const {
    p.embedding += g.rows * g.width / g.split;
    if (b) {
      b->by_class[static_cast<std::size_t>(TensorClass::embedding)] +=
          Bytes(pricing->table(g.width, g.rows / (g.tables * g.split), g.tables));
    }
  }
  // Encoders held in memory in the activation format, never run.
  void towers(double elements) const {
    p.towers += elements;
    if (b) b->towers += Bytes(pricing->small(elements));
  }
  void small(double elements) const {
    p.small += elements;
    if (b) b->small += Bytes(pricing->small(elements));
  }
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
  WeightSink sink{p};
  walk_weights(whole, sink);
  return p;
}

std::optional<TensorClass> tensor_class(WeightClass c) {
  switch (c) {
    case WeightClass::attention: return TensorClass::attention;
    case WeightClass::dense_ffn: return TensorClass::dense_ffn;
    case WeightClass::experts: return TensorClass::experts;
    case WeightClass::lm_head: return TensorClass::lm_head;
    case WeightClass::shared_experts: return TensorClass::shared_experts;
    case WeightClass::small: return std::nullopt;
  }
  return std::nullopt;
}

WeightFormat embedding_format(const LayerStack& stack, const Precision& prec) {
  // The head is described last: search from the end.
  for (auto block = stack.blocks.rbegin(); block != stack.blocks.rend(); ++block) {
    for (const PhasedStep& s : block->steps) {
      const auto* l = std::get_if<LinearStep>(&s.step);
      if (l && l->weights == WeightClass::lm_head && !l->counted) return prec.of(TensorClass::lm_head);
      if (l && l->weights == WeightClass::lm_head) return prec.of(TensorClass::embedding);
    }
  }
  return prec.of(TensorClass::embedding);
}

// The classes line up with the tensor classes they are stored as; `small` comes after them.
static_assert(static_cast<int>(WeightClass::attention) == static_cast<int>(TensorClass::attention) &&
              static_cast<int>(WeightClass::dense_ffn) == static_cast<int>(TensorClass::dense_ffn) &&
              static_cast<int>(WeightClass::experts) == static_cast<int>(TensorClass::experts) &&
              static_cast<int>(WeightClass::lm_head) == static_cast<int>(TensorClass::lm_head) &&
              static_cast<int>(WeightClass::shared_experts) == static_cast<int>(TensorClass::shared_experts));

WeightPricing::WeightPricing(const Precision& prec, const LayerStack& stack)
    : table_(storage_cost(embedding_format(stack, prec), prec.group_size)),
      small_{bytes_per_element(prec.activations), 0, 0} {
  for (int c = 0; c < kTensorClassCount; ++c) {
    classes_[static_cast<std::size_t>(c)] = storage_cost(prec.of(static_cast<TensorClass>(c)), prec.group_size);
  }
}

Bytes WeightBytes::total() const { return run() + towers; }

Bytes WeightBytes::run() const {
  Bytes sum = small;
  for (const Bytes& b : by_class) sum += b;
  return sum;
}

Weights weigh(const LayerStack& whole, const WeightPricing& pricing) {
  Weights w;
  WeightSink sink{w.params, &w.bytes, &pricing};
  walk_weights(whole, sink);
  return w;
}

WeightBytes weight_bytes(const LayerStack& whole, const Precision& prec) {
  return weigh(whole, WeightPricing(prec, whole)).bytes;
}

WeightBytes weight_bytes(double declared_params, const Precision& prec) {
  WeightBytes b;
  b.by_class[static_cast<std::size_t>(TensorClass::dense_ffn)] =
      Bytes(declared_params * bytes_per_weight(prec.of(TensorClass::dense_ffn), prec.group_size));
  return b;
}

WeightBytes weight_bytes(const ModelSpec& m, const Precision& prec) {
  if (!m.architecture) return weight_bytes(m.declared_params, prec);
  return weight_bytes(describe_layers(*m.architecture, 1), prec);
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
      if (const auto* l = std::get_if<LinearStep>(&s.step); l && l->to_cache) {
        (l->indexer_keys ? c.indexer_keys : c.kv) += block.layers * l->out * l->cache_outputs * held;
      }
      if (const auto* r = std::get_if<RecurrentStep>(&s.step)) {
        c.state_bytes += block.layers * (r->state_bytes() + r->conv_bytes());
      }
    }
  }
  return c;
}

Bytes cache_bytes_per_sequence(const ModelSpec& m, const Precision& prec, double tokens) {
  if (!m.architecture) return Bytes(0);
  // The recurrent state in the model's format (the activations'), whatever the KV cache's.
  const Sharding whole{.tp = 1, .state_bytes = bytes_per_element(prec.activations), .kv = prec.kv};
  return Bytes(cache_elements(describe_layers(*m.architecture, whole), tokens).bytes(prec.kv));
}

}  // namespace roofline

namespace roofline {

Bytes kv_bytes_per_token(const ModelSpec& m, const Precision& prec) {
  if (!m.architecture) return Bytes(0);
  return Bytes(cache_elements(describe_layers(*m.architecture, Sharding{.tp = 1, .kv = prec.kv}), 1).token_bytes(prec.kv));
}

}  // namespace roofline
