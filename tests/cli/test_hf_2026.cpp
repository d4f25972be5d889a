// The 2026 families (tests/data/hf-configs/, copied from the project's shared folder): each read
// to the count worked by hand from its fields, as the layer description prices it, held to its
// publisher's figure, and the mechanisms each one brought checked where they change a number:
// full layers of their own shape with K = V (Gemma 4), towers held but never run (Qwen3.5,
// Qwen3-VL, Gemma 4), Gated DeltaNet under a wrapper, Nemotron 3's head_dim, a sparse indexer
// from a family's defaults (GLM-5), ERNIE's and Step's expert layering, MiniMax's small tensors
// left out of its fp8 blocks, fields that only restate the family (Qwen3-Coder).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "hf_counts.hpp"

using namespace roofline;
using namespace roofline::test;

namespace {

// Qwen3-VL's and Qwen3.5's vision model as transformers builds it (modeling_qwen3_vl.py,
// Qwen3VLVisionModel), 1152 wide with an MLP of 4304 and merged patches of 2 × 2 × 1152 = 4608,
// every linear with its bias. A block: two LayerNorms (weight and bias), qkv 1152 → 3456, proj,
// linear_fc1 1152 → 4304 and linear_fc2 back (not gated). A merger (Qwen3VLVisionPatchMerger):
// a LayerNorm over one patch, or over the 4608 merged ones in DeepStack's, then linear_fc1 4608 →
// 4608 and linear_fc2 4608 → the text width 4096.
constexpr double kQwenBlock =
    2 * 2 * 1152.0 + (1152 * 3456.0 + 3456) + (1152 * 1152.0 + 1152) + (1152 * 4304.0 + 4304) + (4304 * 1152.0 + 1152);
constexpr double kQwenMergerLinears = (4608 * 4608.0 + 4608) + (4608 * 4096.0 + 4096);
constexpr double kQwenMerger = 2 * 1152 + kQwenMergerLinears, kQwenDeepStackMerger = 2 * 4608 + kQwenMergerLinears;

}  // namespace

TEST_CASE("Gemma 4 26B-A4B: 25.23 B in its decoder (Google: 25.2 B), 3.82 B active (3.8 B) - 512-wide global heads with K = V") {
  const ModelSpec m = config("gemma-4-26b-a4b");
  const Architecture& a = *m.architecture;
  CHECK(m.name == "gemma-4-26b-a4b");  // the file's, not the class's
  // layer_types: five sliding layers to one full; the full ones have 2 K/V heads of 512, one
  // projection for K and V.
  CHECK(a.mixer_counts()[static_cast<int>(Mixer::full)] == 5);
  CHECK(a.sliding_window == 1024);
  REQUIRE(a.full_attention);
  CHECK(a.full_attention->kv_heads == 2);
  CHECK(a.full_attention->head_dim == 512);
  CHECK(a.full_attention->shared_kv);
  // The dense MLP of 2112 beside the 128 experts of 704: three experts' width, always on.
  CHECK(a.moe->experts == 128);
  CHECK(a.moe->top_k == 8);
  CHECK(a.moe->shared_experts == 3);
  // Sliding layer: Q 2816·4096, K, V 2816·2048, O 4096·2816, Q/K norms 2·256 = 34,603,520.
  // Full layer: Q 2816·8192, one K/V 2816·1024, O 8192·2816, Q/K norms 2·512 = 49,021,952.
  // FFN of every layer: norms 2·2816, router 2816·128, 128 experts of 3·2816·704, the dense MLP
  // 3·2816·2112. One tied 262,144 × 2816 table and the final norm.
  const double sliding = 2816 * 4096.0 * 2 + 2816 * 2048.0 * 2 + 512, full = 2816 * 8192.0 * 2 + 2816 * 1024.0 + 1024;
  const double expert = 3 * 2816.0 * 704, dense = 3 * 2816.0 * 2112, route = 2 * 2816 + 2816 * 128.0;
  const double table = 262'144.0 * 2816;
  const double decoder = 25 * sliding + 5 * full + 30 * (route + 128 * expert + dense) + table + 2816;
  // Vision tower (no audio in this one; transformers' Gemma4VisionModel and the embedder after it):
  // 27 layers of 4·1152² attention (16 heads of 72) and a gated MLP of 3·1152·4304 (gate, up and
  // down under gelu_pytorch_tanh), a 3·16·16·1152 patch embedding, a learned position table for x
  // and one for y of 10240 rows (2·10240·1152), and the projection 1152 → 2816. Read as SigLIP's (an
  // MLP of two matrices, no table) it was 415,199,232: 27·1152·4304 + 2·10240·1152 = 157,464,576 short.
  const double tower =
      27 * (4 * 1152.0 * 1152 + 3 * 1152.0 * 4304) + 3 * 16 * 16 * 1152.0 + 2 * 10'240 * 1152.0 + 1152.0 * 2816;
  CHECK(tower == 572'663'808.0);
  // Its weights as a checkpoint counts them: 569,550,384 in the vision model (the tower extracted
  // from gemma-4-31B-it, rnagabh/gemma4-vision-encoder), which adds its 27 layers' norms (4·1152 +
  // 2·72) and the standardizer's bias and scale (2·1152), here left out; and the projection.
  CHECK(tower - 1152.0 * 2816 + 27 * (4 * 1152 + 2 * 72) + 2 * 1152 == 569'550'384.0);
  CHECK(a.tower_params == tower);
  CHECK(total(m) == decoder + tower);
  CHECK(total(m) == 25'805'294'848.0);
  CHECK(decoder == Approx(25.2e9).epsilon(0.005));
  CHECK(active(m) == 25 * sliding + 5 * full + 30 * (route + 8 * expert + dense) + table + 2816);
  CHECK(active(m) == Approx(3.8e9).epsilon(0.01));
  CHECK(assumes(m, Assumption::towers_in_memory));
  // Cache: 25 sliding layers keep 1024 tokens of 2 × 8 × 256; 5 full layers keep every token of
  // K and V, 2 × 2 × 512 (one projection, both cached), all in bf16.
  CHECK(cache_at_32k(m) == 25 * 1024 * (2 * 8 * 256 * 2.0) + 5 * 32'768 * (2 * 2 * 512 * 2.0));
}

TEST_CASE("Qwen3.5-397B-A17B: 396.78 B (Qwen: 397 B), 17.35 B active (17 B) - hybrid DeltaNet under text_config, a tower held") {
  const ModelSpec m = config("qwen3.5-397b");
  const Architecture& a = *m.architecture;
  CHECK(a.mixer_pattern == std::vector<Mixer>{Mixer::linear, Mixer::linear, Mixer::linear, Mixer::full});
  CHECK(a.attention_gate);  // attn_output_gate
  CHECK(a.recurrent->kind == RecurrentKind::gated_deltanet);
  CHECK(a.mtp_modules == 1);  // mtp_num_hidden_layers
  // Full layer: Q and its gate 4096·2·8192, K, V 4096·512, O 8192·4096, Q/K norms 2·256.
  // DeltaNet layer: in_proj_qkvz 4096·(2·2048 + 2·8192), in_proj_ba 4096·128, a bias-free
  // 4-tap convolution over 12,288 channels, decay and step bias per value head (128), the gated
  // norm 128, out_proj 8192·4096.
  const double h = 4096, full = h * 16'384 + 2 * h * 512 + 8192 * h + 512;
  const double deltanet = h * 20'480 + h * 128 + 12'288 * 4.0 + 128 + 128 + 8192 * h;
  const double expert = 3 * h * 1024;  // 512 routed and 1 shared, router 4096·512
  const double table = 248'320 * h;
  // The tower: a 3 × 2 × 16 × 16 patch embedding with its bias, 2304 learned positions, 27 blocks
  // and one merger; Qwen3.5 has no DeepStack mergers (deepstack_visual_indexes: []). Counted as one
  // h·4 × 4096 projection beside 4·h² and 2·h·4304 a block it was 434,368,512, 21.6 M short.
  const double tower = (3 * 2 * 16 * 16 * 1152.0 + 1152) + 2304 * 1152.0 + 27 * kQwenBlock + kQwenMerger;
  CHECK(tower == 456'010'480.0);
  CHECK(a.tower_params == tower);
  CHECK(total(m) == 15 * full + 45 * deltanet + 60 * (2 * h + h * 512 + 513 * expert) + 2 * table + h + tower);
  CHECK(total(m) == Approx(397e9).epsilon(0.005));
  CHECK(active(m) == 15 * full + 45 * deltanet + 60 * (2 * h + h * 512 + 11 * expert) + 2 * table + h);
  CHECK(active(m) == Approx(17e9).epsilon(0.025));  // "A17B", a figure of two digits
  // Only the 15 full layers cache K/V (2 × 2 × 256 a token, bf16); the 45 DeltaNet layers keep 64
  // heads of 128 × 128 in fp32 (mamba_ssm_dtype: float32) and the convolution's last 3 inputs of
  // 12,288 channels in bf16.
  CHECK(a.recurrent->fp32_state);
  CHECK(cache_at_32k(m) == 15 * 2 * 2 * 256 * 32'768.0 * 2 + 45 * (64 * 128 * 128.0 * 4 + 3 * 12'288 * 2));
  CHECK(assumes(m, Assumption::towers_in_memory));
}

TEST_CASE("Qwen3.5-4B's vision tower: 333.5 M - 24 blocks of 1024, one merger to 2560, no DeepStack") {
  // Blocks of 1024 with an MLP of 4096: two LayerNorms, qkv 1024 → 3072, proj, fc1 and fc2, biased;
  // a 3 × 2 × 16 × 16 patch embedding with its bias, 2304 positions; the merger: a LayerNorm over
  // 1024, fc1 4096 → 4096 and fc2 4096 → 2560 with biases.
  const double block =
      2 * 2 * 1024.0 + (1024 * 3072.0 + 3072) + (1024 * 1024.0 + 1024) + (1024 * 4096.0 + 4096) + (4096 * 1024.0 + 1024);
  const double merger = 2 * 1024 + (4096 * 4096.0 + 4096) + (4096 * 2560.0 + 2560);
  const double tower = (3 * 2 * 16 * 16 * 1024.0 + 1024) + 2304 * 1024.0 + 24 * block + merger;
  CHECK(tower == 333'514'240.0);  // the old estimate: 316,407,808
  CHECK(config("qwen3.5-4b").architecture->tower_params == tower);
}

TEST_CASE("Qwen3-VL-235B-A22B: 235.1 B in its text decoder (Qwen: 235 B), 22.19 B active (22 B), a tower of 0.58 B") {
  const ModelSpec m = config("qwen3-vl-235b-a22b-thinking-aic");
  const double h = 4096, attention = h * 8192 * 2 + 2 * h * 512 + 256, expert = 3 * h * 1536;
  const double tables = 2 * 151'936 * h + h;
  const double decoder = 94 * (attention + 2 * h + h * 128 + 128 * expert) + tables;
  // The tower: a 3 × 2 × 14 × 14 patch embedding (this shortened copy's patch_size) with its bias;
  // the 2304 positions and the three DeepStack mergers of layers 8, 16 and 24 that
  // Qwen3VLVisionConfig gives where, as here, the config leaves them out; 27 blocks; the merger.
  // Counted as one h·4 × 4096 projection beside 4·h² and 2·h·4304 a block it was 431,299,584:
  // 144.7 M short, the DeepStack mergers (120.4 M) most of it.
  const double tower =
      (3 * 2 * 14 * 14 * 1152.0 + 1152) + 2304 * 1152.0 + 27 * kQwenBlock + kQwenMerger + 3 * kQwenDeepStackMerger;
  CHECK(tower == 575'973'616.0);
  CHECK(m.architecture->tower_params == tower);
  CHECK(total(m) == decoder + tower);
  CHECK(decoder == Approx(235e9).epsilon(0.005));
  CHECK(active(m) == 94 * (attention + 2 * h + h * 128 + 8 * expert) + tables);
  CHECK(active(m) == Approx(22e9).epsilon(0.01));
}

TEST_CASE("Qwen3-VL-30B-A3B: Qwen3-30B-A3B's decoder and a tower of 538.6 M - 31.07 B, the Hub's count") {
  // Qwen3-VL-30B-A3B-Instruct's text decoder has Qwen3-30B-A3B's shape (48 layers of 2048, 128
  // experts of 768); its vision_config as published: 27 blocks of 1152, patch 16, 2304 positions,
  // DeepStack after blocks 8, 16 and 24, merged to the text width 2048.
  auto text = nlohmann::json::parse(std::ifstream(data_file("hf-configs/qwen3-30b-a3b.json")));
  text.erase("architectures");
  text["model_type"] = "qwen3_vl_moe_text";
  const nlohmann::json vl = {
      {"architectures", {"Qwen3VLMoeForConditionalGeneration"}},
      {"model_type", "qwen3_vl_moe"},
      {"text_config", text},
      {"vision_config",
       {{"deepstack_visual_indexes", {8, 16, 24}}, {"depth", 27}, {"hidden_act", "gelu_pytorch_tanh"},
        {"hidden_size", 1152}, {"in_channels", 3}, {"intermediate_size", 4304}, {"model_type", "qwen3_vl_moe"},
        {"num_heads", 16}, {"num_position_embeddings", 2304}, {"out_hidden_size", 2048}, {"patch_size", 16},
        {"spatial_merge_size", 2}, {"temporal_patch_size", 2}}}};
  const ModelSpec m = io::read_model(io::parse_yaml(vl.dump(), "qwen3-vl-30b-a3b.json"));
  const double linears = (4608 * 4608.0 + 4608) + (4608 * 2048.0 + 2048);  // the mergers' fc1 and fc2
  const double tower = (3 * 2 * 16 * 16 * 1152.0 + 1152) + 2304 * 1152.0 + 27 * kQwenBlock + (2 * 1152 + linears) +
                       3 * (2 * 4608 + linears);
  CHECK(tower == 538'631'408.0);
  CHECK(m.architecture->tower_params == tower);
  CHECK(total(m) == total(config("qwen3-30b-a3b")) + tower);
  // The Hub counts 31.07 B weights in the checkpoint (Qwen/Qwen3-VL-30B-A3B-Instruct's safetensors,
  // as free2aitools.com/model/qwen/qwen3-vl-30b-a3b-instruct quotes it): met to the last digit
  // given. The old estimate, without biases, norms, the merger's fc1 or DeepStack, said 30.96 B.
  CHECK(total(m) == 31'070'754'032.0);
  CHECK(total(m) == Approx(31.07e9).epsilon(0.0002));
}

TEST_CASE("Nemotron 3 Nano: 31.58 B (NVIDIA: 31.6 B), 3.58 B active (3.6 B with embeddings) - head_dim under its new name") {
  const ModelSpec m = config("nemotron-3-nano-30b-a3b");
  const Architecture& a = *m.architecture;
  CHECK(a.head_dim == 128);  // Nemotron-H called it attention_head_dim
  CHECK(a.kv_heads == 2);
  CHECK(a.moe->shared_experts == 2);  // moe_shared_expert_intermediate_size 3712 = 2 × 1856
  // 23 Mamba-2 layers: in_proj 2688·(2·4096 + 2·8·128 + 64), a biased 4-tap convolution over
  // 4096 + 2048 channels, A, D and Δ's bias per head, the gated norm, out_proj 4096·2688; 6
  // attention layers: Q 2688·4096, K, V 2688·256, O 4096·2688; 23 MoE layers: router 2688·128,
  // 128 experts and 2 shared of up and down, 2·2688·1856. A norm each layer, two tables.
  const double h = 2688, mamba = h * 10'304 + 6144 * 5.0 + 3 * 64 + 4096 + 4096 * h;
  const double attention = h * 4096 + 2 * h * 256 + 4096 * h, expert = 2 * h * 1856;
  const double tables = 2 * 131'072 * h + h;
  CHECK(total(m) == 23 * (h + mamba) + 6 * (h + attention) + 23 * (h + h * 128 + 130 * expert) + tables);
  CHECK(total(m) == Approx(31.6e9).epsilon(0.005));
  CHECK(active(m) == 23 * (h + mamba) + 6 * (h + attention) + 23 * (h + h * 128 + 8 * expert) + tables);
  CHECK(active(m) == Approx(3.6e9).epsilon(0.01));
  CHECK(a.recurrent->fp32_state);  // mamba_ssm_cache_dtype: float32
  // 6 attention layers cache 2 × 2 × 128 a token in bf16; 23 Mamba-2 layers keep 64 heads of 64 ×
  // 128 in fp32 and the last 3 inputs of 4096 + 2048 channels in bf16.
  CHECK(cache_at_32k(m) == 6 * 2 * 2 * 128 * 32'768.0 * 2 + 23 * (64 * 64 * 128.0 * 4 + 3 * 6144 * 2));
}

TEST_CASE("Nemotron 3 Nano: tp 16 refused, its 8 Mamba-2 groups not split evenly (vLLM's MambaMixer2 asserts)") {
  // 64 Mamba heads split at tp 8 and 16; the 8 groups of B and C only at tp 8 (or 1, 2, 4).
  const std::string model = data_file("hf-configs/nemotron-3-nano-30b-a3b.json");
  CHECK(run_cli({"-m", model, "-g", "h200", "--tp", "8"}).code == 0);
  const CliResult r = run_cli({"-m", model, "-g", "h200", "--tp", "16"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--tp") && Catch::Contains("8 groups (n_groups)"));
}

TEST_CASE("Qwen3.5-397B-A17B: tp 32 refused, its 16 Gated DeltaNet key heads not split (vLLM takes num_k_heads // tp)") {
  // 32 query heads, 2 K/V heads (replicated above tp 2), 64 value heads: all split at tp 32. The
  // 16 key heads of the 45 linear layers are not: vLLM's GatedDeltaNet gives each GPU
  // num_k_heads // tp = 16 // 32 = 0 of them. Priced before as one key head a GPU, replicated.
  const std::string model = data_file("hf-configs/qwen3.5-397b.json");
  CHECK(run_cli({"-m", model, "-g", "h100-sxm", "--tp", "16"}).code == 0);
  for (const std::vector<std::string>& layout : {std::vector<std::string>{"--tp", "32"},
                                                 std::vector<std::string>{"--tp", "32", "--ep", "32"}}) {
    std::vector<std::string> args{"-m", model, "-g", "h100-sxm"};
    args.insert(args.end(), layout.begin(), layout.end());
    const CliResult r = run_cli(args);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--tp") && Catch::Contains("16 key heads (linear_num_key_heads)"));
  }
  // The preset is the same layers.
  CHECK(run_cli({"-m", "qwen3.5-397b-a17b", "-g", "h100-sxm", "--tp", "32"}).code == 2);
  // Data-parallel attention keeps the recurrent layers whole on each GPU: nothing of them split.
  CHECK(run_cli({"-m", model, "-g", "h100-sxm", "--tp", "32", "--ep", "32", "--dp-attention"}).code == 0);
}

TEST_CASE("GLM-5: 743.9 B (Zhipu: 744 B), 39.9 B active without the tables (40 B) - latent attention with the DSA indexer") {
  const ModelSpec m = config("glm-5-fp8-aic");
  const Architecture& a = *m.architecture;
  // The shortened config gives no indexer fields: transformers' GlmMoeDsaConfig defaults.
  REQUIRE(a.sparse);
  CHECK(a.sparse->top_k == 2048);
  CHECK(a.sparse->index_heads == 32);
  CHECK(a.sparse->index_dim == 128);
  const double h = 6144, heads = 64;
  // Latent attention: q_a 6144·2048 and its norm, q_b 2048·64·256, kv_a 6144·576 and its norm,
  // kv_b 512·64·448, O 64·256·6144. Indexer: its Q 2048·32·128, K 6144·128 with a LayerNorm,
  // head weights 6144·32.
  const double mla = h * 2048 + 2048 + 2048 * heads * 256 + h * 576 + 512 + 512 * heads * 448 + heads * 256 * h;
  const double indexer = 2048 * 32 * 128.0 + h * 128 + 2 * 128 + h * 32;
  const double expert = 3 * h * 2048, tables = 2 * 154'880 * h;
  const double layers = 78 * (mla + indexer + 2 * h) + 3 * (3 * h * 12'288) + h;
  CHECK(total(m) == layers + 75 * (h * 256 + 257 * expert) + tables);
  CHECK(total(m) == Approx(744e9).epsilon(0.005));
  CHECK(active(m) - tables == Approx(40e9).epsilon(0.005));
  CHECK(active(m) == layers + 75 * (h * 256 + 9 * expert) + tables);
  // A token caches its 576-wide latent (bf16) and the indexer's 128-wide key (fp8 and an fp32
  // scale: 132 bytes) in every layer.
  CHECK(cache_at_32k(m) == 78 * (576 * 2 + 132) * 32'768.0);
}

TEST_CASE("MiniMax-M2.5: 228.7 B (MiniMax: 230 B), 9.80 B active without the tables (10 B), 230.0 GB in fp8 blocks") {
  const ModelSpec m = config("minimax-m2.5");
  // modules_to_not_convert names the router (gate), its correction bias and the head: none a
  // class of block linears, so attention and experts are fp8 128 × 128 blocks.
  REQUIRE(m.quantization);
  CHECK(m.quantization->of(TensorClass::attention) == WeightFormat::fp8_block);
  CHECK(m.quantization->of(TensorClass::experts) == WeightFormat::fp8_block);
  CHECK_FALSE(m.quantization->of(TensorClass::lm_head));
  const double h = 3072, attention = h * 6144 * 2 + 2 * h * 1024, expert = 3 * h * 1536, table = 200'064 * h;
  const double small = 62 * (2 * h + 256 + h * 256) + h;  // norms, Q/K norms, routers, final norm
  CHECK(total(m) == 62 * (attention + 256 * expert) + 2 * table + small);
  CHECK(total(m) == Approx(230e9).epsilon(0.01));
  CHECK(active(m) - 2 * table == Approx(10e9).epsilon(0.025));  // "10 B activated", two digits
  // Every block linear's sides are multiples of 128: one fp32 scale per 16,384 weights exactly.
  const double stored = 62 * (attention + 256 * expert) * (1 + 4.0 / 16'384) + 2 * (2 * table + small);
  CHECK(weight_bytes(m, resolve_precision(m)).total().value() == Approx(stored).epsilon(1e-12));
  CHECK(stored == Approx(230.02e9).epsilon(1e-4));
}

TEST_CASE("MiniMax-M2.5 at tp 4 all-reduces its Q/K norms' variances, 2 fp32 a token and layer - 3,968 B at batch 8") {
  // qk_norm_type per_layer: one RMSNorm over the 48 × 128 queries and one over the 8 × 128 keys.
  // vLLM's MiniMaxM2Attention runs MiniMaxText01RMSNormTP.forward_qk, which under tp > 1
  // all-reduces torch.cat([q_var, k_var], dim=-1) - each token's two fp32 mean squares - once a
  // layer (vllm/model_executor/layers/mamba/linear_attn.py).
  const ModelSpec m = config("minimax-m2.5");
  REQUIRE(m.architecture->qk_norm_per_layer);
  const GpuSpec h100 = io::load_gpu("h100-sxm");  // NVLink at 450 GB/s
  Workload w = default_workload(m, 8);
  w.tp = 4;
  const auto named = [](const PhaseResult& p, std::string_view name) {
    return std::find_if(p.ops.begin(), p.ops.end(), [&](const OpResult& o) { return o.cost.name == name; });
  };
  const Report r = evaluate(m, h100, w);
  const auto norm = named(r.decode.step, "allreduce_qk_norm");
  REQUIRE(norm != r.decode.step.ops.end());
  // Decode: 62 layers × 8 rows × 2 × 4 B = 3,968 B in 62 calls over the 4 GPUs. Its bound is
  // the ring's (tp − 1) / tp of it at NVLink's 450 GB/s: 0.75 × 3,968 / 450e9 = 6.6133 ns.
  CHECK(norm->cost.collective == Collective::all_reduce);
  CHECK(norm->cost.group == 4);
  CHECK(norm->cost.comm_calls == 62);
  CHECK(norm->cost.comm_bytes.value() == 62 * 8 * 2 * 4.0);
  CHECK(norm->time.value() == Approx(0.75 * 3968 / 450e9));
  // The step's collectives: the embedding's rows 8 × 3,072 × 2 B = 49,152, the attention's and the
  // experts' all-reduces 2 × 62 × 8 × 3,072 × 2 = 6,094,848, the logits' gather 8 × 200,064 × 2 =
  // 3,201,024, and the norms' 3,968: 9,348,992 B (9,345,024 without). Their bound, 0.75 × the
  // bytes at 450 GB/s: 15.5817 us (15.5750 us without).
  double comm = 0;
  for (const OpResult& o : r.decode.step.ops) comm += o.cost.comm_bytes.value();
  CHECK(comm == 9'348'992.0);
  CHECK(r.decode.step.comm_time.value() == Approx(0.75 * 9'348'992 / 450e9));
  // Prefill: 512 tokens of each of the 8 sequences, 62 × 4,096 × 8 B = 2,031,616 B.
  const auto prefill = named(r.prefill, "allreduce_qk_norm");
  REQUIRE(prefill != r.prefill.ops.end());
  CHECK(prefill->cost.comm_bytes.value() == 62 * 8 * 512 * 8.0);
  // One GPU holds every head, and so does each GPU under data-parallel attention: no collective.
  w.tp = 1;
  const Report one = evaluate(m, h100, w);
  CHECK(named(one.decode.step, "allreduce_qk_norm") == one.decode.step.ops.end());
  w.tp = 4;
  w.ep = 4;
  w.dp_attention = true;
  const Report dp = evaluate(m, h100, w);
  CHECK(named(dp.decode.step, "allreduce_qk_norm") == dp.decode.step.ops.end());
  // The command line lists it among the decode step's operators.
  const CliResult cli = run_cli({"-m", data_file("hf-configs/minimax-m2.5.json"), "-g", "h100-sxm", "--tp", "4",
                                 "-b", "8", "--ops", "-f", "json"});
  REQUIRE(cli.code == 0);
  const auto ops = nlohmann::json::parse(cli.out)["ops"];
  CHECK(std::any_of(ops.begin(), ops.end(), [](const nlohmann::json& o) {
    return o["phase"] == "decode" && o["name"] == "allreduce_qk_norm";
  }));
  // The reader: per_layer is MiniMaxM2Config's default; per_head norms each head on its own GPU.
  const std::string text = read_text(data_file("hf-configs/minimax-m2.5.json"));
  const auto read = [](std::string json) { return *io::read_model(io::parse_yaml(json, "minimax.json")).architecture; };
  const std::string field = R"("qk_norm_type": "per_layer",)";
  REQUIRE(text.find(field) != std::string::npos);
  std::string left_out = text, per_head = text;
  left_out.erase(left_out.find(field), field.size());
  per_head.replace(per_head.find(field), field.size(), R"("qk_norm_type": "per_head",)");
  CHECK(read(left_out).qk_norm_per_layer);
  CHECK_FALSE(read(per_head).qk_norm_per_layer);
  CHECK(read(per_head).qk_norm);
}

TEST_CASE("ERNIE-4.5-21B-A3B: 21.83 B (Baidu: 21.8 B), 3.09 B active without the table (3 B), MoE from layer 1") {
  const ModelSpec m = config("ernie-4.5-21b-a3b-subset");
  const Architecture& a = *m.architecture;
  CHECK(a.moe->dense_layers == 1);  // moe_layer_start_index 1
  CHECK(a.moe->shared_experts == 2);
  CHECK(a.moe->top_k == 6);
  const double h = 2560, attention = h * 2560 * 2 + 2 * h * 512, expert = 3 * h * 1536, table = 103'424 * h;
  const double shared = 28 * (attention + 2 * h) + 3 * h * 12'288 + table + h;
  CHECK(total(m) == shared + 27 * (h * 64 + 66 * expert));
  CHECK(total(m) == Approx(21.8e9).epsilon(0.005));
  CHECK(active(m) - table == Approx(3e9).epsilon(0.03));  // "A3B"
}

TEST_CASE("SmolLM3-3B: 3.08 B (Hugging Face: 3.08 B) - the layers without RoPE change no count") {
  const ModelSpec m = config("smollm3-3b-shape");
  const double h = 2048;
  CHECK(total(m) == 36 * (h * 2048 * 2 + 2 * h * 512 + 3 * h * 11'008 + 2 * h) + 128'256 * h + h);
  CHECK(total(m) == Approx(3.08e9).epsilon(0.005));
  CHECK(m.architecture->mixer_pattern.empty());  // every layer attends fully
}

TEST_CASE("Step-3.7-Flash: 195.8 B, 10.86 B active (Step-3.5-Flash's 196 B, 11 B) - sliding layers and 288 experts") {
  const ModelSpec m = config("step-3.7-flash-aic");
  const Architecture& a = *m.architecture;
  CHECK(a.mixer_pattern == std::vector<Mixer>{Mixer::full, Mixer::sliding, Mixer::sliding, Mixer::sliding});
  CHECK(a.sliding_window == 512);
  CHECK(a.moe->dense_layers == 3);
  CHECK(a.moe->shared_experts == 1);  // share_expert_dim 1280
  CHECK(a.mtp_modules == 3);
  const double h = 4096, attention = h * 8192 * 2 + 2 * h * 1024, expert = 3 * h * 1280;
  const double shared = 45 * (attention + 2 * h) + 3 * (3 * h * 11'264) + 2 * 128'896 * h + h;
  CHECK(total(m) == shared + 42 * (h * 288 + 289 * expert));
  CHECK(active(m) == shared + 42 * (h * 288 + 9 * expert));
}

TEST_CASE("Qwen3-Coder-480B-A35B: 480.2 B (Qwen: 480 B), 35.47 B active (35 B) - qkv_bias and use_qk_norm restate the family") {
  const ModelSpec m = config("qwen3-coder-480b-a35b");
  const double h = 6144, attention = h * 12'288 * 2 + 2 * h * 1024 + 256, expert = 3 * h * 2560;
  const double tables = 2 * 151'936 * h + h;
  CHECK(total(m) == 62 * (attention + 2 * h + h * 160 + 160 * expert) + tables);
  CHECK(total(m) == Approx(480e9).epsilon(0.005));
  CHECK(active(m) == 62 * (attention + 2 * h + h * 160 + 8 * expert) + tables);
  CHECK(active(m) == Approx(35e9).epsilon(0.015));
  CHECK_FALSE(m.architecture->attention_bias);
  CHECK(m.architecture->qk_norm);
}

TEST_CASE("Kimi-K2-Thinking: int4 routed experts beside bf16 shared experts, read from compressed-tensors: 594.2 GB") {
  const ModelSpec m = config("kimi-k2-thinking");
  // ignore: the head, every self_attn, the shared experts, and the dense layer's MLP by one group
  // of alternatives (`mlp\.(gate|up|gate_up|down)_proj`): all but the routed experts stay bf16.
  REQUIRE(m.quantization);
  CHECK(m.quantization->of(TensorClass::experts) == WeightFormat::int4);
  CHECK(m.quantization->of(TensorClass::shared_experts) == WeightFormat::bf16);
  CHECK_FALSE(m.quantization->of(TensorClass::attention));
  CHECK_FALSE(m.quantization->of(TensorClass::dense_ffn));
  CHECK(m.quantization->group_size == 32);
  // 60 MoE layers × 384 experts × 3·7168·2048 routed weights at 4 bits and a 16-bit scale per 32
  // (0.5625 bytes); the other 11,722,185,728 parameters in bf16.
  const double routed = 60 * 384 * 3 * 7168.0 * 2048;
  CHECK(total(m) - routed == 11'722'185'728.0);
  const double stored = routed * 0.5625 + (total(m) - routed) * 2;
  CHECK(weight_bytes(m, resolve_precision(m)).total().value() == Approx(stored).epsilon(1e-12));
  CHECK(stored == 594'205'259'776.0);  // Moonshot's checkpoint: 594 GB
}

TEST_CASE("Laguna XS 2.1 (its published shape): 33.44 B, 3.02 B active - 48 heads on full layers, 64 on sliding, a gate a head") {
  const ModelSpec m = config("laguna-xs-2.1-shape");
  const Architecture& a = *m.architecture;
  CHECK(a.heads == 64);  // num_attention_heads_per_layer: the sliding layers'
  REQUIRE(a.full_attention);
  CHECK(a.full_attention->heads == 48);
  CHECK(a.full_attention->kv_heads == 8);
  CHECK_FALSE(a.full_attention->shared_kv);
  CHECK(a.head_gate);  // gating: per-head
  // LagunaConfig's mlp_layer_types, left out here: the first layer dense (the mlp_only_layers [0]
  // this shape writes, for readers that still read it, says the same).
  CHECK(a.moe->dense_layers == 1);
  // Sliding layer: Q 2048·8192, K, V 2048·1024, O 8192·2048, g_proj 2048·64, Q/K norms 2·128;
  // full layer: Q 2048·6144, K, V, O 6144·2048, g_proj 2048·48, Q/K norms. Layer 0's dense MLP
  // 3·2048·8192; 39 MoE layers: router 2048·256, 256 routed and 1 shared expert of 3·2048·512.
  // (The router's 256 correction biases a layer, LagunaTopKRouter.e_score_correction_bias, 9,984 in
  // all, are not counted, as DeepSeek-V3's are not.)
  const double h = 2048, expert = 3 * h * 512;
  const double sliding = h * 8192 + 2 * h * 1024 + 8192 * h + h * 64 + 256;
  const double full = h * 6144 + 2 * h * 1024 + 6144 * h + h * 48 + 256;
  const double rest = 30 * sliding + 10 * full + 40 * 2 * h + 3 * h * 8192 + 2 * 100'352 * h + h;
  CHECK(total(m) == rest + 39 * (h * 256 + 257 * expert));
  CHECK(total(m) == 33'442'607'104.0);
  CHECK(active(m) == rest + 39 * (h * 256 + 9 * expert));
  // 10 full layers keep every token's 2 × 8 × 128, 30 sliding ones the last 512.
  CHECK(cache_at_32k(m) == (10 * 32'768 + 30 * 512) * (2 * 8 * 128 * 2.0));
}

TEST_CASE("Gemma 4 E4B (its published shape): 7.46 B - per-layer inputs, 18 layers reading earlier layers' cache") {
  const ModelSpec m = config("gemma-4-e4b-shape");
  const Architecture& a = *m.architecture;
  CHECK(a.per_layer_input == 256);
  CHECK(a.kv_shared_layers == 18);
  CHECK(a.kv_shared_ffn == 0);  // use_double_wide_mlp: false
  // No layer_types in this shape: transformers' 5 sliding to 1 full, so layers 5, 11, ... 41 are
  // full; the first 24 keep their cache (20 sliding, 4 full), the last 18 (15 and 3) read it.
  const double h = 2560;
  const double sliding = h * 2048 * 2 + h * 512 * 2 + 512, full = h * 4096 * 2 + h * 1024 * 2 + 1024;
  const double sliding_reader = h * 2048 * 2 + 256, full_reader = h * 4096 * 2 + 512;  // Q and O, the Q norm
  const double ffn = 2 * h + 3 * h * 10'240;
  // Per-layer inputs: a 262,144 × (42·256) table, a 2560 → 42·256 projection and its norm; in each
  // layer a 2560 → 256 gate, a 256 → 2560 projection and a norm.
  const double inputs = 262'144 * 42 * 256.0 + h * 42 * 256 + 256 + 42 * (2 * h * 256 + h);
  CHECK(total(m) == 20 * sliding + 4 * full + 15 * sliding_reader + 3 * full_reader + 42 * ffn + inputs +
                        262'144 * h + h);
  CHECK(total(m) == 7'462'798'336.0);
  // Only the 24 owning layers cache: 20 sliding ones 512 tokens of 2 × 2 × 256, 4 full ones every
  // token of 2 × 2 × 512.
  CHECK(cache_at_32k(m) == (20 * 512 * 2 * 2 * 256 + 4 * 32'768 * 2 * 2 * 512) * 2.0);
  // Across pipeline stages the sharing layers would read another stage's cache: refused.
  Workload w = test::default_workload(m, 1);
  w.pp = 2;
  const auto e = validate(w, m, io::load_gpu("h100-sxm"));
  REQUIRE(e);
  CHECK(e->field == "pp");
  // What only cache-sharing layers or per-layer inputs use is refused without them.
  ModelSpec odd = m;
  odd.architecture->kv_shared_layers = 0;
  odd.architecture->kv_shared_ffn = 4096;
  CHECK(validate(odd)->field == "kv_shared_ffn");
  odd = m;
  odd.architecture->per_layer_input = 0;
  CHECK(validate(odd)->field == "per_layer_vocab");
}

TEST_CASE("Nemotron 3 Super: 120.67 B and 12.77 B active, as its safetensors count without the MTP module - latent experts") {
  const ModelSpec m = config("nemotron-3-super-120b-a12b");
  const Architecture& a = *m.architecture;
  CHECK(a.moe->latent == 1024);  // moe_latent_size
  CHECK(a.moe->top_k == 22);
  CHECK(a.moe->shared_experts == 2);  // 5376 = 2 × 2688, at the full width
  // 40 Mamba-2 layers: in_proj 4096·(2·8192 + 2·8·128 + 128), a biased 4-tap convolution over
  // 8192 + 2048 channels, 3 per head, the gated norm 8192, out_proj 8192·4096; 8 attention layers:
  // Q, O 4096·4096, K, V 4096·256; 40 MoE layers: router 4096·512, the latent projections
  // 4096·1024 and 1024·4096, 512 experts of up and down 1024·2688 in the latent, the shared
  // expert 2·4096·5376 at full width. A norm a layer, two 131,072 × 4096 tables, the final norm.
  const double h = 4096, mamba = h * 18'560 + 10'240 * 5.0 + 384 + 8192 + 8192 * h;
  const double attention = 2 * h * 4096 + 2 * h * 256, expert = 2 * 1024 * 2688.0;
  const double moe = h * 512 + 2 * h * 1024 + 2 * h * 5376;
  const double rest = 40 * (h + mamba) + 8 * (h + attention) + 40 * h + 2 * 131'072 * h + h;
  CHECK(total(m) == rest + 40 * (moe + 512 * expert));
  CHECK(active(m) == rest + 40 * (moe + 22 * expert));
  // A third-party count of the checkpoint's safetensors headers: 123,611,012,096 weights, of which
  // 2,942,324,736 are the MTP module's (not priced), and 12,770,216,960 active.
  CHECK(total(m) == 123'611'012'096.0 - 2'942'324'736.0);
  CHECK(active(m) == 12'770'216'960.0);
  // Under data-parallel attention the tokens cross to their experts 1024 wide, not 4096.
  Workload w = test::default_workload(m, 8);
  w.tp = w.ep = 8;
  w.dp_attention = true;
  const LayerStack stack = describe_layers(a, sharding(w));
  bool dispatched = false;
  for (const Block& b : stack.blocks) {
    for (const PhasedStep& s : b.steps) {
      if (const auto* c = std::get_if<CollectiveStep>(&s.step); c && c->name == "moe_dispatch") {
        CHECK(c->width == 1024);
        dispatched = true;
      }
    }
  }
  CHECK(dispatched);
}

TEST_CASE("Qwen3-235B-A22B: 235.09 B (Qwen: 235 B), 22.19 B active (22 B) - Qwen3-VL's text decoder without its tower") {
  const ModelSpec m = config("qwen3-235b-a22b");
  const double h = 4096, attention = h * 8192 * 2 + 2 * h * 512 + 256, expert = 3 * h * 1536;
  const double tables = 2 * 151'936 * h + h;
  CHECK(total(m) == 94 * (attention + 2 * h + h * 128 + 128 * expert) + tables);
  CHECK(total(m) == Approx(235e9).epsilon(0.005));
  CHECK(active(m) == 94 * (attention + 2 * h + h * 128 + 8 * expert) + tables);
  CHECK(active(m) == Approx(22e9).epsilon(0.01));
  // The same decoder as Qwen3-VL-235B-A22B's text config.
  const ModelSpec vl = config("qwen3-vl-235b-a22b-thinking-aic");
  CHECK(total(vl) - vl.architecture->tower_params == total(m));
}

TEST_CASE("gpt-oss-120b: 116.79 B (OpenAI: 116.83 B with the biases not modelled), 5.13 B active without the embedding (5.1 B)") {
  const ModelSpec m = config("gpt-oss-120b");
  // Per layer: Q 2880·4096, K, V 2880·512, O 4096·2880, Q/K/V biases 5120, 64 sinks; 128 experts
  // of 3·2880·2880, router 2880·128, norms 2·2880. Two 201,088 × 2880 tables, the final norm.
  const double attention = 2880 * 4096.0 * 2 + 2 * 2880 * 512.0 + 5120 + 64, expert = 3 * 2880 * 2880.0;
  const double table = 201'088 * 2880.0, rest = 2880 * 128 + 2 * 2880;
  CHECK(total(m) == 36 * (attention + 128 * expert + rest) + 2 * table + 2880);
  // OpenAI's 116.83 B also counts O's, the experts' and the router's biases (39.9 M, 0.03 %).
  CHECK(total(m) + 36 * 2880 + 36 * 128 * 8640 + 36 * 128 == 116'829'156'672.0);
  CHECK(active(m) - table == Approx(5.13e9).epsilon(0.005));
  CHECK(m.quantization->of(TensorClass::experts) == WeightFormat::mxfp4);
}
