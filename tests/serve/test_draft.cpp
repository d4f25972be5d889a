// The target's own multi-token-prediction module as a draft: what one draft step runs, and what
// the module takes from the KV cache's memory, worked by hand on DeepSeek-V3.
#include <catch2/catch.hpp>

#include "model/engine.hpp"
#include "model/layers.hpp"
#include "model/parameters.hpp"
#include "serve/draft.hpp"
#include "serve/kv_capacity.hpp"
#include "serve/simulator.hpp"
#include "serve/speculative.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::serve;
using Catch::Matchers::WithinRel;

TEST_CASE("DeepSeek-V3's MTP module: one MoE layer with latent attention, 11505434624 linear weights") {
  // One layer of the model's last kind, on its embedding and head:
  //   latent attention: q_a 7168 x 1536 + q_b 1536 x 128 x 192 + kv_a 7168 x 576 + kv_b 512 x 128 x 256
  //                     + o 128 x 128 x 7168 = 187105280;
  //   257 experts (256 routed, 1 shared) of 3 x 7168 x 2048: 11318329344.
  // Before it, the module's input: enorm and hnorm (7168 each) and eh_proj (2 x 7168 x 7168 =
  // 102760448), held in 16 bits with the small tensors; with the block's norms (7168 x 2 + 1536 +
  // 512), the head's (7168) and the router (7168 x 256): 104633344.
  const Draft d = mtp_draft(test::deepseek_v3());
  REQUIRE(d.model.architecture);
  const Architecture& a = *d.model.architecture;
  CHECK(a.layers == 1);
  CHECK(a.ffn_kind(0) == FfnKind::moe);
  CHECK(a.mla.has_value());
  CHECK(d.modules == 1);
  CHECK(d.shares_tables);
  CHECK(count_parameters(d.model).linear_total == 11505434624.0);
  CHECK(count_parameters(d.model).small == 104633344.0);
  CHECK_THROWS_WITH(mtp_draft(test::llama_3_1_8b()), Catch::Contains("ships no multi-token-prediction modules"));
}

TEST_CASE("an MTP module's input projection is whole on each GPU of a tensor-parallel group, its norms too") {
  // At tp 8 attention's widths split (q_b's 128 heads: 16 a GPU), but eh_proj stays 14336 x 7168,
  // as SGLang and vLLM hold it: a plain nn.Linear on every rank.
  const Draft d = mtp_draft(test::deepseek_v3());
  const LayerStack stack = describe_layers(*d.model.architecture, 8);
  const Block* input = nullptr;
  for (const Block& b : stack.blocks) {
    if (b.label == "mtp_input") input = &b;
  }
  REQUIRE(input != nullptr);
  REQUIRE(input->steps.size() == 3);
  const auto& projection = std::get<LinearStep>(input->steps[2].step);
  CHECK(projection.name == "eh_proj");
  CHECK(projection.in == 14336.0);
  CHECK(projection.out == 7168.0);
  CHECK(projection.weights == WeightClass::small);
  CHECK(std::get<NormStep>(input->steps[0].step).width == 7168.0);
  CHECK(std::get<NormStep>(input->steps[1].step).width == 7168.0);
}

TEST_CASE("DeepSeek-V3's MTP module takes its own weights from the cache's memory, not the tables it shares") {
  // At tp 1 nothing is replicated. The module as stored: its linears in fp8 (11505434624 bytes),
  // one fp32 scale a 128 x 128 block (11448 for attention, 257 x 2688 for the experts: 702264 x 4
  // bytes = 2809056), and in bf16 its input (enorm, hnorm and eh_proj: 102774784), its norms (7168
  // x 2 + 1536 + 512, and the head's norm 7168) and router (7168 x 256): 104633344 x 2 =
  // 209266688 bytes. Total 11717510368 bytes.
  // Its cache: one layer's latent and RoPE key, 576 bf16 a token: 16 tokens a block, 18432 bytes.
  const ModelSpec m = test::deepseek_v3();
  GpuSpec g = test::h200_141gb();
  g.memory_capacity = test::GB(2000);  // one GPU large enough to hold it all at tp 1
  const Workload w = test::default_workload(m);
  const Draft d = mtp_draft(m);
  const CacheBlocks plain = cache_blocks(m, g, w, 16, 8192), drafting = cache_blocks(m, g, w, 16, 8192, &d);
  CHECK_THAT((plain.free - drafting.free).value(), WithinRel(11717510368.0, 1e-12));
  CHECK(drafting.per_block.value() - plain.per_block.value() == 18432.0);
  CHECK(plain.per_block.value() == 61 * 576 * 2 * 16.0);
}

TEST_CASE("MTP under data-parallel attention: each of 8 GPUs holds the module's attention, input and shared expert whole, 14800791296 bytes") {
  // A GPU holds, in fp8 with a 4-byte scale a 128 x 128 block: the attention's 187105280 weights
  // (+ 11448 scales) and the shared expert's 44040192 (+ 2688), whole; 32 of the 256 routed
  // experts (32 x (44040192 + 2688 x 4)); in bf16 the router (7168 x 256), the norms (23552) and
  // the input (enorm, hnorm, eh_proj: 102774784).
  // 187151072 + 44050944 + 1409630208 + 3670016 + 47104 + 205549568 = 1850098912 bytes a GPU,
  // 8 GPUs. Its
  // embedding and head are the target's, whole on every GPU too, and not counted again.
  const ModelSpec m = test::deepseek_v3();
  GpuSpec g = test::h200_141gb();
  const Workload w = test::expert_parallel_8(m, true);
  const Draft d = mtp_draft(m);
  const CacheBlocks plain = cache_blocks(m, g, w, 16, 8192), drafting = cache_blocks(m, g, w, 16, 8192, &d);
  CHECK_THAT((plain.free - drafting.free).value(), WithinRel(8 * 1850098912.0, 1e-12));
  // Each GPU caches its own sequences' latents: one layer more, 576 bf16 a token.
  CHECK(drafting.per_block.value() - plain.per_block.value() == 18432.0);
}

namespace {

// DeepSeek-V3 on 8 H200s at EP 8 (attention tensor-parallel), drafting with its own module.
struct DeepSeekDrafting {
  ModelSpec m = test::deepseek_v3();
  Workload w = test::expert_parallel_8(m, false);
  Draft d = mtp_draft(m);
  StepCost target{m, test::h200_141gb(), w};
  StepCost draft{d.model, test::h200_141gb(), w};
};

}  // namespace

TEST_CASE("DeepSeek-V3 with its MTP module at acceptance 0.85 yields 1.85 tokens a verify step, and pays at batch 1") {
  // DeepSeek-V3's report (§5.4.3): the second token is accepted 85-90% of the time, 1.8x the
  // tokens per second. Here one sequence at context 2048.
  DeepSeekDrafting s;
  const SpeculativeRate r = speculative_rate(s.target, &s.draft, 1, 2048, Speculation{1, 0.85}, true);
  CHECK(r.tokens == Approx(1.85));
  const double gain = r.speculative_per_s(false) / r.plain_per_s(false);
  CHECK(gain > 1.3);
  CHECK(gain < 1.85);
}

TEST_CASE("an MTP draft runs again over the tokens a verify accepted: at acceptance 1 it costs more than a model draft") {
  // Llama-3.1-8B drafting for itself at K 2 (a stand-in: any draft will do). At acceptance 0 no
  // verify keeps a draft token and the two drafts cost the same; at acceptance 1 each verify
  // keeps 2, and a draft that reads the target runs over them before drafting again.
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::h100_sxm();
  const Workload w = test::default_workload(m);
  StepCost cost(m, g, w), draft(m, g, w);
  ServerConfig c;
  c.kv_blocks = 4096;
  std::vector<Request> requests;
  for (int i = 0; i < 8; ++i) requests.push_back({0.05 * i, 200, 64, 0});
  const auto tpot = [&](double accept, bool reads) {
    c.speculation = Speculation{2, accept};
    c.draft_reads_target = reads;
    const SimResult s = simulate(requests, cost, c, Timing::expected, &draft);
    double sum = 0;
    for (const Outcome& o : s.served) sum += o.tpot;
    return sum / static_cast<double>(s.served.size());
  };
  CHECK(tpot(0, true) == tpot(0, false));
  CHECK(tpot(1, true) > tpot(1, false));
}

TEST_CASE("the one-sequence rate of an MTP draft counts its catch-up rows: a verify that kept a drafts adds a rows to the next first draft step") {
  // Drafting K 2 at context 1032. The first draft step of a round runs the new token and the a
  // drafts the last verify kept (after the 1031 tokens cached before the new one), a from 0 to 2;
  // the second runs one row. At acceptance 1 a is always 2; at 0.5 it is 0, 1 or 2 with
  // probabilities 0.5, 0.25 and 0.25.
  DeepSeekDrafting s;
  StepCost& draft = s.draft;
  const AttentionWork one = draft.decode_attention(1032);
  const auto first = [&](long a) {
    AttentionWork attention = one;
    if (a > 0) attention += draft.verify_attention(1031 - a, a);
    return draft.uniform({0, 1 + a, 1, attention}, 1).expected.value();
  };
  const double plain = first(0);
  const auto drafts = [&](double accept, bool reads) {
    return speculative_rate(s.target, &draft, 1, 1032, Speculation{2, accept}, reads).draft.expected.value();
  };
  CHECK(drafts(1.0, false) == Approx(2 * plain).epsilon(1e-12));
  CHECK(drafts(1.0, true) == Approx(first(2) + plain).epsilon(1e-12));
  CHECK(drafts(0.5, true) == Approx(2 * plain + 0.25 * (first(1) - plain) + 0.25 * (first(2) - plain)).epsilon(1e-12));
  CHECK(drafts(0.0, true) == drafts(0.0, false));
  // Two more tokens route to more experts: the catch-up is not free (6.6% at the checkpoint's fp8
  // arithmetic, the step's fixed costs and its one token's experts dominating).
  CHECK(first(2) > 1.05 * plain);
}

TEST_CASE("MTP in a pipeline: the module's input sits with the embedding on the first stage, 205018112 bytes more on the fullest GPU") {
  // A module is one layer, which no pipeline splits; two such layers at pp 2 put one on each
  // stage beside its end: the first the embedding (129280 x 7168 in bf16) with the input (enorm,
  // hnorm: 2 x 7168; eh_proj 14336 x 7168; all bf16: 205549568 bytes), the last the head (the
  // same table's size), the final norm (7168 x 2 B) and, of a prefill, the fp32 logits (129280 x
  // 4 B): 531456 bytes the first stage holds less, so that it is fuller by 205018112 bytes.
  Draft d = mtp_draft(test::deepseek_v3());
  d.model.architecture->layers = 2;
  ModelSpec without = d.model;
  without.architecture->mtp_input = false;
  const GpuSpec g = test::h200_141gb();
  Workload w = test::default_workload(d.model);
  w.pp = 2;
  const Report with_input = evaluate(d.model, g, w), bare = evaluate(without, g, w);
  CHECK_THAT((with_input.memory.fullest_gpu - bare.memory.fullest_gpu).value(),
             WithinRel(205549568.0 - 7168 * 2 - 129280 * 4, 1e-9));
}

TEST_CASE("an MTP module holds one block of the last layer's kind, none of what the whole model holds once") {
  // A Gemma-4-like target: towers, per-layer inputs, its last 2 layers reading earlier caches,
  // full layers of their own shape; its last layer slides, so the module is a sliding block.
  ModelSpec m = test::llama_3_1_8b();
  Architecture& a = *m.architecture;
  a.mixer_pattern = {Mixer::full, Mixer::sliding};
  a.sliding_window = 1024;
  a.full_attention = FullAttention{.kv_heads = 2, .head_dim = 256};
  a.tower_params = 4e8;
  a.per_layer_input = 256;
  a.kv_shared_layers = 2;
  a.kv_shared_ffn = 2 * a.ffn;
  a.mtp_modules = 1;
  REQUIRE_FALSE(validate(m));
  const Draft d = mtp_draft(m);
  const Architecture& one = *d.model.architecture;
  CHECK(one.tower_params == 0);
  CHECK(one.per_layer_input == 0);
  CHECK(one.kv_shared_layers == 0);
  CHECK(one.kv_shared_ffn == 0);
  CHECK_FALSE(one.full_attention);
  CHECK_FALSE(validate(d.model));
  // Its weights: the one sliding layer's attention and FFN, and the input projection; no towers.
  CHECK(count_parameters(d.model).towers == 0);
}
