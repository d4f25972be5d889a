// Per-layer kinds, worked by hand: sliding and chunked windows (what a layer keeps, what a query
// sees), recurrent state, DeepSeek-V3.2's indexer, sinks, and patterns counted over the stack.
#include <catch2/catch.hpp>

#include <algorithm>

#include "model/engine.hpp"
#include "model/memory_ledger.hpp"
#include "model/parameters.hpp"
#include "specs.hpp"

using namespace roofline;

namespace {

const OpResult& op(const PhaseResult& p, std::string_view name, std::string_view layers = {}) {
  const auto it = std::find_if(p.ops.begin(), p.ops.end(),
                               [&](const OpResult& o) { return o.cost.name == name && o.cost.layers == layers; });
  REQUIRE(it != p.ops.end());
  return *it;
}

// Mistral-7B v0.1: 32 layers, 8 K/V heads of 128, every layer sliding over 4,096 tokens.
ModelSpec mistral_7b_v01() {
  ModelSpec m;
  m.name = "Mistral-7B-v0.1";
  m.architecture = test::dense_gated(32, 4096, 32, 8, 14336, 32000);
  m.architecture->mixer_pattern = {Mixer::sliding};
  m.architecture->sliding_window = 4096;
  m.dtype = DType::bf16;
  return m;
}

// Mamba-130m (state-spaces/mamba-130m): 24 Mamba-1 layers, d_inner 1536, d_state 16, Δ rank 48,
// no attention and no FFN, embeddings tied.
ModelSpec mamba_130m() {
  ModelSpec m;
  m.name = "Mamba-130m";
  Architecture a;
  a.layers = 24;
  a.hidden = 768;
  a.vocab = 50280;
  a.tied_embeddings = true;
  a.mixer_pattern = {Mixer::ssm};
  a.ffn_pattern = {FfnKind::none};
  a.recurrent = Recurrent{.kind = RecurrentKind::mamba, .inner = 1536, .state = 16, .conv_kernel = 4, .dt_rank = 48};
  m.architecture = a;
  m.dtype = DType::fp16;
  return m;
}

// DeepSeek-V3 (config.json): latent attention and 256 routed experts after 3 dense layers.
ModelSpec deepseek_v3() {
  ModelSpec m;
  m.name = "DeepSeek-V3";
  Architecture a = test::dense_gated(61, 7168, 128, 128, 18432, 129280);
  a.head_dim = 128 + 64;
  a.moe = MoeSpec{256, 8, 2048, 1, 3};
  a.mla = LatentAttention{1536, 512, 128, 64, 128};
  m.architecture = a;
  m.dtype = DType::bf16;
  return m;
}

Workload at(const ModelSpec& m, long prompt, long gen, long context) {
  Workload w = test::default_workload(m);
  w.prompt_tokens = prompt;
  w.gen_tokens = gen;
  w.context_tokens = context;
  return w;
}

}  // namespace

TEST_CASE("sliding window: Mistral-7B v0.1 keeps 4,096 of 16,384 tokens - 0.54 GB of KV, not 2.15") {
  const ModelSpec m = mistral_7b_v01();
  const Precision p = resolve_precision(m);
  // 32 layers × K and V × 8 heads × 128 × 2 B = 131,072 B a token, over min(16,384, 4,096) tokens.
  CHECK(cache_bytes_per_sequence(m, p, 16384).value() == 131072.0 * 4096);
  CHECK(cache_bytes_per_sequence(m, p, 1000).value() == 131072.0 * 1000);
  CHECK(kv_bytes_per_token(m, p).value() == 131072.0);
  // The ledger holds the window too: B = 4 sequences of 16,000 + 384 tokens.
  Workload w = at(m, 16000, 384, 16192);
  w.batch = 4;
  const Report r = evaluate(m, test::a100_80gb(), w);
  CHECK(r.memory.kv_cache.value() == 4 * 131072.0 * 4096);
  CHECK(r.model.cache_bytes_per_sequence.value() == 131072.0 * 4096);
  CHECK(r.model.kv_bytes_per_token.value() == 131072.0);
}

TEST_CASE("sliding window: a decode query at context 16,384 reads 4,096 keys - prefill of 8,192 sees 25,167,872 pairs") {
  const ModelSpec m = mistral_7b_v01();
  const Report r = evaluate(m, test::a100_80gb(), at(m, 8192, 256, 16384));
  const OpResult& scores = op(r.decode.step, "attn_scores", "sliding");
  // Per layer: 32 heads × 4,096 keys × (2·128 + 5); bytes: the query (4,096 × 2 B) and the keys
  // (4,096 tokens × 1,024 wide × 2 B).
  CHECK(scores.cost.flops.value() == 32.0 * 32 * 4096 * (2 * 128 + 5));
  CHECK(scores.cost.bytes.value() == 32.0 * (4096 * 2 + 4096.0 * 1024 * 2));
  // Prefill: Σ min(i, 4,096) for i = 1..8,192 = 4,096·4,097/2 + 4,096·4,096 = 25,167,872 pairs.
  const OpResult& values = op(r.prefill, "attn_values", "sliding");
  CHECK(values.cost.flops.value() == 32.0 * 32 * 25167872 * 2 * 128);
}

TEST_CASE("chunked attention (Llama 4): 3 of 4 layers see their own 8,192-token chunk") {
  ModelSpec m;
  m.name = "chunked";
  m.architecture = test::dense_gated(48, 5120, 40, 8, 16384, 202048);
  m.architecture->head_dim = 128;
  m.architecture->mixer_pattern = {Mixer::chunked, Mixer::chunked, Mixer::chunked, Mixer::full};
  m.architecture->attention_chunk = 8192;
  m.dtype = DType::bf16;
  const auto counts = m.architecture->mixer_counts();
  CHECK(counts[static_cast<int>(Mixer::chunked)] == 36);
  CHECK(counts[static_cast<int>(Mixer::full)] == 12);
  // The query at position 20,000 is the 3,616th of its chunk (20,000 − 2 × 8,192).
  const Report r = evaluate(m, test::a100_80gb(), at(m, 19800, 400, 20000));
  CHECK(op(r.decode.step, "attn_scores", "chunked").cost.flops.value() == 36.0 * 40 * 3616 * (2 * 128 + 5));
  CHECK(op(r.decode.step, "attn_scores").cost.flops.value() == 12.0 * 40 * 20000 * (2 * 128 + 5));
  // Prefill of 19,800: chunks of 8,192, 8,192 and 3,416 → 2 × 8,192·8,193/2 + 3,416·3,417/2 pairs.
  const double pairs = 2 * 8192.0 * 8193 / 2 + 3416.0 * 3417 / 2;
  CHECK(op(r.prefill, "attn_values", "chunked").cost.flops.value() == 36.0 * 40 * pairs * 2 * 128);
  // A chunked layer keeps at most its chunk: 2 × 8 × 128 × 2 B = 4,096 B a token and layer.
  const Precision p = resolve_precision(m);
  CHECK(cache_bytes_per_sequence(m, p, 20200).value() == 4096.0 * (36 * 8192 + 12 * 20200));
}

TEST_CASE("patterns repeat from the first layer: Gemma 3's 5 sliding to 1 full over 62 layers is 52 + 10") {
  Architecture a = test::dense_gated(62, 5376, 32, 16, 21504, 262208);
  a.mixer_pattern = {Mixer::sliding, Mixer::sliding, Mixer::sliding, Mixer::sliding, Mixer::sliding, Mixer::full};
  a.sliding_window = 1024;
  CHECK(a.mixer_counts()[static_cast<int>(Mixer::sliding)] == 52);
  CHECK(a.mixer_counts()[static_cast<int>(Mixer::full)] == 10);
  CHECK(a.mixer(5) == Mixer::full);
  CHECK(a.mixer(61) == Mixer::sliding);  // layer 62 starts a cycle that ends with the stack
  a.ffn_pattern = {FfnKind::dense, FfnKind::none};
  CHECK(a.ffn_counts()[static_cast<int>(FfnKind::none)] == 31);
}

TEST_CASE("Mamba-130m: 129,135,360 parameters - a fixed 1.4 MB state per sequence, no KV cache") {
  const ModelSpec m = mamba_130m();
  REQUIRE_FALSE(validate(m));
  const ParameterCount p = count_parameters(m);
  // Per layer: in_proj 768·3,072 + conv 1,536·(4 + 1) + x_proj 1,536·(48 + 32) + dt_proj 48·1,536
  // + 1,536 + A 1,536·16 + D 1,536 + out_proj 1,536·768 + norm 768 = 3,771,648; × 24, plus the
  // embedding 50,280·768 and the final norm 768.
  CHECK(p.total() == 24.0 * 3771648 + 50280.0 * 768 + 768);
  // State: 1,536 × 16 for the scan and 1,536 × 3 kept convolution inputs, × 24 layers × 2 B.
  const Precision prec = resolve_precision(m);
  CHECK(cache_bytes_per_sequence(m, prec, 1).value() == 24.0 * (1536 * 16 + 1536 * 3) * 2);
  CHECK(cache_bytes_per_sequence(m, prec, 100000).value() == 24.0 * (1536 * 16 + 1536 * 3) * 2);
  CHECK(kv_bytes_per_token(m, prec).value() == 0);
  // Decode at batch 1 reads and writes the state: 2 × 29,184 × 2 B, plus the token's inputs
  // (3 × 1,536) and output (1,536) and the A and D weights ((1,536·16 + 1,536) × 2 B), per layer.
  const Report r = evaluate(m, test::a100_80gb(), test::default_workload(m));
  const OpResult& scan = op(r.decode.step, "selective_scan", "ssm");
  CHECK(scan.cost.bytes.value() == 24.0 * (2 * 29184 * 2 + 4 * 1536 * 2 + 26112 * 2));
  CHECK(scan.cost.flops.value() == 24.0 * 1536 * 16 * 6);
}

TEST_CASE("DeepSeek-V3.2's indexer reads every cached key - attention reads its top 2,048 latents") {
  ModelSpec m = deepseek_v3();
  m.architecture->sparse = SparseAttention{2048, 64, 128};
  REQUIRE_FALSE(validate(m));
  const Report r = evaluate(m, test::a100_80gb(), at(m, 9000, 2000, 10000));
  const double layers = 61, latent = 512 + 64;
  CHECK(op(r.decode.step, "index_scores").cost.flops.value() == layers * 64 * 10000 * (2 * 128 + 5));
  // 128 heads score 2,048 latents of 576 each, read once in bf16.
  const OpResult& scores = op(r.decode.step, "attn_scores");
  CHECK(scores.cost.flops.value() == layers * 128 * 2048 * (2 * latent + 5));
  CHECK(scores.cost.bytes.value() == layers * (128 * latent * 2 + 2048 * latent * 2));
  // The cache keeps all 11,000 tokens: the latent in bf16 and the indexer's key in fp8 with an
  // fp32 scale, as the engines hold it (128 + 4 bytes): 1284 bytes a layer.
  const Precision p = resolve_precision(m);
  CHECK(cache_bytes_per_sequence(m, p, 11000).value() == layers * (latent * 2 + 132) * 11000);
}

TEST_CASE("attention sinks are a logit per head and layer: gpt-oss-20b's 64 × 24") {
  ModelSpec m = mistral_7b_v01();
  const double without = count_parameters(m).total();
  m.architecture->attention_sinks = true;
  CHECK(count_parameters(m).total() - without == 32.0 * 32);
}

TEST_CASE("kinds a layer uses need their fields: a sliding layer without a window is refused, naming it") {
  ModelSpec m = mistral_7b_v01();
  m.architecture->sliding_window = 0;
  REQUIRE(validate(m));
  CHECK(validate(m)->field == "sliding_window");
  m = mamba_130m();
  m.architecture->recurrent->kind = RecurrentKind::gated_deltanet;
  REQUIRE(validate(m));
  CHECK(validate(m)->field == "mixer_pattern");
}

TEST_CASE("qk_norm_per_layer without Q/K norms is refused, naming it: its all-reduce was dropped without a word") {
  // MiniMax-M2's per-layer norms all-reduce their variances under tp (allreduce_qk_norm); with
  // qk_norm false no norm runs, so the flag said something the pricing ignored.
  ModelSpec m = test::llama_2_7b();
  m.architecture->qk_norm_per_layer = true;
  REQUIRE(validate(m));
  CHECK(validate(m)->field == "qk_norm_per_layer");
  m.architecture->qk_norm = true;
  CHECK_FALSE(validate(m));
}

TEST_CASE("a section or width no layer uses is refused, naming it: a window without sliding layers was priced whole") {
  // Llama-2-7B with a 512-token window and no sliding layer kept every layer's 4000 tokens.
  ModelSpec m = test::llama_2_7b();
  REQUIRE_FALSE(validate(m));
  m.architecture->sliding_window = 512;
  REQUIRE(validate(m));
  CHECK(validate(m)->field == "sliding_window");
  m = test::llama_2_7b();
  m.architecture->attention_chunk = 8192;
  REQUIRE(validate(m));
  CHECK(validate(m)->field == "attention_chunk");
  m = test::llama_2_7b();
  m.architecture->recurrent = mamba_130m().architecture->recurrent;
  REQUIRE(validate(m));
  CHECK(validate(m)->field == "recurrent");
  // Mixtral's experts with every layer dense: the section is not used.
  m = test::mixtral_8x7b();
  REQUIRE_FALSE(validate(m));
  m.architecture->moe->dense_layers = m.architecture->layers;
  m.architecture->ffn = 14336;  // the dense layers' width
  REQUIRE(validate(m));
  CHECK(validate(m)->field == "moe");
  // Expert formats on a dense model.
  m = test::llama_2_7b();
  m.quantization.emplace();
  m.quantization->formats[static_cast<std::size_t>(TensorClass::experts)] = WeightFormat::int4;
  REQUIRE(validate(m));
  CHECK(validate(m)->field == "quantization.experts");
}

TEST_CASE("a model cut from another keeps only what its layers use - an MTP draft of a full layer, a budget's first layers") {
  // Mistral-7B's every layer slides; cut to layers that are all full, the window goes with them.
  ModelSpec m = mistral_7b_v01();
  m.architecture->mixer_pattern = {Mixer::full};
  REQUIRE(validate(m));  // as given, the unused window is refused
  drop_unused(m);
  CHECK(m.architecture->sliding_window == 0);
  CHECK_FALSE(validate(m));
  // Mixtral's experts cut to a dense layer: the moe section and the experts' format go, and a
  // compute with no quantized class left.
  m = test::mixtral_8x7b();
  m.architecture->moe->dense_layers = m.architecture->layers;
  m.architecture->ffn = 14336;
  m.quantization.emplace();
  m.quantization->of(TensorClass::experts) = WeightFormat::fp8;
  m.quantization->compute = DType::fp8;
  drop_unused(m);
  CHECK_FALSE(m.architecture->moe);
  CHECK_FALSE(m.quantization->of(TensorClass::experts));
  CHECK_FALSE(m.quantization->compute);
  CHECK_FALSE(validate(m));
}

TEST_CASE("Mamba-1 at tp 2 all-reduces x_proj's partial Δ, B and C: 48 + 2·16 = 80 elements a token and layer") {
  // vLLM's MambaMixer holds x_proj as a RowParallelLinear over the split channels: its output is a
  // partial sum on each GPU, all-reduced before dt_proj. At batch 4 decode: 24 layers × 4 rows ×
  // 80 elements × 2 B = 15,360 B in 24 calls; prefill of 512 tokens: 512 × 4 rows.
  const ModelSpec m = mamba_130m();
  Workload w = test::default_workload(m, 4);
  w.tp = 2;
  const Report r = evaluate(m, test::h100_sxm(), w);
  const OpResult& decode = op(r.decode.step, "allreduce_x_proj", "ssm");
  CHECK(decode.cost.comm_bytes.value() == 24.0 * 4 * 80 * 2);
  CHECK(decode.cost.comm_calls == 24);
  CHECK(decode.cost.collective == Collective::all_reduce);
  CHECK(decode.cost.group == 2);
  CHECK(op(r.prefill, "allreduce_x_proj", "ssm").cost.comm_bytes.value() == 24.0 * 4 * 512 * 80 * 2);
  // One GPU has the whole sum: no collective.
  const Report one = evaluate(m, test::h100_sxm(), test::default_workload(m, 4));
  CHECK(std::none_of(one.decode.step.ops.begin(), one.decode.step.ops.end(),
                     [](const OpResult& o) { return o.cost.name == "allreduce_x_proj"; }));
}

TEST_CASE("Mamba-2's gated norm under tp: one group all-reduces a sum of squares, groups tp does not divide are all-gathered") {
  // vLLM's Mixer2RMSNormGated, on the gated output in fp32: n_groups 1 split over the GPUs
  // all-reduces each token's local sum of squares (1 fp32 a token, 4 B); n_groups % tp != 0
  // all-gathers the whole 4,096-wide output (4,096 × 4 B a token); tp dividing n_groups, none.
  ModelSpec m = test::nemotron_3_nano();  // 23 Mamba-2 layers, 8 groups
  Workload w = test::default_workload(m, 4);
  const auto decode_ops = [&](int tp) {
    w.tp = tp;
    return build_ops(Phase::decode, describe_layers(*m.architecture, sharding(w)), w, ExpertRouting::uniform);
  };
  const auto named = [](const OpList& ops, std::string_view name) {
    return std::find_if(ops.begin(), ops.end(), [&](const OpCost& o) { return o.name == name; });
  };
  const OpList tp8 = decode_ops(8);
  CHECK(named(tp8, "allgather_norm") == tp8.end());
  CHECK(named(tp8, "allreduce_norm") == tp8.end());
  const OpList tp16 = decode_ops(16);
  const auto gather = named(tp16, "allgather_norm");
  REQUIRE(gather != tp16.end());
  CHECK(gather->collective == Collective::all_gather);
  CHECK(gather->comm_bytes.value() == 23.0 * 4 * 4096 * 4);
  m.architecture->recurrent->groups = 1;
  const OpList one_group = decode_ops(2);
  const auto sums = named(one_group, "allreduce_norm");
  REQUIRE(sums != one_group.end());
  CHECK(sums->collective == Collective::all_reduce);
  CHECK(sums->comm_bytes.value() == 23.0 * 4 * 1 * 4);
  CHECK(sums->comm_calls == 23);
}

TEST_CASE("a recurrent state keeps the model's format whatever --kv - Mamba-130m holds 1,400,832 B at fp8 and int4 too") {
  // vLLM takes the conv and SSM states' dtypes from mamba_cache_dtype / mamba_ssm_cache_dtype (the
  // model's dtype by default), never from --kv-cache-dtype: 24 × (1,536 × 16 + 1,536 × 3) × 2 B at
  // fp16 activations. Priced in the KV format, fp8 halved it (700,416 B) and int4 quartered it.
  const ModelSpec m = mamba_130m();
  for (const DType kv : {DType::fp16, DType::fp8, DType::int4}) {
    Workload w = test::default_workload(m);
    w.precision.kv = kv;
    CHECK(cache_bytes_per_sequence(m, w.precision, 768).value() == 1'400'832.0);
    const Report r = evaluate(m, test::a100_80gb(), w);
    CHECK(r.model.cache_bytes_per_sequence.value() == 1'400'832.0);
    CHECK(r.memory.kv_cache.value() == 1'400'832.0);
    // Decode reads and writes it: 2 × 29,184 × 2 B a layer, beside the token's 4 × 1,536 inputs
    // and outputs and the A and D weights, as at fp16.
    CHECK(op(r.decode.step, "selective_scan", "ssm").cost.bytes.value() == 24.0 * (2 * 29184 * 2 + 4 * 1536 * 2 + 26112 * 2));
  }
  // fp32 activations (the model's format) hold it in 4 bytes: twice.
  Workload wide = test::default_workload(m);
  wide.precision.activations = DType::fp32;
  wide.precision.kv = DType::fp8;
  CHECK(evaluate(m, test::a100_80gb(), wide).model.cache_bytes_per_sequence.value() == 2 * 1'400'832.0);
  CHECK(cache_bytes_per_sequence(m, wide.precision, 1).value() == 2 * 1'400'832.0);
}

TEST_CASE("a state kept in fp32 stays fp32 and its kept inputs 16-bit at --kv fp8 - Nemotron-3-Nano's 23 Mamba-2 layers") {
  // A layer: the state 4,096 × 128 × 4 B = 2,097,152 B, the kept inputs (4,096 + 2 · 8 · 128) × 3
  // × 2 B = 36,864 B; 23 layers: 49,082,368 B. K/V: 6 layers × 2 × 2 heads × 128 a token, 1 B at fp8.
  const ModelSpec m = test::nemotron_3_nano();
  Workload w = test::default_workload(m);
  w.precision.kv = DType::fp8;
  CHECK(cache_bytes_per_sequence(m, w.precision, 1000).value() == 23.0 * (2'097'152 + 36'864) + 6.0 * 512 * 1000);
}

TEST_CASE("the layer kinds no kernel class prices are named, as the engine classes them - Mamba, DeepSeek-V3.2, Gated DeltaNet off its shapes") {
  // What the warning names is what the operators price without a class (KernelKind::other), at
  // 16-bit formats and FlashAttention (the workload's own choices leave others unclassed).
  const auto unclassed_ops = [](const Report& r) {
    std::vector<std::string> names;
    for (const PhaseResult* p : {&r.prefill, &r.decode.step}) {
      for (const OpResult& o : p->ops) {
        const std::string name(o.cost.name);
        if (o.cost.kernel == KernelKind::other && o.cost.comm_bytes.value() == 0 &&
            std::find(names.begin(), names.end(), name) == names.end()) {
          names.push_back(name);
        }
      }
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  const auto warned = [](const Report& r) -> std::vector<std::string> {
    for (const Warning& w : r.warnings) {
      if (const auto* u = std::get_if<ExpectedUnclassed>(&w)) {
        std::vector<std::string> names(u->operators.begin(), u->operators.end());
        std::sort(names.begin(), names.end());
        return names;
      }
    }
    return {};
  };
  ModelSpec v32 = deepseek_v3();
  v32.architecture->sparse = SparseAttention{2048, 64, 128};
  ModelSpec delta = test::nemotron_3_nano();  // its recurrent layers as Gated DeltaNet of 64-wide heads
  for (Mixer& x : delta.architecture->mixer_pattern) {
    if (x == Mixer::ssm) x = Mixer::linear;
  }
  delta.architecture->recurrent = Recurrent{.kind = RecurrentKind::gated_deltanet, .inner = 4096, .state = 64,
                                            .heads = 64, .groups = 16};
  ModelSpec measured = delta;  // 128-wide heads: the class's shapes
  measured.architecture->recurrent = Recurrent{.kind = RecurrentKind::gated_deltanet, .inner = 4096, .state = 128,
                                               .heads = 32, .groups = 16};
  const GpuSpec h100 = test::h100_sxm();
  const std::vector<std::pair<ModelSpec, std::vector<std::string>>> cases{
      {mamba_130m(), {"conv1d", "selective_scan"}},
      {test::nemotron_3_nano(), {"conv1d", "ssd_scan"}},
      {v32, {"attn_scores", "attn_values", "index_scores"}},
      {delta, {"conv1d", "delta_rule"}},
      {measured, {}},
      {deepseek_v3(), {}},
  };
  for (const auto& [m, names] : cases) {
    INFO(m.name);
    const Report r = evaluate(m, h100, at(m, 512, 256, 640));
    CHECK(unclassed_ops(r) == names);
    CHECK(warned(r) == names);
  }
  // A calibrated GPU prices every operator end to end: nothing to tell apart.
  GpuSpec calibrated = h100;
  calibrated.calibration.emplace();
  CHECK(warned(evaluate(mamba_130m(), calibrated, test::default_workload(mamba_130m()))).empty());
}
