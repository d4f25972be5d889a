// What the Hugging Face reader refuses, and where it says so: every field of a config is read, or
// on the list of fields known not to change what is priced, or the config is refused naming it
// (file:line:column). A config is never priced on a guess.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

#include "cli_runner.hpp"
#include "io/hf_families.hpp"
#include "io/input_error.hpp"
#include "model/parameters.hpp"

using namespace roofline;

namespace {

// A small Llama with `extra` fields added at the end of the one line.
ModelSpec llama_with(const std::string& extra) {
  return io::read_model(io::parse_yaml(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, )"
                                       R"("num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 128, )"
                                       R"("vocab_size": 100, "torch_dtype": "bfloat16")" +
                                           extra + "}",
                                       "small.json"));
}

ModelSpec read(const std::string& json) { return io::read_model(io::parse_yaml(json, "c.json")); }

}  // namespace

TEST_CASE("HF fields: one that may change the architecture is refused at its line and column, with the reason") {
  // "num_experts" in a Llama config: a family that has no experts, a field that speaks of them.
  CHECK_THROWS_WITH(llama_with(R"(, "num_experts": 8)"),
                    Catch::StartsWith("small.json:1:197: num_experts: not a field rooflineplan reads in "
                                      "LlamaForCausalLM configs, and its name (`expert`) says it may change the "
                                      "architecture or its size"));
  CHECK_THROWS_WITH(llama_with(R"(, "sliding_window": 4096)"), Catch::Contains("sliding_window: not a field"));
  CHECK_THROWS_WITH(llama_with(R"(, "num_nextn_predict_layers": "x")"), Catch::Contains("must be a whole number"));
}

TEST_CASE("HF fields: an unknown field without a shape word is refused too, and null ones are absent") {
  // The decision: a name cannot tell harmless from harmful, so what is neither read nor on the
  // harmless list is refused; only the wording differs.
  CHECK_THROWS_WITH(llama_with(R"(, "frobnication": 3)"),
                    Catch::Contains("frobnication: not a field rooflineplan reads in LlamaForCausalLM configs; rather "
                                    "than price the model without what it cannot read"));
  // JSON's null, an empty list or mapping say nothing: read as absent.
  CHECK_NOTHROW(llama_with(R"(, "frobnication": null, "moe_layers": [], "extra_config": {})"));
  // Fields on the harmless list, and its suffixes and prefixes (token ids, dropout, RoPE, outputs).
  const ModelSpec m = llama_with(R"(, "rope_scaling": {"factor": 8}, "pad_token_id": 0, "resid_pdrop": 0.1, )"
                                 R"("output_attentions": false, "unsloth_version": "2025.1", "initializer_range": 0.02)");
  CHECK(count_parameters(m).total() == 2 * (4 * 64 * 64 + 3 * 64 * 128 + 2 * 64) + 2 * 100 * 64 + 64);
}

TEST_CASE("HF fields: a family's own harmless fields are harmless in it only") {
  // Gemma 2's logit soft-caps are on the global list (suffix _softcapping); GPT-2's n_ctx is GPT-2's.
  CHECK_THROWS_WITH(llama_with(R"(, "n_ctx": 1024)"), Catch::Contains("n_ctx: not a field"));
  CHECK_NOTHROW(llama_with(R"(, "final_logit_softcapping": 30.0)"));
}

TEST_CASE("HF families: biases and sliding layers that are not modelled are refused, naming the field") {
  CHECK_THROWS_WITH(llama_with(R"(, "mlp_bias": true)"), Catch::Contains("mlp_bias: biases on the FFN alone"));
  const std::string qwen = R"({"architectures": ["Qwen3ForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100, "torch_dtype": "bfloat16", "head_dim": 16,
"use_sliding_window": true, "sliding_window": 32, "max_window_layers": 1})";
  CHECK_THROWS_WITH(read(qwen), Catch::StartsWith("c.json:3:23: use_sliding_window: Qwen's sliding layers are not read"));
  const std::string minimax = R"({"architectures": ["MiniMaxM2ForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_hidden_layers": 2, "intermediate_size": 32, "vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 2,
"attn_type_list": [0, 1]})";
  CHECK_THROWS_WITH(read(minimax), Catch::Contains("attn_type_list: lightning attention layers"));
}

TEST_CASE("HF families: layer kinds that do not match the stack are refused") {
  const std::string types = R"({"architectures": ["GptOssForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_hidden_layers": 3, "intermediate_size": 32, "vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 2,
"head_dim": 16, "layer_types": ["sliding_attention", "full_attention"]})";
  CHECK_THROWS_WITH(read(types), Catch::Contains("layer_types: 2 entries for 3 layers"));
  const std::string unknown_type = R"({"architectures": ["GptOssForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_hidden_layers": 2, "intermediate_size": 32, "vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 2,
"head_dim": 16, "layer_types": ["sliding_attention", "mamba"]})";
  CHECK_THROWS_WITH(read(unknown_type), Catch::Contains("layer_types[1] \"mamba\" is not a layer kind"));
  const std::string hybrid = R"({"architectures": ["NemotronHForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_key_value_heads": 2, "attention_head_dim": 16, "num_hidden_layers": 3, "hybrid_override_pattern": "M*X",
"vocab_size": 100, "intermediate_size": 128, "mamba_num_heads": 8, "mamba_head_dim": 16, "ssm_state_size": 16,
"n_groups": 2, "conv_kernel": 4})";
  CHECK_THROWS_WITH(read(hybrid), Catch::Contains("hybrid_override_pattern: layer 2 is 'X'"));
}

TEST_CASE("HF families: transformers' defaults fill what a config leaves out, and null means none") {
  // Mistral without sliding_window: MistralConfig's 4096; with null, no window.
  const std::string mistral = R"({"architectures": ["MistralForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_key_value_heads": 2, "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100, "torch_dtype": "bfloat16")";
  CHECK(read(mistral + "}").architecture->sliding_window == 4096);
  CHECK(read(mistral + R"(, "sliding_window": null})").architecture->mixer_pattern.empty());
  // Llama 4 with MoE every other layer (Maverick's interleave_moe_layer_step 2): layers 1, 3, ...
  // MoE; the others dense FFNs of intermediate_size_mlp.
  const ModelSpec maverick = read(R"({"architectures": ["Llama4ForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 4, "intermediate_size": 32, "intermediate_size_mlp": 128,
"vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 1, "interleave_moe_layer_step": 2,
"attention_chunk_size": 64, "torch_dtype": "bfloat16"})");
  const Architecture& a = *maverick.architecture;
  CHECK(a.ffn_pattern == std::vector<FfnKind>{FfnKind::dense, FfnKind::moe});
  CHECK(a.ffn == 128);
  CHECK(a.moe->ffn == 32);
  CHECK(a.mixer_pattern == std::vector<Mixer>{Mixer::chunked, Mixer::chunked, Mixer::chunked, Mixer::full});
  // Qwen3-MoE with mlp_only_layers [0] and decoder_sparse_step 1: a leading dense layer.
  const ModelSpec qwen = read(R"({"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"head_dim": 16, "num_hidden_layers": 3, "intermediate_size": 128, "moe_intermediate_size": 32, "num_experts": 4,
"num_experts_per_tok": 2, "mlp_only_layers": [0], "vocab_size": 100, "torch_dtype": "bfloat16"})");
  CHECK(qwen.architecture->moe->dense_layers == 1);
  CHECK(qwen.architecture->ffn == 128);
  // A placement that leaves every layer dense is refused at the key that placed none (it was
  // refused at 1:1, naming a `moe` section the config never wrote).
  const std::string qwen3 = R"({"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"head_dim": 16, "num_hidden_layers": 3, "intermediate_size": 128, "moe_intermediate_size": 32, "num_experts": 4,
"num_experts_per_tok": 2, "vocab_size": 100, "torch_dtype": "bfloat16", )";
  CHECK_THROWS_WITH(read(qwen3 + R"("decoder_sparse_step": 1000})"),
                    Catch::Contains("decoder_sparse_step: places the experts in none of the 3 layers"));
  CHECK_THROWS_WITH(read(qwen3 + R"("mlp_only_layers": [0, 1, 2]})"),
                    Catch::Contains("mlp_only_layers: places the experts in none of the 3 layers"));
  // Each family's placement, at the key that caused it.
  const auto edited = [](const std::string& file, const nlohmann::json& fields) {
    nlohmann::json j = nlohmann::json::parse(std::ifstream(test::data_file(file)));
    j.update(fields);
    return j.dump(2);
  };
  const std::string ernie = "hf-configs/ernie-4.5-21b-a3b-subset.json";
  CHECK_THROWS_WITH(read(edited(ernie, {{"moe_layer_interval", 100}})),
                    Catch::Contains("moe_layer_interval: places the experts in none of the 28 layers"));
  CHECK_THROWS_WITH(read(edited(ernie, {{"moe_layer_start_index", 5}, {"moe_layer_end_index", 3}})),
                    Catch::Contains("moe_layer_end_index: places the experts in none of the 28 layers"));
  CHECK_THROWS_WITH(read(edited(ernie, {{"moe_layer_start_index", 28}})),
                    Catch::Contains("moe_layer_start_index: places the experts in none of the 28 layers"));
  const std::string deepseek = "hf-configs/deepseek-v3.json";
  CHECK_THROWS_WITH(read(edited(deepseek, {{"first_k_dense_replace", 61}})),
                    Catch::Contains("first_k_dense_replace: places the experts in none of the 61 layers"));
}

TEST_CASE("HF families: a Mamba-2 stack is read with its heads, groups and state") {
  const ModelSpec m = read(R"({"architectures": ["Mamba2ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
"vocab_size": 100, "num_heads": 8, "head_dim": 16, "state_size": 16, "n_groups": 2, "expand": 2, "conv_kernel": 4,
"torch_dtype": "bfloat16", "chunk_size": 256, "time_step_limit": [0.0, 1.0]})");
  const Recurrent& r = *m.architecture->recurrent;
  CHECK(r.kind == RecurrentKind::mamba2);
  CHECK(r.inner == 128);
  // Per layer: in_proj 64·(2·128 + 2·2·16 + 8), convolution (128 + 64)·(4 + 1), A, D and Δ bias
  // 3·8, gated norm 128, out_proj 128·64, norm 64. Two 100 × 64 tables (Mamba2Config does not
  // tie), final norm.
  const double layer = 64.0 * 328 + 192 * 5 + 24 + 128 + 128.0 * 64 + 64;
  CHECK(count_parameters(m).total() == 2 * layer + 2 * 100 * 64 + 64);
  // expand × hidden must be the heads' width.
  CHECK_THROWS_WITH(read(R"({"architectures": ["Mamba2ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
"vocab_size": 100, "num_heads": 8, "head_dim": 16, "expand": 4})"),
                    Catch::Contains("num_heads: num_heads × head_dim = 128 differs from expand × hidden_size = 256"));
}

TEST_CASE("HF families: a wrapper's text config must name a decoder rooflineplan reads") {
  const std::string gemma = R"({"architectures": ["Gemma3ForConditionalGeneration"], "torch_dtype": "bfloat16",
"text_config": {"model_type": "t5"}})";
  CHECK_THROWS_WITH(read(gemma), Catch::Contains("text_config.model_type: \"t5\" is not a text decoder rooflineplan reads"));
  // A wrapper's own vision settings are not refused: the vision tower is stated as not priced.
  const ModelSpec m = read(R"({"architectures": ["Gemma3ForConditionalGeneration"], "torch_dtype": "bfloat16",
"mm_tokens_per_image": 256, "image_token_index": 262144, "vision_config": {"hidden_size": 1152},
"text_config": {"num_hidden_layers": 6, "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
"num_key_value_heads": 2, "head_dim": 16, "sliding_window": 8}})");
  CHECK(m.architecture->vocab == 262'208);
  CHECK(m.assumptions == std::vector<Assumption>{Assumption::vision_not_modelled});
}

TEST_CASE("HF families: Gemma 3's period under the name later transformers write, and its layer_types") {
  const std::string head = R"({"architectures": ["Gemma3ForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 4, "intermediate_size": 128, "torch_dtype": "bfloat16",
"sliding_window": 8, )";
  // Period 2: layer 1 and 3 full.
  CHECK(read(head + R"("_sliding_window_pattern": 2})").architecture->mixer_pattern ==
        std::vector<Mixer>{Mixer::sliding, Mixer::full});
  // layer_types, written out, decide over the period.
  CHECK(read(head + R"("sliding_window_pattern": 2, "layer_types": ["full_attention", "sliding_attention",
"sliding_attention", "sliding_attention"]})").architecture->mixer_pattern ==
        std::vector<Mixer>{Mixer::full, Mixer::sliding, Mixer::sliding, Mixer::sliding});
}

TEST_CASE("HF fields: one error lists every field the reader cannot price, each at its line and column") {
  try {
    (void)llama_with(R"(, "frobnication": 3, "mlp_bias": true, "num_experts": 8)");
    FAIL("read a config it cannot price");
  } catch (const io::InputError& e) {
    const std::string what = e.what();
    // What the reading refused comes first, then the fields it never read, one a line, each at its value.
    CHECK_THAT(what, Catch::StartsWith("small.json:1:213: mlp_bias: biases on the FFN alone are not modelled"));
    CHECK_THAT(what, Catch::Contains("and 2 more fields it cannot price:"));
    CHECK_THAT(what, Catch::Contains("\n  small.json:1:198: frobnication: not a field rooflineplan reads"));
    CHECK_THAT(what, Catch::Contains("\n  small.json:1:234: num_experts: not a field rooflineplan reads"));
    CHECK_THAT(what, Catch::EndsWith("changes neither the architecture nor the weights"));
  }
}

TEST_CASE("HF fields: a field that restates the family is accepted, one that contradicts it is refused") {
  const std::string qwen3 = R"({"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 2, "moe_intermediate_size": 32, "num_experts": 4,
"num_experts_per_tok": 2, "vocab_size": 100, "torch_dtype": "bfloat16")";
  // Qwen3-Coder's qkv_bias: false and use_qk_norm: true are what Qwen3-MoE is.
  const ModelSpec m = read(qwen3 + R"(, "qkv_bias": false, "use_qk_norm": true})");
  CHECK_FALSE(m.architecture->attention_bias);
  CHECK(m.architecture->qk_norm);
  CHECK_THROWS_WITH(read(qwen3 + R"(, "qkv_bias": true})"),
                    Catch::Contains("qkv_bias: says true where attention_bias says false"));
  CHECK_THROWS_WITH(read(qwen3 + R"(, "use_qk_norm": false})"),
                    Catch::Contains("use_qk_norm: Qwen3MoeForCausalLM models have Q/K norms"));
}

TEST_CASE("HF fields: Gemma 4's per-layer inputs, cache-sharing layers and their double-wide MLP are read") {
  // global_head_dim as wide as head_dim, and no per-layer inputs: written, as Gemma4TextConfig's 512
  // and 256 would stand in for them left out.
  const std::string gemma4 = R"({"architectures": ["Gemma4ForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_key_value_heads": 2, "head_dim": 16, "global_head_dim": 16, "hidden_size_per_layer_input": 0,
"num_hidden_layers": 6, "intermediate_size": 128, "vocab_size": 100, "sliding_window": 32, "torch_dtype": "bfloat16")";
  const ModelSpec m = read(gemma4 + "}");
  CHECK(m.architecture->mixer_pattern.size() == 6);  // transformers' 5 sliding to 1 full
  CHECK_FALSE(m.architecture->full_attention);       // no global shape of their own
  // 12 layers: 5 and 11 full. The last 2 (10, sliding, and 11, full) read layers 9's and 5's cache.
  const ModelSpec e2b = read(R"({"architectures": ["Gemma4ForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_key_value_heads": 2, "head_dim": 16, "global_head_dim": 16, "num_hidden_layers": 12, "intermediate_size": 128,
"vocab_size": 100, "sliding_window": 32, "torch_dtype": "bfloat16", "hidden_size_per_layer_input": 8,
"vocab_size_per_layer_input": 50,
"num_kv_shared_layers": 2, "use_double_wide_mlp": true})");
  CHECK(e2b.architecture->per_layer_input == 8);
  CHECK(e2b.architecture->per_layer_vocab == 50);
  CHECK(e2b.architecture->kv_shared_layers == 2);
  CHECK(e2b.architecture->kv_shared_ffn == 256);
  // Per layer: Q, O 2·64·64, K, V 2·64·32, Q/K norms 2·16, FFN 3·64·128, norms 2·64, the per-layer
  // gate and projection 2·64·8 and their norm 64; the last 2 layers have no K, V or K norm and an
  // MLP 256 wide. The tied table 100·64, the per-layer table 50·(12·8), its projection 64·96 and
  // norm 8, the final norm.
  const double layer = 2 * 64 * 64.0 + 2 * 64 * 32.0 + 32 + 3 * 64 * 128.0 + 128 + 2 * 64 * 8.0 + 64;
  const double sharing = layer - 2 * 64 * 32.0 - 16 + 3 * 64 * 128.0;
  CHECK(count_parameters(e2b).total() == 10 * layer + 2 * sharing + 100 * 64.0 + 50 * 96.0 + 64 * 96.0 + 8 + 64);
  // Only the 10 owning layers cache 16 tokens of 2 × 2 × 16 in bf16.
  CHECK(cache_bytes_per_sequence(e2b, resolve_precision(e2b), 16).value() == (10 * 16) * (2 * 2 * 16 * 2.0));
  // A sharing layer with no earlier layer of its kind has no cache to read.
  CHECK_THROWS_WITH(read(gemma4 + R"(, "num_kv_shared_layers": 1})"),
                    Catch::Contains("a sharing layer needs an earlier layer of its kind to read the cache of"));
  CHECK_THROWS_WITH(read(gemma4 + R"(, "enable_moe_block": true, "num_experts": 4, "top_k_experts": 2,
"moe_intermediate_size": 48})"),
                    Catch::Contains("intermediate_size: the dense MLP beside the experts (128) is not a whole number"));
}

TEST_CASE("HF fields: per-layer head counts are one for the full layers and one for the others, or refused") {
  const std::string laguna = R"({"architectures": ["LagunaForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 4, "intermediate_size": 128, "moe_intermediate_size": 32,
"num_experts": 4, "num_experts_per_tok": 2, "vocab_size": 100, "sliding_window": 8, "torch_dtype": "bfloat16",
"layer_types": ["full_attention", "sliding_attention", "full_attention", "sliding_attention"], )";
  const ModelSpec m = read(laguna + R"("num_attention_heads_per_layer": [4, 8, 4, 8]})");
  CHECK(m.architecture->heads == 8);
  CHECK(m.architecture->full_attention->heads == 4);
  CHECK_THROWS_WITH(read(laguna + R"("num_attention_heads_per_layer": [4, 8, 4, 6]})"),
                    Catch::Contains("num_attention_heads_per_layer: layer 3 has 6 heads where another of its kind has 8"));
  CHECK_THROWS_WITH(read(laguna + R"("gating": "per-element"})"),
                    Catch::Contains("gating: \"per-element\" is not a gate rooflineplan knows"));
}

TEST_CASE("HF names: a model is named by its checkpoint or its file, so two configs of one family can be told apart") {
  CHECK(io::load_model(test::data_file("hf-configs/qwen3-8b.json")).name == "qwen3-8b");
  CHECK(io::load_model(test::data_file("hf-configs/qwen3-32b-fp8.json")).name == "qwen3-32b-fp8");
  // A config saved by transformers names its checkpoint.
  CHECK(read(R"({"architectures": ["LlamaForCausalLM"], "_name_or_path": "meta-llama/Llama-3.2-1B", "hidden_size": 64,
"num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100,
"torch_dtype": "bfloat16"})")
            .name == "meta-llama/Llama-3.2-1B");
  // config.json takes its folder's name.
  CHECK(io::read_model(io::parse_yaml(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64,
"num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100})",
                                      "models/Qwen3-8B/config.json"))
            .name == "Qwen3-8B");
}

TEST_CASE("HF dtype: torch_dtype and dtype that disagree are refused at the second, agreeing ones read once") {
  // transformers writes `dtype` beside the older `torch_dtype`; fp32 beside bf16 left the weights'
  // format one of two, and one was dropped without a word.
  CHECK_THROWS_WITH(llama_with(R"(, "dtype": "float32")"),
                    Catch::Contains("dtype: \"float32\" disagrees with torch_dtype \"bfloat16\""));
  CHECK(llama_with(R"(, "dtype": "bfloat16")").dtype == DType::bf16);
}

namespace {

// The shipped DeepSeek-V3 config with one key removed, read as the family given.
std::string deepseek_without(const std::string& key, const std::string& model_type) {
  const auto j = nlohmann::json::parse(std::ifstream(test::data_file("hf-configs/deepseek-v3.json")));
  nlohmann::json edited = j;
  REQUIRE(edited.contains(key));
  edited.erase(key);
  edited["model_type"] = model_type;
  edited["architectures"] = {model_type == "deepseek_v3" ? "DeepseekV3ForCausalLM" : "DeepseekV2ForCausalLM"};
  return edited.dump(2);
}

}  // namespace

TEST_CASE("HF DeepSeek fields left out: transformers' DeepseekV3Config defaults, or refused where readers differ") {
  // Left out, first_k_dense_replace, n_shared_experts and q_lora_rank were 0: 704.6 B, 669.3 B,
  // and a Q projected directly (49.0 B active). DeepseekV3Config reads 3, 1 and 1536: the model
  // as published, 671.0 B.
  const double published = count_parameters(io::load_model(test::data_file("hf-configs/deepseek-v3.json"))).total();
  for (const std::string key : {"first_k_dense_replace", "n_shared_experts", "q_lora_rank"}) {
    INFO(key);
    CHECK(count_parameters(read(deepseek_without(key, "deepseek_v3"))).total() == published);
    // The DeepSeek-V2 family's table holds no default for them: the gap is refused, not read as 0.
    // q_lora_rank's none is null alone (0 is refused: see below).
    CHECK_THROWS_WITH(read(deepseek_without(key, "deepseek_v2")),
                      Catch::Contains(key + ": left out: its default differs between readers (transformers' config "
                                            "classes, the checkpoints' own code), and this family's table holds none; "
                                            "write it (" + (key == "q_lora_rank" ? "null" : "null or 0") +
                                      " for none)"));
  }
  // null still says none: a Q projected directly, as DeepSeek-V2-Lite's.
  auto lite = nlohmann::json::parse(std::ifstream(test::data_file("hf-configs/deepseek-v3.json")));
  lite["q_lora_rank"] = nullptr;
  CHECK(read(lite.dump()).architecture->mla->q_lora_rank == 0);
}

namespace {

// A shipped config (tests/data/) with `key` removed, from its text_config where it has one.
std::string without(const std::string& file, const std::string& key) {
  auto j = nlohmann::json::parse(std::ifstream(test::data_file(file)));
  nlohmann::json& holder = j.contains("text_config") ? j["text_config"] : j;
  REQUIRE(holder.contains(key));
  holder.erase(key);
  return j.dump(2);
}

double shipped_total(const std::string& file) {
  return count_parameters(io::load_model(test::data_file(file))).total();
}

}  // namespace

TEST_CASE("HF shared expert widths left out: each family's transformers default, not no shared expert") {
  // Left out, a shared expert's width was read as none. Qwen2MoeConfig's 5632 is Qwen1.5-MoE-A2.7B's
  // own: 4 experts of 1408, whose 24 layers × 4 × 3·2048·1408 = 830,472,192 weights were lost.
  const ModelSpec qwen2 = read(without("hf/qwen1.5-moe-a2.7b.json", "shared_expert_intermediate_size"));
  CHECK(qwen2.architecture->moe->shared_experts == 4);
  CHECK(count_parameters(qwen2).total() == shipped_total("hf/qwen1.5-moe-a2.7b.json"));
  // Qwen3NextConfig's and LagunaConfig's 512: one expert of 512 (Qwen3-Next lost 48 × 3·2048·512 =
  // 150,994,944, Laguna XS 2.1 39 × 3·2048·512 = 122,683,392).
  for (const std::string file : {"hf-configs/qwen3-next-80b-a3b.json", "hf-configs/laguna-xs-2.1-shape.json"}) {
    INFO(file);
    const ModelSpec m = read(without(file, "shared_expert_intermediate_size"));
    CHECK(m.architecture->moe->shared_experts == 1);
    CHECK(count_parameters(m).total() == shipped_total(file));
  }
  // Qwen3_5MoeTextConfig's 512 is half of Qwen3.5-397B's 1024-wide experts, a shared expert
  // rooflineplan cannot price: refused, naming the field, not read as none.
  CHECK_THROWS_WITH(read(without("hf-configs/qwen3.5-397b.json", "shared_expert_intermediate_size")),
                    Catch::Contains("shared_expert_intermediate_size: 512 (the family's default, the field being left "
                                    "out) is not a whole number of experts of width 1024"));
  // Step3p7TextConfig's share_expert_dim 1280: one expert of 1280, as the n_shared_experts: 1 beside
  // it says (read as none, that contradiction was refused instead).
  const ModelSpec step = read(without("hf-configs/step-3.7-flash-aic.json", "share_expert_dim"));
  CHECK(step.architecture->moe->shared_experts == 1);
  CHECK(count_parameters(step).total() == shipped_total("hf-configs/step-3.7-flash-aic.json"));
  // Qwen3MoeConfig, Qwen3VLMoeTextConfig and MiniMaxM2Config have no shared expert: none, as before.
  CHECK(io::load_model(test::data_file("hf-configs/qwen3-30b-a3b.json")).architecture->moe->shared_experts == 0);
  CHECK(io::load_model(test::data_file("hf-configs/qwen3-vl-235b-a22b-thinking-aic.json"))
            .architecture->moe->shared_experts == 0);
  const ModelSpec minimax = read(without("hf-configs/minimax-m2.5.json", "shared_intermediate_size"));
  CHECK(minimax.architecture->moe->shared_experts == 0);
  CHECK(count_parameters(minimax).total() == shipped_total("hf-configs/minimax-m2.5.json"));
  // null still says none.
  auto next = nlohmann::json::parse(std::ifstream(test::data_file("hf-configs/qwen3-next-80b-a3b.json")));
  next["shared_expert_intermediate_size"] = nullptr;
  CHECK(read(next.dump()).architecture->moe->shared_experts == 0);
}

TEST_CASE("HF Laguna: MoE layers by mlp_layer_types, left out the first layer dense as LagunaConfig says") {
  const std::string laguna = R"({"architectures": ["LagunaForCausalLM"], "hidden_size": 64, "num_attention_heads": 4, )"
                             R"("num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 4, "intermediate_size": 128, )"
                             R"("moe_intermediate_size": 32, "shared_expert_intermediate_size": 32, "num_experts": 4, )"
                             R"("num_experts_per_tok": 2, "vocab_size": 100, "gating": "per-head", "torch_dtype": "bfloat16")";
  // A layer: Q and O 64·64, K and V 64·32, the gate 64·4, Q/K norms 2·16 and two norms 2·64: 12,704.
  // A dense MLP 3·64·128 = 24,576; a MoE: the router 64·4 and 4 routed and 1 shared expert of
  // 3·64·32: 30,976. The tables 2·100·64 and the final norm: 12,864.
  const double layers = 4 * 12'704.0, dense = 24'576, moe = 30'976, tables = 12'864;
  // Left out, transformers' LagunaConfig takes ["dense"] + ["sparse"] × 3 (__post_init__). Read by
  // Qwen's decoder_sparse_step and mlp_only_layers, which LagunaConfig does not have, every layer
  // was a MoE: 187,584.
  const ModelSpec left_out = read(laguna + "}");
  CHECK(left_out.architecture->moe->dense_layers == 1);
  CHECK(count_parameters(left_out).total() == layers + dense + 3 * moe + tables);
  CHECK(count_parameters(left_out).total() == 181'184.0);
  // Written out, each layer as it says.
  const std::string alternating = R"(, "mlp_layer_types": ["dense", "sparse", "dense", "sparse"])";
  CHECK(count_parameters(read(laguna + alternating + "}")).total() == layers + 2 * dense + 2 * moe + tables);
  CHECK(count_parameters(read(laguna + alternating + "}")).total() == 174'784.0);
  // Laguna XS 2.1's shape without the mlp_only_layers [0] it writes: the same 33,442,607,104.
  CHECK(count_parameters(read(without("hf-configs/laguna-xs-2.1-shape.json", "mlp_only_layers"))).total() ==
        shipped_total("hf-configs/laguna-xs-2.1-shape.json"));
  // An entry transformers would build as dense but no reader means by it, at its key.
  CHECK_THROWS_WITH(read(laguna + R"(, "mlp_layer_types": ["dense", "moe", "sparse", "sparse"]})"),
                    Catch::StartsWith("c.json:1:378: mlp_layer_types: mlp_layer_types[1] \"moe\" is neither dense nor "
                                      "sparse"));
  CHECK_THROWS_WITH(read(laguna + R"(, "mlp_layer_types": ["dense", "sparse"]})"),
                    Catch::Contains("mlp_layer_types: 2 entries for 4 layers"));
  // Qwen's fields, which TensorRT-LLM's Laguna reads, are read where they agree with LagunaConfig's
  // layers and refused where they do not: decoder_sparse_step 1 alone makes layer 0 a MoE there.
  CHECK(count_parameters(read(laguna + alternating + R"(, "mlp_only_layers": [0, 2]})")).total() == 174'784.0);
  CHECK_THROWS_WITH(read(laguna + R"(, "decoder_sparse_step": 1})"),
                    Catch::StartsWith("c.json:1:382: decoder_sparse_step: makes layer 0 sparse where LagunaConfig's "
                                      "mlp_layer_types (left out: the first layer dense, the rest sparse) makes it "
                                      "dense"));
  CHECK_THROWS_WITH(read(laguna + alternating + R"(, "mlp_only_layers": [0]})"),
                    Catch::Contains("mlp_only_layers: makes layer 2 sparse where LagunaConfig's mlp_layer_types "
                                    "makes it dense"));
}

TEST_CASE("HF Laguna: gating left out is LagunaConfig's True, a gate a query head - false or null is none") {
  // LagunaConfig.gating defaults to True, which LagunaAttention builds as g_proj: hidden → heads.
  // Laguna XS 2.1's shape without its "gating": "per-head": the same 33,442,607,104. Read as no gate,
  // it lost g_proj's 2048 × (10 full layers × 48 heads + 30 sliding × 64) = 4,915,200 weights.
  const ModelSpec xs = read(without("hf-configs/laguna-xs-2.1-shape.json", "gating"));
  CHECK(xs.architecture->head_gate);
  CHECK(count_parameters(xs).total() == shipped_total("hf-configs/laguna-xs-2.1-shape.json"));
  CHECK(count_parameters(xs).total() == 33'442'607'104.0);
  CHECK(2048.0 * (10 * 48 + 30 * 64) == 4'915'200);
  // The small Laguna of the test above (4 layers of 4 heads over a 64-wide hidden state): its gate
  // is 4 × 64·4 = 1024 weights of its 181,184.
  const std::string laguna = R"({"architectures": ["LagunaForCausalLM"], "hidden_size": 64, "num_attention_heads": 4, )"
                             R"("num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 4, "intermediate_size": 128, )"
                             R"("moe_intermediate_size": 32, "shared_expert_intermediate_size": 32, "num_experts": 4, )"
                             R"("num_experts_per_tok": 2, "vocab_size": 100, "torch_dtype": "bfloat16")";
  CHECK(count_parameters(read(laguna + "}")).total() == 181'184.0);
  CHECK(count_parameters(read(laguna + R"(, "gating": true})")).total() == 181'184.0);
  // Written false, or null (JSON's null says none here as everywhere), there is none.
  CHECK(count_parameters(read(laguna + R"(, "gating": false})")).total() == 181'184.0 - 4 * 64 * 4);
  CHECK_FALSE(read(laguna + R"(, "gating": null})").architecture->head_gate);
  // Other families keep theirs: a Llama has no such gate.
  CHECK_FALSE(io::load_model(test::data_file("hf-configs/llama-3.2-1b.json")).architecture->head_gate);
}

TEST_CASE("HF Qwen3-VL and Qwen3.5 towers: DeepStack mergers as the config class says, the merger to the text width") {
  const auto tower_of = [](const nlohmann::json& j) { return read(j.dump()).architecture->tower_params; };
  const auto vl = nlohmann::json::parse(std::ifstream(test::data_file("hf-configs/qwen3-vl-235b-a22b-thinking-aic.json")));
  const auto q35 = nlohmann::json::parse(std::ifstream(test::data_file("hf-configs/qwen3.5-397b.json")));
  // A DeepStack merger: a LayerNorm over 4 × 1152 = 4608, fc1 4608 → 4608 and fc2 4608 → 4096 with
  // biases. Qwen3-VL-235B's shortened config leaves deepstack_visual_indexes out: Qwen3VLVisionConfig's
  // [8, 16, 24], three of them; written as [], none.
  const double deepstack = 2 * 4608 + (4608 * 4608.0 + 4608) + (4608 * 4096.0 + 4096);
  auto none = vl;
  none["vision_config"]["deepstack_visual_indexes"] = nlohmann::json::array();
  CHECK(tower_of(vl) - tower_of(none) == 3 * deepstack);
  // Qwen3.5's vision model has none (Qwen3_5VisionModel deletes them): a list of them is refused.
  auto listed = q35;
  listed["vision_config"]["deepstack_visual_indexes"] = {8, 16, 24};
  CHECK_THROWS_WITH(read(listed.dump()), Catch::Contains("deepstack_visual_indexes: Qwen3.5's vision model has no "
                                                         "DeepStack mergers"));
  // The merger's output takes a token's place in the text embeddings: left out, the text width
  // (not the class's 3584); written otherwise, refused.
  auto unwritten = q35;
  unwritten["vision_config"].erase("out_hidden_size");
  CHECK(tower_of(unwritten) == tower_of(q35));
  auto other = q35;
  other["vision_config"]["out_hidden_size"] = 3584;
  CHECK_THROWS_WITH(read(other.dump()), Catch::Contains("out_hidden_size: 3584 is not the text width 4096"));
}

TEST_CASE("HF attention_bias that the model's rules refuse is pointed at where the config writes it, not at 1:1") {
  auto j = nlohmann::json::parse(std::ifstream(test::data_file("hf-configs/deepseek-v3.json")));
  j["attention_bias"] = true;
  const std::string text = j.dump(2);  // keys sorted: "attention_bias" is on line 5
  REQUIRE(text.find("\"attention_bias\": true") != std::string::npos);
  CHECK_THROWS_WITH(read(text), Catch::StartsWith("c.json:5:") &&
                                    Catch::Contains("attention_bias: biases are not modelled with latent attention"));
}

namespace {

// K/V bytes a token adds in bf16 while every layer keeps it (the figure `-f json` prints as
// model.kv_bytes_per_token).
double kv_token_bytes(const ModelSpec& m) {
  return kv_bytes_per_token(m, resolve_precision(DType::bf16, std::nullopt, {})).value();
}

}  // namespace

TEST_CASE("HF K/V heads and head width left out: each family's transformers default, or its derivation") {
  // Read as the query heads, gpt-oss-20b without num_key_value_heads cached 24 layers × 2 × 64 × 64
  // × 2 bytes = 393,216 a token; GptOssConfig's 8 K/V heads: 24 × 2 × 8 × 64 × 2 = 49,152, as shipped.
  const ModelSpec oss = read(without("hf-configs/gpt-oss-20b.json", "num_key_value_heads"));
  CHECK(oss.architecture->kv_heads == 8);
  CHECK(kv_token_bytes(oss) == 24 * 2 * 8 * 64 * 2.0);
  CHECK(kv_token_bytes(oss) == 49'152);
  CHECK(count_parameters(oss).total() == shipped_total("hf-configs/gpt-oss-20b.json"));
  // Qwen3MoeConfig's 4: 48 × 2 × 4 × 128 × 2 = 98,304 (read as 32 heads: 786,432).
  const ModelSpec qwen_moe = read(without("hf-configs/qwen3-30b-a3b.json", "num_key_value_heads"));
  CHECK(kv_token_bytes(qwen_moe) == 48 * 2 * 4 * 128 * 2.0);
  CHECK(kv_token_bytes(qwen_moe) == 98'304);
  // Qwen3Config's head_dim 128, not 5120 / 64 = 80: 64 × 2 × 8 × 128 × 2 = 262,144 bytes a token and
  // the 32,762,123,264 weights of the shipped config (derived: 163,840 and 30,497,192,960).
  const ModelSpec qwen3 = read(without("hf-configs/qwen3-32b-fp8.json", "head_dim"));
  CHECK(qwen3.architecture->head_dim == 128);
  CHECK(kv_token_bytes(qwen3) == 262'144);
  CHECK(count_parameters(qwen3).total() == 32'762'123'264.0);
  // MiniMaxM2Config's head_dim 128 and num_key_value_heads 8: 62 × 2 × 8 × 128 × 2 = 253,952 either
  // way (derived: 3072 / 48 = 64 wide, 126,976; 48 K/V heads, 1,523,712).
  for (const std::string key : {"head_dim", "num_key_value_heads"}) {
    INFO(key);
    const ModelSpec m = read(without("hf-configs/minimax-m2.5.json", key));
    CHECK(kv_token_bytes(m) == 62 * 2 * 8 * 128 * 2.0);
    CHECK(kv_token_bytes(m) == 253'952);
    CHECK(count_parameters(m).total() == shipped_total("hf-configs/minimax-m2.5.json"));
  }
  // Ernie4_5_MoeConfig's 4: 28 × 2 × 4 × 128 × 2 = 57,344 (read as 20 heads: 286,720).
  const ModelSpec ernie = read(without("hf-configs/ernie-4.5-21b-a3b-subset.json", "num_key_value_heads"));
  CHECK(kv_token_bytes(ernie) == 57'344);
  // Qwen3_5MoeTextConfig's head_dim 256: the 15 full layers cache 15 × 2 × 2 × 256 × 2 = 30,720 bytes a
  // token (derived, 4096 / 32 = 128: 15,360).
  const ModelSpec q35 = read(without("hf-configs/qwen3.5-397b.json", "head_dim"));
  CHECK(q35.architecture->head_dim == 256);
  CHECK(kv_token_bytes(q35) == 15 * 2 * 2 * 256 * 2.0);
  CHECK(kv_token_bytes(q35) == 30'720);
  CHECK(count_parameters(q35).total() == shipped_total("hf-configs/qwen3.5-397b.json"));
  // Where the class derives them, the derivation stays: LlamaConfig's K/V heads are the query heads
  // (Llama-3.2-1B without its 8: 32, 16 layers × 2 × 32 × 64 × 2 = 131,072), Qwen3MoeAttention's
  // head width hidden_size // num_attention_heads (Qwen3-30B-A3B without its 128: 2048 / 32 = 64).
  CHECK(kv_token_bytes(read(without("hf-configs/llama-3.2-1b.json", "num_key_value_heads"))) == 131'072);
  CHECK(read(without("hf-configs/qwen3-30b-a3b.json", "head_dim")).architecture->head_dim == 64);
  // MistralConfig's 8 beside 4 query heads: refused by the model's rules, saying the 8 is the default.
  CHECK_THROWS_WITH(read(R"({"architectures": ["MistralForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100})"),
                    Catch::Contains("num_key_value_heads: kv_heads 8 does not divide heads 4 (num_key_value_heads, "
                                    "the field being left out, is MistralForCausalLM's transformers default 8)"));
  // With 32 query heads, Mistral 7B's shape: MistralConfig's 8, not 32.
  CHECK(read(R"({"architectures": ["MistralForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
"num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100})")
            .architecture->kv_heads == 8);
  // null is None, which every class here reads as the query heads.
  auto null_kv = nlohmann::json::parse(std::ifstream(test::data_file("hf-configs/gpt-oss-20b.json")));
  null_kv["num_key_value_heads"] = nullptr;
  CHECK(read(null_kv.dump()).architecture->kv_heads == 64);
}

TEST_CASE("HF families: every decoder family says what a left-out num_key_value_heads and head_dim mean") {
  // A family row either derives them as its config class does or holds the class's number; one
  // with neither would refuse the gap (see read_attention), so a new row must decide.
  const auto holds = [](const io::HfFamily& f, std::string_view key) {
    return std::any_of(f.defaults.begin(), f.defaults.end(), [&](const io::HfDefault& d) { return d.key == key; });
  };
  for (const io::HfFamily& f : io::hf_families()) {
    const bool attends = f.shape == io::HfShape::decoder || f.shape == io::HfShape::nemotron_h;
    if (!attends || f.latent || !f.text_model_type.empty()) continue;
    INFO(f.architecture);
    CHECK((f.derives_kv_heads || holds(f, "num_key_value_heads")));
    CHECK((f.derives_head_dim || holds(f, "head_dim")));
    CHECK_FALSE((f.derives_kv_heads && holds(f, "num_key_value_heads")));
    CHECK_FALSE((f.derives_head_dim && holds(f, "head_dim")));
  }
}

TEST_CASE("HF ERNIE-4.5 and Gemma 4 fields left out: their config classes' defaults") {
  const std::string ernie = "hf-configs/ernie-4.5-21b-a3b-subset.json";
  const double shipped = shipped_total(ernie);
  CHECK(shipped == 21'825'436'160.0);
  // Ernie4_5_MoeConfig's moe_num_shared_experts 2: the 27 MoE layers' shared MLP of 2 × 3·2560·1536
  // (read as none: 27 × 23,592,960 = 637,009,920 short).
  const ModelSpec shared = read(without(ernie, "moe_num_shared_experts"));
  CHECK(shared.architecture->moe->shared_experts == 2);
  CHECK(27 * 2 * 3 * 2560 * 1536.0 == 637'009'920);
  CHECK(count_parameters(shared).total() == shipped);
  // Its tie_word_embeddings True: one 103,424 × 2560 table (untied, 22,090,201,600).
  const ModelSpec tied = read(without(ernie, "tie_word_embeddings"));
  CHECK(tied.architecture->tied_embeddings);
  CHECK(count_parameters(tied).total() == shipped);
  CHECK(shipped + 103'424 * 2560.0 == 22'090'201'600);
  // Gemma4TextConfig's global_head_dim 512: the 5 full layers cache K = V 2 × 2 × 512, the 25
  // sliding ones 2 × 8 × 256, 225,280 bytes a token in bf16 (read as head_dim: 215,040).
  const std::string gemma = "hf-configs/gemma-4-26b-a4b.json";
  const ModelSpec global = read(without(gemma, "global_head_dim"));
  CHECK(global.architecture->full_attention->head_dim == 512);
  CHECK(kv_token_bytes(global) == 25 * 2 * 8 * 256 * 2.0 + 5 * 2 * 2 * 512 * 2.0);
  CHECK(kv_token_bytes(global) == 225'280);
  CHECK(count_parameters(global).total() == shipped_total(gemma));
  // Its hidden_size_per_layer_input 256 (the 26B-A4B writes 0): per-layer inputs from its
  // 262,144-row table of 30 × 256, their projection 2816 × 7680 and its norm 256, and in each layer a
  // gate 2816 × 256, a projection back and a norm 2816: 2,078,231,296 more, 27,883,526,144 (read as
  // none, the shipped 25,805,294,848).
  const ModelSpec ple = read(without(gemma, "hidden_size_per_layer_input"));
  CHECK(ple.architecture->per_layer_input == 256);
  const double inputs = 262'144 * 7680.0 + 2816 * 7680.0 + 256 + 30 * (2 * 2816 * 256.0 + 2816);
  CHECK(inputs == 2'078'231'296.0);
  CHECK(count_parameters(ple).total() == shipped_total(gemma) + inputs);
  CHECK(count_parameters(ple).total() == 27'883'526'144.0);
}

TEST_CASE("HF values no reader builds are refused at their key: MiniMax-M2's shared expert, a Q latent of rank 0") {
  // MiniMax-M2.5 with a shared expert of 1536 (one routed expert's width): transformers'
  // MiniMaxM2SparseMoeBlock and vLLM's MiniMaxM2MoE build none, and it was priced, 229,566,978,560.
  auto minimax = nlohmann::json::parse(std::ifstream(test::data_file("hf-configs/minimax-m2.5.json")));
  minimax["shared_intermediate_size"] = 1536;
  CHECK_THROWS_WITH(read(minimax.dump(2)),
                    Catch::StartsWith("c.json:") &&
                        Catch::Contains("shared_intermediate_size: MiniMax-M2 has no shared expert in transformers or "
                                        "vLLM"));
  // 0 (as shipped) and null are none.
  minimax["shared_intermediate_size"] = nullptr;
  CHECK(read(minimax.dump(2)).architecture->moe->shared_experts == 0);
  // q_lora_rank 0: transformers and vLLM project Q directly only for null (`is None`); it was read
  // as a Q projected directly.
  auto deepseek = nlohmann::json::parse(std::ifstream(test::data_file("hf-configs/deepseek-v3.json")));
  deepseek["q_lora_rank"] = 0;
  CHECK_THROWS_WITH(read(deepseek.dump(2)), Catch::StartsWith("c.json:") &&
                                                Catch::Contains("q_lora_rank: 0 is no rank: transformers and vLLM "
                                                                "project Q directly only when q_lora_rank is null"));
}

TEST_CASE("HF Gemma 4 layers: the last one full as Gemma4TextConfig forces it, the 5:1 pattern fixed - else refused") {
  const std::string gemma4 = R"({"architectures": ["Gemma4ForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
"num_key_value_heads": 2, "head_dim": 16, "global_head_dim": 16, "hidden_size_per_layer_input": 0,
"intermediate_size": 128, "vocab_size": 100, "sliding_window": 32, "torch_dtype": "bfloat16", )";
  const std::vector<Mixer> five_to_one = {Mixer::sliding, Mixer::sliding, Mixer::sliding,
                                          Mixer::sliding, Mixer::sliding, Mixer::full};
  CHECK(read(gemma4 + R"("num_hidden_layers": 12})").architecture->mixer_pattern == five_to_one);
  // A written layer_types ending on a sliding layer: Gemma4TextConfig.__post_init__ makes it full
  // (with a warning) - read as written, the last layer's cache was a window's.
  CHECK_THROWS_WITH(read(gemma4 + R"("num_hidden_layers": 2, "layer_types": ["full_attention", "sliding_attention"]})"),
                    Catch::StartsWith("c.json:3:") &&
                        Catch::Contains("layer_types: layer_types[1] is not full_attention: Gemma4TextConfig forces "
                                        "the last layer to full attention"));
  CHECK(read(gemma4 + R"("num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"]})")
            .architecture->mixer_pattern == std::vector<Mixer>{Mixer::sliding, Mixer::full});
  // Derived for 7 layers, the pattern ends on a sliding layer the class rewrites.
  CHECK_THROWS_WITH(read(gemma4 + R"("num_hidden_layers": 7})"),
                    Catch::Contains("num_hidden_layers: 7 layers end Gemma4TextConfig's 5-sliding-to-1-full "
                                    "layer_types on a sliding layer"));
  // Gemma4TextConfig fixes the 6 in its code: another period written is read by no reader.
  CHECK_THROWS_WITH(read(gemma4 + R"("num_hidden_layers": 12, "sliding_window_pattern": 4})"),
                    Catch::Contains("sliding_window_pattern: Gemma4TextConfig derives layer_types as 5 sliding "
                                    "layers to 1 full whatever this says"));
  CHECK(read(gemma4 + R"("num_hidden_layers": 12, "sliding_window_pattern": 6})").architecture->mixer_pattern ==
        five_to_one);
}
