// Issue 27, loose checks: a number must be written as one, a pattern must fit its stack, a flag
// holds what the file's own field holds, a JSON file's comment is called one, and what a
// conversion cannot hold as a field travels with it as a comment.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"

using namespace roofline;
using test::check_error;
using test::data_file;
using test::run_cli;

namespace fs = std::filesystem;

namespace {

fs::path written(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / name;
  std::ofstream(p) << text;
  return p;
}

// The test-data HF config `name` with its text `field` written as `as`, in a file `out`.
fs::path with_field(const std::string& name, const std::string& field, const std::string& as, const std::string& out) {
  std::string json = test::read_text(data_file("hf/" + name));
  REQUIRE(json.find(field) != std::string::npos);
  json.replace(json.find(field), field.size(), as);
  return written(out, json);
}

const std::string kTiny = "name: Tiny\nhidden: 128\nheads: 4\nkv_heads: 4\nffn: 256\nffn_type: gated\nvocab: 512\n";

}  // namespace

TEST_CASE("a quoted number is text: layers: \"32\" in YAML and \"num_local_experts\": \"8\" in JSON are refused") {
  const fs::path yaml = written("rooflineplan-quoted.yaml", kTiny + "layers: \"2\"\n");
  check_error(test::with_model(yaml.string()), yaml.string() + ":8:9: layers",
              "must be a whole number, not the text \"2\" (drop the quotes)");
  const fs::path config = with_field("mixtral-8x7b.json", "\"num_local_experts\": 8", "\"num_local_experts\": \"8\"",
                                     "rooflineplan-quoted.json");
  check_error(test::with_model(config.string()), config.string(), "num_local_experts: must be a whole number, not the text \"8\"");
}

TEST_CASE("a quoted boolean is text: \"tie_word_embeddings\": \"false\" and tied_embeddings: !!str true are refused") {
  // transformers tests the text for truth and ties the head; read as false, the head was priced
  // untied (1.50 B parameters for a 1.24 B model).
  const fs::path config = with_field("llama-2-7b.json", "\"tie_word_embeddings\": false",
                                     "\"tie_word_embeddings\": \"false\"", "rooflineplan-quoted-bool.json");
  check_error(test::with_model(config.string()), config.string(),
              "tie_word_embeddings: must be true or false, not the text \"false\" (drop the quotes)");
  const fs::path yaml = written("rooflineplan-tagged-bool.yaml", kTiny + "layers: 2\ntied_embeddings: !!str true\n");
  check_error(test::with_model(yaml.string()), yaml.string() + ":9:18: tied_embeddings",
              "must be true or false, not the text \"true\" (drop the quotes)");
}

TEST_CASE("a mixer_pattern or ffn_pattern longer than the layers is refused at the field") {
  const fs::path p = written("rooflineplan-long-pattern.yaml", kTiny + "layers: 2\nmixer_pattern: [full, full, sliding]\n"
                                                                       "sliding_window: 64\n");
  check_error(test::with_model(p.string()), p.string() + ":9:", "mixer_pattern: has 3 kinds for 2 layers");
}

TEST_CASE("group-size: the flag takes what a model file's group_size takes - 1000000001 is refused") {
  check_error(run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--weights", "int4", "--group-size", "1000000001"}),
              "--group-size", "1000000");
  // The flag's largest: a model known by its size alone prices it; one with layers refuses any
  // group wider than its matrices' inputs (test_workload_flags.cpp).
  CHECK(run_cli({"-m", test::example_file("7b.yaml"), "-g", "a100-80gb", "--weights", "int4", "--group-size", "1000000"})
            .code == 0);
}

TEST_CASE("a .json file with a comment is told so at its line, not called malformed YAML") {
  const fs::path p = written("rooflineplan-comment.json", "{\n  \"hidden_size\": 4096,\n  // hand-edited\n  \"x\": 1\n}\n");
  check_error(test::with_model(p.string()), p.string() + ":3:1", "a comment: JSON has none (remove it)");
  // Malformed otherwise: JSON, by its extension.
  const fs::path q = written("rooflineplan-broken.json", "{\n  \"hidden_size\": 4096,\n");
  check_error(test::with_model(q.string()), q.string(), "malformed JSON");
}

TEST_CASE("convert keeps the model's caveats as comments: a vision tower held but never run, MTP layers not priced") {
  const auto gemma = run_cli({"convert", data_file("hf-configs/gemma-3-27b-it.json")});
  REQUIRE(gemma.code == 0);
  CHECK_THAT(gemma.out, Catch::StartsWith("# caveat, from " + data_file("hf-configs/gemma-3-27b-it.json") +
                                          ": multimodal model: the vision and audio towers' weights are held in memory"));
  const auto v3 = run_cli({"convert", data_file("hf-configs/deepseek-v3.json")});
  REQUIRE(v3.code == 0);
  CHECK_THAT(v3.out, Catch::StartsWith("# caveat, from ") && Catch::Contains("multi-token-prediction layers are not priced"));
  // A model with nothing assumed gets no comment.
  const auto llama = run_cli({"convert", data_file("hf/llama-2-7b.json")});
  REQUIRE(llama.code == 0);
  CHECK_THAT(llama.out, !Catch::Contains("# caveat") && !Catch::Contains("assumptions:"));
}

TEST_CASE("convert keeps the caveats as fields too: the YAML priced later warns as the config did") {
  // DeepSeek-V3's MTP layers: a warning on the config, and on its conversion (a comment alone was
  // read by nobody, and the converted file priced the same numbers without a word).
  const auto v3 = run_cli({"convert", data_file("hf-configs/deepseek-v3.json")});
  REQUIRE(v3.code == 0);
  CHECK_THAT(v3.out, Catch::Contains("\nassumptions: [mtp_not_modelled]\n"));
  const fs::path yaml = written("rooflineplan-deepseek-v3.yaml", v3.out);
  const auto from_config = run_cli({"-m", data_file("hf-configs/deepseek-v3.json"), "-g", "h200", "--tp", "8", "-f", "json"});
  const auto from_yaml = run_cli({"-m", yaml.string(), "-g", "h200", "--tp", "8", "-f", "json"});
  REQUIRE(from_config.code == 0);
  REQUIRE(from_yaml.code == 0);
  const auto c = nlohmann::json::parse(from_config.out), y = nlohmann::json::parse(from_yaml.out);
  CHECK(y.at("warnings") == c.at("warnings"));
  CHECK(y.at("decode").at("step_time") == c.at("decode").at("step_time"));
  check_error(test::with_model(written("rooflineplan-bad-assumption.yaml",
                                       "name: x\nparams: 7e9\ndtype: fp16\nassumptions: [guessed]\n").string()),
              "", "assumptions: \"guessed\" is not one of");
  // One the file's own fields contradict would be a false warning.
  check_error(test::with_model(written("rooflineplan-fp16-bf16.yaml",
                                       "name: x\nparams: 7e9\ndtype: fp16\nassumptions: [dtype_bf16]\n").string()),
              "", "assumptions: dtype_bf16 says the weights were taken as bf16, but `dtype` is not bf16");
  check_error(test::with_model(written("rooflineplan-fp32-as-bf16.yaml",
                                       "name: x\nparams: 7e9\ndtype: fp32\nassumptions: [dtype_fp32_as_bf16]\n").string()),
              "", "assumptions: dtype_fp32_as_bf16 says the float32 weights were taken as bf16, but `dtype` is not bf16");
  check_error(test::with_model(written("rooflineplan-no-mtp.yaml",
                                       "name: x\nparams: 7e9\ndtype: bf16\nassumptions: [mtp_not_modelled]\n").string()),
              "", "assumptions: mtp_not_modelled needs `mtp_modules`");
}
