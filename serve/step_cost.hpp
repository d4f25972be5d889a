#pragma once
// The time of one serving step for whatever it holds: prefill chunks and decode sequences at
// their own contexts, mixed, as a continuous-batching server runs them. model::evaluate prices a
// uniform batch; a mixed step is priced here from the engine's own operators (build_ops over the
// one layer description), split by the steps that run them:
//   - the steps both phases run (every linear, norm, activation and collective), on every token
//     the step computes;
//   - the steps only prefill runs, on its prompt tokens, and those only decode runs, on its
//     decode rows. Latent attention (DeepSeek-V2 §2.1.2) prefills through K/V's up projection and
//     decodes through the same matrices absorbed into the query and the output; a step holding
//     both reads those matrices once (the prefill's share is priced without its weights);
//   - the LM head, on each sequence that emits a token;
//   - attention, its FLOPs and bytes summed over the step's sequences, each at its own context;
//     in the expected time a prefill chunk priced at its own length, and the decode queries (a
//     verify's one read of the cache among them) together as the engine prices a uniform batch:
//     their count at their mean context. A step whose contexts straddle a window's edge or a
//     chunk's boundary is priced at the mean's keys, not each sequence's (the bound is exact).
// Each part is tabulated on first use, so a simulated step costs a few table reads.
//
// Under data-parallel attention (DeepSeek-style) each of the tp ranks runs its own sequences
// through everything but the routed experts (its all-to-alls send its own tokens), and the
// experts run on every rank's tokens: a step is given one mix a rank, and takes the experts'
// time at the ranks' total plus the slowest rank's own time (every layer waits for it at its
// all-to-all).
//
// Bound and expected time are both kept: the bound is Σ per-operator roofline time, the
// attention operators of the step merged into one (max(ΣF/peak, ΣB/BW), never above the sum of
// their own maxima: the bound stays a bound); the expected time prices the same operators with
// the GPU's ExpectedModel (model/expected.hpp), never below the bound.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hardware/gpu_spec.hpp"
#include "model/layers.hpp"
#include "model/model_spec.hpp"
#include "model/parameters.hpp"
#include "model/workload.hpp"

namespace roofline::serve {

// Attention's work for some queries of a step, summed over its operators (scores, values).
// `expected`: where the GPU has kernel classes, the prefill queries' (a verify's fresh ones') expected time less
// the kernels' fixed costs (a step pays those once, StepCost::attention_time): each sequence's
// attention priced by the class at its own length, so that a prompt's chunk is what it is.
// Decode queries are not summed so: the decode class is not additive over sequences (a batch's
// blocks fill the GPU together; hardware/kernel_classes.hpp), so they are counted (`decodes`,
// and `context`, their contexts summed) and the step prices them as one kernel over the batch.
struct AttentionWork {
  double flops = 0, bytes = 0, expected = 0;
  double decodes = 0, context = 0;
  AttentionWork& operator+=(const AttentionWork& o) {
    flops += o.flops;
    bytes += o.bytes;
    expected += o.expected;
    decodes += o.decodes;
    context += o.context;
    return *this;
  }
  [[nodiscard]] AttentionWork times(double n) const {
    return {flops * n, bytes * n, expected * n, decodes * n, context * n};
  }
};

// What one step computes, gathered sequence by sequence.
struct StepMix {
  long prefill = 0;   // prompt tokens, through prefill's steps
  long decode = 0;    // decode rows: one a decoding sequence, K + 1 a verifying one
  long emitting = 0;  // sequences through the LM head
  AttentionWork attention;
  // Cached tokens a prefill chunk up-projects again: under latent attention vLLM's and SGLang's
  // chunked prefill decompress the cached latents through kv_b_proj for each chunk. Priced in
  // the expected time only: the bound's ideal kernel attends over the latents as read.
  long decompressed = 0;
  StepMix& operator+=(const StepMix& o) {
    prefill += o.prefill;
    decode += o.decode;
    emitting += o.emitting;
    attention += o.attention;
    decompressed += o.decompressed;
    return *this;
  }
  [[nodiscard]] StepMix times(long n) const {
    return {prefill * n, decode * n, emitting * n, attention.times(static_cast<double>(n)), decompressed * n};
  }
};

struct StepTime {
  Seconds bound, expected;
};

// Why a model cannot be priced step by step (nullopt: it can): known only by its size, or
// holding a recurrent state per sequence, which the simulator does not allocate.
[[nodiscard]] std::optional<std::string> unsupported(const ModelSpec& m);
// Why a layout cannot be (nullopt: it can): a pipeline (pp > 1), whose micro-batches in flight
// the simulator does not compose.
[[nodiscard]] std::optional<std::string> unsupported(const Workload& w);

class StepCost {
 public:
  // `base`: the workload's formats, tp, attention kernel and reserve; its batch and lengths are
  // not read. std::invalid_argument when unsupported(m).
  StepCost(const ModelSpec& m, const GpuSpec& g, const Workload& base);

  // One decode query against `context` keys (itself included), as the engine's decode step at
  // batch 1 and that context prices it: its FLOPs and bytes, and itself counted for the step's
  // decode kernel (AttentionWork::decodes).
  [[nodiscard]] AttentionWork decode_attention(long context) {
    // Inline once tabulated: a step asks it for every decoding sequence.
    const auto i = static_cast<std::size_t>(context);
    if (i < decode_.size() && decode_[i].filled) {
      const AttentionWork& one = decode_[i].w;
      return {one.flops, one.bytes, 0, 1, static_cast<double>(context)};
    }
    return decode_attention_filling(context);
  }
  // `fresh` prompt tokens after `cached` ones already in the cache (an earlier chunk, a prefix
  // hit): the pairs the fresh queries see, and the cached keys read once.
  [[nodiscard]] AttentionWork prefill_attention(long cached, long fresh);
  // A verify pass of `fresh` tokens after `cached`: a prefill chunk, or, where decode runs its
  // own attention (latent attention's absorbed form), each query as a decode query with the
  // cache read once. In the expected time its read of the cache is a decode of the step's batch.
  [[nodiscard]] AttentionWork verify_attention(long cached, long fresh);
  // One mix a rank: ranks() of them (one, unless attention is data-parallel).
  [[nodiscard]] StepTime time(std::span<const StepMix> ranks);
  [[nodiscard]] StepTime time(const StepMix& mix) { return time(std::span<const StepMix>(&mix, 1)); }
  // `sequences` alike, each `one`, spread over the ranks as evenly as whole sequences allow.
  [[nodiscard]] StepTime uniform(const StepMix& one, long sequences);
  // The ranks a step's sequences are spread over: tp under data-parallel attention, else 1.
  [[nodiscard]] int ranks() const { return ranks_; }

  // Whether prefill and decode run different steps (and so a verify runs decode's).
  [[nodiscard]] bool split_phases() const { return split_; }
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
  // Some of the layer stack's steps, run on a number of rows and tabulated by it.
  struct Part {
    LayerStack stack;
    bool without_weights = false;  // its weights were read by another part of the same step
    std::vector<Entry> table;
    [[nodiscard]] bool empty() const;
  };
  // The rows' parts of the steps on every token of the step (Rows::all), or on a rank's own.
  struct Parts {
    Part shared, prefill_only, prefill_reusing, decode_only, head;
  };
  [[nodiscard]] AttentionWork prefill_table(long tokens);
  // One decode query's work with its own expected time (the reads of a prefill's cached keys, a
  // verify's one read of the cache), tabulated by context.
  [[nodiscard]] AttentionWork decode_table(long context);
  [[nodiscard]] AttentionWork decode_attention_filling(long context);
  // The decode attention kernels' expected time, fixed costs included, for `sequences` at a mean
  // `context`: the engine's uniform batch, tabulated by sequences on a grid of contexts 1/64 of an
  // octave apart (exact below 64 tokens) and interpolated between its points.
  [[nodiscard]] Seconds decode_batch(long sequences, double context);
  [[nodiscard]] Seconds decode_batch_at(long sequences, std::size_t point);
  [[nodiscard]] AttentionWork attention_of(Phase p, long tokens) const;
  // Under kernel classes, `sequences` alike's attention at `tokens`: its kernels' variable part
  // and their fixed costs (launch or floor, the engine's gap).
  struct AttentionExpected {
    Seconds variable, fixed;
    [[nodiscard]] Seconds total() const { return variable + fixed; }
  };
  [[nodiscard]] AttentionExpected attention_expected(Phase p, long tokens, long sequences = 1) const;
  // A prompt's `fresh` tokens after `cached`: the pairs they see (the difference of two prompts'),
  // and separately the cached keys they read once (a decode query's reads at that context, less its
  // own query and output).
  [[nodiscard]] AttentionWork fresh_pairs(long cached, long fresh);
  [[nodiscard]] AttentionWork cached_read(long cached);
  [[nodiscard]] StepTime price(const Part& part, long rows) const;
  [[nodiscard]] StepTime lookup(Part& part, long rows);
  // The tables stop here, and larger counts are priced each time: a batch of 10^6 sequences of
  // 9 verify rows, or a budget of 10^8 tokens, would otherwise hold gigabytes of entries. At
  // most 2^18 rows (6 MB a part) and 2^21 tokens of context (48 MB a phase).
  static constexpr std::size_t kMostTabulatedRows = std::size_t{1} << 18;
  static constexpr std::size_t kMostTabulatedTokens = std::size_t{1} << 21;
  [[nodiscard]] StepTime rows_time(Parts& parts, const StepMix& mix);
  // `decodes`, `prefills`: whether the step holds decode queries, prefill queries (each kind's
  // kernels pay their fixed costs once a step).
  [[nodiscard]] StepTime attention_time(const AttentionWork& a, bool decodes, bool prefills);

  WeightPricing pricing_;
  Workload base_;
  Ceilings ceilings_;
  std::optional<Interconnect> link_;
  std::optional<Network> network_;
  ExpectedModel expected_;
  bool split_ = false;
  int ranks_ = 1;
  Parts every_, own_;
  LayerStack attention_[2];  // by Phase: the attention steps each phase runs
  double attention_launches_ = 0;
  double chunk_ = 0;  // a chunked decode layer's chunk (Llama 4), where its keys fall back to one; 0: none
  // Under kernel classes: each phase's attention kernels' fixed costs a step (launch or floor, and
  // the engine's gap), by Phase.
  Seconds attention_fixed_[2]{};
  std::vector<Work> decode_, prefill_;
  // decode_batch_at's table, by sequences then the contexts' grid point (NaN: not yet priced):
  // up to kMostBatchSequences sequences, each row as long as the furthest point asked (its
  // length doubled as it grows): 1601 points for contexts below 2^30, at most 26 kB a count.
  std::vector<std::vector<double>> batches_;
  static constexpr std::size_t kMostBatchSequences = std::size_t{1} << 12;
};

}  // namespace roofline::serve
