#include "model/layers.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <optional>

namespace roofline {

std::string_view name(Phase p) { return p == Phase::prefill ? "prefill" : "decode"; }

namespace {

// One GPU's share of the architecture under tensor parallelism (Megatron-LM: column-parallel
// Q/K/V and up, row-parallel O and down, vocab-parallel embedding and head). K/V heads fewer
// than tp are replicated, so each GPU keeps at least one; so is a Mamba-2 layer's single group.
struct Shard {
  double tp, hidden, head_dim, heads, kv_heads, ffn, vocab, expert_ffn;
};

Shard make_shard(const Architecture& a, int tp) {
  const auto n = static_cast<double>(tp);
  return {n,
          static_cast<double>(a.hidden),
          static_cast<double>(a.head_dim),
          static_cast<double>(a.heads) / n,
          std::max(1.0, static_cast<double>(a.kv_heads) / n),
          static_cast<double>(a.ffn) / n,
          static_cast<double>(a.vocab) / n,
          a.moe ? static_cast<double>(a.moe->ffn) / n : 0.0};
}

// A block with room for its steps: the engine describes the layers at every point it evaluates,
// so a description allocates once a block, not once a step. Eight steps (960 bytes) hold a
// layer's attention or FFN, all-reduce included, and stay within the allocator's per-thread cache
// (glibc's tcache: up to 1032 bytes); sixteen went to the general allocator, which took 600
// instructions a block. A longer block (latent attention, shared experts) grows once.
Block block(double layers, std::string_view label = {}) {
  Block b{layers, {}, 0, 0, label, {}};
  b.steps.reserve(8);
  return b;
}

void add(Block& b, Step s, Phases p = Phases::both) { b.steps.push_back({std::move(s), p}); }

// Under data-parallel attention the steps added from `from` on run on each GPU's own sequences.
void own_rows(Block& b, std::size_t from, bool data_parallel) {
  if (!data_parallel) return;
  for (std::size_t i = from; i < b.steps.size(); ++i) b.steps[i].rows = Rows::own;
}

// What a layer of this mixer sees: its window or chunk, or (DeepSeek-V3.2) the indexer's top_k.
struct Sight {
  double window = 0, chunk = 0, top_k = 0;
};

void qk_norms(Block& b, const Shard& s, const Architecture& a, double q, double kv) {
  if (!a.qk_norm) return;
  add(b, NormStep{"q_norm", q, 1, s.head_dim, false});
  add(b, NormStep{"k_norm", kv, 1, s.head_dim, false});
  // MiniMax-M2's norms are each over all the heads (qk_norm_type: per_layer), so a GPU holding
  // some of them has a partial mean square: vLLM's MiniMaxM2Attention runs
  // MiniMaxText01RMSNormTP.forward_qk (vllm/model_executor/layers/mamba/linear_attn.py), which
  // under tp > 1 all-reduces torch.cat([q_var, k_var], dim=-1) once a layer, each token's two
  // fp32 variances (8 B), between the reduction and the scaling. Under data-parallel attention
  // the heads are whole on each GPU (s.tp = 1): none.
  if (a.qk_norm_per_layer && s.tp > 1) {
    add(b, CollectiveStep{"allreduce_qk_norm", Collective::all_reduce, 2, 1, static_cast<int>(s.tp), false, 4});
  }
}

// Grouped-query attention: Q, K and V projected, K and V written straight into the cache.
// With an output gate (Qwen3-Next), Q projects a gate of its own width beside the queries.
// Where a layer's K and V come from: its own projections, one projection giving both (Gemma 4's
// global layers: the cache keeps the two), or an earlier layer's cache (Gemma 4 E2B's sharing
// layers: no K/V projections or norms, no cache of their own; attention still reads the cache).
enum class KvSource { own, one_projection, earlier_layer };

void grouped_attention(Block& b, const Shard& s, const Architecture& a, const Sight& sight, KvSource source) {
  const double q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  const double bias = a.qkv_bias() ? 1.0 : 0.0;
  const double gate = a.attention_gate ? 2.0 : 1.0;
  add(b, LinearStep{.name = "q_proj", .in = s.hidden, .out = gate * q, .bias = bias * gate * q});
  if (a.head_gate) add(b, LinearStep{.name = "g_proj", .in = s.hidden, .out = s.heads, .joins_previous = true});
  if (source == KvSource::one_projection) {
    add(b, LinearStep{.name = "kv_proj", .in = s.hidden, .out = kv, .bias = bias * kv, .to_cache = true,
                      .cache_outputs = 2, .joins_previous = true});
  } else if (source == KvSource::own) {
    add(b, LinearStep{.name = "k_proj", .in = s.hidden, .out = kv, .bias = bias * kv, .to_cache = true, .joins_previous = true});
    add(b, LinearStep{.name = "v_proj", .in = s.hidden, .out = kv, .bias = bias * kv, .to_cache = true, .joins_previous = true});
  }
  if (source == KvSource::earlier_layer && a.qk_norm) {
    add(b, NormStep{"q_norm", q, 1, s.head_dim, false});
  } else {
    qk_norms(b, s, a, q, kv);
  }
  add(b, AttentionStep{.heads = s.heads, .qk_dim = s.head_dim, .v_dim = s.head_dim, .k_width = kv, .v_width = kv,
                       .window = sight.window, .chunk = sight.chunk, .params = a.attention_sinks ? s.heads : 0.0});
  add(b, LinearStep{.name = "o_proj", .in = q, .out = s.hidden, .bias = a.linear_bias ? s.hidden : 0.0, .to_residual = true});
}

// DeepSeek-V3.2's lightning indexer (arXiv 2512.02556): its own query heads from the Q latent,
// one key per token cached beside the latent, per-head weights from the hidden state; it scores
// every cached token, so it reads its whole key cache while attention reads top_k latents.
void indexer(Block& b, const Architecture& a) {
  const SparseAttention& sp = *a.sparse;
  const auto hidden = static_cast<double>(a.hidden), heads = static_cast<double>(sp.index_heads);
  const auto dim = static_cast<double>(sp.index_dim), q_rank = static_cast<double>(a.mla->q_lora_rank);
  add(b, LinearStep{.name = "index_q", .in = q_rank > 0 ? q_rank : hidden, .out = heads * dim});
  add(b, LinearStep{.name = "index_k", .in = hidden, .out = dim, .to_cache = true, .indexer_keys = true});
  add(b, NormStep{"index_k_norm", dim, 2, 0, false});
  add(b, LinearStep{.name = "index_weights", .in = hidden, .out = heads});
  add(b, AttentionStep{.name = "index", .kind = AttentionKind::indexer, .heads = heads, .qk_dim = dim, .v_dim = 0,
                       .k_width = dim, .v_width = 0});
}

// Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434 §2.1). The down projections are
// replicated on every GPU of a group (each needs the whole latent); the up projections and O
// are split by heads.
void latent_attention(Block& b, const Shard& s, const Architecture& a, const Sight& sight, DType kv) {
  const LatentAttention& l = *a.mla;
  const double heads = s.heads, qk = static_cast<double>(l.nope_dim + l.rope_dim);
  const auto rank = static_cast<double>(l.kv_lora_rank), cache = static_cast<double>(l.cache_width());
  // What the cache holds a token, in elements of its format: the latent and the RoPE key, or a
  // sparse layer's fp8 record (latent_cache_bytes), which kv_a_proj writes and decode reads.
  const double held = latent_cache_bytes(l, a.sparse.has_value(), kv) / bytes_per_element(kv);
  const auto nope = static_cast<double>(l.nope_dim), v = static_cast<double>(l.v_dim);
  const double norm = a.norm_params_per_element();
  if (l.q_lora_rank > 0) {
    const auto q_rank = static_cast<double>(l.q_lora_rank);
    add(b, LinearStep{.name = "q_a_proj", .in = s.hidden, .out = q_rank});
    add(b, NormStep{"q_a_norm", q_rank, norm});
    add(b, LinearStep{.name = "q_b_proj", .in = q_rank, .out = heads * qk});
  } else {
    add(b, LinearStep{.name = "q_proj", .in = s.hidden, .out = heads * qk});
  }
  // The latent and the shared RoPE key go straight into the cache.
  add(b, LinearStep{.name = "kv_a_proj", .in = s.hidden, .out = cache, .to_cache = true, .cache_outputs = held / cache});
  add(b, NormStep{"kv_a_norm", rank, norm});
  if (a.sparse) indexer(b, a);
  // Decode absorbs K's up projection into each query and V's into the output (DeepSeek-V2
  // §2.1.2), so every head attends over the cached latent itself, read once for keys and values.
  add(b, LinearStep{.name = "q_absorb", .in = nope, .out = rank, .copies = heads, .rows_per_token = heads, .absorbed = true},
      Phases::decode_only);
  add(b, AttentionStep{.kind = AttentionKind::latent, .heads = heads, .qk_dim = cache, .v_dim = rank, .k_width = held,
                       .v_width = 0, .window = sight.window, .chunk = sight.chunk, .top_k = sight.top_k},
      Phases::decode_only);
  add(b, LinearStep{.name = "v_absorb", .in = rank, .out = v, .copies = heads, .rows_per_token = heads, .absorbed = true,
                    .to_residual = true},
      Phases::decode_only);
  // Prefill decompresses K and V for its own tokens and attends as multi-head attention.
  add(b, LinearStep{.name = "kv_b_proj", .in = rank, .out = heads * (nope + v)}, Phases::prefill_only);
  add(b, AttentionStep{.kind = AttentionKind::latent, .heads = heads, .qk_dim = qk, .v_dim = v, .k_width = heads * qk,
                       .v_width = heads * v, .reads_cache = false, .window = sight.window, .chunk = sight.chunk,
                       .top_k = sight.top_k},
      Phases::prefill_only);
  add(b, LinearStep{.name = "o_proj", .in = heads * v, .out = s.hidden, .to_residual = true});
}

// FLOPs per state element and token. Mamba: decay, input outer product and read-out (1 + 2 + 2)
// plus the discretisation; Gated DeltaNet's delta rule: decay, the retrieval S·k, the rank-one
// correction and the read-out S·q (1 + 2 + 3 + 2).
constexpr double kScanFlops = 6, kDeltaFlops = 8;

// The recurrent layers, split by heads (Mamba-1: by channels) under tensor parallelism, like
// attention. Each takes its input projections, a short causal convolution, the scan, and an
// output projection back to the residual stream. `state_bytes`: an element of the state (where
// not fp32) and of the kept inputs (Sharding::state_bytes).
void recurrent_layer(Block& b, const Shard& s, const Recurrent& r, double state_bytes) {
  const auto inner = static_cast<double>(r.inner) / s.tp, state = static_cast<double>(r.state);
  const double taps = static_cast<double>(r.conv_kernel), kept = taps - 1;
  // A single Mamba-2 group is replicated on every GPU (vLLM's MambaMixer2): the one case the floor
  // of one is for. Other group counts tp must divide (validate_tp refuses the rest: Mamba-2's
  // n_groups, Gated DeltaNet's key heads, which vLLM splits as num_k_heads // tp).
  const double heads = static_cast<double>(r.heads) / s.tp, groups = std::max(1.0, r.groups / s.tp);
  const int tp = static_cast<int>(s.tp);
  switch (r.kind) {
    case RecurrentKind::mamba: {
      const auto rank = static_cast<double>(r.dt_rank);
      add(b, LinearStep{.name = "in_proj", .in = s.hidden, .out = 2 * inner});  // x and the gate z
      add(b, ConvStep{"conv1d", inner, taps, r.conv_bias});
      add(b, LinearStep{.name = "x_proj", .in = inner, .out = rank + 2 * state});  // Δ, B, C from x
      // x_proj reads this GPU's channels only, so its Δ, B and C are partial sums: vLLM's
      // MambaMixer holds it as a RowParallelLinear, which all-reduces them before dt_proj.
      if (tp > 1) add(b, CollectiveStep{"allreduce_x_proj", Collective::all_reduce, rank + 2 * state, 1, tp});
      add(b, LinearStep{.name = "dt_proj", .in = rank, .out = inner, .bias = inner});
      // A (per channel and state) and D.
      add(b, RecurrentStep{"selective_scan", inner * state, inner * kept, kScanFlops, 3 * inner, inner,
                           inner * state + inner, r.fp32_state, false, state_bytes});
      break;
    }
    case RecurrentKind::mamba2: {
      const double bc = 2 * groups * state;  // B and C, shared by the heads of a group
      add(b, LinearStep{.name = "in_proj", .in = s.hidden, .out = 2 * inner + bc + heads});  // z, x, B, C, Δ
      add(b, ConvStep{"conv1d", inner + bc, taps, r.conv_bias});
      add(b, RecurrentStep{"ssd_scan", inner * state, (inner + bc) * kept, kScanFlops, inner + bc + heads, inner,
                           3 * heads, r.fp32_state, false, state_bytes});  // A, D and Δ's bias per head
      // The gated norm is over each group's channels (vLLM's Mixer2RMSNormGated, on the gated
      // output in fp32): one group split over the GPUs all-reduces each token's sum of squares;
      // groups that tp does not divide are all-gathered whole and normed on every GPU.
      if (tp > 1 && r.groups == 1) {
        add(b, CollectiveStep{"allreduce_norm", Collective::all_reduce, 1, 1, tp, false, 4});
      } else if (tp > 1 && r.groups % tp != 0) {
        add(b, CollectiveStep{"allgather_norm", Collective::all_gather, static_cast<double>(r.inner), 1, tp, false, 4});
      }
      add(b, NormStep{"gated_norm", inner, 1, 0, false});
      break;
    }
    case RecurrentKind::gated_deltanet: {
      const double qk = 2 * groups * state;  // a query and a key per key head
      add(b, LinearStep{.name = "in_proj_qkvz", .in = s.hidden, .out = qk + 2 * inner});
      // The gates b and a, one a value head each: 16-bit under fp8-block (LinearStep::block_exempt).
      add(b, LinearStep{.name = "in_proj_ba", .in = s.hidden, .out = 2 * heads, .joins_previous = true,
                        .block_exempt = true});
      // Other shapes than the kernel tables measured keep the end-to-end pricing.
      const bool measured = delta_net_measured(r);
      add(b, ConvStep{"conv1d", qk + inner, taps, r.conv_bias, measured});
      // Each value head keeps a key-width × value-width state. Its norm is per value head: no
      // collective under tensor parallelism.
      add(b, RecurrentStep{"delta_rule", inner * state, (qk + inner) * kept, kDeltaFlops, qk + inner + 2 * heads, inner,
                           2 * heads, r.fp32_state, measured, state_bytes});  // A and Δ's bias per head
      add(b, NormStep{"gated_norm", inner, 1, static_cast<double>(r.inner / r.heads), false});
      break;
    }
  }
  add(b, LinearStep{.name = "out_proj", .in = inner, .out = s.hidden, .to_residual = true});
}

struct FfnNames {
  std::string_view gate, up, act, down;
};

// Up (and gate) to `width`, the activation, down to the residual; `copies` weight matrices each
// (every expert), used by `rows_per_token` rows a token. `bias`: 1 when every linear has one.
void ffn(Block& b, const FfnNames& n, FfnType type, WeightClass weights, double hidden, double width, double copies,
         double rows_per_token, bool routed, double bias) {
  const bool gated = type == FfnType::gated;
  const LinearStep up{.name = n.up, .in = hidden, .out = width, .copies = copies, .rows_per_token = rows_per_token,
                      .bias = bias * copies * width, .weights = weights, .routed = routed, .joins_previous = gated};
  if (gated) {
    LinearStep gate = up;
    gate.name = n.gate;
    gate.joins_previous = false;
    add(b, gate);
  }
  add(b, up);
  add(b, ActivationStep{n.act, width, gated, rows_per_token, routed});
  add(b, LinearStep{.name = n.down, .in = width, .out = hidden, .copies = copies, .rows_per_token = rows_per_token,
                    .bias = bias * copies * hidden, .weights = weights, .routed = routed, .to_residual = true});
}

constexpr std::array<std::string_view, kMixerCount> kMixerLabels = {"", "sliding", "chunked", "linear", "ssm", ""};
constexpr std::array<std::string_view, kMixerCount> kSharingLabels = {"kv_shared", "sliding_kv_shared",
                                                                      "chunked_kv_shared", "", "", ""};

// The layers of one mixer kind: their norm, the mixer, and the all-reduce after its output.
// `s`: the attention's shard (whole weights under data-parallel attention). `sharing`: the layers
// read an earlier layer's cache.
void mixer_block(LayerStack& stack, const Architecture& a, const Shard& s, Mixer kind, int layers, bool dp,
                 bool sharing, double state_bytes, DType kv) {
  if (kind == Mixer::none || layers == 0) return;
  Block b = block(layers, (sharing ? kSharingLabels : kMixerLabels)[static_cast<std::size_t>(kind)]);
  b.selection = {LayerSelection::Of::mixer, static_cast<int>(kind),
                 sharing ? LayerSelection::Part::sharing : LayerSelection::Part::owning};
  add(b, NormStep{"attn_norm", s.hidden, a.norm_params_per_element()});
  Sight sight;
  if (kind == Mixer::sliding) b.window = sight.window = static_cast<double>(a.sliding_window);
  if (kind == Mixer::chunked) b.chunk = sight.chunk = static_cast<double>(a.attention_chunk);
  if (a.sparse) sight.top_k = static_cast<double>(a.sparse->top_k);
  if (kind == Mixer::linear || kind == Mixer::ssm) {
    recurrent_layer(b, s, *a.recurrent, state_bytes);
  } else if (a.mla) {
    latent_attention(b, s, a, sight, kv);
  } else if (kind == Mixer::full && a.full_attention) {
    Shard full = s;  // the full layers' own heads, replicated below one a GPU as the others'
    if (a.full_attention->heads > 0) full.heads = a.full_attention->heads / s.tp;
    full.head_dim = static_cast<double>(a.full_attention->head_dim);
    full.kv_heads = std::max(1.0, a.full_attention->kv_heads / s.tp);
    grouped_attention(b, full, a, sight,
                      sharing                         ? KvSource::earlier_layer
                      : a.full_attention->shared_kv ? KvSource::one_projection
                                                      : KvSource::own);
  } else {
    grouped_attention(b, s, a, sight, sharing ? KvSource::earlier_layer : KvSource::own);
  }
  if (s.tp > 1) add(b, CollectiveStep{"allreduce_attn", Collective::all_reduce, s.hidden, 1, static_cast<int>(s.tp)});
  own_rows(b, 0, dp);
  stack.blocks.push_back(std::move(b));
}

// The GPUs a token's top_k experts sit on, on average, with `experts` spread evenly over `gpus`:
// gpus · (1 − P(none of its picks on a given GPU)), the picks distinct (hypergeometric).
double destinations(double experts, double top_k, double gpus) {
  const double elsewhere = experts - experts / gpus;
  double none = 1;
  for (int i = 0; i < static_cast<int>(top_k); ++i) none *= std::max(0.0, elsewhere - i) / (experts - i);
  return gpus * (1 - none);
}

// The FFNs. `s`: the dense FFNs' and shared experts' shard (whole under data-parallel attention);
// `sh`: the stage's sharding, which places the routed experts.
void ffn_blocks(LayerStack& stack, const Architecture& a, const Shard& s, const Sharding& sh) {
  const auto counts = a.ffn_counts();
  const double norm = a.norm_params_per_element();
  const bool dp = sh.dp_attention;
  const auto dense_block = [&](int layers, double width, std::string_view label, LayerSelection::Part part) {
    if (layers == 0) return;
    Block b = block(layers, label);
    b.selection = {LayerSelection::Of::ffn, static_cast<int>(FfnKind::dense), part};
    add(b, NormStep{"ffn_norm", s.hidden, norm});
    ffn(b, {"ffn_gate", "ffn_up", "ffn_act", "ffn_down"}, a.ffn_type, WeightClass::dense_ffn, s.hidden, width, 1, 1,
        false, a.linear_bias ? 1.0 : 0.0);
    if (s.tp > 1) add(b, CollectiveStep{"allreduce_ffn", Collective::all_reduce, s.hidden, 1, static_cast<int>(s.tp)});
    own_rows(b, 0, dp);
    stack.blocks.push_back(std::move(b));
  };
  const int dense = counts[static_cast<int>(FfnKind::dense)];
  // The cache-sharing layers' own width (Gemma 4 E2B's double-wide MLP).
  const int wide = a.kv_shared_ffn > 0 ? dense - a.ffns_before(a.layers - a.kv_shared_layers)[static_cast<int>(FfnKind::dense)] : 0;
  dense_block(dense - wide, s.ffn, {}, wide > 0 ? LayerSelection::Part::owning : LayerSelection::Part::all);
  dense_block(wide, static_cast<double>(a.kv_shared_ffn) / s.tp, "kv_shared", LayerSelection::Part::sharing);
  if (const int sparse = counts[static_cast<int>(FfnKind::moe)]; sparse > 0) {
    const MoeSpec& moe = *a.moe;
    const auto experts = static_cast<double>(moe.experts), top_k = static_cast<double>(moe.top_k);
    Block b = block(sparse, "moe");
    b.selection = {LayerSelection::Of::ffn, static_cast<int>(FfnKind::moe)};
    add(b, NormStep{"ffn_norm", s.hidden, norm});
    // Routers stay in 16 bits under quantization.
    add(b, LinearStep{.name = "moe_router", .in = s.hidden, .out = experts, .weights = WeightClass::small});
    // Latent experts (Nemotron 3 Super): the router reads the hidden state, the tokens go to their
    // experts projected down to `latent` and come back up after the combine; each projection is
    // whole on every GPU, in the dense FFN's format.
    const double width = moe.latent > 0 ? static_cast<double>(moe.latent) : s.hidden;
    if (moe.latent > 0) {
      add(b, LinearStep{.name = "moe_latent_in", .in = s.hidden, .out = width, .weights = WeightClass::dense_ffn});
    }
    own_rows(b, 0, dp);
    // Each GPU holds experts / ep experts, each split over tp / ep GPUs, and runs the stage's
    // tokens' picks of them: top_k / ep rows a token on average, `imbalance` times that on the
    // busiest GPU, which the others wait for.
    const double ep = sh.ep, expert_tp = static_cast<double>(sh.tp) / ep;
    const double rows = ep > 1 ? top_k * sh.imbalance / ep : top_k;
    // A token goes once to each GPU holding one of its experts (DeepEP), not once an expert:
    // `destinations` of the ep GPUs on average, each reached by that ep-th of the tokens. The
    // busiest GPU, its experts picked `imbalance` times as often, takes that many times the mean's
    // tokens in the dispatch and sends as many back in the combine, never more than every token of
    // the stage once, and the all-to-all ends when it does. An all-to-all is priced as what each
    // GPU spreads evenly over the group (collective_cost): ep times its reach a token.
    const double gpus_reached = destinations(experts, top_k, ep);
    const double busiest_reached = ep * std::min(1.0, sh.imbalance * gpus_reached / ep);
    if (dp) {
      add(b, CollectiveStep{"moe_dispatch", Collective::all_to_all, width, busiest_reached, sh.tp, true});
      own_rows(b, b.steps.size() - 1, true);
    }
    const std::size_t first = b.steps.size();
    ffn(b, {"expert_gate", "expert_up", "expert_act", "expert_down"}, a.ffn_type, WeightClass::experts, width,
        static_cast<double>(moe.ffn) / expert_tp, experts / ep, rows, true, 0);
    for (std::size_t i = first; i < b.steps.size(); ++i) {
      if (auto* l = std::get_if<LinearStep>(&b.steps[i].step)) {
        l->picks = top_k;
        l->pool = experts;
        l->busiest = ep > 1 ? sh.imbalance : 1;
        if (moe.latent > 0) l->to_residual = false;  // combined in the latent, projected up below
      }
    }
    if (dp) {
      add(b, CollectiveStep{"moe_combine", Collective::all_to_all, width, busiest_reached, sh.tp});
      own_rows(b, b.steps.size() - 1, true);
    }
    if (moe.latent > 0) {
      add(b, LinearStep{.name = "moe_latent_out", .in = width, .out = s.hidden, .weights = WeightClass::dense_ffn,
                        .to_residual = true});
      own_rows(b, b.steps.size() - 1, dp);
    }
    if (moe.shared_experts > 0) {
      const std::size_t shared = b.steps.size();
      ffn(b, {"shared_gate", "shared_up", "shared_act", "shared_down"}, a.ffn_type, WeightClass::shared_experts, s.hidden,
          s.expert_ffn * moe.shared_experts, 1, 1, false, 0);
      own_rows(b, shared, dp);
    }
    if (s.tp > 1) add(b, CollectiveStep{"allreduce_ffn", Collective::all_reduce, s.hidden, 1, static_cast<int>(s.tp)});
    stack.blocks.push_back(std::move(b));
  }
}

// Gemma 4 E2B/E4B's per-layer inputs: each token gathers its row of every layer's input from a
// table of its own and adds a projection of its embedding (whole on every GPU); each layer gates
// its share in (a GELU of a hidden → width projection times the input) and projects it back.
// The projections are priced in the attention class's format.
void per_layer_inputs(LayerStack& stack, const Architecture& a, const Shard& s, bool dp) {
  const auto width = static_cast<double>(a.per_layer_input), layers = static_cast<double>(a.layers);
  const auto rows = static_cast<double>(a.per_layer_vocab > 0 ? a.per_layer_vocab : a.vocab);
  Block inputs = block(1, "per_layer_input");
  add(inputs, GatherStep{"per_layer_embedding", layers * width, 1 / s.tp, rows, s.tp});
  add(inputs, LinearStep{.name = "per_layer_model_projection", .in = s.hidden, .out = layers * width});
  add(inputs, NormStep{"per_layer_projection_norm", layers * width, 1, width, false});
  own_rows(inputs, 0, dp);
  stack.blocks.push_back(std::move(inputs));
  Block each = block(layers, "per_layer_input");
  each.selection.of = LayerSelection::Of::every;
  add(each, LinearStep{.name = "per_layer_input_gate", .in = s.hidden, .out = width});
  add(each, ActivationStep{"per_layer_act", width, true, 1});
  add(each, LinearStep{.name = "per_layer_projection", .in = width, .out = s.hidden, .to_residual = true});
  add(each, NormStep{"post_per_layer_input_norm", s.hidden, a.norm_params_per_element(), 0, false});
  own_rows(each, 0, dp);
  stack.blocks.push_back(std::move(each));
}

}  // namespace

LayerStack describe_layers(const Architecture& a, const Sharding& sh) {
  const bool dp = sh.dp_attention;
  // Under data-parallel attention every GPU holds whole weights but the routed experts'.
  const Shard s = make_shard(a, dp ? 1 : sh.tp);
  LayerStack stack;
  stack.blocks.reserve(16);
  stack.hidden = s.hidden;
  stack.tp = sh.tp;
  stack.data_parallel = dp ? sh.tp : 1;
  stack.tower_params = a.tower_params / s.tp;

  Block embedding = block(1);
  const double tables = a.position_embeddings > 0 ? 2 : 1;
  add(embedding, GatherStep{"embedding", s.hidden, tables / s.tp,
                            static_cast<double>(a.vocab + a.position_embeddings), s.tp});
  // Each GPU looks up only the rows of its share of the vocabulary (and positions), zeros for the
  // rest, and the group sums them: vLLM's VocabParallelEmbedding.forward ends in
  // tensor_model_parallel_all_reduce, Megatron-LM's likewise. Under data-parallel attention the
  // table is whole on every GPU (s.tp = 1): no collective.
  if (s.tp > 1) {
    add(embedding, CollectiveStep{"allreduce_embedding", Collective::all_reduce, s.hidden, 1, static_cast<int>(s.tp)});
  }
  own_rows(embedding, 0, dp);
  stack.blocks.push_back(std::move(embedding));
  if (a.mtp_input) {
    // SGLang and vLLM hold eh_proj as a plain nn.Linear beside the module's quantized layers:
    // whole on every GPU and in 16 bits, as a router is.
    Block input = block(1, "mtp_input");
    add(input, NormStep{"enorm", s.hidden, a.norm_params_per_element(), 0, false});
    add(input, NormStep{"hnorm", s.hidden, a.norm_params_per_element(), 0, false});
    add(input, LinearStep{.name = "eh_proj", .in = 2 * s.hidden, .out = s.hidden, .weights = WeightClass::small});
    own_rows(input, 0, dp);
    stack.blocks.push_back(std::move(input));
  }

  if (a.per_layer_input > 0) per_layer_inputs(stack, a, s, dp);
  // Costs add up over layers, so the layers of one kind are priced together, whatever their order;
  // the layers reading an earlier layer's cache apart.
  const auto mixers = a.mixer_counts(), owning = a.mixers_before(a.layers - a.kv_shared_layers);
  for (std::size_t k = 0; k < kMixerCount; ++k) {
    mixer_block(stack, a, s, static_cast<Mixer>(k), owning[k], dp, false, sh.state_bytes, sh.kv);
    mixer_block(stack, a, s, static_cast<Mixer>(k), mixers[k] - owning[k], dp, true, sh.state_bytes, sh.kv);
  }
  ffn_blocks(stack, a, s, sh);

  Block head = block(1);
  add(head, NormStep{"final_norm", s.hidden, a.norm_params_per_element()});
  add(head, LinearStep{.name = "lm_head", .in = s.hidden, .out = s.vocab, .weights = WeightClass::lm_head,
                       .last_token = true, .counted = !a.tied_embeddings});
  // The vocab-parallel head leaves each GPU a 1/tp slice of the logits, which the sampler needs
  // whole on one GPU: vLLM's LogitsProcessor._gather_logits (tensor_model_parallel_all_gather, or
  // tensor_model_parallel_gather to rank 0), SGLang's LogitsProcessor and TensorRT-LLM's LMHead
  // (gather_output) alike. Either way a GPU receives (tp − 1)/tp of the logits of the rows the head
  // runs, in the activation format: priced as a ring all-gather of the whole logits, which no
  // kernel class measured. Under data-parallel attention the head is whole on every GPU: none.
  if (s.tp > 1) {
    add(head, CollectiveStep{.name = "gather_logits", .kind = Collective::all_gather,
                             .width = static_cast<double>(a.vocab), .group = static_cast<int>(s.tp),
                             .last_token = true});
  }
  own_rows(head, 0, dp);
  stack.blocks.push_back(std::move(head));
  return stack;
}

LayerStack describe_layers(const Architecture& a, int tp) { return describe_layers(a, Sharding{.tp = tp}); }

const LayerStack& described_layers(const Architecture& a, const Sharding& sharding) {
  struct Kept {
    Architecture architecture;
    Sharding sharding;
    LayerStack stack;
  };
  thread_local std::array<std::optional<Kept>, 2> kept;
  thread_local std::size_t latest = 0;
  for (const std::size_t i : {latest, 1 - latest}) {
    if (kept[i] && kept[i]->sharding == sharding && kept[i]->architecture == a) {
      latest = i;
      return kept[i]->stack;
    }
  }
  // The older of the two makes room: the latest, which a caller may hold, stays.
  latest = 1 - latest;
  kept[latest].emplace(Kept{a, sharding, describe_layers(a, sharding)});
  static std::atomic<std::uint64_t> described{0};
  kept[latest]->stack.serial = ++described;
  return kept[latest]->stack;
}

int layers_in(const Architecture& a, const Block& b, int begin, int end) {
  using S = LayerSelection;
  const S& s = b.selection;
  // The part of the stack the block covers, clipped to [begin, end).
  const int shared_from = a.layers - a.kv_shared_layers;
  if (s.part == S::Part::owning) end = std::min(end, shared_from);
  if (s.part == S::Part::sharing) begin = std::max(begin, shared_from);
  if (s.of == S::Of::none || end <= begin) return 0;
  const auto k = static_cast<std::size_t>(s.kind);
  switch (s.of) {
    case S::Of::mixer: return a.mixers_before(end)[k] - a.mixers_before(begin)[k];
    case S::Of::ffn: return a.ffns_before(end)[k] - a.ffns_before(begin)[k];
    default: return end - begin;
  }
}

Sharding sharding(const Workload& w) {
  return {w.tp, w.ep, w.dp_attention, w.expert_imbalance, bytes_per_element(w.precision.activations), w.precision.kv};
}

Sharding whole_model(const Workload& w) {
  return {.tp = 1, .state_bytes = bytes_per_element(w.precision.activations), .kv = w.precision.kv};
}

double latent_cache_bytes(const LatentAttention& l, bool sparse, DType kv) {
  const auto rank = static_cast<double>(l.kv_lora_rank), rope = static_cast<double>(l.rope_dim);
  // fp8_ds_mla: the latent in fp8, an fp32 scale for each 128 of it, the RoPE key in bf16.
  if (sparse && kv == DType::fp8) return rank + std::ceil(rank / 128) * 4 + rope * 2;
  return (rank + rope) * bytes_per_element(kv);
}

bool delta_net_measured(const Recurrent& r) { return r.state == 128 && r.inner == 128 * r.heads && r.conv_kernel == 4; }

}  // namespace roofline
