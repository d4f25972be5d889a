// Hugging Face config.json files, read as they are: each family's parameter count against the
// preset or the count its model card publishes.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "parameters.hpp"

using namespace roofline;

namespace {

ModelSpec hf(const std::string& name) { return cli::load_model(test::data_file("hf/" + name + ".json")); }
double params(const ModelSpec& m) { return count_parameters(m).total(); }

}  // namespace

TEST_CASE("HF Llama-2-7B config: 6,738,415,616 parameters and 512 KiB of KV per token, as the preset") {
  const ModelSpec m = hf("llama-2-7b");
  const ModelSpec preset = cli::load_model("llama-2-7b");
  CHECK(params(m) == 6'738'415'616.0);
  CHECK(params(m) == params(preset));
  const Precision p = resolve_precision(m.dtype, {});
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
  CHECK(m.dtype == DType::fp32);  // no torch_dtype: transformers loads float32
  CHECK(m.max_context == 1024);
  // KV per token: 2 × 12 layers × 768 × 4 bytes = 73,728.
  CHECK(kv_bytes_per_token(m, resolve_precision(m.dtype, {})).value() == 73'728.0);
  // The decode step reads every weight but the two tables (gathered a row at a time): the
  // weights it reads are the 12 layers, the final norm and the tied head (the vocab table).
  const Report r = evaluate(m, cli::load_gpu("a100-80gb"), test::default_workload(m));
  CHECK(r.decode.step.weight_bytes.value() == Approx(4.0 * (12 * per_layer + 2 * 768 + 50257.0 * 768)));
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
  const auto deepseek = test::run_cli({"-m", test::data_file("hf/deepseek-v3.json"), "-g", "h100-sxm"});
  CHECK(deepseek.code == 2);
  CHECK_THAT(deepseek.err, Catch::Contains("deepseek-v3.json:") && Catch::Contains("kv_lora_rank") &&
                               Catch::Contains("multi-head latent attention"));
  const auto falcon = test::run_cli({"-m", test::data_file("hf/unknown-falcon.json"), "-g", "h100-sxm"});
  CHECK(falcon.code == 2);
  CHECK_THAT(falcon.err, Catch::Contains("FalconForCausalLM config lacks num_hidden_layers, intermediate_size") &&
                             Catch::Contains("LlamaForCausalLM"));
}

TEST_CASE("HF config with a broken field names the file, line and field") {
  const auto doc = cli::parse_yaml(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
"num_attention_heads": 32, "num_hidden_layers": "thirty-two", "intermediate_size": 11008, "vocab_size": 32000})",
                                   "broken.json");
  CHECK_THROWS_WITH(cli::read_model(doc), Catch::StartsWith("broken.json:2:49: num_hidden_layers: must be a whole number"));
  const auto zero = cli::parse_yaml(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
"num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 0, "intermediate_size": 11008, "vocab_size": 32000})",
                                    "zero.json");
  CHECK_THROWS_WITH(cli::read_model(zero), Catch::Contains("num_key_value_heads"));
}

TEST_CASE("convert: a config.json becomes model YAML that reads back to the same model") {
  for (const std::string name : {"qwen1.5-moe-a2.7b", "gemma-7b", "mistral-7b", "gpt2"}) {
    INFO(name);
    const auto r = test::run_cli({"convert", test::data_file("hf/" + name + ".json")});
    REQUIRE(r.code == 0);
    const ModelSpec back = cli::read_model(cli::parse_yaml(r.out, "converted.yaml"));
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

TEST_CASE("HF config whose heads do not divide hidden_size, without head_dim, is refused") {
  const auto doc = cli::parse_yaml(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
"num_attention_heads": 30, "num_hidden_layers": 32, "intermediate_size": 11008, "vocab_size": 32000})",
                                   "odd.json");
  CHECK_THROWS_WITH(cli::read_model(doc), Catch::Contains("odd.json:2:24: num_attention_heads: 30 heads do not divide"));
}
