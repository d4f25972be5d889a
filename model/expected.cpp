#include "model/expected.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <span>

namespace roofline {

namespace {

// A collective call: each of its sequential steps (a ring all-reduce: 2(k−1)) pays hop_latency
// beside its transfer; never faster than a ring's transfer and one link latency a call (the
// bound, bandwidth alone at in-network reduction's floor, sits below both).
Seconds collective(const OpResult& o, const ExpectedModel& m) {
  return std::max(o.comm.floor(), m.hop_latency * o.comm.hops + o.comm.serial) * o.cost.comm_calls;
}

// What an operator asks of the kernels that run it: its FLOPs as many as take as long at the
// compute peak (an fp8 cache's attention multiplies at the fp8 one, as its bound does).
KernelWork work_of(const OpResult& o, const Ceilings& c) {
  const Bytes weights = o.cost.weight_bytes;
  return {o.cost.flops * (c.peak / arithmetic_peak(o.cost, c)), o.cost.bytes - weights, weights, o.cost.shape.rows,
          o.cost.launches, o.cost.dequant};
}

// An operator's expected time in the parts a phase adds up.
struct OpPart {
  Seconds compute, memory, fixed, comm, dequant;
  [[nodiscard]] Seconds total() const { return compute + memory + fixed + comm; }
};

// One part alone, the others zero.
OpPart compute_only(Seconds t) { return {t, Seconds(0), Seconds(0), Seconds(0), Seconds(0)}; }
OpPart memory_only(Seconds t) { return {Seconds(0), t, Seconds(0), Seconds(0), Seconds(0)}; }
OpPart comm_only(Seconds t) { return {Seconds(0), Seconds(0), Seconds(0), t, Seconds(0)}; }
// The bound's own time, where no model reaches it, split as the bound binds.
OpPart at_bound(const OpResult& o) { return o.bound == Bound::compute ? compute_only(o.time) : memory_only(o.time); }

// The end-to-end model's price of one operator (hardware/expected_model.hpp).
OpPart generic(const OpResult& o, const ExpectedModel& m, const Ceilings& c) {
  if (o.bound == Bound::interconnect) return comm_only(collective(o, m));
  const KernelTime k = m.kernel_time(work_of(o, c), c);
  if (k.total() <= o.time) {
    // The bound binds (rare: an op its fixed costs do not reach): its time, split as it is.
    return at_bound(o);
  }
  // What unpacking costs over a plain stream of the same weights (under overlap, before sharing).
  const Seconds plain = o.cost.weight_bytes / (c.bandwidth * m.memory);
  return {k.compute, k.memory, k.fixed, Seconds(0), plain / m.dequant(o.cost.dequant) - plain};
}

// The class that prices an operator where the GPU has kernel coefficients; none: generic.
std::optional<KernelClass> class_of(const OpResult& o, const Ceilings& c) {
  const OpCost& k = o.cost;
  if (o.bound == Bound::interconnect) {
    return k.collective == Collective::all_reduce && o.comm.switched_domain ? std::optional(KernelClass::all_reduce)
                                                                            : std::nullopt;
  }
  if (k.launches <= 0) return std::nullopt;
  switch (k.kernel) {
    case KernelKind::linear:
    case KernelKind::linear_fp8:
    case KernelKind::linear_fp8_block:
      if (k.dequant != Dequant::none || k.shape.rows <= 0) return std::nullopt;
      return k.kernel == KernelKind::linear       ? KernelClass::gemm
             : k.kernel == KernelKind::linear_fp8 ? KernelClass::gemm_fp8
                                                  : KernelClass::gemm_fp8_block;
    case KernelKind::attention:
      if (k.head_dim <= 0 || k.queries <= 0) return std::nullopt;
      if (k.queries > 1) return KernelClass::prefill_attention;
      // The decode tables timed 16-bit caches, and fp8 caches on Hopper, whose grouped kernel
      // reads them through its fp8 tensor cores: an fp8 cache on a GPU without them, an int8, a
      // 4-bit or a 32-bit cache (other kernels, converting or not) keeps the end-to-end pricing.
      if (k.kv_format == DType::fp16 || k.kv_format == DType::bf16) return KernelClass::decode_attention;
      if (k.kv_format == DType::fp8 && c.fp8_mma) return KernelClass::decode_attention;
      return std::nullopt;
    case KernelKind::elementwise: return KernelClass::elementwise;
    case KernelKind::experts:
    case KernelKind::experts_fp8:
      // The activation between the GEMMs has no matrix shape: the group's gate gives the rows.
      if (k.dequant != Dequant::none) return std::nullopt;
      return k.kernel == KernelKind::experts ? KernelClass::experts : KernelClass::experts_fp8;
    case KernelKind::latent_attention:
      if (k.head_dim <= 0 || k.queries <= 0) return std::nullopt;
      // Decode's absorbed form carries its decode shape; a one-token prompt is still a prefill.
      return k.queries == 1 && k.kv_heads > 0 ? KernelClass::latent_decode : KernelClass::latent_prefill;
    case KernelKind::delta_net:
      if (k.queries <= 0 || k.sequences <= 0) return std::nullopt;
      return k.queries == 1 ? KernelClass::delta_net_decode : KernelClass::delta_net_prefill;
    case KernelKind::other: return std::nullopt;
  }
  return std::nullopt;
}

// One kernel of a fused group (ops[first, last)): the group's FLOPs and bytes a launch.
KernelAsk ask_of(std::span<const OpResult> group, KernelClass k) {
  const OpCost& lead = group.front().cost;
  KernelAsk a;
  for (const OpResult& o : group) {
    a.flops += o.cost.flops.value() * o.cost.kernel_work / lead.launches;
    a.bytes += o.cost.bytes.value() / lead.launches;
  }
  if (k == KernelClass::gemm || k == KernelClass::gemm_fp8 || k == KernelClass::gemm_fp8_block) a.rows = lead.shape.rows;
  // fp8: the scale kernels read the 16-bit activations twice and write them as fp8.
  if (k == KernelClass::gemm_fp8) a.scale_bytes = 5 * lead.shape.rows * lead.shape.in;
  if (k == KernelClass::gemm_fp8_block) {
    // Quantized in 1 × 128 groups once (read at 16 bits, written at 8); the fused group's columns
    // together are the GEMM's N.
    a.scale_bytes = 3 * lead.shape.rows * lead.shape.in;
    for (const OpResult& o : group) a.width += o.cost.shape.out;
  }
  if (k == KernelClass::decode_attention || k == KernelClass::latent_decode) a.heads = lead.sequences * lead.heads;
  if (k == KernelClass::latent_decode && lead.kv_format == DType::fp8) {
    // The cached latents FlashMLA converts: one KV head of the query's width a key.
    a.kv_bytes = 1;
    a.converted = lead.sequences * lead.keys * lead.kv_heads * lead.head_dim;
  }
  if (k == KernelClass::decode_attention) {
    a.sequences = lead.sequences;
    a.kv_heads = lead.sequences * lead.kv_heads;
    a.keys = lead.keys;
    a.context = lead.context;
    a.kv_bytes = bytes_per_element(lead.kv_format);
    a.head_dim = lead.head_dim;
  }
  if (k == KernelClass::experts || k == KernelClass::experts_fp8) {
    // The fused MoE: its picks, the experts they reach (the gate's copies touched a layer), and
    // the weights that stream of the bytes.
    a.rows = lead.shape.rows;
    a.experts = lead.shape.count / lead.launches;
    a.width = lead.shape.out;  // gate's (or, ungated, up's) columns: the expert's width on this GPU
    for (const OpResult& o : group) a.stream_bytes += o.cost.weight_bytes.value() / lead.launches;
  }
  if (k == KernelClass::delta_net_decode || k == KernelClass::delta_net_prefill) {
    a.rows = lead.queries;
    a.sequences = lead.sequences;
  }
  if (k == KernelClass::prefill_attention || k == KernelClass::latent_prefill) {
    a.window = lead.window;
    a.rows = lead.queries;
    a.heads = lead.sequences * lead.heads;
    a.head_dim = lead.head_dim;
  }
  return a;
}

// Every operator's expected time, handed to `sink(i, part)` in order (`c`: the ceilings the
// model's shares are of, Ceilings::reference): by kernel class where the
// model has them (a fused group's time shared among its operators as their bounds are), else by
// the end-to-end coefficients; never below the operator's bound. A sink, not a vector: this runs
// twice an evaluation, and a sweep evaluates millions.
template <class Sink>
void price_ops(const PhaseResult& bound, const ExpectedModel& m, const Ceilings& c, Sink&& sink) {
  const std::vector<OpResult>& ops = bound.ops;
  if (!m.kernels) {
    for (std::size_t i = 0; i < ops.size(); ++i) sink(i, generic(ops[i], m, c));
    return;
  }
  const KernelCoefficients& k = *m.kernels;
  const KernelCeilings kc{c.peak16.value() > 0 ? c.peak16.value() : c.peak.value(), c.peak.value(), c.bandwidth.value(), 0};
  // The 16-bit class at the compute peak when the arithmetic is 16-bit (or wider), at the 16-bit
  // peak beside fp8 arithmetic: a bf16 router's GEMM is no faster for its neighbours.
  KernelCeilings gemm_at = kc;
  if (is_wide_float(c.compute)) gemm_at.peak = c.peak.value();
  // Each operator classed once: the one that ends a group leads the next.
  std::optional<KernelClass> next = ops.empty() ? std::nullopt : class_of(ops.front(), c);
  const auto advance = [&](std::size_t to) {
    if (to < ops.size()) next = class_of(ops[to], c);
    return to;
  };
  for (std::size_t i = 0; i < ops.size();) {
    const OpResult& o = ops[i];
    const std::optional<KernelClass> cls = next;
    if (!cls) {
      sink(i, generic(o, m, c));
      i = advance(i + 1);
      continue;
    }
    if (*cls == KernelClass::all_reduce) {
      // A call: the latency measured and the faster algorithm's transfer (one-shot or two-shot).
      const Seconds call = Seconds(k.all_reduce.latency) +
                           Seconds(all_reduce_transfer(k.all_reduce, o.comm.overlapped.value(), o.cost.group));
      sink(i, comm_only(std::max(o.comm.bound(), call) * o.cost.comm_calls));
      i = advance(i + 1);
      continue;
    }
    std::size_t end = advance(i + 1);
    while (end < ops.size() && ops[end].cost.fused && next == cls) end = advance(end + 1);
    const std::span<const OpResult> group(ops.data() + i, end - i);
    const KernelCoefficients::Split s = k.split(*cls, ask_of(group, *cls), *cls == KernelClass::gemm ? gemm_at : kc);
    Seconds bound_sum{0};
    for (const OpResult& g : group) bound_sum += g.time;
    for (std::size_t j = i; j < end; ++j) {
      const double share = bound_sum.value() > 0 ? ops[j].time / bound_sum : 1.0 / static_cast<double>(end - i);
      const double n = ops[i].cost.launches * share;
      OpPart p{Seconds(s.compute * n), Seconds(s.memory * n), Seconds(s.fixed * n) + m.gap * n, Seconds(0), Seconds(0)};
      if (p.total() < ops[j].time) {
        p = at_bound(ops[j]);
      }
      sink(j, p);
    }
    i = end;
  }
}

// exp(z90 · spread), the 10–90% interval's factor: a phase's two calls of `exp` beside the overlap
// norms' sixty, and a sweep's points share a few spreads. Each thread keeps the last of each regime.
double interval_factor(Regime r, double spread) {
  thread_local std::array<std::pair<double, double>, 3> kept{};  // (spread, factor); factor 0: none yet
  auto& [s, f] = kept[static_cast<std::size_t>(r)];
  if (f == 0 || s != spread) {
    s = spread;
    f = std::exp(kZ90 * spread);
  }
  return f;
}

}  // namespace

std::vector<Seconds> expected_op_times(const PhaseResult& bound, const ExpectedModel& m, const Ceilings& c) {
  std::vector<Seconds> out(bound.ops.size());
  price_ops(bound, m, c.reference(), [&out](std::size_t i, const OpPart& p) { out[i] = p.total(); });
  return out;
}

Regime regime_of(double fixed_share, double compute_share) {
  if (fixed_share >= 0.3) return Regime::overhead;
  if (compute_share >= 0.2) return Regime::compute;
  return Regime::memory;
}

Expected expected_phase(const PhaseResult& bound, const ExpectedModel& m, const Ceilings& c) {
  // Summed in a local part, which the compiler keeps in registers (Expected's fields it stores at
  // every operator: some 300 instructions a phase).
  OpPart sum = compute_only(Seconds(0));
  price_ops(bound, m, c.reference(), [&sum](std::size_t, const OpPart& p) {
    sum.compute += p.compute;
    sum.memory += p.memory;
    sum.fixed += p.fixed;
    sum.comm += p.comm;
    sum.dequant += p.dequant;
  });
  Expected e;
  e.compute = sum.compute;
  e.memory = sum.memory;
  e.overhead = sum.fixed + m.step;
  e.comm = sum.comm;
  e.dequant = sum.dequant;
  e.time = e.overhead + e.comm + e.compute + e.memory;
  if (e.time > Seconds(0)) {
    const double fixed_share = (e.overhead + e.comm) / e.time, compute_share = e.compute / e.time;
    e.regime = regime_of(fixed_share, compute_share);
  }
  e.spread = m.spread(e.regime);
  e.bound = bound.time;
  const double factor = interval_factor(e.regime, e.spread);
  e.low = std::max(e.bound, e.time / factor);
  e.high = e.time * factor;
  return e;
}

double normal_quantile(double p) {
  // Φ(z) = (1 + erf(z/√2)) / 2 is increasing: bisect it on [−10, 10] to below 1e−12.
  double lo = -10, hi = 10;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * (1 + std::erf(mid / std::sqrt(2.0))) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

Seconds Expected::quantile(double p) const {
  return std::max(bound, time * std::exp(normal_quantile(p) * spread));
}

}  // namespace roofline
