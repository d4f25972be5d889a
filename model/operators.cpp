#include "model/operators.hpp"

#include <algorithm>
#include <cmath>
#include <variant>

namespace roofline {

namespace {

// How one pass touches the model. Decode: one query per sequence against t cached keys.
// Prefill: n queries per sequence; causal attention sees n(n+1)/2 query-key pairs, and a naive
// kernel computes and stores the full n×n matrix before masking it.
struct Pass {
  double rows;          // tokens through the linears (M)
  double sequences;     // B
  double pairs;         // query-key pairs per sequence and head that a fused kernel computes
  double score_matrix;  // score elements per sequence and head that a naive kernel materialises
  double keys_read;     // cached K (and V) tokens read per sequence and layer
  double head_rows;     // rows through the LM head: only the last token of each sequence
};

Pass make_pass(Phase phase, const Workload& w) {
  const auto B = static_cast<double>(w.batch);
  if (phase == Phase::decode) {
    const auto t = static_cast<double>(w.context_tokens);
    return {B, B, t, t, t, B};
  }
  const auto n = static_cast<double>(w.prompt_tokens);
  return {B * n, B, n * (n + 1) / 2, n * n, n, B};
}

class OpBuilder {
 public:
  OpBuilder(OpList& ops, const Precision& p, double layers)
      : ops_(ops), ab_(bytes_per_element(p.activations)), layers_(layers) {}

  // y[rows, out] = x[rows, in] · W[in, out] over `copies` weight matrices (experts touched):
  // 2·M·K·N FLOPs; K·N weights, M·K inputs and M·N outputs through memory. `ob`: output element size.
  void linear(std::string_view name, double rows, double in, double out, double copies, double bias, double wb,
              double ob) {
    const double weights = copies * in * out * wb + bias * ab_;
    add(name, 2 * rows * in * out, weights + rows * (in * ab_ + out * ob), weights);
    ops_.back().shape = {rows, in, out, layers_ * copies};
  }

  // A fused residual-add + norm: reads x and the residual, writes both, ≈ 5 FLOPs an element;
  // its weights are a scale (RMSNorm) or a scale and a bias (LayerNorm) per element.
  void norm(std::string_view name, double rows, double width, double params_per_element) {
    const double weights = params_per_element * width * ab_;
    add(name, 5 * rows * width, 4 * rows * width * ab_ + weights, weights);
  }

  // Elementwise activation: SiLU(gate)·up reads two tensors, GELU one; both write one.
  void activation(std::string_view name, double rows, double width, bool gated) {
    const double inputs = gated ? 2 : 1;
    add(name, (gated ? 5 : 8) * rows * width, (inputs + 1) * rows * width * ab_, 0);
  }

  void allreduce(std::string_view name, double rows, double width) {
    ops_.push_back({name, Flops(0), Bytes(0), Bytes(0), Bytes(rows * width * ab_ * layers_), layers_});
  }

  void add(std::string_view name, double flops, double bytes, double weights) {
    ops_.push_back({name, Flops(flops * layers_), Bytes(bytes * layers_), Bytes(weights * layers_), Bytes(0), 0});
  }

  [[nodiscard]] double activation_bytes() const { return ab_; }

 private:
  OpList& ops_;
  double ab_, layers_;
};

// Expected distinct experts hit when `tokens` tokens each choose top_k of E uniformly.
double experts_touched(double experts, double top_k, double tokens, ExpertRouting routing) {
  if (routing == ExpertRouting::all) return experts;
  return experts * (1.0 - std::pow(1.0 - top_k / experts, tokens));
}

void add_attention(OpBuilder& b, const Pass& p, const AttentionStep& a, const Workload& w) {
  const double ab = b.activation_bytes();
  const double kvb = a.reads_cache ? bytes_per_element(w.precision.kv) : ab;
  const double q_bytes = p.rows * a.heads * a.qk_dim * ab, out_bytes = p.rows * a.heads * a.v_dim * ab;
  const double k_read = p.sequences * p.keys_read * a.k_width * kvb;
  const double v_read = p.sequences * p.keys_read * a.v_width * kvb;
  if (w.attention == AttentionKernel::flash) {
    // Softmax (≈ 5 FLOPs a score) is fused into the score pass; no score touches memory.
    b.add("attn_scores", p.sequences * a.heads * p.pairs * (2 * a.qk_dim + 5), q_bytes + k_read, 0);
    b.add("attn_values", p.sequences * a.heads * p.pairs * 2 * a.v_dim, v_read + out_bytes, 0);
    return;
  }
  const double scores = p.sequences * a.heads * p.score_matrix;
  b.add("attn_scores", scores * 2 * a.qk_dim, q_bytes + k_read + scores * ab, 0);
  b.add("attn_softmax", scores * 5, 2 * scores * ab, 0);
  b.add("attn_values", scores * 2 * a.v_dim, scores * ab + v_read + out_bytes, 0);
}

// Prices each step of the description for this pass, in the order the kernels run.
class StepPricer {
 public:
  StepPricer(OpBuilder& b, const Pass& p, const Workload& w, ExpertRouting routing)
      : b_(b), p_(p), w_(w), routing_(routing) {}

  void operator()(const LinearStep& l) const {
    const Precision& prec = w_.precision;
    const double wb = l.weights == WeightClass::linear  ? prec.weight_bytes_per_element()
                      : l.weights == WeightClass::table ? bytes_per_element(prec.embedding_dtype())
                                                        : b_.activation_bytes();
    const double ob = l.to_cache ? bytes_per_element(prec.kv) : b_.activation_bytes();
    const double tokens = l.last_token ? p_.head_rows : p_.rows;
    const double copies = l.routed ? experts_touched(l.copies, l.rows_per_token, tokens, routing_) : l.copies;
    b_.linear(l.name, tokens * l.rows_per_token, l.in, l.out, copies, l.bias, wb, ob);
  }
  void operator()(const NormStep& n) const { b_.norm(n.name, p_.rows, n.width, n.params_per_element); }
  void operator()(const ActivationStep& a) const {
    b_.activation(a.name, p_.rows * a.rows_per_token, a.width, a.gated);
  }
  void operator()(const AttentionStep& a) const { add_attention(b_, p_, a, w_); }
  void operator()(const GatherStep& g) const {
    const double eb = bytes_per_element(w_.precision.embedding_dtype());
    b_.add(g.name, 0, p_.rows * g.width * (g.tables * eb + b_.activation_bytes()), 0);
  }
  void operator()(const AllReduceStep& r) const { b_.allreduce(r.name, p_.rows, r.width); }

 private:
  OpBuilder& b_;
  const Pass& p_;
  const Workload& w_;
  ExpertRouting routing_;
};

}  // namespace

OpList build_ops(Phase phase, const LayerStack& stack, const Workload& w, ExpertRouting routing) {
  const Pass p = make_pass(phase, w);
  OpList ops;
  ops.reserve(28);
  for (const Block& block : stack.blocks) {
    OpBuilder b(ops, w.precision, block.layers);
    const StepPricer price(b, p, w, routing);
    for (const PhasedStep& s : block.steps) {
      if (s.runs_in(phase)) std::visit(price, s.step);
    }
  }
  return ops;
}

OpList build_ops(Phase phase, const ModelSpec& m, const Workload& w, ExpertRouting routing) {
  if (m.architecture) return build_ops(phase, describe_layers(*m.architecture, w.tp), w, routing);
  // Known only by its size: every parameter is read once and used in one multiply-add per token.
  const Pass p = make_pass(phase, w);
  const double weights = m.declared_params * w.precision.weight_bytes_per_element();
  return {{"model_weights", Flops(2 * p.rows * m.declared_params), Bytes(weights), Bytes(weights), Bytes(0), 0}};
}

}  // namespace roofline
