#include "model/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "model/layers.hpp"
#include "model/shard_check.hpp"

namespace roofline {

namespace {

// The GPUs a replica spans, against the fabric that joins them.
std::optional<SpecError> validate_placement(const Workload& w, const GpuSpec& g) {
  const int n = gpus(w);
  if (n == 1) return std::nullopt;
  if (!g.interconnect) {
    const std::string_view flag = w.tp > 1 ? "tp" : "pp";
    return SpecError{std::string(flag), fmt::format("{} GPUs need `interconnect: {{bandwidth, latency}}` in the GPU "
                                                    "description of {}",
                                                    n, g.name)};
  }
  const int domain = g.interconnect->domain;
  if (n <= domain) return std::nullopt;
  if (!g.network) {
    return SpecError{w.tp > domain ? "tp" : "pp",
                     fmt::format("{} GPUs (tp {} × pp {}) leave {}'s {}-GPU interconnect domain: its description needs "
                                 "`network: {{bandwidth, latency}}` between domains",
                                 n, w.tp, w.pp, g.name, domain)};
  }
  if (w.tp > domain && w.tp % domain != 0) {
    return SpecError{"tp", fmt::format("tp {} spans {}-GPU domains without filling them: a tensor-parallel group "
                                       "is placed on whole domains",
                                       w.tp, domain)};
  }
  if (w.tp < domain && domain % w.tp != 0) {
    return SpecError{"tp", fmt::format("tp {} does not divide the {}-GPU domain: across domains a stage would "
                                       "straddle two, its collectives half on the network",
                                       w.tp, domain)};
  }
  return std::nullopt;
}

// Expert parallelism, data-parallel attention and the pipeline, against the model.
std::optional<SpecError> validate_layout(const Workload& w, const ModelSpec& m) {
  if (w.pp < 1) return SpecError{"pp", fmt::format("must be at least 1, got {}", w.pp)};
  if (w.ep < 1) return SpecError{"ep", fmt::format("must be at least 1, got {}", w.ep)};
  const bool layout = w.pp > 1 || w.ep > 1 || w.dp_attention;
  if (layout && !m.architecture) {
    return SpecError{w.pp > 1 ? "pp" : w.ep > 1 ? "ep" : "dp-attention",
                     "needs the model's architecture (layers, experts); this model gives only `params`"};
  }
  if (w.pp > 1 && w.pp > m.architecture->layers) {
    return SpecError{"pp", fmt::format("{} stages for {} layers", w.pp, m.architecture->layers)};
  }
  // Layers reading an earlier layer's cache (Gemma 4 E2B/E4B) would read it across stages, and
  // leave the first stages holding most of the cache: not what a pipeline is priced as.
  if (w.pp > 1 && m.architecture->kv_shared_layers > 0) {
    return SpecError{"pp", "a model whose last layers read an earlier layer's cache (kv_shared_layers) is not "
                           "priced across pipeline stages"};
  }
  if (w.microbatches < 0 || (w.microbatches > 0 && w.pp == 1)) {
    return SpecError{"microbatches", fmt::format("must be at least 1, and with --pp > 1; got {} at pp {}",
                                                 w.microbatches, w.pp)};
  }
  if (!(w.expert_imbalance >= 1 && w.expert_imbalance <= std::max(1, w.ep))) {
    return SpecError{"expert-imbalance",
                     fmt::format("must be 1 … ep ({}): the busiest GPU's share of the expert rows over the mean, "
                                 "got {}",
                                 w.ep, w.expert_imbalance)};
  }
  const MoeSpec* moe = m.architecture && m.architecture->moe ? &*m.architecture->moe : nullptr;
  if (w.ep > 1) {
    if (!moe) return SpecError{"ep", "expert parallelism needs a model with experts (`moe`)"};
    if (w.tp % w.ep != 0) {
      return SpecError{"ep", fmt::format("ep {} does not divide tp {}: the experts are sharded over a stage's GPUs",
                                         w.ep, w.tp)};
    }
    if (moe->experts % w.ep != 0) {
      return SpecError{"ep", fmt::format("ep {} does not divide the {} experts", w.ep, moe->experts)};
    }
    // A GPU holds experts / ep experts, so a token sends it at most min(top_k, experts / ep) of its
    // picks, against top_k / ep on a GPU of mean load: the busiest runs at most min(ep, experts /
    // top_k) times the mean (Mixtral-8x7B at ep 8: one expert a GPU, 4 times the mean's 1/4 row).
    const long held = moe->experts / w.ep;
    const double most = std::min(static_cast<double>(w.ep), static_cast<double>(moe->experts) / moe->top_k);
    if (w.expert_imbalance > most) {
      return SpecError{"expert-imbalance",
                       fmt::format("must be 1 … {} at ep {}, got {}: each GPU holds {} of the {} experts, so a "
                                   "token sends the busiest at most {} of its {} picks, {} times the mean's {}",
                                   most, w.ep, w.expert_imbalance, held, moe->experts,
                                   std::min<long>(moe->top_k, held), moe->top_k, most,
                                   static_cast<double>(moe->top_k) / w.ep)};
    }
  }
  if (w.dp_attention) {
    if (!moe) return SpecError{"dp-attention", "is for models with experts; a dense model runs as replicas (`plan`)"};
    if (w.tp < 2 || w.ep != w.tp) {
      return SpecError{"dp-attention", fmt::format("runs attention on each of the stage's tp GPUs and the experts "
                                                   "over all of them: needs tp > 1 and --ep {} (the tp), got tp {} ep {}",
                                                   w.tp, w.tp, w.ep)};
    }
  }
  return std::nullopt;
}

std::optional<SpecError> validate_tp(const Workload& w, const ModelSpec& m, const GpuSpec& g) {
  if (w.tp < 1) return SpecError{"tp", fmt::format("must be at least 1, got {}", w.tp)};
  if (auto e = validate_layout(w, m)) return e;
  if (auto e = validate_placement(w, g)) return e;
  if (w.tp == 1 || w.dp_attention) return std::nullopt;  // data-parallel attention keeps whole heads
  if (!m.architecture) {
    return SpecError{"tp", "tensor parallelism needs the model's architecture (hidden size, heads); "
                           "this model gives only `params`"};
  }
  const Architecture& a = *m.architecture;
  if (a.recurrent) {
    // Split like attention: by heads (Mamba-1: by channels).
    const Recurrent& r = *a.recurrent;
    const bool channels = r.kind == RecurrentKind::mamba;
    const long split = channels ? r.inner : r.heads;
    if (split % w.tp != 0) {
      return SpecError{"tp", fmt::format("tp {} does not divide the recurrent layers' {} {}", w.tp, split,
                                         channels ? "channels" : "heads")};
    }
    // Mamba-2's B and C groups are split with the heads: vLLM's MambaMixer2 asserts that tp divides
    // them or that there is one (replicated), and its gated norm normalises within a group.
    if (r.kind == RecurrentKind::mamba2 && r.groups > 1 && r.groups % w.tp != 0) {
      return SpecError{"tp", fmt::format("tp {} does not divide the Mamba-2 layers' {} groups (n_groups): engines "
                                         "split them with the heads, or replicate only a single group",
                                         w.tp, r.groups)};
    }
    // Gated DeltaNet's key heads are split with the value heads, never replicated: vLLM's
    // GatedDeltaNet (qwen3_next.py) gives each GPU num_k_heads // tp of them (in
    // fix_query_key_value_ordering, the conv split and the kernels), none where tp exceeds them.
    // Qwen3.5-397B-A17B's 16 key heads at tp 32: 0 a GPU, though its 64 value heads split.
    if (r.kind == RecurrentKind::gated_deltanet && r.groups % w.tp != 0) {
      return SpecError{"tp", fmt::format("tp {} does not divide the Gated DeltaNet layers' {} key heads "
                                         "(linear_num_key_heads): engines split them with the value heads, "
                                         "and replicate none",
                                         w.tp, r.groups)};
    }
  }
  if (a.attention_layers() == 0) return std::nullopt;
  for (const int heads : {a.heads, a.full_attention && a.full_attention->heads > 0 ? a.full_attention->heads : a.heads}) {
    if (heads % w.tp != 0) return SpecError{"tp", fmt::format("tp {} does not divide the {} attention heads", w.tp, heads)};
  }
  // K/V heads are split when there are enough of them, else each is replicated on tp / kv_heads GPUs.
  for (const int kv : {a.kv_heads, a.full_attention ? a.full_attention->kv_heads : a.kv_heads}) {
    if (kv % w.tp != 0 && w.tp % kv != 0) {
      return SpecError{"tp", fmt::format("tp {} neither divides nor is a multiple of the {} kv heads", w.tp, kv)};
    }
  }
  return std::nullopt;
}

// What engines refuse to load of the weights' formats at this layout (model/shard_check.hpp), looked
// at only where a format could be refused: the layers are described for it (each thread keeps them).
std::optional<SpecError> validate_shards(const Workload& w, const ModelSpec& m) {
  if (!m.architecture) return std::nullopt;
  const auto& formats = w.precision.weights;
  const bool grouped = (w.precision.group_size_asked || w.tp > 1) &&
                       std::any_of(formats.begin(), formats.end(), takes_group_size);
  const bool blocks = w.tp > 1 && std::find(formats.begin(), formats.end(), WeightFormat::fp8_block) != formats.end();
  if (!grouped && !blocks) return std::nullopt;
  // The whole model as evaluate describes it (its recurrent state's format too): another key would
  // push the engine's two descriptions out of described_layers' two slots at every point.
  const LayerStack& whole = described_layers(*m.architecture, whole_model(w));
  const LayerStack* split = w.tp > 1 ? &described_layers(*m.architecture, sharding(w)) : nullptr;
  // A sweep validates millions of points of one model, layout and precision: each thread keeps the
  // last answer, keyed on the descriptions' serials (described_layers') and the precision. The walk
  // was a tenth of a DeepSeek-V3 point at tp 8 in fp8 blocks.
  struct Key {
    std::uint64_t whole, split;
    Precision precision;
    bool operator==(const Key&) const = default;
  };
  thread_local std::optional<std::pair<Key, std::optional<SpecError>>> kept;
  const Key key{whole.serial, split ? split->serial : 0, w.precision};
  const bool keyed = whole.serial != 0 && (!split || split->serial != 0);
  if (keyed && kept && kept->first == key) return kept->second;
  std::optional<SpecError> why = check_shards(whole, split, w.precision);
  if (keyed) kept.emplace(key, why);
  return why;
}

}  // namespace

std::optional<SpecError> validate(const Workload& w, const ModelSpec& m, const GpuSpec& g) {
  if (w.batch < 1) return SpecError{"batch", fmt::format("must be at least 1, got {}", w.batch)};
  if (w.prompt_tokens < 1) {
    return SpecError{"prompt", fmt::format("must be at least 1 token, got {}", w.prompt_tokens)};
  }
  if (w.gen_tokens < 1) return SpecError{"gen", fmt::format("must be at least 1 token, got {}", w.gen_tokens)};
  if (w.context_tokens < 1) {
    return SpecError{"context", fmt::format("must be at least 1 token, got {}", w.context_tokens)};
  }
  if (w.precision.group_size < 1) {
    return SpecError{"group-size", fmt::format("must be at least 1, got {}", w.precision.group_size)};
  }
  if (!(w.reserve_fraction >= 0 && w.reserve_fraction < 1)) {
    return SpecError{"reserve", fmt::format("must be in [0, 1), got {}", w.reserve_fraction)};
  }
  if (!g.effective_peak(w.precision.compute)) {
    return SpecError{"compute", fmt::format("{} gives no peak for {}; add compute.peak.{} to it or pick "
                                            "another --compute",
                                            g.name, name(w.precision.compute), name(w.precision.compute))};
  }
  if (auto e = validate_tp(w, m, g)) return e;
  return validate_shards(w, m);
}

}  // namespace roofline
