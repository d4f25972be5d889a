#include "model/operators.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <type_traits>
#include <variant>

#include "model/phase.hpp"

namespace roofline {

namespace {

// How one pass touches the model. Decode: one query per sequence against the t tokens before it.
// Prefill: n queries per sequence, the i-th seeing i tokens (causal) or fewer (a window).
struct Pass {
  bool decode;
  double rows;       // tokens through the linears (M)
  double sequences;  // B
  double tokens;     // decode: the context t; prefill: the prompt n
  double head_rows;  // rows through the LM head: only the last token of each sequence
};

// `sequences`: the batch, or (data-parallel steps) the most any one of `ranks` GPUs runs.
Pass make_pass(Phase phase, const Workload& w, int ranks = 1) {
  const double B = std::ceil(static_cast<double>(w.batch) / ranks);
  if (phase == Phase::decode) return {true, B, B, static_cast<double>(w.context_tokens), B};
  const auto n = static_cast<double>(w.prompt_tokens);
  return {false, B * n, B, n, B};
}

// The most keys a query sees: its window, or the indexer's top_k; 0: no limit.
double limit(const AttentionStep& a) {
  if (a.window > 0 && a.top_k > 0) return std::min(a.window, a.top_k);
  return a.window > 0 ? a.window : a.top_k;
}

// Keys the query at position i (from 1) sees, itself included.
double keys_seen(double i, const AttentionStep& a) {
  if (a.chunk > 0) return std::fmod(i - 1, a.chunk) + 1;
  const double l = limit(a);
  return l > 0 ? std::min(i, l) : i;
}

}  // namespace

double pairs_seen(double n, const AttentionStep& a) {
  const auto triangle = [](double k) { return k * (k + 1) / 2; };
  if (a.chunk > 0) {
    const double whole = std::floor(n / a.chunk);
    return whole * triangle(a.chunk) + triangle(n - whole * a.chunk);
  }
  const double l = limit(a);
  if (l <= 0 || n <= l) return triangle(n);
  return triangle(l) + (n - l) * l;
}

namespace {

// The cost an element of the list being built holds: an operator's own, or a phase result's
// (the engine builds its timed passes in their results, not copying each operator into one).
OpCost& cost_of(OpCost& o) { return o; }
OpCost& cost_of(OpResult& o) { return o.cost; }

// A "list" that keeps only the sums of what is added to it (build_totals): each operator's cost is
// added as it is priced; what the builders then set of it (shapes, kernels) goes to a scratch
// cost nobody reads.
class Totaller {
 public:
  void add(Flops flops, Bytes bytes, Bytes weights) {
    totals_.flops += flops;
    totals_.other_bytes += bytes - weights;
    totals_.weight_bytes += weights;
    last_flops_ = flops;
    last_fp8_ = false;
  }
  // The operator last added multiplies at the fp8 peak (OpBuilder::fp8_arithmetic): its FLOPs
  // count among fp8_flops, once.
  void fp8_arithmetic() {
    if (!last_fp8_) totals_.fp8_flops += last_flops_;
    last_fp8_ = true;
  }
  OpCost& back() { return scratch_; }
  [[nodiscard]] const OpTotals& totals() const { return totals_; }

 private:
  OpTotals totals_;
  OpCost scratch_;
  Flops last_flops_{0};
  bool last_fp8_ = false;
};

// Whether a builder's list keeps only the sums (build_totals), not the operators.
template <class List>
constexpr bool kSumsOnly = std::is_same_v<List, Totaller>;

template <class List>
class OpBuilder {
 public:
  // `activation_bytes`: an activation element's size.
  OpBuilder(List& ops, double activation_bytes, const Block& block)
      : ops_(ops), ab_(activation_bytes), layers_(block.layers), label_(block.label) {}

  // y[rows, out] = x[rows, in] · W[in, out] over `copies` weight matrices (experts touched):
  // 2·M·K·N FLOPs; the matrices as stored (`matrices` bytes), M·K inputs and M·N outputs through
  // memory. `ob`: output element size.
  void linear(std::string_view name, double rows, double in, double out, double copies, double bias, double matrices,
              double ob) {
    const double weights = matrices + bias * ab_;
    add(name, 2 * rows * in * out, weights + rows * (in * ab_ + out * ob), weights);
    back().shape = {rows, in, out, layers_ * copies};
    back().kernel = KernelKind::linear;
  }
  // How the kernels of the last operator added run (OpCost::kernel, fused).
  void kernel(KernelKind k, bool fused = false) {
    back().kernel = k;
    back().fused = fused;
  }
  void kernel_work(double ratio) { back().kernel_work = ratio; }
  void fp8_arithmetic(bool fp8) {
    back().fp8_arithmetic = fp8;
    if constexpr (kSums) {
      if (fp8) ops_.fp8_arithmetic();
    }
  }
  void kernel_window(double window) { back().window = window; }
  // The kernel class of the operator before the last added, if any (sums keep none: the fusion
  // it decides changes no sum).
  [[nodiscard]] KernelKind previous_kernel() const {
    if constexpr (kSums) {
      return KernelKind::other;
    } else {
      return ops_.size() < 2 ? KernelKind::other : cost_of(ops_[ops_.size() - 2]).kernel;
    }
  }
  void attention_shape(double sequences, double heads, double head_dim, double queries) {
    OpCost& o = back();
    o.sequences = sequences, o.heads = heads, o.head_dim = head_dim, o.queries = queries;
  }
  void decode_shape(double kv_heads, double keys, double context, DType kv_format) {
    OpCost& o = back();
    o.kv_heads = kv_heads, o.keys = keys, o.context = context, o.kv_format = kv_format;
  }
  void dequant(Dequant d) { back().dequant = d; }

  // A fused residual-add + norm: reads x and the residual, writes both, ≈ 5 FLOPs an element
  // (a norm without the residual reads and writes one); its weights are a scale (RMSNorm) or a
  // scale and a bias (LayerNorm) per element.
  void norm(const NormStep& n, double rows) {
    const double weights = n.params_per_element * (n.param_width > 0 ? n.param_width : n.width) * ab_;
    add(n.name, 5 * rows * n.width, (n.residual ? 4 : 2) * rows * n.width * ab_ + weights, weights);
    kernel(KernelKind::elementwise);
  }

  // A depthwise causal convolution: 2 FLOPs a tap; reads its input (and the kept inputs of each
  // sequence, which the recurrent step accounts for) and writes its output.
  void conv(const ConvStep& c, double rows) {
    const double weights = c.channels * (c.kernel + (c.bias ? 1 : 0)) * ab_;
    add(c.name, 2 * rows * c.channels * c.kernel, 2 * rows * c.channels * ab_ + weights, weights);
  }

  // Elementwise activation: SiLU(gate)·up reads two tensors, GELU one; both write one.
  void activation(std::string_view name, double rows, double width, bool gated) {
    const double inputs = gated ? 2 : 1;
    add(name, (gated ? 5 : 8) * rows * width, (inputs + 1) * rows * width * ab_, 0);
    kernel(KernelKind::elementwise);
  }

  // One call a layer, of rows × width elements of `eb` bytes on each GPU.
  void collective(const CollectiveStep& c, double rows, double eb) {
    if constexpr (!kSums) {  // sums: timed on the link, it adds no FLOPs and no memory bytes
      OpCost& o = cost_of(ops_.emplace_back());
      o.name = c.name;
      o.layers = label_;
      o.comm_bytes = Bytes(rows * c.width * eb * layers_);
      o.comm_calls = layers_;
      o.collective = c.kind;
      o.group = c.group;
    }
  }

  // Built in place: an OpCost is some 170 bytes, and a temporary copied in doubled build_ops' time.
  void add(std::string_view name, double flops, double bytes, double weights) {
    if constexpr (kSums) {
      ops_.add(Flops(flops * layers_), Bytes(bytes * layers_), Bytes(weights * layers_));
    } else {
      OpCost& o = cost_of(ops_.emplace_back());
      o.name = name;
      o.layers = label_;
      o.flops = Flops(flops * layers_);
      o.bytes = Bytes(bytes * layers_);
      o.weight_bytes = Bytes(weights * layers_);
      o.launches = layers_;
    }
  }

  [[nodiscard]] double activation_bytes() const { return ab_; }

 private:
  static constexpr bool kSums = kSumsOnly<List>;
  OpCost& back() { return cost_of(ops_.back()); }

  List& ops_;
  double ab_, layers_;
  std::string_view label_;
};

// Expected distinct experts of the `held` on this GPU hit when `tokens` tokens each choose top_k
// of `pool` uniformly.
double experts_touched(double held, double top_k, double pool, double tokens, ExpertRouting routing) {
  if (routing == ExpertRouting::all) return held;
  return held * (1.0 - std::pow(1.0 - top_k / pool, tokens));
}

// The window a prefill kernel is priced with: its own, where the pairs are a window's alone (not
// a chunk's or an indexer's top_k); 0 in decode.
double kernel_window(const Pass& p, const AttentionStep& a) {
  return p.decode || a.window <= 0 || a.chunk > 0 || a.top_k > 0 ? 0 : a.window;
}

// Names of an attention core's operators: the layers' own, or DeepSeek-V3.2's indexer.
struct CoreNames {
  std::string_view scores, softmax, values;
};
CoreNames core_names(const AttentionStep& a) {
  if (a.name == "index") return {"index_scores", "index_softmax", "index_values"};
  return {"attn_scores", "attn_softmax", "attn_values"};
}

// A latent layer's attention at the shapes aiconfigurator measured (io/kernel_table.cpp): DeepSeek's
// 512-wide latent and 64-wide rotary key (decode: 576-wide queries and keys, 512-wide values;
// prefill: 192 and 128), at most 128 heads on a GPU, every cached token seen. A sparse top_k
// (DeepSeek-V3.2) runs another kernel, and other widths another shape: the end-to-end pricing.
bool latent_measured(bool decode, double heads, double qk_dim, double v_dim, double top_k, double window,
                     double chunk) {
  if (top_k > 0 || window > 0 || chunk > 0 || heads > 128) return false;
  return decode ? qk_dim == 576 && v_dim == 512 : qk_dim == 192 && v_dim == 128;
}
bool latent_measured(const Pass& p, const AttentionStep& a) {
  return latent_measured(p.decode, a.heads, a.qk_dim, a.v_dim, a.top_k, a.window, a.chunk);
}

// Decode reads the keys its query sees (a window's last tokens, the indexer's top_k); prefill
// reads each token's K and V once, and its queries see pairs_seen of them. A naive kernel
// materialises the whole n × n score matrix, masked part included.
template <class List>
void add_attention(OpBuilder<List>& b, const Pass& p, const AttentionStep& a, const Workload& w) {
  const double ab = b.activation_bytes();
  const DType kv_format = a.reads_cache ? w.precision.kv : w.precision.activations;
  const double kvb = !a.reads_cache                    ? ab
                     : a.kind == AttentionKind::indexer ? kIndexerKeyBytes  // model/layers.hpp
                                                        : bytes_per_element(w.precision.kv);
  const double pairs = p.decode ? keys_seen(p.tokens, a) : pairs_seen(p.tokens, a);
  const double keys_read = p.decode ? pairs : p.tokens;
  const double sinks = a.params * ab;
  const double q_bytes = p.rows * a.heads * a.qk_dim * ab, out_bytes = p.rows * a.heads * a.v_dim * ab;
  const double k_read = p.sequences * keys_read * a.k_width * kvb;
  const double v_read = p.sequences * keys_read * a.v_width * kvb;
  const CoreNames n = core_names(a);
  if (w.attention == AttentionKernel::flash) {
    // Softmax (≈ 5 FLOPs a score) is fused into the score pass; no score touches memory. One
    // kernel (flash, FMHA, a decode kernel) does both products; an indexer's is a kernel the
    // classes have not measured.
    const KernelKind k = a.kind == AttentionKind::heads ? KernelKind::attention
                         : a.kind == AttentionKind::latent && latent_measured(p, a) ? KernelKind::latent_attention
                                                                                     : KernelKind::other;
    // Over fp8 keys (an fp8 cache's, the indexer's) the products may run in fp8.
    const bool fp8 = a.reads_cache && (a.kind == AttentionKind::indexer || w.precision.kv == DType::fp8);
    b.add(n.scores, p.sequences * a.heads * pairs * (2 * a.qk_dim + 5), q_bytes + k_read + sinks, sinks);
    b.kernel(k);
    b.fp8_arithmetic(fp8);
    b.attention_shape(p.sequences, a.heads, a.qk_dim, p.decode ? 1 : p.tokens);
    // A decode kernel's KV heads (K's width over a head's; a latent's one cached latent, whose
    // sparse fp8 record is wider than its elements). A prompt of one token is one query against its
    // own key, which the classes price as a decode's; but a latent layer's prompt runs the
    // prefill's decompressed multi-head form whatever its length.
    const bool one_query = p.decode || (p.tokens == 1 && a.kind == AttentionKind::heads);
    const double kv_heads = a.kind == AttentionKind::latent ? 1.0 : std::max(1.0, a.k_width / a.qk_dim);
    if (one_query && a.qk_dim > 0) b.decode_shape(kv_heads, pairs, p.tokens, kv_format);
    b.kernel_window(kernel_window(p, a));
    if (a.v_dim > 0) {
      b.add(n.values, p.sequences * a.heads * pairs * 2 * a.v_dim, v_read + out_bytes, 0);
      b.kernel(k, true);
      b.fp8_arithmetic(fp8);
      b.attention_shape(p.sequences, a.heads, a.qk_dim, p.decode ? 1 : p.tokens);
      if (one_query && a.qk_dim > 0) b.decode_shape(kv_heads, pairs, p.tokens, kv_format);
      b.kernel_window(kernel_window(p, a));
    }
    return;
  }
  const double scores = p.sequences * a.heads * (p.decode ? pairs : p.tokens * p.tokens);
  b.add(n.scores, scores * 2 * a.qk_dim, q_bytes + k_read + scores * ab + sinks, sinks);
  b.add(n.softmax, scores * 5, 2 * scores * ab, 0);
  if (a.v_dim > 0) b.add(n.values, scores * 2 * a.v_dim, scores * ab + v_read + out_bytes, 0);
}

// Decode reads and writes each sequence's state; prefill runs the scan over its n tokens from an
// empty state and writes the final one. The tokens' inputs and outputs go through memory. The state
// is in the model's format (the activations'), or fp32 where the checkpoint keeps it so, whatever
// the KV cache's: vLLM's mamba_cache_dtype, never --kv-cache-dtype (model/layers.hpp, Sharding).
template <class List>
void add_recurrent(OpBuilder<List>& b, const Pass& p, const RecurrentStep& r) {
  const double ab = b.activation_bytes();
  const double held = r.state * (r.fp32_state ? 4 : ab) + r.conv_state * ab;
  const double state = p.sequences * held * (p.decode ? 2 : 1);
  const double weights = r.params * ab;
  b.add(r.name, p.rows * r.state * r.flops_per_element, state + p.rows * (r.inputs + r.outputs) * ab + weights, weights);
  if (r.delta_net) {
    // With the convolution before it, one group of the delta-net class. Its chunked prefill
    // (FLA's, 64 tokens a chunk) computes a sequence's last chunk whole.
    b.kernel(KernelKind::delta_net, true);
    b.attention_shape(p.sequences, 0, 0, p.decode ? 1 : p.tokens);
    if (!p.decode) b.kernel_work(std::ceil(p.tokens / 64) * 64 / p.tokens);
  }
}

// A weight-only format narrower than the compute format is unpacked inside the GEMM, which then
// streams its weights slower than a plain one (fp8 weights with fp8 compute are not unpacked).
Dequant dequant_of(WeightFormat f, DType compute) {
  const double stored = bytes_per_element(element_of(f)), used = bytes_per_element(compute);
  if (stored >= used) return Dequant::none;
  return stored < 1 ? Dequant::int4 : Dequant::int8;
}

// The class of the fused MoE the routed experts run as: 16-bit experts at 16 bits, fp8 experts
// (a scale a matrix or a channel) in fp8 arithmetic, as the kernel tables measured them. Others
// (fp8 in 128 × 128 blocks, 4-bit and int8 weights, fp8 weights unpacked to 16 bits) keep the
// end-to-end pricing: no class of theirs is fitted.
KernelKind experts_kind(const Precision& p) {
  const WeightFormat f = p.of(TensorClass::experts);
  const bool sixteen = p.compute == DType::bf16 || p.compute == DType::fp16;
  if (sixteen && (f == WeightFormat::bf16 || f == WeightFormat::fp16)) return KernelKind::experts;
  if (p.compute == DType::fp8 && (f == WeightFormat::fp8 || f == WeightFormat::fp8_channel)) return KernelKind::experts_fp8;
  return KernelKind::other;
}

// What the precision says of a pass's operators, worked out once a pass rather than once a linear
// (a point builds three passes, and these lookups were a tenth of building them): element sizes,
// each weight class's unpacking, and the kernel classes the GEMMs run as.
struct Formats {
  double activation, kv;  // bytes an element
  // By WeightClass (shared_experts is the last); the small tensors are not unpacked.
  std::array<Dequant, static_cast<std::size_t>(WeightClass::shared_experts) + 1> dequant{};
  // The kernel each weight class's GEMMs run as: fp8 arithmetic on block-scaled weights is its own.
  std::array<KernelKind, static_cast<std::size_t>(WeightClass::shared_experts) + 1> linear{};
  // The classes stored in fp8-block, whose block-exempt steps (LinearStep::block_exempt) are kept
  // in 16 bits: those run `sixteen_bit`, not unpacked.
  std::array<bool, static_cast<std::size_t>(WeightClass::shared_experts) + 1> block{};
  KernelKind sixteen_bit = KernelKind::linear;
  KernelKind experts;

  explicit Formats(const Precision& p) : activation(bytes_per_element(p.activations)), kv(bytes_per_element(p.kv)), experts(experts_kind(p)) {
    // GEMMs in int8 or below keep the end-to-end pricing.
    const KernelKind plain = p.compute == DType::fp8                                ? KernelKind::linear_fp8
                             : p.compute == DType::bf16 || p.compute == DType::fp16 ? KernelKind::linear
                                                                                    : KernelKind::other;
    linear.fill(plain);
    sixteen_bit = plain == KernelKind::linear_fp8 ? KernelKind::linear : plain;
    for (std::size_t c = 0; c < dequant.size(); ++c) {
      const auto t = tensor_class(static_cast<WeightClass>(c));
      // In fp8 arithmetic the 16-bit weights beside the fp8 ones (routers, the LM head, modules a
      // quantizer left alone) run 16-bit GEMMs, as engines run them: no activation-scale kernel.
      const bool sixteen = !t || is_wide_float(element_of(p.of(*t)));
      if (plain == KernelKind::linear_fp8 && sixteen) linear[c] = KernelKind::linear;
      if (!t) continue;
      dequant[c] = dequant_of(p.of(*t), p.compute);
      block[c] = p.of(*t) == WeightFormat::fp8_block;
      if (plain == KernelKind::linear_fp8 && block[c]) linear[c] = KernelKind::linear_fp8_block;
    }
  }
};

// A point prices two or three passes and a sweep millions of points, nearly all at one precision:
// each thread keeps the formats of the last precision it saw (working them out was a tenth of
// building a pass). Keyed on what Formats reads, so a field Precision gains cannot go stale here.
const Formats& formats_of(const Precision& p) {
  struct Kept {
    std::array<WeightFormat, kTensorClassCount> weights;
    DType activations, kv, compute;
    Formats formats;
  };
  thread_local std::optional<Kept> kept;
  if (!kept || kept->weights != p.weights || kept->activations != p.activations || kept->kv != p.kv ||
      kept->compute != p.compute) {
    kept.emplace(Kept{p.weights, p.activations, p.kv, p.compute, Formats(p)});
  }
  return kept->formats;
}

// Prices each step of the description for this pass, in the order the kernels run.
template <class List>
class StepPricer {
 public:
  StepPricer(OpBuilder<List>& b, const Pass& p, const Workload& w, ExpertRouting routing, const WeightPricing& pricing,
             const Formats& f)
      : b_(b), p_(p), w_(w), routing_(routing), pricing_(pricing), f_(f) {}

  void operator()(const LinearStep& l) const {
    const double ob = !l.to_cache ? b_.activation_bytes() : (l.indexer_keys ? kIndexerKeyBytes : f_.kv) * l.cache_outputs;
    const double tokens = l.last_token ? p_.head_rows : p_.rows;
    // The busiest GPU of an imbalanced ep runs `busiest` times the mean picks, which reach more of
    // its experts: at batch 1 and imbalance 4, Qwen3-30B-A3B's busiest of 4 GPUs reads 7.3 of its
    // 32 experts a layer, not the 2.0 of a mean GPU (its 8 rows priced, its weights not).
    const double copies =
        l.routed ? experts_touched(l.copies, l.picks, l.pool, tokens * l.busiest, routing_) : l.copies;
    b_.linear(l.name, tokens * l.rows_per_token, l.in, l.out, copies, l.bias, pricing_.matrices(l, copies), ob);
    const auto c = static_cast<std::size_t>(l.weights);
    const bool exempt = l.block_exempt && f_.block[c];  // 16-bit beside fp8-block weights
    b_.dequant(exempt ? Dequant::none : f_.dequant[c]);
    // GEMMs in int8 or below keep the end-to-end pricing; routed experts run as one fused MoE.
    if (l.routed) {
      const KernelKind k = f_.experts;
      // Gate/up, the activation and down are one fused MoE: up joins gate, down the activation.
      b_.kernel(k, k != KernelKind::other && (l.joins_previous || b_.previous_kernel() == k));
      return;
    }
    b_.kernel(exempt ? f_.sixteen_bit : f_.linear[c], l.joins_previous);
  }
  void operator()(const NormStep& n) const { b_.norm(n, p_.rows); }
  void operator()(const ConvStep& c) const {
    b_.conv(c, p_.rows);
    if (c.delta_net) {
      b_.kernel(KernelKind::delta_net);
      b_.attention_shape(p_.sequences, 0, 0, p_.decode ? 1 : p_.tokens);
    }
  }
  void operator()(const RecurrentStep& r) const { add_recurrent(b_, p_, r); }
  void operator()(const ActivationStep& a) const {
    b_.activation(a.name, p_.rows * a.rows_per_token, a.width, a.gated);
    // Between the experts' GEMMs, inside the fused MoE they run as.
    if (a.routed && b_.previous_kernel() == f_.experts) b_.kernel(f_.experts, true);
  }
  void operator()(const AttentionStep& a) const { add_attention(b_, p_, a, w_); }
  // Each token's row of each table on this GPU, as stored (a row is one output channel).
  void operator()(const GatherStep& g) const {
    const double rows = pricing_.table(g.width, p_.rows, g.tables);
    b_.add(g.name, 0, rows + p_.rows * g.width * b_.activation_bytes(), 0);
    b_.kernel(KernelKind::elementwise);
  }
  void operator()(const CollectiveStep& c) const {
    const bool eight_bit = c.quantized && bytes_per_element(element_of(w_.precision.of(TensorClass::experts))) <= 1;
    b_.collective(c, (c.last_token ? p_.head_rows : p_.rows) * c.rows_per_token,
                  c.element_bytes > 0 ? c.element_bytes : eight_bit ? 1.0 : b_.activation_bytes());
  }

 private:
  OpBuilder<List>& b_;
  const Pass& p_;
  const Workload& w_;
  ExpertRouting routing_;
  const WeightPricing& pricing_;
  const Formats& f_;
};

// Every step of every block into `ops`, replacing what it held.
template <class List>
void build_into(List& ops, Phase phase, const LayerStack& stack, const Workload& w, ExpertRouting routing,
                const WeightPricing& pricing) {
  const Pass all = make_pass(phase, w), own = make_pass(phase, w, stack.data_parallel);
  const Formats& f = formats_of(w.precision);
  if constexpr (!kSumsOnly<List>) {
    ops.clear();
    ops.reserve(28);
  }
  for (const Block& block : stack.blocks) {
    OpBuilder<List> b(ops, f.activation, block);
    const StepPricer<List> every(b, all, w, routing, pricing, f), mine(b, own, w, routing, pricing, f);
    for (const PhasedStep& s : block.steps) {
      if (s.runs_in(phase)) std::visit(s.rows == Rows::own ? mine : every, s.step);
    }
  }
}

}  // namespace

OpList build_ops(Phase phase, const LayerStack& stack, const Workload& w, ExpertRouting routing) {
  return build_ops(phase, stack, w, routing, WeightPricing(w.precision, stack));
}

OpList build_ops(Phase phase, const LayerStack& stack, const Workload& w, ExpertRouting routing,
                 const WeightPricing& pricing) {
  OpList ops;
  build_ops(ops, phase, stack, w, routing, pricing);
  return ops;
}

void build_ops(OpList& ops, Phase phase, const LayerStack& stack, const Workload& w, ExpertRouting routing,
               const WeightPricing& pricing) {
  build_into(ops, phase, stack, w, routing, pricing);
}

void build_ops(std::vector<OpResult>& ops, Phase phase, const LayerStack& stack, const Workload& w, ExpertRouting routing,
               const WeightPricing& pricing) {
  build_into(ops, phase, stack, w, routing, pricing);
}

OpTotals totals_of(const OpList& ops) {
  Totaller t;
  for (const OpCost& op : ops) {
    t.add(op.flops, op.bytes, op.weight_bytes);
    if (op.fp8_arithmetic) t.fp8_arithmetic();
  }
  return t.totals();
}

OpTotals build_totals(Phase phase, const LayerStack& stack, const Workload& w, ExpertRouting routing,
                      const WeightPricing& pricing) {
  Totaller t;
  build_into(t, phase, stack, w, routing, pricing);
  return t.totals();
}

OperatorNames unclassed_operators(const Architecture& a, const Workload& w) {
  // A valid architecture has a recurrent section, a window or a chunk only where some layer uses it
  // (validate_kinds): asked at every point, the layers are not counted again.
  OperatorNames out;
  if (a.recurrent) {
    // Mamba's convolutions and scans run no class; Gated DeltaNet's at the shapes measured do.
    switch (a.recurrent->kind) {
      case RecurrentKind::mamba: out = {"conv1d", "selective_scan"}; break;
      case RecurrentKind::mamba2: out = {"conv1d", "ssd_scan"}; break;
      case RecurrentKind::gated_deltanet:
        if (!delta_net_measured(*a.recurrent)) out = {"conv1d", "delta_rule"};
        break;
    }
  }
  if (a.mla) {
    // A latent layer's core as add_attention classes it, in either phase: DeepSeek-V3.2's sparse
    // top_k, other widths, or more than 128 heads a GPU run no measured kernel; nor does its indexer.
    const LatentAttention& l = *a.mla;
    const double heads = static_cast<double>(a.heads) / (w.dp_attention ? 1 : w.tp);
    const double top_k = a.sparse ? static_cast<double>(a.sparse->top_k) : 0;
    const auto window = static_cast<double>(a.sliding_window), chunk = static_cast<double>(a.attention_chunk);
    const bool measured = latent_measured(true, heads, static_cast<double>(l.cache_width()),
                                          static_cast<double>(l.kv_lora_rank), top_k, window, chunk) &&
                          latent_measured(false, heads, static_cast<double>(l.nope_dim + l.rope_dim),
                                          static_cast<double>(l.v_dim), top_k, window, chunk);
    if (!measured && a.attention_layers() > 0) {
      if (a.sparse) out.push_back("index_scores");
      out.push_back("attn_scores");
      out.push_back("attn_values");
    }
  }
  return out;
}

OpList build_ops(Phase phase, const ModelSpec& m, const Workload& w, ExpertRouting routing) {
  if (m.architecture) {
    Sharding s = whole_model(w);  // its recurrent state in the workload's format
    s.tp = w.tp;
    return build_ops(phase, describe_layers(*m.architecture, s), w, routing);
  }
  // Known only by its size: every parameter is read once and used in one multiply-add per token.
  const Pass p = make_pass(phase, w);
  const double weights = weight_bytes(m.declared_params, w.precision).total().value();
  // One operator, one launch: without the layers nothing says how many kernels run.
  return {{"model_weights", {}, Flops(2 * p.rows * m.declared_params), Bytes(weights), Bytes(weights), Bytes(0), 0,
           MatmulShape{}, 1}};
}

}  // namespace roofline
