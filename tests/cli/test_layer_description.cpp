// The layer description (model/layers.hpp) is the one source of parameter counts, operator costs
// and activation memory. These properties hold for every bundled model and every Hugging Face
// config the tests carry, so a new block kind that prices its weights in one place and counts
// them in another fails here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "cli_runner.hpp"
#include "io/presets.hpp"
#include "model/engine.hpp"
#include "model/memory_ledger.hpp"
#include "model/operators.hpp"
#include "model/parameters.hpp"

using namespace roofline;

namespace {

std::vector<ModelSpec> described_models() {
  std::vector<ModelSpec> out;
  for (const io::Preset& p : io::list_presets(io::PresetKind::model)) out.push_back(io::load_model(p.path));
  for (const std::string folder : {"hf", "hf-configs"}) {
    for (const auto& e : std::filesystem::directory_iterator(test::data_file(folder))) {
      if (e.path().extension() == ".json" && e.path().stem() != "unknown-falcon") {
        out.push_back(io::load_model(e.path().string()));
      }
    }
  }
  for (const auto& e : std::filesystem::directory_iterator(test::data_file("hf-configs"))) {
    if (e.path().extension() == ".json") out.push_back(io::load_model(e.path().string()));
  }
  out.push_back(io::load_model(test::data_file("good/hybrid-mamba2.yaml")));
  REQUIRE(out.size() >= 34);
  return out;
}

Bytes weight_bytes_of(const OpList& ops) {
  Bytes b;
  for (const OpCost& op : ops) b += op.weight_bytes;
  return b;
}

Flops matmul_flops(const OpList& ops) {
  Flops f;
  for (const OpCost& op : ops) {
    if (op.shape.count > 0) f += op.flops;
  }
  return f;
}

}  // namespace

TEST_CASE("layer description: each pass reads every weight but the gathered tables and the towers, as counted") {
  for (const ModelSpec& m : described_models()) {
    INFO(m.name);
    const Architecture& a = *m.architecture;
    const Workload w = test::default_workload(m, 1);
    // The embedding (and learned positions) are gathered a row at a time; a tied LM head reads
    // the embedding's table once more as its own weights.
    const WeightBytes stored = weight_bytes(m, w.precision);
    const double hb = bytes_per_weight(w.precision.of(TensorClass::lm_head), w.precision.group_size);
    const double tied_head = a.tied_embeddings ? static_cast<double>(a.vocab) * static_cast<double>(a.hidden) : 0;
    const Bytes expected = stored.run() - stored.of(TensorClass::embedding) + Bytes(tied_head * hb);
    for (const Phase phase : {Phase::prefill, Phase::decode}) {
      INFO(name(phase));
      CHECK(weight_bytes_of(build_ops(phase, m, w, ExpertRouting::all)).value() ==
            Approx(expected.value()).epsilon(1e-12));
    }
  }
}

TEST_CASE("layer description: a decode token multiplies 2 FLOPs by every active weight it reads") {
  for (const ModelSpec& m : described_models()) {
    INFO(m.name);
    const Architecture& a = *m.architecture;
    const ParameterCount p = count_parameters(m);
    const double head = static_cast<double>(a.vocab) * static_cast<double>(a.hidden);
    const double router = a.moe ? a.moe_layers() * static_cast<double>(a.hidden) * a.moe->experts : 0;
    const OpList ops = build_ops(Phase::decode, m, test::default_workload(m, 1), ExpertRouting::all);
    CHECK(matmul_flops(ops).value() == Approx(2 * (p.linear_active + head + router)).epsilon(1e-12));
  }
}

TEST_CASE("layer description: a group caches max(kv_heads, tp) K/V heads of each layer shape, or the whole latent on every GPU") {
  // Per token of growth (the cache at 2 tokens less the cache at 1): recurrent state does not
  // grow, and every window keeps at least 2 tokens.
  const GpuSpec h100 = io::load_gpu("h100-sxm");
  for (const ModelSpec& m : described_models()) {
    INFO(m.name);
    const Architecture& a = *m.architecture;
    for (const int tp : {1, 2, 4, 8}) {
      Workload w = test::default_workload(m, 1);
      w.tp = tp;
      if (validate(w, m, h100)) continue;  // a tp the model cannot split
      INFO("tp " << tp);
      // Layers reading an earlier layer's cache (Gemma 4 E4B) keep none of their own.
      const auto owning = a.mixers_before(a.layers - a.kv_shared_layers);
      const auto kind = [&](Mixer mixer) { return static_cast<double>(owning[static_cast<std::size_t>(mixer)]); };
      const double kb = bytes_per_element(w.precision.kv),
                   layers = kind(Mixer::full) + kind(Mixer::sliding) + kind(Mixer::chunked);
      // The indexer's keys in fp8 with an fp32 scale a 128 (132 bytes a 128-wide key) whatever --kv.
      const double index = a.sparse ? static_cast<double>(a.sparse->index_dim) * (1 + 4.0 / 128) : 0.0;
      // Full layers of their own shape (Gemma 4) cache their own heads, K and V even from one projection.
      const auto heads = [&](double n, long head_dim, int kv) {
        return n * 2 * static_cast<double>(head_dim) * std::max(kv, tp) * kb;
      };
      const double full = a.full_attention ? kind(Mixer::full) : 0;
      const double expected =
          a.mla ? layers * (static_cast<double>(a.mla->cache_width()) * kb + index) * tp
          : a.full_attention
              ? heads(layers - full, a.head_dim, a.kv_heads) +
                    heads(full, a.full_attention->head_dim, a.full_attention->kv_heads)
              : heads(layers, a.head_dim, a.kv_heads);
      CHECK((group_cache_bytes_per_sequence(m, 2, w) - group_cache_bytes_per_sequence(m, 1, w)).value() == expected);
    }
  }
}

TEST_CASE("layer description: a sparse latent layer's fp8 cache is FlashMLA's 656-byte record, a dense one's 576") {
  // vLLM's fp8_ds_mla, which FlashMLA's sparse decode reads (`--kv-cache-dtype fp8` is its alias on
  // those layers): 512 fp8 latent values, 4 fp32 scales (16 bytes) and 64 bf16 RoPE values (128
  // bytes), 656 bytes a token a layer, beside the indexer's 132-byte key. DeepSeek-V3.2:
  // 61 × (656 + 132) = 48,068 bytes a token (576-byte latents gave 43,188); GLM-5: 78 × (656 + 132)
  // = 61,464 (not 55,224). A dense layer's fp8 cache is 576 values under one per-tensor scale:
  // DeepSeek-V3's 61 × 576 = 35,136. bf16 is 61 × (576 · 2 + 132) = 78,324, as before.
  const auto with_kv = [](const ModelSpec& m, DType kv) {
    Precision p = resolve_precision(m);
    p.kv = kv;
    return p;
  };
  const ModelSpec v32 = io::load_model("deepseek-v3.2"), glm5 = io::load_model("glm-5"),
                  v3 = io::load_model("deepseek-v3");
  CHECK(kv_bytes_per_token(v32, with_kv(v32, DType::fp8)).value() == Approx(48'068));
  CHECK(kv_bytes_per_token(glm5, with_kv(glm5, DType::fp8)).value() == Approx(61'464));
  CHECK(kv_bytes_per_token(v3, with_kv(v3, DType::fp8)).value() == Approx(35'136));
  CHECK(kv_bytes_per_token(v32, with_kv(v32, DType::bf16)).value() == Approx(78'324));
  CHECK(cache_bytes_per_sequence(v32, with_kv(v32, DType::fp8), 1000).value() == Approx(48'068'000));
  // The ledger (at tp 8 each GPU caches the whole latent: 8 × 48,068 a token for the group), the
  // latent's writes and the decode step's reads take the one width: a key more, below the
  // indexer's top_k of 2048, adds 61 × 656 = 40,016 bytes to the latent attention's reads, and
  // kv_a_proj writes 61 × 656 bytes a token, 61 × 80 = 4,880 more than 576-byte latents.
  Workload w = test::default_workload(v32, 1);
  w.precision.kv = DType::fp8;
  w.tp = 8;
  CHECK((group_cache_bytes_per_sequence(v32, 2, w) - group_cache_bytes_per_sequence(v32, 1, w)).value() ==
        Approx(8 * 48'068));
  const auto op_bytes = [&](std::string_view name, long context, DType kv) {
    w.context_tokens = context;
    w.precision.kv = kv;
    double b = 0;
    for (const OpCost& o : build_ops(Phase::decode, v32, w, ExpertRouting::all)) {
      if (o.name == name) b += o.bytes.value();
    }
    return b;
  };
  CHECK(op_bytes("attn_scores", 1001, DType::fp8) - op_bytes("attn_scores", 1000, DType::fp8) == Approx(61 * 656));
  // kv_a_proj writes 576 outputs a token a layer: in the record's bytes, not 576 fp8 ones.
  CHECK(op_bytes("kv_a_proj", 1000, DType::fp8) - op_bytes("kv_a_proj", 1000, DType::int8) == Approx(61 * 80));
}

TEST_CASE("layer description: split over tp, each pass still reads every counted weight once, replicas aside") {
  // Under tensor parallelism each GPU holds 1/tp of every split linear; what is replicated (the
  // router, latent attention's down projections, K/V heads fewer than tp, norms) is read whole.
  for (const ModelSpec& m : described_models()) {
    const Architecture& a = *m.architecture;
    // Gemma 4 E4B's per-layer input projections are whole on every GPU, as norms are.
    if (a.heads % 2 != 0 || a.mla || a.moe || a.recurrent || a.per_layer_input > 0) continue;
    INFO(m.name);
    Workload w = test::default_workload(m, 1);
    const Bytes one_gpu = weight_bytes_of(build_ops(Phase::decode, m, w, ExpertRouting::all));
    w.tp = 2;
    const OpList split = build_ops(Phase::decode, m, w, ExpertRouting::all);
    // Dense GQA models with kv_heads >= 2: every linear splits in half; the norms (and GPT-2's
    // row-parallel biases) are whole on each GPU.
    const double ab = bytes_per_element(w.precision.activations);
    const double h = static_cast<double>(a.hidden), L = a.layers;
    const auto mixers = a.mixer_counts();
    const auto ffns = a.ffn_counts();
    // A norm before each mixer and each FFN a layer has, and the final one; Q/K norms are whole.
    const double norms = L - mixers[static_cast<int>(Mixer::none)] + L - ffns[static_cast<int>(FfnKind::none)] + 1;
    // Full layers of their own shape (Gemma 4) norm their own head width.
    const double full = a.full_attention ? mixers[static_cast<int>(Mixer::full)] : 0;
    const double qk_width = (a.attention_layers() - full) * static_cast<double>(a.head_dim) +
                            (a.full_attention ? full * static_cast<double>(a.full_attention->head_dim) : 0.0);
    const double whole = norms * h * a.norm_params_per_element() * ab + (a.qk_norm ? 2.0 * qk_width * ab : 0.0) +
                         (a.linear_bias ? 2 * L * h * ab : 0.0);  // O's and down's biases
    CHECK(weight_bytes_of(split).value() == Approx((one_gpu.value() - whole) / 2 + whole).epsilon(1e-12));
  }
}

TEST_CASE("layer description: prefill activations hold the residual, its norm and the widest intermediate") {
  // Llama-3.1-70B at tp 8, 4096 tokens, bf16, per GPU: 4096·2·(2·8192 + gate+up 2·28672/8) plus
  // the fp32 logits of one token over all 128256 columns, gathered from the vocab-parallel head;
  // the group holds 8 of those.
  const Workload tp8 = [] {
    Workload w = test::default_workload(io::load_model("llama-3.1-70b"), 1);
    w.tp = 8, w.prompt_tokens = 4096, w.context_tokens = 4096 + 128;
    return w;
  }();
  const Report r = evaluate(io::load_model("llama-3.1-70b"), io::load_gpu("h100-sxm"), tp8);
  CHECK(r.memory.activations.value() == 8 * (4096.0 * 2 * (2 * 8192 + 2 * 3584) + 128256.0 * 4));
  CHECK(r.memory.activations.value() == 1'547'608'064.0);
  // DeepSeek-V3, prefill of 512 tokens: latent attention decompresses K (192 a head) and V (128)
  // beside its queries (192) for 128 heads: 65,536 wide, wider than any FFN (2·18432).
  const ModelSpec v3 = io::load_model(test::data_file("hf/deepseek-v3.json"));
  const Report d = evaluate(v3, io::load_gpu("h100-sxm"), test::default_workload(v3, 1));
  CHECK(d.memory.activations.value() == 512.0 * 2 * (2 * 7168 + 128 * (192 + 192 + 128)) + 129280.0 * 4);
  CHECK(d.memory.activations.value() == 82'306'048.0);
}

TEST_CASE("layer description: B* streams and multiplies what the decode operators do, for every model") {
  // critical_batch's weights (decode_weights, from the description and the stored bytes) against
  // the decode operators of one sequence, every expert read: their weight bytes a step, and their
  // matrix products' FLOPs a token.
  const GpuSpec g = io::load_gpu("h100-sxm");
  for (const ModelSpec& m : described_models()) {
    INFO(m.name);
    const Workload w = test::default_workload(m, 1);
    const Report r = evaluate(m, g, w);
    const OpList ops = build_ops(Phase::decode, m, w, ExpertRouting::all);
    const double b = weight_bytes_of(ops).value() / r.gpu.ceilings.bandwidth.value() * r.gpu.ceilings.peak.value() /
                     matmul_flops(ops).value();
    CHECK(r.critical_batch.weights_only == Approx(b).epsilon(1e-9));
  }
}

TEST_CASE("layer description: a tied head's table is held again on a pipeline's last stage - the token table, not GPT-2's positions") {
  // GPT-2: 50,257 tokens and 1,024 learned positions of 768, tied, fp32 stored and run in fp16...
  // as the config gives. At pp 2 the replica holds its weights once and the token table again:
  // 50,257 × 768 elements more, not the 51,281 rows of both tables.
  const ModelSpec m = io::load_model(test::data_file("hf/gpt2.json"));
  const GpuSpec g = io::load_gpu("h100-sxm");
  Workload w = test::default_workload(m, 1);
  const Report one = evaluate(m, g, w);
  w.pp = 2;
  const Report two = evaluate(m, g, w);
  const double element = bytes_per_element(element_of(w.precision.of(TensorClass::embedding)));
  CHECK((two.memory.weights - one.memory.weights).value() == Approx(50'257.0 * 768 * element).epsilon(1e-12));
}
