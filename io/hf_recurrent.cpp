// Recurrent layers: Mamba-1 and Mamba-2 stacks, Nemotron-H's hybrid of Mamba-2, attention and
// FFN layers, and Qwen3-Next's Gated DeltaNet.
#include <fmt/format.h>

#include <algorithm>

#include "io/hf_reading.hpp"

namespace roofline::io {

namespace {

void refuse_bias(const HfFields& c, std::string_view key, std::string_view what) {
  if (c.flag(key, false)) c.fail(key, fmt::format("biases on {} are not modelled", what));
}

// The state and projections of a Mamba-2 mixer from a family's names for them.
struct Mamba2Names {
  std::string_view heads, head_dim, state, groups;
};

Recurrent mamba2(const HfFields& c, const Mamba2Names& n) {
  c.require({n.heads, n.head_dim, n.state, n.groups, "conv_kernel"});
  const int heads = c.small_count(n.heads, "recurrent.heads");
  return Recurrent{.kind = RecurrentKind::mamba2,
                   .inner = heads * c.count(n.head_dim, "recurrent.head_dim"),
                   .state = c.count(n.state, "recurrent.state"),
                   .heads = heads,
                   .groups = c.small_count(n.groups, "recurrent.groups"),
                   .conv_kernel = c.count("conv_kernel", "recurrent.conv_kernel"),
                   .conv_bias = c.flag("use_conv_bias", true)};
}

// Mamba-1's Δ projection: time_step_rank, "auto" being ceil(hidden / 16) (transformers' MambaConfig).
long dt_rank(const HfFields& c, long hidden) {
  if (!c.given("time_step_rank") || c.text("time_step_rank") == "auto") {
    c.use("time_step_rank");
    return (hidden + 15) / 16;
  }
  return c.count("time_step_rank", "recurrent.dt_rank");
}

}  // namespace

Recurrent read_gated_deltanet(const HfFields& c) {
  c.require({"linear_num_value_heads", "linear_value_head_dim", "linear_key_head_dim", "linear_num_key_heads",
             "linear_conv_kernel_dim"});
  const int heads = c.small_count("linear_num_value_heads", "recurrent.heads");
  // Qwen3-Next's Gated DeltaNet: each value head keeps a key-width × value-width state; its
  // convolution over Q, K and V has no bias (transformers' Qwen3NextGatedDeltaNet).
  return Recurrent{.kind = RecurrentKind::gated_deltanet,
                   .inner = heads * c.count("linear_value_head_dim", "recurrent.head_dim"),
                   .state = c.count("linear_key_head_dim", "recurrent.state"),
                   .heads = heads,
                   .groups = c.small_count("linear_num_key_heads", "recurrent.groups"),
                   .conv_kernel = c.count("linear_conv_kernel_dim", "recurrent.conv_kernel"),
                   .conv_bias = false};
}

// Mamba-1 and Mamba-2: every layer a norm and a recurrent mixer, with no FFN and no attention.
void read_mamba(const HfFields& c, const HfFamily& f, Architecture& a) {
  refuse_bias(c, "use_bias", "the input and output projections");
  if (f.shape == HfShape::mamba) {
    // intermediate_size, where the config writes it, is expand × hidden_size already.
    const long inner = c.given("intermediate_size") ? c.count("intermediate_size", "recurrent.inner")
                                                    : c.number_in("expand", {1, 1'000}) * a.hidden;
    c.use({"intermediate_size", "expand"});
    a.recurrent = Recurrent{.kind = RecurrentKind::mamba,
                            .inner = inner,
                            .state = c.count("state_size", "recurrent.state"),
                            .conv_kernel = c.count("conv_kernel", "recurrent.conv_kernel"),
                            .dt_rank = dt_rank(c, a.hidden),
                            .conv_bias = c.flag("use_conv_bias", true)};
  } else {
    a.recurrent = mamba2(c, {"num_heads", "head_dim", "state_size", "n_groups"});
    const long expanded = c.number_in("expand", {1, 1'000}) * a.hidden;
    if (a.recurrent->inner != expanded) {
      c.fail("num_heads", fmt::format("num_heads × head_dim = {} differs from expand × hidden_size = {}",
                                      a.recurrent->inner, expanded));
    }
    if (!c.flag("rms_norm", true)) c.fail("rms_norm", "a Mamba-2 mixer without its gated RMSNorm is not modelled");
  }
  a.mixer_pattern = {Mixer::ssm};
  a.ffn_pattern = {FfnKind::none};
}

// Nemotron-H: `hybrid_override_pattern` gives each layer one block: M a Mamba-2 mixer, * attention,
// - a plain FFN (up, ReLU², down), E a mixture of such FFNs; each block has its own norm.
void read_nemotron_h(const HfFields& c, const HfFamily& f, Architecture& a) {
  c.require({"hybrid_override_pattern"});
  const std::string pattern = c.text("hybrid_override_pattern");
  if (std::cmp_not_equal(pattern.size(), a.layers)) {
    c.fail("hybrid_override_pattern", fmt::format("{} layers for num_hidden_layers {}", pattern.size(), a.layers));
  }
  std::vector<Mixer> mixers;
  std::vector<FfnKind> ffns;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    switch (pattern[i]) {
      case 'M':
        mixers.push_back(Mixer::ssm), ffns.push_back(FfnKind::none);
        break;
      case '*':
        mixers.push_back(Mixer::full), ffns.push_back(FfnKind::none);
        break;
      case '-':
        mixers.push_back(Mixer::none), ffns.push_back(FfnKind::dense);
        break;
      case 'E':
        mixers.push_back(Mixer::none), ffns.push_back(FfnKind::moe);
        break;
      default:
        c.fail("hybrid_override_pattern", fmt::format("layer {} is '{}', not a block rooflineplan reads (M Mamba-2, * "
                                                      "attention, - FFN, E mixture of experts)",
                                                      i, pattern[i]));
    }
  }
  const auto has = [](const auto& list, auto kind) { return std::find(list.begin(), list.end(), kind) != list.end(); };
  // Nemotron-H names the head width attention_head_dim; Nemotron 3 head_dim.
  read_attention(c, f, a, c.given("attention_head_dim") || !c.given("head_dim") ? "attention_head_dim" : "head_dim");
  refuse_bias(c, "use_bias", "the Mamba-2 projections");
  refuse_bias(c, "mamba_proj_bias", "the Mamba-2 projections");
  if (has(mixers, Mixer::ssm)) {
    a.recurrent = mamba2(c, {"mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups"});
  }
  a.ffn_type = FfnType::plain;
  if (has(ffns, FfnKind::dense)) {
    c.require({"intermediate_size"});
    a.ffn = c.count("intermediate_size", "ffn");
  } else {
    c.use("intermediate_size");  // the width of dense layers the pattern has none of (Nemotron 3)
  }
  if (has(ffns, FfnKind::moe)) {
    c.require({"n_routed_experts", "num_experts_per_tok", "moe_intermediate_size"});
    a.moe = MoeSpec{c.small_count("n_routed_experts", "moe.experts"), c.small_count("num_experts_per_tok", "moe.top_k"),
                    c.count("moe_intermediate_size", "moe.ffn")};
    // Nemotron 3 Super's latent experts (NemotronHMoE: fc1_latent_proj, fc2_latent_proj).
    if (c.given("moe_latent_size")) a.moe->latent = c.count("moe_latent_size", "moe.latent");
    c.use("moe_latent_size");
    const bool shared = c.given("moe_shared_expert_intermediate_size");
    const long shared_width = shared ? c.count("moe_shared_expert_intermediate_size", "moe.ffn") : 0;
    a.moe->shared_experts = static_cast<int>(shared_width / a.moe->ffn);
    if (shared_width % a.moe->ffn != 0) {
      c.fail("moe_shared_expert_intermediate_size",
             fmt::format("not a whole number of experts of width {}", a.moe->ffn));
    }
    // Nemotron 3 also says how many shared MLPs there are (1, of that width, which is what is
    // priced); another count, or no width beside a count, is not what its layers run.
    if (c.given("n_shared_experts") && c.number_in("n_shared_experts", {0, 1'000}) != (shared ? 1 : 0)) {
      c.refuse("n_shared_experts", shared ? "Nemotron-H's shared expert is one MLP, moe_shared_expert_intermediate_size "
                                            "wide; another count is not read"
                                          : "shared experts without moe_shared_expert_intermediate_size, their width");
    }
    c.use("n_shared_experts");
  }
  a.mixer_pattern = shortest_period(mixers);
  a.ffn_pattern = shortest_period(ffns);
}

}  // namespace roofline::io
