// Hugging Face config.json files, read as they are: each family's parameter count against the
// preset or the count its model card publishes.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "model/memory_ledger.hpp"
#include "model/parameters.hpp"

using namespace roofline;

namespace {

ModelSpec hf(const std::string& name) { return io::load_model(test::data_file("hf/" + name + ".json")); }
double params(const ModelSpec& m) { return count_parameters(m).total(); }

}  // namespace

TEST_CASE("HF Llama-2-7B config: 6,738,415,616 parameters and 512 KiB of KV per token, as the preset") {
  const ModelSpec m = hf("llama-2-7b");
  const ModelSpec preset = io::load_model("llama-2-7b");
  CHECK(params(m) == 6'738'415'616.0);
  CHECK(params(m) == params(preset));
  const Precision p = resolve_precision(m);
  // 2 (K and V) × 32 layers × 32 heads × 128 × 2 bytes = 524,288.
  CHECK(kv_bytes_per_token(m, p).value() == 524'288.0);
  CHECK(m.dtype == DType::fp16);
  CHECK(m.max_context == 4096);
  CHECK(m.name == "meta-llama/Llama-2-7b-hf");
}

TEST_CASE("HF configs match the published parameter counts") {
  // Exact where the preset was checked against the safetensors; else the model card's figure to
  // its three digits (Qwen-MoE's 49,152 shared-expert gate weights and Gemma 2's extra norms are
  // not modelled: both under 0.01 %).
  CHECK(params(hf("mistral-7b")) == 7'241'732'096.0);
  CHECK(params(hf("mixtral-8x7b")) == 46'702'792'704.0);
  CHECK(count_parameters(hf("mixtral-8x7b")).active() == 12'879'925'248.0);
  CHECK(params(hf("qwen2.5-7b")) == 7'615'616'512.0);
  CHECK(params(hf("phi-3-mini")) == 3'821'079'552.0);
  CHECK(params(hf("gemma-7b")) == 8'537'680'896.0);
  CHECK(params(hf("gemma-2-9b")) == Approx(9.24e9).epsilon(0.005));
  CHECK(params(hf("qwen1.5-moe-a2.7b")) == Approx(14.3e9).epsilon(0.005));
  CHECK(params(hf("qwen1.5-moe-a2.7b")) == 14'315'784'192.0 - 24 * 2048);
}

TEST_CASE("HF GPT-2: 124,439,808 parameters with LayerNorm, biases everywhere and learned positions") {
  const ModelSpec m = hf("gpt2");
  // wte 50257·768 + wpe 1024·768 + 12 layers × (2 LayerNorms 2·2·768, c_attn 768·2304 + 2304,
  // c_proj 768·768 + 768, c_fc 768·3072 + 3072, mlp c_proj 3072·768 + 768) + ln_f 2·768, tied head.
  const double per_layer = 4 * 768 + (768 * 2304 + 2304) + (768 * 768 + 768) + (768 * 3072 + 3072) + (3072 * 768 + 768);
  CHECK(per_layer == 7'087'872);
  CHECK(params(m) == 50257.0 * 768 + 1024.0 * 768 + 12 * per_layer + 2 * 768);
  CHECK(params(m) == 124'439'808.0);
  // No torch_dtype: priced in bf16 as serving engines load it (transformers would load float32),
  // and the assumption is carried to every output.
  CHECK(m.dtype == DType::bf16);
  CHECK(m.assumptions == std::vector<Assumption>{Assumption::dtype_bf16});
  CHECK(m.max_context == 1024);
  // KV per token: 2 × 12 layers × 768 × 2 bytes = 36,864.
  CHECK(kv_bytes_per_token(m, resolve_precision(m)).value() == 36'864.0);
  // The decode step reads every weight but the two tables (gathered a row at a time): the
  // weights it reads are the 12 layers, the final norm and the tied head (the vocab table).
  const GpuSpec gpu = io::load_gpu("a100-80gb");
  const Report r = evaluate(m, gpu, test::default_workload(m));
  CHECK(r.decode.step.weight_bytes.value() == Approx(2.0 * (12 * per_layer + 2 * 768 + 50257.0 * 768)));
}

TEST_CASE("HF torch_dtype float32: priced in bf16 as serving engines load it, said in every output, fp32 when asked") {
  // vLLM's --dtype auto downcasts a float32 config to bf16 (fp16 before compute capability 8.0;
  // SGLang fp16): 2 bytes a weight, not 4. Llama-3.2-1B, 1.24 B parameters: weights 2.47 GB, not
  // 4.94; K/V 16 layers × 2 × 8 heads × 64 × 2 bytes = 32,768 bytes a token, not 65,536. On an H100
  // at batch 1, prompt 1024: prefill 2.65 ms and decode 0.75 ms as its bfloat16 twin, where fp32
  // weights, cache and the fp32 peak gave 31.9 ms and 1.50 ms.
  std::string fp32 = test::read_text(test::data_file("hf-configs/llama-3.2-1b.json"));
  const auto at = fp32.find("\"bfloat16\"");
  REQUIRE(at != std::string::npos);
  fp32.replace(at, 10, "\"float32\"");
  test::write_temp("llama-fp32.json", fp32);
  const std::string path = test::temp_file("llama-fp32.json");
  const ModelSpec m = io::load_model(path);
  CHECK(m.dtype == DType::bf16);
  CHECK(kv_bytes_per_token(m, resolve_precision(m)).value() == 32'768.0);
  const auto json_of = [](const std::vector<std::string>& args) {
    const auto r = test::run_cli(args);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out);
  };
  const std::vector<std::string> point = {"-g", "h100-sxm", "-b", "1", "-p", "1024", "--format", "json"};
  const auto with = [&](const std::string& model, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"-m", model};
    args.insert(args.end(), point.begin(), point.end());
    args.insert(args.end(), more.begin(), more.end());
    return json_of(args);
  };
  const auto served = with(path), twin = with(test::data_file("hf-configs/llama-3.2-1b.json"));
  CHECK(served["prefill"]["time"].get<double>() == twin["prefill"]["time"].get<double>());
  CHECK(served["decode"]["step_time"].get<double>() == twin["decode"]["step_time"].get<double>());
  CHECK(served["prefill"]["time"].get<double>() == Approx(2.65e-3).epsilon(0.01));
  CHECK(served["decode"]["step_time"].get<double>() == Approx(0.75e-3).epsilon(0.01));
  // Said in every output: the JSON's warnings, the table's and the CSV's stderr.
  const std::string said = "the config gives torch_dtype float32: serving engines load it in 16 bits";
  CHECK_THAT(served["warnings"][0].get<std::string>(), Catch::StartsWith(said));
  CHECK_THAT(test::run_cli({"-m", path, "-g", "h100-sxm"}).err, Catch::Contains("warning: " + said));
  CHECK_THAT(test::run_cli({"-m", path, "-g", "h100-sxm", "--format", "csv"}).err, Catch::Contains(said));
  // Asked for, fp32 still: weights 4 bytes each (4.94 GB), the cache and products in fp32.
  const auto asked = with(path, {"--weights", "fp32", "--activations", "fp32"});
  CHECK(asked["model"]["weight_bytes"].get<double>() == Approx(2 * twin["model"]["weight_bytes"].get<double>()));
  CHECK(asked["prefill"]["time"].get<double>() == Approx(31.9e-3).epsilon(0.01));
  CHECK(asked["decode"]["step_time"].get<double>() == Approx(1.50e-3).epsilon(0.01));
  // convert keeps the assumption: its YAML prices as the config does, and warns the same.
  const auto converted = test::run_cli({"convert", path});
  REQUIRE(converted.code == 0);
  CHECK_THAT(converted.out, Catch::Contains("dtype: bf16") && Catch::Contains("dtype_fp32_as_bf16"));
  test::write_temp("llama-fp32.yaml", converted.out);
  const auto yaml = with(test::temp_file("llama-fp32.yaml"));
  CHECK(yaml["prefill"]["time"].get<double>() == served["prefill"]["time"].get<double>());
  CHECK(yaml["decode"]["step_time"].get<double>() == served["decode"]["step_time"].get<double>());
  CHECK(yaml["warnings"] == served["warnings"]);
}

TEST_CASE("HF DeepSeek-V3: 671 B parameters, 37.6 B active, and a 70,272-byte latent KV cache per token") {
  const ModelSpec m = hf("deepseek-v3");
  // Per layer, latent attention: q_a 7168·1536 + q_b 1536·128·192 + kv_a 7168·576 + kv_b 512·128·256
  // + o 128·128·7168 = 187,105,280, and norms 1536 + 512 + 2·7168. Three dense layers of
  // 3·7168·18432; 58 MoE layers of 256 routed + 1 shared experts of 3·7168·2048 and a 7168·256
  // router; two 129280·7168 tables and the final norm. (The router's 256 correction biases per
  // layer and the multi-token-prediction layer are not counted, as DeepSeek's 671 B does not.)
  const double attention = 7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256 + 128.0 * 128 * 7168;
  CHECK(attention == 187'105'280);
  const double expert = 3.0 * 7168 * 2048;
  const double total = 61 * (attention + 1536 + 512 + 2 * 7168) + 3 * (3.0 * 7168 * 18432) +
                       58 * (257 * expert + 7168.0 * 256) + 2 * 129280.0 * 7168 + 7168;
  CHECK(params(m) == total);
  CHECK(params(m) == 671'026'404'352.0);
  const double active = total - 58 * (256 - 8) * expert;
  CHECK(count_parameters(m).active() == active);
  CHECK(active == Approx(37.55e9).epsilon(0.001));
  // The cache holds the 512-wide latent and the 64-wide shared RoPE key: 61 × 576 × 2 bytes.
  CHECK(kv_bytes_per_token(m, resolve_precision(m)).value() == 70'272.0);
}

TEST_CASE("DeepSeek-V3 decode attends over the latent, read once: 4 × 1000 tokens × 576 × 2 bytes a layer") {
  const ModelSpec m = hf("deepseek-v3");
  Workload w = test::default_workload(m, 4);
  w.context_tokens = 1000;
  const GpuSpec gpu = io::load_gpu("h200");
  const Report r = evaluate(m, gpu, w);
  auto op = [&](std::string_view name) {
    const auto it = std::find_if(r.decode.step.ops.begin(), r.decode.step.ops.end(),
                                 [&](const OpResult& o) { return o.cost.name == name; });
    REQUIRE(it != r.decode.step.ops.end());
    return it->cost;
  };
  // Scores read the absorbed queries (4 × 128 heads × 576, bf16) and the cache; values read no
  // more cache (the same latent) and write 4 × 128 × 512.
  CHECK(op("attn_scores").bytes.value() == 61 * (4.0 * 128 * 576 * 2 + 4.0 * 1000 * 576 * 2));
  CHECK(op("attn_values").bytes.value() == 61 * (4.0 * 128 * 512 * 2));
  // Absorption reads K's and V's up projections once: 128 × 128 × 512 and 128 × 512 × 128 weights.
  CHECK(op("q_absorb").weight_bytes.value() == 61 * 128.0 * 128 * 512 * 2);
  CHECK(op("v_absorb").weight_bytes.value() == 61 * 128.0 * 512 * 128 * 2);
  // Under tensor parallelism every GPU keeps the whole latent: 8 copies in the group's ledger.
  Workload tp8 = w;
  tp8.tp = 8;
  CHECK(group_cache_bytes_per_sequence(m, 1, tp8).value() == 8 * 70'272.0);
}

TEST_CASE("HF configs: GQA, head_dim, tied embeddings and shared experts are read") {
  const Architecture mistral = *hf("mistral-7b").architecture;
  CHECK(mistral.kv_heads == 8);
  CHECK_FALSE(mistral.tied_embeddings);
  const Architecture gemma = *hf("gemma-7b").architecture;
  CHECK(gemma.head_dim == 256);  // 16 heads × 256 = 4096, wider than hidden 3072
  CHECK(gemma.tied_embeddings);  // Gemma ties by default: the config does not say
  CHECK(hf("qwen2.5-7b").architecture->attention_bias);
  const MoeSpec qmoe = *hf("qwen1.5-moe-a2.7b").architecture->moe;
  CHECK(qmoe.experts == 60);
  CHECK(qmoe.top_k == 4);
  CHECK(qmoe.shared_experts == 4);  // one shared FFN of 5632 = 4 experts of 1408
}

TEST_CASE("HF configs refuse what is not modelled, naming the fields") {
  // Latent-attention fields in a family that does not read them: refused at the field, not read as a Llama.
  const auto latent = io::parse_yaml(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
"num_attention_heads": 32, "num_hidden_layers": 32, "intermediate_size": 11008, "vocab_size": 32000, "kv_lora_rank": 512})",
                                      "latent.json");
  CHECK_THROWS_WITH(io::read_model(latent), Catch::StartsWith("latent.json:2:118: kv_lora_rank: not a field rooflineplan "
                                                              "reads in LlamaForCausalLM configs") &&
                                                Catch::Contains("may change the architecture"));
  // An architecture that is not read is refused, never read as a generic decoder: Falcon's blocks
  // (parallel attention and FFN, its own names) would be priced as a Llama's.
  const auto falcon = test::run_cli({"-m", test::data_file("hf/unknown-falcon.json"), "-g", "h100-sxm"});
  CHECK(falcon.code == 2);
  CHECK_THAT(falcon.err, Catch::Contains("unknown-falcon.json:2:20: architectures: `FalconForCausalLM` is not an "
                                         "architecture rooflineplan reads") &&
                             Catch::Contains("LlamaForCausalLM"));
  // architectures given as anything but a list is refused, not passed over for model_type's
  // family (a bare "FalconForCausalLM" beside model_type llama was priced as a Llama).
  const std::string llama = R"("model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
"num_hidden_layers": 32, "intermediate_size": 11008, "vocab_size": 32000})";
  for (const std::string given : {R"("FalconForCausalLM")", "1.5", "{}", R"([["LlamaForCausalLM"]])"}) {
    INFO(given);
    const auto doc = io::parse_yaml("{\"architectures\": " + given + ", " + llama, "bare.json");
    CHECK_THROWS_WITH(io::read_model(doc), Catch::StartsWith("bare.json:1:19: architectures: must be a list of class "
                                                             "names"));
  }
  // Nemotron 3's one shared MLP is moe_shared_expert_intermediate_size wide: another count of
  // them (any value was passed over, "x" and [] too) is refused, not priced as one.
  const std::string text = test::read_text(test::data_file("hf-configs/nemotron-3-nano-30b-a3b.json"));
  for (const std::string count : {"7", "0", R"("x")"}) {
    INFO(count);
    std::string config = text;
    config.replace(config.find("\"n_shared_experts\": 1"), 21, "\"n_shared_experts\": " + count);
    CHECK_THROWS_WITH(io::read_model(io::parse_yaml(config, "nemotron.json")),
                      Catch::StartsWith("nemotron.json:38:25: n_shared_experts: "));
  }
  // null and [] (as sub-configs write them) name nothing: model_type does.
  for (const std::string given : {"null", "[]"}) {
    INFO(given);
    const auto doc = io::parse_yaml("{\"architectures\": " + given + ", " + llama, "none.json");
    CHECK(io::read_model(doc).architecture->layers == 32);
  }
}

TEST_CASE("HF config with a broken field names the file, line and field") {
  const auto doc = io::parse_yaml(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
"num_attention_heads": 32, "num_hidden_layers": "thirty-two", "intermediate_size": 11008, "vocab_size": 32000})",
                                   "broken.json");
  CHECK_THROWS_WITH(io::read_model(doc), Catch::StartsWith("broken.json:2:49: num_hidden_layers: must be a whole number"));
  const auto zero = io::parse_yaml(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
"num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 0, "intermediate_size": 11008, "vocab_size": 32000})",
                                    "zero.json");
  CHECK_THROWS_WITH(io::read_model(zero), Catch::Contains("num_key_value_heads"));
}

TEST_CASE("convert: a config.json becomes model YAML that reads back to the same model") {
  for (const std::string name : {"qwen1.5-moe-a2.7b", "gemma-7b", "mistral-7b", "gpt2", "deepseek-v3"}) {
    INFO(name);
    const auto r = test::run_cli({"convert", test::data_file("hf/" + name + ".json")});
    REQUIRE(r.code == 0);
    const ModelSpec back = io::read_model(io::parse_yaml(r.out, "converted.yaml"));
    const ModelSpec original = hf(name);
    CHECK(params(back) == params(original));
    CHECK(back.architecture->kv_heads == original.architecture->kv_heads);
    CHECK(back.architecture->head_dim == original.architecture->head_dim);
    CHECK(back.max_context == original.max_context);
    CHECK(back.dtype == original.dtype);
  }
  const auto gemma = test::run_cli({"convert", test::data_file("hf/gemma-7b.json")});
  CHECK_THAT(gemma.out, Catch::Contains("head_dim: 256") && Catch::Contains("tied_embeddings: true"));
  const auto qwen = test::run_cli({"convert", test::data_file("hf/qwen1.5-moe-a2.7b.json")});
  CHECK_THAT(qwen.out, Catch::Contains("moe: {experts: 60, top_k: 4, ffn: 1408, shared_experts: 4}"));
}

TEST_CASE("convert: every 2025-26 config becomes YAML that reads back to the same counts, cache and bytes") {
  for (const std::string name : {"deepseek-v3", "deepseek-v3.2", "kimi-k2", "gemma-3-27b-it", "glm-4.7-flash",
                                 "gpt-oss-20b", "llama-3.2-1b",
                                 "llama-4-scout", "mamba-130m-subset", "mistral-small-3.1-24b", "nemotron-h-56b",
                                 "phi-4", "qwen3-30b-a3b", "qwen3-32b-fp8", "qwen3-8b", "qwen3-next-80b-a3b",
                                 "ernie-4.5-21b-a3b-subset", "gemma-4-26b-a4b", "glm-5-fp8-aic", "minimax-m2.5",
                                 "nemotron-3-nano-30b-a3b", "qwen3-coder-480b-a35b",
                                 "qwen3-vl-235b-a22b-thinking-aic", "qwen3.5-397b", "smollm3-3b-shape",
                                 "step-3.7-flash-aic", "laguna-xs-2.1-shape", "kimi-k2-thinking", "gemma-4-e4b-shape",
                                 "nemotron-3-super-120b-a12b", "qwen3-235b-a22b", "gpt-oss-120b", "qwen3.5-4b",
                                 "llama-4-maverick-partial", "glm-4.7-partial", "gemma-4-31b"}) {
    INFO(name);
    const auto r = test::run_cli({"convert", test::data_file("hf-configs/" + name + ".json")});
    REQUIRE(r.code == 0);
    const ModelSpec back = io::read_model(io::parse_yaml(r.out, "converted.yaml"));
    const ModelSpec original = io::load_model(test::data_file("hf-configs/" + name + ".json"));
    CHECK(params(back) == params(original));
    CHECK(count_parameters(back).active() == count_parameters(original).active());
    const Precision bf16 = resolve_precision(DType::bf16, std::nullopt, {});
    CHECK(cache_bytes_per_sequence(back, bf16, 32'768).value() == cache_bytes_per_sequence(original, bf16, 32'768).value());
    CHECK(back.source == original.source);  // the reader's assumptions travel in the source
    // The checkpoint's formats, and so the weights' bytes.
    CHECK(weight_bytes(back, resolve_precision(back)).total().value() ==
          weight_bytes(original, resolve_precision(original)).total().value());
  }
}


TEST_CASE("HF config whose heads do not divide hidden_size, without head_dim, is refused") {
  const auto doc = io::parse_yaml(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
"num_attention_heads": 30, "num_hidden_layers": 32, "intermediate_size": 11008, "vocab_size": 32000})",
                                   "odd.json");
  CHECK_THROWS_WITH(io::read_model(doc), Catch::Contains("odd.json:2:24: num_attention_heads: 30 heads do not divide"));
}

TEST_CASE("HF rope_scaling: YaRN serves original_max_position_embeddings x factor, as vLLM derives it") {
  // Qwen3's model card extends its 32768 tokens fourfold with YaRN: 131072, though
  // max_position_embeddings says 40960. The plan refused 100000-token prompts on it.
  const auto qwen = [](const std::string& rope) {
    return io::read_model(io::parse_yaml(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, )"
                                         R"("num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 128, )"
                                         R"("vocab_size": 100, "torch_dtype": "bfloat16", "max_position_embeddings": 40960, )"
                                         R"("rope_scaling": )" + rope + "}",
                                         "yarn.json"));
  };
  CHECK(qwen(R"({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768})").max_context == 131'072);
  // DeepSeek's older key, and a fractional factor: 32768 × 1.5. Below max_position_embeddings
  // (4096 × 2.5) the config's own limit stands, as SGLang reads it.
  CHECK(qwen(R"({"type": "yarn", "factor": 1.5, "original_max_position_embeddings": 32768})").max_context == 49'152);
  CHECK(qwen(R"({"type": "yarn", "factor": 2.5, "original_max_position_embeddings": 4096})").max_context == 40'960);
  // Llama 3's and linear scaling leave max_position_embeddings the limit (Gemma 3's 131072 is
  // extended already); so does null.
  CHECK(qwen(R"({"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192})").max_context == 40'960);
  CHECK(qwen(R"({"rope_type": "linear", "factor": 8.0})").max_context == 40'960);
  CHECK(qwen("null").max_context == 40'960);
  CHECK_THROWS_WITH(qwen(R"({"rope_type": "yarn", "factor": 0.5, "original_max_position_embeddings": 32768})"),
                    Catch::Contains("rope_scaling.factor: 0.5 is outside 1"));
  // The shipped configs that use YaRN say what their max_position_embeddings says.
  CHECK(io::load_model(test::data_file("hf-configs/gpt-oss-20b.json")).max_context == 131'072);  // 4096 × 32
  CHECK(io::load_model(test::data_file("hf-configs/deepseek-v3.2.json")).max_context == 163'840);  // 4096 × 40
}
