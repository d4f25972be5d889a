// `quantization_config` read into ModelSpec::quantization: the format each tensor class is stored
// in, the modules a quantizer leaves alone mapped onto classes, and what cannot be mapped refused
// at the field. (The bytes of each format are the engine's, model/weight_format.cpp.)
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "cli_runner.hpp"
#include "model/parameters.hpp"

using namespace roofline;

namespace {

// A small Mixtral-shaped model (attention and experts, no dense FFN) with this quantization_config.
ModelSpec moe_with(const std::string& quantization) {
  return io::read_model(io::parse_yaml(R"({"architectures": ["MixtralForCausalLM"], "hidden_size": 64,
"num_attention_heads": 4, "num_key_value_heads": 4, "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100,
"num_local_experts": 4, "num_experts_per_tok": 2, "torch_dtype": "bfloat16", "sliding_window": null,
"quantization_config": )" + quantization + "}",
                                       "q.json"));
}

// A small dense Llama.
ModelSpec dense_with(const std::string& quantization) {
  return io::read_model(io::parse_yaml(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64,
"num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100,
"torch_dtype": "float16", "quantization_config": )" + quantization + "}",
                                       "q.json"));
}

using F = std::optional<WeightFormat>;
// attention, dense_ffn, experts, lm_head, embedding (shared experts, which these models lack, apart)
std::vector<F> formats(const ModelSpec& m) {
  REQUIRE(m.quantization);
  CHECK_FALSE(m.quantization->of(TensorClass::shared_experts));
  return {m.quantization->formats.begin(), m.quantization->formats.begin() + 5};
}
const F none = std::nullopt;

}  // namespace

TEST_CASE("quantization: fp8 with 128 × 128 blocks, per tensor without them, per channel for fbgemm") {
  const std::string block = R"({"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [128, 128]})";
  CHECK(formats(moe_with(block)) == std::vector<F>{WeightFormat::fp8_block, none, WeightFormat::fp8_block, none, none});
  CHECK(formats(dense_with(R"({"quant_method": "fp8", "activation_scheme": "static"})")) ==
        std::vector<F>{WeightFormat::fp8, WeightFormat::fp8, none, none, none});
  CHECK(formats(dense_with(R"({"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0,
"modules_to_not_convert": ["lm_head"]})")) ==
        std::vector<F>{WeightFormat::fp8_channel, WeightFormat::fp8_channel, none, none, none});
  CHECK_THROWS_WITH(dense_with(R"({"quant_method": "fp8", "weight_block_size": [64, 64]})"),
                    Catch::Contains("quantization_config.weight_block_size: only 128 × 128 blocks"));
  CHECK_THROWS_WITH(dense_with(R"({"quant_method": "fp8", "fmt": "e3m4"})"), Catch::Contains("\"e3m4\" is not an fp8 element"));
}

TEST_CASE("quantization: MXFP4 converts the experts only - the modules left alone are mapped onto classes") {
  const ModelSpec m = moe_with(R"({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn",
"model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]})");
  CHECK(formats(m) == std::vector<F>{none, none, WeightFormat::mxfp4, none, none});
  // Leaving the experts out too leaves nothing quantized: no quantization.
  CHECK_FALSE(moe_with(R"({"quant_method": "mxfp4", "modules_to_not_convert": ["re:.*mlp.experts.*"]})").quantization);
}

TEST_CASE("quantization: AWQ and GPTQ int4 with their group and zero points - other widths refused at `bits`") {
  const ModelSpec awq = dense_with(R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true,
"version": "gemm", "modules_to_not_convert": null})");
  CHECK(formats(awq) == std::vector<F>{WeightFormat::awq, WeightFormat::awq, none, none, none});
  CHECK(awq.quantization->group_size == 128);
  // Without zero points AWQ is symmetric int4: a scale per group only.
  CHECK(formats(dense_with(R"({"quant_method": "awq", "bits": 4, "group_size": 64, "zero_point": false})"))[0] ==
        WeightFormat::int4);
  const ModelSpec gptq = dense_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 32, "desc_act": true,
"sym": true, "damp_percent": 0.01, "lm_head": true})");
  CHECK(formats(gptq) == std::vector<F>{WeightFormat::gptq, WeightFormat::gptq, none, WeightFormat::gptq, none});
  CHECK(gptq.quantization->group_size == 32);
  CHECK_THROWS_WITH(dense_with(R"({"quant_method": "gptq", "bits": 8, "group_size": 128})"),
                    Catch::Contains("quantization_config.bits: only 4-bit AWQ and GPTQ weights"));
  CHECK_THROWS_WITH(dense_with(R"({"quant_method": "awq", "bits": 4, "group_size": -1})"),
                    Catch::Contains("quantization_config.group_size: -1"));
}

TEST_CASE("quantization: NVFP4 from ModelOpt, and compressed-tensors' schemes read from their weights") {
  const ModelSpec modelopt = moe_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
"kv_cache_quant_algo": "FP8", "exclude_modules": ["lm_head", "model.layers.*.self_attn"]})");
  CHECK(formats(modelopt) == std::vector<F>{none, none, WeightFormat::nvfp4, none, none});
  // With the "version" every llm-compressor checkpoint carries (refused until session 45).
  const auto compressed = [](const std::string& weights, const std::string& ignore) {
    return dense_with(R"({"quant_method": "compressed-tensors", "format": "pack-quantized", "quantization_status":
"compressed", "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": null, "weights": )" +
                      weights + R"(}}, "ignore": )" + ignore + R"(, "version": "0.14.0"})");
  };
  const ModelSpec w4a16 = compressed(R"({"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128,
"symmetric": true, "dynamic": false, "actorder": null, "observer": "minmax", "observer_kwargs": {}})", R"(["lm_head"])");
  CHECK(formats(w4a16) == std::vector<F>{WeightFormat::int4, WeightFormat::int4, none, none, none});
  CHECK(w4a16.quantization->group_size == 128);
  CHECK(formats(compressed(R"({"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true})",
                           R"(["lm_head"])"))[1] == WeightFormat::fp8_channel);
  CHECK(formats(compressed(R"({"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16})",
                           R"(["lm_head"])"))[0] == WeightFormat::nvfp4);
  CHECK_THROWS_WITH(compressed(R"({"num_bits": 2, "type": "int", "strategy": "group", "group_size": 16})", "[]"),
                    Catch::Contains("weights.strategy: 2-bit int weights with strategy group are not a format"));
  // One layer's module cannot be priced per class.
  CHECK_THROWS_WITH(compressed(R"({"num_bits": 8, "type": "float", "strategy": "tensor"})",
                               R"(["lm_head", "model.layers.0.mlp.down_proj"])"),
                    Catch::Contains("quantization_config.ignore: \"model.layers.0.mlp.down_proj\" names part of a "
                                    "tensor class"));
}

TEST_CASE("quantization: a checkpoint that quantizes its activations computes in their format - weight-only ones do not") {
  // fp8 (either scheme), FBGEMM's fp8 and ModelOpt's FP8 quantize each token's activations as they
  // run: W8A8. NVFP4 from ModelOpt is W4A4. AWQ and MXFP4 unpack their weights: no compute format.
  const auto compute = [](const ModelSpec& m) { return m.quantization->compute; };
  CHECK(compute(dense_with(R"({"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]})")) ==
        DType::fp8);
  CHECK(compute(dense_with(R"({"quant_method": "fp8", "activation_scheme": "static"})")) == DType::fp8);
  CHECK(compute(dense_with(R"({"quant_method": "fbgemm_fp8"})")) == DType::fp8);
  CHECK(compute(moe_with(R"({"quant_method": "modelopt", "quant_algo": "FP8"})")) == DType::fp8);
  CHECK(compute(moe_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16})")) == DType::fp4);
  CHECK_FALSE(compute(dense_with(R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true})")));
  CHECK_FALSE(compute(moe_with(R"({"quant_method": "mxfp4"})")));
  CHECK_THROWS_WITH(dense_with(R"({"quant_method": "fp8", "activation_scheme": "per-head"})"),
                    Catch::Contains("quantization_config.activation_scheme: \"per-head\" is not an fp8 activation scheme"));
  // compressed-tensors: each scheme's input_activations, null for weight-only.
  const auto scheme = [](const std::string& weights, const std::string& inputs) {
    return dense_with(R"({"quant_method": "compressed-tensors", "format": "float-quantized", "ignore": ["lm_head"],
"config_groups": {"group_0":
{"targets": ["Linear"], "weights": )" + weights + R"(, "input_activations": )" + inputs + "}}}");
  };
  const std::string fp8_weights = R"({"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true})";
  CHECK(compute(scheme(fp8_weights, R"({"num_bits": 8, "type": "float", "strategy": "token", "dynamic": true})")) ==
        DType::fp8);
  CHECK(compute(scheme(R"({"num_bits": 8, "type": "int", "strategy": "channel", "symmetric": true})",
                       R"({"num_bits": 8, "type": "int", "strategy": "token", "dynamic": true, "symmetric": true})")) ==
        DType::int8);
  CHECK_FALSE(compute(scheme(fp8_weights, "null")));
  CHECK_THROWS_WITH(scheme(fp8_weights, R"({"num_bits": 16, "type": "float"})"),
                    Catch::Contains("input_activations.num_bits: 16-bit float activations are not a compute format"));
  // Two schemes computing in two formats: one workload computes in one.
  CHECK_THROWS_WITH(dense_with(R"({"quant_method": "compressed-tensors", "config_groups": {
"a": {"targets": ["re:.*self_attn.*"], "weights": {"num_bits": 8, "type": "float", "strategy": "tensor"},
      "input_activations": {"num_bits": 8, "type": "float"}},
"b": {"targets": ["re:.*mlp.*"], "weights": {"num_bits": 8, "type": "int", "strategy": "channel"},
      "input_activations": {"num_bits": 8, "type": "int"}}}})"),
                    Catch::Contains("input_activations: a second compute format"));
}

TEST_CASE("quantization: a recurrent layer's gates left out of fp8 blocks change nothing, a big input projection is one matrix") {
  // Qwen3-Next-80B-A3B in fp8 128 × 128 blocks. Its 36 DeltaNet layers' in_proj_ba is 2048 × 64,
  // narrower than one 128-wide block: Qwen's FP8 checkpoint lists it per layer in
  // modules_to_not_convert, and rooflineplan keeps it in bf16 under fp8-block anyway
  // (LinearStep::block_exempt): 36 × (2048 × 64 × 2 − (2048 × 64 + 16 blocks × 4)) = 36 × 131,008
  // = 4,716,288 B more than all-fp8. Naming it (every layer's, one layer's, or in_proj_a and
  // in_proj_b) covers nothing. Read as the whole `linear_attn` (the attention class kept in
  // bf16), "*linear_attn.in_proj_ba" once cost 1.54 GB (80.37 -> 81.91 GB of weights). The big
  // projections (in_proj_qkvz; Qwen3.5's in_proj_qkv, in_proj_z) are one matrix of the attention
  // class, refused as `q_proj` is, never the class. The convolution (conv1d, 4 taps a channel) is
  // priced in 16 bits whatever the list says: left out, it changes nothing.
  const std::string config = test::read_text(test::data_file("hf-configs/qwen3-next-80b-a3b.json"));
  const auto brace = config.rfind('}');
  REQUIRE(brace != std::string::npos);
  const auto quantized = [&](const std::string& excluded, const std::string& block) {
    std::string c = config;
    c.insert(brace, R"(, "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",)" +
                        block + R"("modules_to_not_convert": ["lm_head", "*mlp.gate", "*mlp.shared_expert_gate")" +
                        excluded + "]}");
    return io::read_model(io::parse_yaml(c, "qwen3-next.json"));
  };
  const auto with = [&](const std::string& excluded) { return quantized(excluded, R"("weight_block_size": [128, 128],)"); };
  const ModelSpec plain = with("");
  REQUIRE(plain.quantization->of(TensorClass::attention) == WeightFormat::fp8_block);
  const Precision prec = resolve_precision(plain);
  const double bytes = weight_bytes(plain, prec).total().value();
  CHECK(bytes == Approx(80.37e9).epsilon(1e-3));
  LayerStack all_fp8 = describe_layers(*plain.architecture, 1);
  for (Block& b : all_fp8.blocks) {
    for (PhasedStep& s : b.steps) {
      if (auto* l = std::get_if<LinearStep>(&s.step)) l->block_exempt = false;
    }
  }
  CHECK(bytes - weight_bytes(all_fp8, prec).total().value() == 4'716'288.0);
  for (const std::string gates : {"*linear_attn.in_proj_ba", "model.layers.0.linear_attn.in_proj_ba",
                                  "model.layers.*.linear_attn.in_proj_ba", "re:.*linear_attn\\\\.in_proj_(a|b)",
                                  "model.layers.3.linear_attn.in_proj_a"}) {
    INFO(gates);
    const ModelSpec m = with(", \"" + gates + "\"");
    CHECK(m.quantization->of(TensorClass::attention) == WeightFormat::fp8_block);
    CHECK(weight_bytes(m, resolve_precision(m)).total().value() == bytes);
  }
  // Qwen's own list names each layer's gates: all 36 of them are still the same weights.
  std::string every;
  for (int layer = 0; layer < 48; ++layer) {
    if (layer % 4 != 3) every += fmt::format(", \"model.layers.{}.linear_attn.in_proj_ba\"", layer);
  }
  const ModelSpec listed = with(every);
  CHECK(weight_bytes(listed, resolve_precision(listed)).total().value() == bytes);
  for (const std::string matrix : {"model.layers.*.linear_attn.in_proj_qkvz", "*linear_attn.in_proj_z",
                                   "model.layers.0.linear_attn.in_proj_qkvz", "*linear_attn.in_proj_qkv"}) {
    INFO(matrix);
    CHECK_THROWS_WITH(with(", \"" + matrix + "\""), Catch::Contains("names part of a tensor class"));
  }
  // Per-tensor fp8 (no blocks) quantizes the gates with the class: naming them is one matrix, refused.
  CHECK_THROWS_WITH(quantized(R"(, "*linear_attn.in_proj_ba")", ""), Catch::Contains("names part of a tensor class"));
  for (const std::string conv : {"*linear_attn.conv1d", "re:.*linear_attn\\\\.conv1d", "backbone.layers.*.mixer.conv1d"}) {
    INFO(conv);
    const ModelSpec m = with(", \"" + conv + "\"");
    CHECK(m.quantization->of(TensorClass::attention) == WeightFormat::fp8_block);
    CHECK(weight_bytes(m, resolve_precision(m)).total().value() == bytes);
  }
  // A short name is matched whole: GPT-2's `attn` is its attention (not the `c_attn` matrix),
  // kept in the model's dtype while the MLPs are converted.
  const ModelSpec gpt2 = io::read_model(io::parse_yaml(R"({"architectures": ["GPT2LMHeadModel"], "n_layer": 2,
"n_embd": 64, "n_head": 4, "vocab_size": 100, "n_positions": 128, "torch_dtype": "bfloat16",
"quantization_config": {"quant_method": "fp8", "modules_to_not_convert": ["transformer.h.*.attn"]}})",
                                                       "gpt2.json"));
  CHECK_FALSE(gpt2.quantization->of(TensorClass::attention));
  CHECK(gpt2.quantization->of(TensorClass::dense_ffn) == WeightFormat::fp8);
}

TEST_CASE("quantization: what cannot be mapped is refused, naming the field") {
  CHECK_THROWS_WITH(dense_with(R"({"quant_method": "bitsandbytes", "load_in_4bit": true})"),
                    Catch::Contains("quantization_config.quant_method: \"bitsandbytes\" is not a quantization "
                                    "rooflineplan reads"));
  CHECK_THROWS_WITH(dense_with(R"({"quant_method": "awq", "bits": 4, "group_size": 128,
"modules_to_not_convert": ["model.layers.*.mlp.shared_expert.up_proj"]})"),
                    Catch::Contains("\"model.layers.*.mlp.shared_expert.up_proj\" names part of a tensor class"));
  // A group of alternatives is a class only where it names a whole FFN's matrices.
  CHECK_THROWS_WITH(dense_with(R"({"quant_method": "awq", "bits": 4, "group_size": 128,
"modules_to_not_convert": ["re:.*mlp\\.(gate|up)_proj"]})"),
                    Catch::Contains("names part of a tensor class"));
  CHECK_THROWS_WITH(dense_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128,
"modules_in_block_to_quantize": [["self_attn.q_proj"]]})"),
                    Catch::Contains("modules_in_block_to_quantize"));
  // A field of the quantization config that is not read is refused like any other.
  CHECK_THROWS_WITH(dense_with(R"({"quant_method": "fp8", "weight_per_row_scales": true})"),
                    Catch::Contains("quantization_config.weight_per_row_scales: not a field rooflineplan reads"));
}

namespace {

// A checkpoint folder: config.json without quantization_config, and ModelOpt's hf_quant_config.json.
std::string modelopt_checkpoint(const std::string& name, const std::string& quant) {
  // One folder per process: a sanitizer build's tests may run beside these.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rooflineplan-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64,
"num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100,
"torch_dtype": "bfloat16"})";
  std::ofstream(dir / "hf_quant_config.json") << quant;
  return (dir / "config.json").string();
}

}  // namespace

TEST_CASE("quantization: a bare `experts` left unconverted names the shared experts too, `mlp.experts` the routed only") {
  const std::string qwen = R"({"architectures": ["Qwen2MoeForCausalLM"], "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 4,
"num_hidden_layers": 2, "moe_intermediate_size": 32, "shared_expert_intermediate_size": 32, "num_experts": 4,
"num_experts_per_tok": 2, "vocab_size": 100, "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "fp8",
"weight_block_size": [128, 128], )";
  // transformers matches the names as substrings: "experts" is in "shared_experts".
  const ModelSpec bare = io::read_model(io::parse_yaml(qwen + R"("modules_to_not_convert": ["experts"]}})", "q.json"));
  CHECK_FALSE(bare.quantization->of(TensorClass::experts));
  CHECK(resolve_precision(bare).of(TensorClass::shared_experts) == WeightFormat::bf16);
  const ModelSpec routed =
      io::read_model(io::parse_yaml(qwen + R"("modules_to_not_convert": ["mlp.experts"]}})", "q.json"));
  CHECK(routed.quantization->of(TensorClass::shared_experts) == WeightFormat::fp8_block);
  CHECK(resolve_precision(routed).of(TensorClass::experts) == WeightFormat::bf16);
}

TEST_CASE("ModelOpt: hf_quant_config.json beside config.json gives the formats, and says so") {
  const std::string path = modelopt_checkpoint("nvfp4", R"({"producer": {"name": "modelopt", "version": "0.29.0"},
"quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8", "group_size": 16, "exclude_modules": ["lm_head"]}})");
  const ModelSpec m = io::load_model(path);
  REQUIRE(m.quantization);
  CHECK(m.quantization->of(TensorClass::attention) == WeightFormat::nvfp4);
  CHECK(m.quantization->of(TensorClass::dense_ffn) == WeightFormat::nvfp4);
  CHECK_FALSE(m.quantization->of(TensorClass::lm_head));
  CHECK(std::find(m.assumptions.begin(), m.assumptions.end(), Assumption::quantization_beside) != m.assumptions.end());
  // The 2 layers' linears (Q, K, V, O 4·64·64 and 3·64·128 = 40,960 a layer) at 4.5 bits a
  // weight and an fp32 scale a matrix (7 a layer), the two tables and the norms in bf16.
  const double linears = 2 * 40'960.0;
  const double stored = linears * 4.5 / 8 + 2 * 7 * 4 + 2 * (2 * 100 * 64.0 + 2 * 2 * 64 + 64);
  CHECK(weight_bytes(m, resolve_precision(m)).total().value() == Approx(stored).epsilon(1e-12));
  // A ModelOpt format rooflineplan does not name is refused in that file, at its field.
  const std::string awq = modelopt_checkpoint("w4a8", R"({"quantization": {"quant_algo": "W4A8_AWQ"}})");
  CHECK_THROWS_WITH(io::load_model(awq), Catch::Contains("hf_quant_config.json:1:33: quantization.quant_algo") &&
                                             Catch::Contains("\"W4A8_AWQ\" is not a ModelOpt format"));
}
