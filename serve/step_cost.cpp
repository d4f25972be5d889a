#include "serve/step_cost.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <variant>

#include "model/expected.hpp"
#include "model/operators.hpp"
#include "model/phase.hpp"

namespace roofline::serve {

namespace {

// The steps of `whole` that `keep` picks, each made to run in both phases and on every row it is
// given: a part is priced on decode's pass at the rows of the step (or of a rank) it runs on.
template <class Keep>
LayerStack pick(const LayerStack& whole, Keep keep) {
  LayerStack s = whole;
  s.data_parallel = 1;
  for (Block& b : s.blocks) {
    std::erase_if(b.steps, [&](const PhasedStep& p) { return !keep(p); });
    for (PhasedStep& p : b.steps) {
      p.phases = Phases::both;
      p.rows = Rows::all;
    }
  }
  return s;
}

bool is_attention(const PhasedStep& p) { return std::holds_alternative<AttentionStep>(p.step); }

// The LM head and, under tensor parallelism, the gather of its logits: run on the rows that emit.
bool is_head(const PhasedStep& p) {
  if (const auto* c = std::get_if<CollectiveStep>(&p.step)) return c->last_token;
  const auto* l = std::get_if<LinearStep>(&p.step);
  return l && l->last_token;
}

WeightPricing pricing_for(const ModelSpec& m, const Workload& w) {
  if (const auto why = unsupported(m)) throw std::invalid_argument(*why);
  return WeightPricing(w.precision, describe_layers(*m.architecture, 1));
}

StepTime operator+(StepTime a, const StepTime& b) { return {a.bound + b.bound, a.expected + b.expected}; }


}  // namespace

std::optional<std::string> unsupported(const ModelSpec& m) {
  if (!m.architecture) return "the model is known only by its size: a step's attention cannot be priced";
  for (const Block& b : describe_layers(*m.architecture, 1).blocks) {
    for (const PhasedStep& p : b.steps) {
      if (std::holds_alternative<RecurrentStep>(p.step)) {
        return "the model holds a recurrent state per sequence, which the simulator does not allocate";
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> unsupported(const Workload& w) {
  if (w.pp > 1) return "--pp: the simulator runs one pipeline stage; its steps do not model micro-batches in flight";
  return std::nullopt;
}

bool StepCost::Part::empty() const {
  return std::all_of(stack.blocks.begin(), stack.blocks.end(), [](const Block& b) { return b.steps.empty(); });
}

StepCost::StepCost(const ModelSpec& m, const GpuSpec& g, const Workload& base)
    : pricing_(pricing_for(m, base)),
      base_(base),
      ceilings_{g.ceilings(base.precision.compute)},
      link_(g.interconnect),
      network_(g.network),
      expected_(g.expected_model()) {
  if (const auto why = unsupported(base)) throw std::invalid_argument(*why);
  const LayerStack stack = describe_layers(*m.architecture, sharding(base));
  base_.batch = 1;
  base_.context_tokens = 1;
  base_.prompt_tokens = 1;
  ranks_ = stack.data_parallel;
  const auto parts = [&](Rows rows) {
    const auto of = [&](Phases only) {
      return pick(stack, [&](const PhasedStep& p) {
        return p.rows == rows && p.phases == only && !is_attention(p) && !is_head(p);
      });
    };
    Parts out;
    out.shared.stack = of(Phases::both);
    out.head.stack = pick(stack, [&](const PhasedStep& p) { return p.rows == rows && is_head(p); });
    out.prefill_only.stack = of(Phases::prefill_only);
    out.decode_only.stack = of(Phases::decode_only);
    return out;
  };
  every_ = parts(Rows::all);
  own_ = parts(Rows::own);
  for (Parts* p : {&every_, &own_}) split_ = split_ || !p->prefill_only.empty() || !p->decode_only.empty();
  // Latent attention's prefill-only up projection holds the matrices decode absorbs: in a step
  // with decodes they are already read. Reused only where the bytes agree (they are one tensor).
  const auto weights = [&](const Part& p) {
    double sum = 0;
    for (const OpCost& o : build_ops(Phase::decode, p.stack, base_, ExpertRouting::all, pricing_)) {
      sum += o.weight_bytes.value();
    }
    return sum;
  };
  for (Parts* p : {&every_, &own_}) {
    p->prefill_reusing = p->prefill_only;
    const double by_prefill = weights(p->prefill_only), by_decode = weights(p->decode_only);
    p->prefill_reusing.without_weights = by_prefill > 0 && std::abs(by_prefill - by_decode) <= 1e-9 * by_decode;
  }
  for (const Phase p : {Phase::prefill, Phase::decode}) {
    attention_[static_cast<int>(p)] = pick(stack, [&](const PhasedStep& s) { return is_attention(s) && s.runs_in(p); });
  }
  for (const Block& b : attention_[static_cast<int>(Phase::decode)].blocks) {
    for (const PhasedStep& p : b.steps) {
      if (const auto* a = std::get_if<AttentionStep>(&p.step); a && a->chunk > 0) {
        // Layers of two chunk sizes (none known) would need both ends: the smaller is held.
        chunk_ = chunk_ > 0 ? std::min(chunk_, a->chunk) : a->chunk;
      }
    }
  }
  for (const OpCost& o :
       build_ops(Phase::decode, attention_[static_cast<int>(Phase::decode)], base_, ExpertRouting::uniform, pricing_)) {
    attention_launches_ += o.launches;
  }
  if (expected_.kernels) {
    // A prompt of one token is a decode query to the classes (model/expected.cpp): two are a prefill.
    for (const Phase p : {Phase::prefill, Phase::decode}) {
      attention_fixed_[static_cast<int>(p)] = attention_expected(p, p == Phase::prefill ? 2 : 1).fixed;
    }
  }
}

StepCost::AttentionExpected StepCost::attention_expected(Phase p, long tokens, long sequences) const {
  Workload w = base_;
  w.batch = sequences;
  (p == Phase::decode ? w.context_tokens : w.prompt_tokens) = tokens;
  const OpList ops = build_ops(p, attention_[static_cast<int>(p)], w, ExpertRouting::uniform, pricing_);
  const Expected e = expected_phase(evaluate_phase(ops, ceilings_, link_, network_), expected_, ceilings_);
  return {e.compute + e.memory, e.overhead - expected_.step};
}

AttentionWork StepCost::attention_of(Phase p, long tokens) const {
  Workload w = base_;
  (p == Phase::decode ? w.context_tokens : w.prompt_tokens) = tokens;
  AttentionWork a;
  for (const OpCost& o : build_ops(p, attention_[static_cast<int>(p)], w, ExpertRouting::uniform, pricing_)) {
    // FLOPs as many as take as long at the compute peak (an fp8 cache's attention runs at the fp8 one).
    a += {o.flops.value() * (ceilings_.peak / arithmetic_peak(o, ceilings_)), o.bytes.value()};
  }
  if (expected_.kernels && tokens > 0) a.expected = attention_expected(p, tokens).variable.value();
  return a;
}

AttentionWork StepCost::decode_table(long context) {
  const auto i = static_cast<std::size_t>(context);
  if (i >= kMostTabulatedTokens) return attention_of(Phase::decode, context);
  if (i >= decode_.size()) decode_.resize(std::max(i + 1, decode_.size() * 2));
  Work& e = decode_[i];
  if (!e.filled) e = {attention_of(Phase::decode, context), true};
  return e.w;
}

AttentionWork StepCost::decode_attention_filling(long context) {
  const AttentionWork one = decode_table(context);
  return {one.flops, one.bytes, 0, 1, static_cast<double>(context)};
}

namespace {

// The contexts' grid for a batch's decode time: points 0 to 63 are those contexts; above, point
// 64·o + j is (64 + j)·2^(o−1), 64 points an octave. Integer shifts: a simulated step asks twice.
std::uint64_t context_at(std::size_t point) {
  return point < 64 ? point : (64 + point % 64) << (point / 64 - 1);
}
// The point at or below `context` (below 2^32).
std::size_t point_below(std::uint64_t context) {
  if (context < 64) return context;
  const int e = std::bit_width(context);  // context in [2^(e−1), 2^e)
  return static_cast<std::size_t>(e - 6) * 64 + (context >> (e - 7)) - 64;
}

}  // namespace

Seconds StepCost::decode_batch_at(long sequences, std::size_t point) {
  const auto price = [&] {
    return attention_expected(Phase::decode, static_cast<long>(context_at(point)), sequences).total();
  };
  const auto n = static_cast<std::size_t>(sequences);
  if (n >= kMostBatchSequences) return price();
  if (n >= batches_.size()) batches_.resize(std::max(n + 1, batches_.size() * 2));
  std::vector<double>& row = batches_[n];
  if (point >= row.size()) row.resize(std::max(point + 1, row.size() * 2), std::numeric_limits<double>::quiet_NaN());
  if (std::isnan(row[point])) row[point] = price().value();
  return Seconds(row[point]);
}

Seconds StepCost::decode_batch(long sequences, double context) {
  // The class's time bends at the blocks' split and the combine's knee, and is near linear within
  // 1/64 of an octave. Beyond the grid (2^30 tokens; a 32-bit long, the web build's, holds its
  // points) the context is priced as it is.
  const auto exact = [&](double at) { return attention_expected(Phase::decode, std::lround(at), sequences).total(); };
  const double c = std::max(1.0, context);
  if (c >= 1073741824.0) return exact(c);
  const std::size_t lo = point_below(static_cast<std::uint64_t>(c));
  auto below = static_cast<double>(context_at(lo)), above = static_cast<double>(context_at(lo + 1));
  if (c == below) return decode_batch_at(sequences, lo);
  // A chunked layer's keys fall from a whole chunk to one past each multiple of it: the ends are
  // held inside the chunk holding c, [start + 1, start + chunk], and priced there where they move.
  bool left = false, right = false;
  if (chunk_ > 0) {
    const double start = std::floor((c - 1) / chunk_) * chunk_;
    left = below < start + 1, right = above > start + chunk_;
    if (left) below = start + 1;
    if (right) above = start + chunk_;
  }
  const Seconds at_lo = left ? exact(below) : decode_batch_at(sequences, lo);
  if (above <= below) return at_lo;
  const Seconds at_hi = right ? exact(above) : decode_batch_at(sequences, lo + 1);
  return at_lo + (at_hi - at_lo) * ((c - below) / (above - below));
}

AttentionWork StepCost::prefill_table(long tokens) {
  const auto i = static_cast<std::size_t>(tokens);
  if (i >= kMostTabulatedTokens) return attention_of(Phase::prefill, tokens);
  if (i >= prefill_.size()) prefill_.resize(std::max(i + 1, prefill_.size() * 2));
  Work& e = prefill_[i];
  if (!e.filled) e = {tokens == 0 ? AttentionWork{} : attention_of(Phase::prefill, tokens), true};
  return e.w;
}

// The engine's prefill of n tokens sees pairs_seen(n) pairs and reads each token's K/V once.
AttentionWork StepCost::fresh_pairs(long cached, long fresh) {
  const AttentionWork all = prefill_table(cached + fresh);
  const AttentionWork before = prefill_table(cached);
  // The class's time is not additive over a prompt's length: the difference is held at zero or more.
  return {all.flops - before.flops, all.bytes - before.bytes, std::max(0.0, all.expected - before.expected)};
}

AttentionWork StepCost::cached_read(long cached) {
  const AttentionWork keys = decode_table(cached), none = decode_table(0);
  return {0, keys.bytes - none.bytes, std::max(0.0, keys.expected - none.expected)};
}

AttentionWork StepCost::prefill_attention(long cached, long fresh) {
  // Under latent attention the cached tokens are read as their latents (StepMix::decompressed
  // prices their up projection in the expected time).
  AttentionWork a = fresh_pairs(cached, fresh);
  if (cached > 0) a += cached_read(cached);
  return a;
}

AttentionWork StepCost::verify_attention(long cached, long fresh) {
  // In the expected time the one read of the cache is a decode of the step's batch (a lone
  // sequence's blocks would overstate it at long contexts, as they did decodes), and only the
  // fresh queries' own share is the sequence's.
  if (!split_) {
    AttentionWork a = fresh_pairs(cached, fresh);
    if (cached > 0) a += {0, cached_read(cached).bytes, 0, 1, static_cast<double>(cached)};
    return a;
  }
  // Each query sees the keys before it, and the cache is read once for them all (FlashMLA's
  // several queries a sequence); the later queries' own rows, a few kB, are left out. In the
  // expected time, one decode of the batch at the cache's full length: each query's own pricing
  // would stream it K + 1 times (the queries' arithmetic rides on the read).
  const AttentionWork last = decode_table(cached + fresh);
  AttentionWork a{0, last.bytes, 0, 1, static_cast<double>(cached + fresh)};
  for (long j = 1; j <= fresh; ++j) a.flops += decode_table(cached + j).flops;
  return a;
}

StepTime StepCost::price(const Part& part, long rows) const {
  if (part.empty()) return {};
  Workload w = base_;
  w.batch = rows;
  OpList ops = build_ops(Phase::decode, part.stack, w, ExpertRouting::uniform, pricing_);
  if (part.without_weights) {
    for (OpCost& o : ops) {
      o.bytes -= o.weight_bytes;
      o.weight_bytes = Bytes(0);
    }
  }
  const PhaseResult r = evaluate_phase(ops, ceilings_, link_, network_);
  const Expected e = expected_phase(r, expected_, ceilings_);
  // The per-pass cost is the step's once: time() adds it.
  return {r.time, e.time - expected_.step};
}

StepTime StepCost::lookup(Part& part, long rows) {
  const auto i = static_cast<std::size_t>(rows);
  if (i >= kMostTabulatedRows) return price(part, rows);
  if (i >= part.table.size()) part.table.resize(std::max(i + 1, part.table.size() * 2));
  Entry& e = part.table[i];
  if (!e.filled) e = {rows == 0 ? StepTime{} : price(part, rows), true};
  return e.t;
}

StepTime StepCost::rows_time(Parts& parts, const StepMix& mix) {
  StepTime t = lookup(parts.shared, mix.prefill + mix.decode) + lookup(parts.head, mix.emitting);
  if (split_) {
    t = t + lookup(mix.decode > 0 ? parts.prefill_reusing : parts.prefill_only, mix.prefill) +
        lookup(parts.decode_only, mix.decode);
    // The chunk's own rows read the up projection's weights; the cached ones reuse them.
    if (mix.decompressed > 0) t.expected += lookup(parts.prefill_reusing, mix.decompressed).expected;
  }
  return t;
}

StepTime StepCost::attention_time(const AttentionWork& a, bool decodes, bool prefills) {
  const Seconds bound = std::max(Flops(a.flops) / ceilings_.peak, Bytes(a.bytes) / ceilings_.bandwidth);
  Seconds expected = bound;
  if (expected_.kernels) {
    // The decode queries as one batch at their mean context, its fixed costs included; each
    // prefill's or verify's share at its own length, and each other kind's fixed costs once (a
    // verify under split phases runs decode's kernels: their fixed costs, unless decodes paid them).
    const long sequences = std::lround(a.decodes);
    const Seconds batch = sequences > 0 ? decode_batch(sequences, a.context / a.decodes) : Seconds(0);
    const Seconds fixed =
        (decodes && sequences == 0 ? attention_fixed_[static_cast<int>(Phase::decode)] : Seconds(0)) +
        (prefills ? attention_fixed_[static_cast<int>(Phase::prefill)] : Seconds(0));
    if (a.bytes > 0) expected = std::max(bound, batch + Seconds(a.expected) + fixed);
  } else if (a.bytes > 0) {
    const KernelWork k{Flops(a.flops), Bytes(a.bytes), Bytes(0), 0, attention_launches_, Dequant::none};
    expected = std::max(bound, expected_.kernel_time(k, ceilings_.reference()).total());
  }
  return {bound, expected};
}

StepTime StepCost::uniform(const StepMix& one, long sequences) {
  std::vector<StepMix> mixes(static_cast<std::size_t>(ranks_));
  for (int r = 0; r < ranks_; ++r) {
    mixes[static_cast<std::size_t>(r)] = one.times(sequences / ranks_ + (r < sequences % ranks_ ? 1 : 0));
  }
  return time(mixes);
}

StepTime StepCost::time(std::span<const StepMix> ranks) {
  if (static_cast<int>(ranks.size()) != ranks_) throw std::logic_error("step cost: a step is one mix a rank");
  StepMix total;
  for (const StepMix& r : ranks) total += r;
  StepTime t = rows_time(every_, total);
  if (ranks_ == 1) {
    t = t + attention_time(total.attention, total.decode > 0, total.prefill > 0);
  } else {
    // Every layer waits at its all-to-all for the slowest rank; the bound and the expected time
    // each take their own slowest.
    StepTime slowest;
    for (const StepMix& r : ranks) {
      const StepTime own = rows_time(own_, r) + attention_time(r.attention, r.decode > 0, r.prefill > 0);
      slowest = {std::max(slowest.bound, own.bound), std::max(slowest.expected, own.expected)};
    }
    t = t + slowest;
  }
  return {t.bound, t.expected + expected_.step};
}

}  // namespace roofline::serve
