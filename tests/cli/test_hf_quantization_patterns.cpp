// `quantization_config` patterns matched as their libraries match them against the modules a
// model has, compressed-tensors' config groups (one group size, the LM head where a target names
// it, dense formats only), and the KV cache format a checkpoint declares, taken as vLLM's default
// --kv-cache-dtype auto takes it and said in every output.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include "cli_runner.hpp"
#include "io/model_writer.hpp"
#include "model/parameters.hpp"
#include "report/warning_text.hpp"

using namespace roofline;

namespace {

// tests/data/hf-configs/NAME.json (Qwen3-8B, Qwen3-30B-A3B: bf16, untied) with this quantization_config.
std::string config_with(const std::string& name, const std::string& quantization) {
  std::string config = test::read_text(test::data_file("hf-configs/" + name + ".json"));
  const auto brace = config.rfind('}');
  REQUIRE(brace != std::string::npos);
  config.insert(brace, R"(, "quantization_config": )" + quantization);
  return config;
}

ModelSpec model_with(const std::string& name, const std::string& quantization) {
  return io::read_model(io::parse_yaml(config_with(name, quantization), name + ".json"));
}

// compressed-tensors: one int4 group over `targets` (group_size 128), with this `ignore`.
std::string w4a16(const std::string& ignore, const std::string& targets = R"(["Linear"])",
                  const std::string& format = "pack-quantized") {
  return R"({"quant_method": "compressed-tensors", "format": ")" + format +
         R"(", "quantization_status": "compressed", "kv_cache_scheme": null, "config_groups": {"group_0":
{"targets": )" + targets +
         R"(, "input_activations": null, "output_activations": null, "weights": {"num_bits": 4, "type": "int",
"strategy": "group", "group_size": 128, "symmetric": true, "dynamic": false, "actorder": null, "observer": "minmax",
"observer_kwargs": {}}}}, "ignore": )" + ignore + "}";
}

double weights(const ModelSpec& m) { return weight_bytes(m, resolve_precision(m)).total().value(); }

// Qwen3-8B: 36 layers of attention 4096·(4096 + 1024 + 1024 + 4096) = 41,943,040 and an MLP of
// 3·4096·12288 = 150,994,944, so 6,945,767,424 linear weights; the embedding and the head
// 151,936·4096 = 622,329,856 each; norms 36·(2·4096 + 2·128) + 4096 = 308,224. int4 in groups of
// 128 is 0.5 + 2/128 = 0.515625 bytes a weight.
constexpr double kLinears8b = 6'945'767'424.0, kTable8b = 622'329'856.0, kNorms8b = 308'224.0;
constexpr double kInt4 = 0.515625;

}  // namespace

TEST_CASE("quantization patterns: a regular expression or wildcard catching gate_proj is part of the MLP, not the router") {
  // compressed-tensors matches `re:` with Python's re.match, so `.*gate.*` catches every
  // mlp.gate_proj (and every expert's gate_proj), not only a router: gate_proj left in bf16 beside
  // int4 up_proj and down_proj is part of a class. Read as the router only, it priced Qwen3-8B at
  // 6.07 GB (all int4) where the checkpoint holds 8.76 GB, Qwen3-30B-A3B at 16.69 GB for 31.03 GB.
  const std::string gate = R"(["lm_head", "re:.*router.*", "re:.*gate.*"])";
  CHECK_THROWS_WITH(model_with("qwen3-8b", w4a16(gate)),
                    Catch::Contains("quantization_config.ignore: \"re:.*gate.*\" names part of a tensor class") &&
                        Catch::Contains("model.layers.0.mlp.gate_proj but not model.layers.0.mlp.up_proj") &&
                        Catch::Contains("dense_ffn"));
  CHECK_THROWS_WITH(model_with("qwen3-30b-a3b", w4a16(gate)),
                    Catch::Contains("\"re:.*gate.*\" names part of a tensor class") &&
                        Catch::Contains("mlp.experts.0.gate_proj but not model.layers.0.mlp.experts.0.up_proj") &&
                        Catch::Contains("the experts class"));
  // ModelOpt's exclude_modules are shell wildcards (vLLM: fnmatch): `*mlp.gate*` catches gate_proj too.
  const std::string modelopt = R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
"kv_cache_quant_algo": null, "exclude_modules": ["lm_head", )";
  CHECK_THROWS_WITH(model_with("qwen3-8b", modelopt + R"("*mlp.gate*"]})"),
                    Catch::Contains("exclude_modules: \"*mlp.gate*\" names part of a tensor class"));
  // On Qwen3-30B-A3B it catches only the router (`mlp.gate`; the experts are `mlp.experts.N.gate_proj`,
  // no `mlp.gate` in them): the experts stay NVFP4.
  CHECK(model_with("qwen3-30b-a3b", modelopt + R"("*mlp.gate*"]})").quantization->of(TensorClass::experts) ==
        WeightFormat::nvfp4);
}

TEST_CASE("quantization patterns: one catching whole classes is those classes, one catching only routers keeps its meaning") {
  // Only the routers (Qwen3-30B-A3B's mlp.gate; `$` ends the name), written either way: nothing
  // changes. 48 layers of attention 2048·(4096 + 512 + 512) + 4096·2048 = 18,874,368 and 128
  // experts of 3·2048·768 = 4,718,592, all int4; the routers (48·2048·128), the tables
  // (2·151,936·2048) and the norms (48·(2·2048 + 2·128) + 2048) in bf16.
  const double linears30 = 48 * (18'874'368.0 + 128 * 4'718'592.0);
  const double rest30 = 48 * 2048 * 128.0 + 2 * 151'936 * 2048.0 + 48 * (2 * 2048 + 2 * 128.0) + 2048;
  const double int4_30 = linears30 * kInt4 + rest30 * 2;
  for (const std::string router : {R"("re:.*mlp.gate$")", R"("re:.*router.*", "re:.*mlp\\.gate$")"}) {
    INFO(router);
    const ModelSpec m = model_with("qwen3-30b-a3b", w4a16(R"(["lm_head", )" + router + "]"));
    CHECK(m.quantization->of(TensorClass::experts) == WeightFormat::int4);
    CHECK(weights(m) == Approx(int4_30).epsilon(1e-12));
  }
  const std::string modelopt = R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
"exclude_modules": ["lm_head", )";
  CHECK(model_with("qwen3-30b-a3b", modelopt + R"("*mlp.gate"]})").quantization->of(TensorClass::experts) ==
        WeightFormat::nvfp4);
  // One layer's router, by its own name, as Qwen's FP8 checkpoints list them (Qwen3-Next-80B-A3B-FP8:
  // "model.layers.0.mlp.gate", ...): priced in 16 bits anyway, it changes nothing; it had been
  // refused as one layer's module.
  const ModelSpec one = model_with("qwen3-30b-a3b", w4a16(R"(["lm_head", "model.layers.0.mlp.gate"])"));
  CHECK(weights(one) == Approx(int4_30).epsilon(1e-12));
  // Every matrix of the dense MLP, by one regular expression: the dense_ffn class in bf16, the
  // attention int4. Qwen3-8B: 36·41,943,040 attention weights at 0.515625 bytes, 36·150,994,944 MLP
  // weights, the tables and the norms at 2 = 14,140,139,520 bytes.
  const ModelSpec mlp = model_with("qwen3-8b", w4a16(R"(["lm_head", "re:.*mlp\\.(gate|up|down)_proj"])"));
  CHECK(mlp.quantization->of(TensorClass::attention) == WeightFormat::int4);
  CHECK_FALSE(mlp.quantization->of(TensorClass::dense_ffn));
  CHECK(weights(mlp) == 36 * 41'943'040.0 * kInt4 + (36 * 150'994'944.0 + 2 * kTable8b + kNorms8b) * 2);
  CHECK(weights(mlp) == 14'140'139'520.0);
  // A wildcard over the attention modules (ModelOpt's own style): the attention class.
  CHECK_FALSE(model_with("qwen3-8b", modelopt + R"("model.layers.*.self_attn*"]})").quantization->of(TensorClass::attention));
  // A regular expression catching the routed experts, both the first and the last: the experts class.
  const ModelSpec experts = model_with("qwen3-30b-a3b", w4a16(R"(["lm_head", "re:.*mlp\\.experts\\..*"])"));
  CHECK_FALSE(experts.quantization->of(TensorClass::experts));
  CHECK(experts.quantization->of(TensorClass::attention) == WeightFormat::int4);
  // Some experts only (the first of 128): part of the class.
  CHECK_THROWS_WITH(model_with("qwen3-30b-a3b", w4a16(R"(["lm_head", "re:.*mlp\\.experts\\.0\\..*"])")),
                    Catch::Contains("names part of a tensor class"));
  // Python syntax POSIX does not read is refused at the field, not guessed at; so is no expression.
  CHECK_THROWS_WITH(model_with("qwen3-8b", w4a16(R"(["lm_head", "re:(?P<x>.*)gate"])")),
                    Catch::Contains("ignore: \"re:(?P<x>.*)gate\": rooflineplan matches POSIX extended expressions"));
  CHECK_THROWS_WITH(model_with("qwen3-8b", w4a16(R"(["lm_head", "re:(.*gate"])")),
                    Catch::Contains("ignore: \"re:(.*gate\" is not a regular expression rooflineplan can match"));
}

TEST_CASE("quantization patterns: compressed-tensors groups of two group sizes are refused, not priced as the last") {
  // Qwen3-30B-A3B: attention int4 in groups of 128, experts in groups of 32. The model has one
  // group size (--group-size): the reader took whichever group came last, 16.69 or 18.09 GB by
  // the order of the groups, 7.5% apart.
  const auto groups = [](int first, const std::string& first_targets, int second, const std::string& second_targets) {
    const auto group = [](int size, const std::string& targets) {
      return R"({"targets": [")" + targets + R"("], "input_activations": null, "weights": {"num_bits": 4,
"type": "int", "strategy": "group", "group_size": )" +
             std::to_string(size) + R"(, "symmetric": true}})";
    };
    return R"({"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"group_0": )" +
           group(first, first_targets) + R"(, "group_1": )" + group(second, second_targets) +
           R"(}, "ignore": ["lm_head", "re:.*mlp.gate$"]})";
  };
  CHECK_THROWS_WITH(model_with("qwen3-30b-a3b", groups(128, "re:.*self_attn.*", 32, "re:.*mlp.experts.*")),
                    Catch::Contains("config_groups.group_1.weights.group_size: 32 beside another config group's 128"));
  CHECK_THROWS_WITH(model_with("qwen3-30b-a3b", groups(32, "re:.*mlp.experts.*", 128, "re:.*self_attn.*")),
                    Catch::Contains("config_groups.group_1.weights.group_size: 128 beside another config group's 32"));
  const ModelSpec same = model_with("qwen3-30b-a3b", groups(128, "re:.*self_attn.*", 128, "re:.*mlp.experts.*"));
  CHECK(same.quantization->group_size == 128);
  CHECK(same.quantization->of(TensorClass::experts) == WeightFormat::int4);
}

TEST_CASE("quantization patterns: compressed-tensors quantizes the LM head a target names, refuses one only `Linear` reaches") {
  // targets ["Linear", "lm_head"], nothing ignored: the head is int4 as GPTQ's `lm_head: true`
  // prices it. Qwen3-8B: (6,945,767,424 + 622,329,856)·0.515625 + (622,329,856 + 308,224)·2 =
  // 5,147,576,320 bytes (6,071,347,200 with the head in bf16, as it was priced).
  const ModelSpec head = model_with("qwen3-8b", w4a16("[]", R"(["Linear", "lm_head"])"));
  CHECK(head.quantization->of(TensorClass::lm_head) == WeightFormat::int4);
  CHECK_FALSE(head.quantization->of(TensorClass::embedding));
  CHECK(weights(head) == (kLinears8b + kTable8b) * kInt4 + (kTable8b + kNorms8b) * 2);
  CHECK(weights(head) == 5'147'576'320.0);
  // Left out by `ignore`: bf16, as before.
  const ModelSpec kept = model_with("qwen3-8b", w4a16(R"(["lm_head"])"));
  CHECK_FALSE(kept.quantization->of(TensorClass::lm_head));
  CHECK(weights(kept) == kLinears8b * kInt4 + (2 * kTable8b + kNorms8b) * 2);
  CHECK(weights(kept) == 6'071'347'200.0);
  // targets ["Linear"] and an empty ignore: compressed-tensors quantizes the head (an nn.Linear,
  // matched by class), but vLLM matches a target to its ParallelLMHead by name only: refused.
  CHECK_THROWS_WITH(model_with("qwen3-8b", w4a16("[]")),
                    Catch::Contains("quantization_config.ignore: leaves the LM head (an nn.Linear) to a group's "
                                    "`Linear` target"));
}

TEST_CASE("quantization patterns: compressed-tensors' sparse formats are refused at `format`, the dense ones read") {
  // marlin-24 stores 2 of every 4 weights with their indices: priced as dense int4 it was 6.07 GB.
  for (const std::string sparse : {"marlin-24", "sparse-24-bitmask", "sparse-bitmask", "packed-in-some-new-way"}) {
    INFO(sparse);
    CHECK_THROWS_WITH(model_with("qwen3-8b", w4a16(R"(["lm_head"])", R"(["Linear"])", sparse)),
                      Catch::Contains("quantization_config.format: \"" + sparse +
                                      "\" is not a dense compressed-tensors format"));
  }
  // A config group's own format, too.
  std::string group = w4a16(R"(["lm_head"])");
  group.insert(group.find("\"targets\""), R"("format": "marlin-24", )");
  CHECK_THROWS_WITH(model_with("qwen3-8b", group), Catch::Contains("group_0.format: \"marlin-24\" is not a dense"));
  CHECK(weights(model_with("qwen3-8b", w4a16(R"(["lm_head"])", R"(["Linear"])", "int-quantized"))) == 6'071'347'200.0);
}

TEST_CASE("quantization patterns: the KV cache format a checkpoint declares is the default, said in every output") {
  // ModelOpt NVFP4 with kv_cache_quant_algo FP8, and compressed-tensors' kv_cache_scheme of 8-bit
  // floats: vLLM's --kv-cache-dtype auto runs an fp8 cache. Qwen3-8B's cache: 36 layers · 2 · 8 K/V
  // heads · 128 = 73,728 one-byte elements a token (147,456 bytes in bf16, as it was priced).
  const std::string nvfp4 = R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8",
"group_size": 16, "exclude_modules": ["lm_head"]})";
  const ModelSpec m = model_with("qwen3-8b", nvfp4);
  CHECK(m.quantization->kv == DType::fp8);
  const Precision p = resolve_precision(m);
  CHECK(p.kv == DType::fp8);
  CHECK(p.kv_from_checkpoint);
  // --kv given wins, and is not a choice the checkpoint made; --weights in another format prices
  // another checkpoint, which declares none.
  PrecisionOverrides kv_bf16;
  kv_bf16.kv = DType::bf16;
  CHECK(resolve_precision(m, kv_bf16).kv == DType::bf16);
  CHECK_FALSE(resolve_precision(m, kv_bf16).kv_from_checkpoint);
  PrecisionOverrides fp16;
  fp16.weights = WeightFormat::fp16;
  CHECK(resolve_precision(m, fp16).kv == DType::bf16);

  const std::string ct = R"({"quant_method": "compressed-tensors", "format": "float-quantized", "ignore": ["lm_head"],
"config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "channel",
"symmetric": true}, "input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "dynamic": true}}},
"kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false, "symmetric": true,
"group_size": null, "block_structure": null, "actorder": null, "observer": "minmax", "observer_kwargs": {}}})";
  CHECK(model_with("qwen3-8b", ct).quantization->kv == DType::fp8);

  // Every output says so: JSON's warnings, the table's, CSV's and markdown's notes, explain's in
  // Chinese too; the cache is fp8.
  test::write_temp("qwen3-8b-nvfp4.json", config_with("qwen3-8b", nvfp4));
  const std::string path = test::temp_file("qwen3-8b-nvfp4.json");
  const std::string said =
      "the KV cache is held in fp8, the format the checkpoint declares for it (kv_cache_quant_algo or "
      "kv_cache_scheme), which vLLM's default --kv-cache-dtype auto takes: its bytes and the batch that fits are "
      "priced in fp8 (--kv prices another)";
  const auto json = test::run_cli({"-m", path, "-g", "b200", "-p", "8192", "--gen", "1024", "-f", "json"});
  REQUIRE(json.code == 0);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["workload"]["kv"] == "fp8");
  CHECK(j["model"]["kv_bytes_per_token"] == 73'728.0);
  CHECK(std::find(j["warnings"].begin(), j["warnings"].end(), said) != j["warnings"].end());
  const auto table = test::run_cli({"-m", path, "-g", "b200"});
  CHECK_THAT(table.err, Catch::Contains(said));
  const auto csv = test::run_cli({"-m", path, "-g", "b200", "-f", "csv"});
  CHECK_THAT(csv.err + csv.out, Catch::Contains(said));
  const auto markdown = test::run_cli({"-m", path, "-g", "b200", "-f", "markdown"});
  CHECK_THAT(markdown.err + markdown.out, Catch::Contains(said));
  const auto zh = test::run_cli({"explain", "-m", path, "-g", "b200", "--lang", "zh"});
  CHECK_THAT(zh.out + zh.err, Catch::Contains("KV 缓存按 fp8 存储：这是检查点为它声明的格式"));
  const auto asked = test::run_cli({"-m", path, "-g", "b200", "--kv", "bf16", "-f", "json"});
  REQUIRE(asked.code == 0);
  const auto a = nlohmann::json::parse(asked.out);
  CHECK(a["model"]["kv_bytes_per_token"] == 147'456.0);
  CHECK_THAT(asked.out, !Catch::Contains("the KV cache is held in"));
  CHECK(report::warning_text(KvFromCheckpoint{DType::fp8}) == said);

  // `convert` carries it: the YAML it writes reads back with the same cache.
  const std::string yaml = io::model_yaml(m);
  CHECK_THAT(yaml, Catch::Contains("kv: fp8"));
  CHECK(io::read_model(io::parse_yaml(yaml, "back.yaml")).quantization->kv == DType::fp8);

  // A declared cache no --kv format prices is refused at its field: NVFP4 keeps an fp8 scale per
  // 16 elements (4.5 bits), which fp4 does not count; a 4-bit integer scheme likewise.
  std::string nvfp4_kv = nvfp4;
  nvfp4_kv.replace(nvfp4_kv.find("\"FP8\""), 5, "\"NVFP4\"");
  CHECK_THROWS_WITH(model_with("qwen3-8b", nvfp4_kv),
                    Catch::Contains("quantization_config.kv_cache_quant_algo: \"NVFP4\" is not a KV cache format"));
  std::string int4_kv = ct;
  const std::string fp8_scheme = R"("num_bits": 8, "type": "float", "strategy": "tensor")";
  int4_kv.replace(int4_kv.find(fp8_scheme), fp8_scheme.size(), R"("num_bits": 4, "type": "int", "strategy": "tensor")");
  CHECK_THROWS_WITH(model_with("qwen3-8b", int4_kv),
                    Catch::Contains("kv_cache_scheme.num_bits: a 4-bit int KV cache is not a format"));
}

TEST_CASE("quantization patterns: an expression is matched without backtracking, and what POSIX reads otherwise is refused") {
  // std::regex backtracked for more than a minute on `(.*)*x` against one module name; glibc's
  // regexec keeps sets of states. Answered at once, here refused as part of a class (it catches
  // the modules whose names hold an x: the experts' and mlp's, not attention's).
  CHECK_THROWS_WITH(model_with("qwen3-8b", w4a16(R"(["lm_head", "re:(.*)*x"])")),
                    Catch::Contains("ignore: \"re:(.*)*x\" names part of a tensor class"));
  // Python's \d, (?…), lazy quantifiers and {n} counts: refused, never read as ERE reads them (\d
  // as a literal d).
  for (const auto& [pattern, what] : std::vector<std::pair<std::string, std::string>>{
           {R"(re:model.layers.\\d+.mlp.gate$)", "the escape \\d"},
           {"re:.*a{2}", "a counted repetition {n}"},
           {"re:(?i).*GATE", "a group of the form (?"},
           {"re:.*?lm_head", "a lazy quantifier"},
           {"re:" + std::string(300, '('), "an expression of more than 256 characters"},
           // glibc reads these (a** caught every module: 16.4 GB, all bf16); Python refuses them.
           {"re:a**", "a quantifier with nothing to repeat"},
           {"re:(*gate)", "a quantifier with nothing to repeat"},
           {"re:.*gate|+up", "a quantifier with nothing to repeat"}}) {
    INFO(pattern);
    CHECK_THROWS_WITH(model_with("qwen3-8b", w4a16(R"(["lm_head", ")" + pattern + "\"]")),
                      Catch::Contains("rooflineplan matches POSIX extended expressions, not " + what));
  }
  // An empty kv_cache_scheme is not None to vLLM, which would run an fp8 cache of it: refused.
  CHECK_THROWS_WITH(model_with("qwen3-8b", R"({"quant_method": "compressed-tensors", "format": "pack-quantized",
"quantization_status": "compressed", "kv_cache_scheme": {}, "config_groups": {"group_0": {"targets": ["Linear"],
"weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": true}}},
"ignore": ["lm_head"]})"),
                    Catch::Contains("kv_cache_scheme: an empty scheme"));
  // A bracket's characters stand for themselves: `[*]` is no quantifier.
  CHECK_THROWS_WITH(model_with("qwen3-8b", w4a16(R"(["lm_head", "re:.*[*]gate"])")),
                    !Catch::Contains("POSIX extended expressions"));
  // An escaped dot is a dot, as in Python: the routers alone, which stay 16-bit whatever the list.
  CHECK(weights(model_with("qwen3-30b-a3b", w4a16(R"(["lm_head", "re:.*mlp\\.gate$"])"))) ==
        weights(model_with("qwen3-30b-a3b", w4a16(R"(["lm_head"])"))));
}

TEST_CASE("quantization patterns: a compressed-tensors target naming the embedding stores it in the group's format") {
  // targets ["Linear", T] with T the embedding, by its class (torch's nn.Embedding, as
  // compressed-tensors matches a class), its whole name or a regular expression; the head left
  // out by `ignore`. Qwen3-8B: (6,945,767,424 + 622,329,856)·0.515625 + (622,329,856 + 308,224)·2 =
  // 5,147,576,320 bytes; the target was dropped and the table priced in bf16, 6,071,347,200.
  for (const std::string table : {R"("Embedding")", R"("model.embed_tokens")", R"("re:.*embed_tokens$")"}) {
    INFO(table);
    const ModelSpec m = model_with("qwen3-8b", w4a16(R"(["lm_head"])", R"(["Linear", )" + table + "]"));
    CHECK(m.quantization->of(TensorClass::embedding) == WeightFormat::int4);
    CHECK_FALSE(m.quantization->of(TensorClass::lm_head));
    CHECK(weights(m) == (kLinears8b + kTable8b) * kInt4 + (kTable8b + kNorms8b) * 2);
    CHECK(weights(m) == 5'147'576'320.0);
  }
  // Named in `ignore` too: bf16, as before.
  CHECK_FALSE(model_with("qwen3-8b", w4a16(R"(["lm_head", "model.embed_tokens"])", R"(["Linear", "Embedding"])"))
                  .quantization->of(TensorClass::embedding));
  // Llama-3.2-1B ties its table to the head: one tensor, the head's format (quantization.lm_head).
  const ModelSpec tied = model_with("llama-3.2-1b", w4a16("[]", R"(["Linear", "Embedding"])"));
  CHECK(tied.quantization->of(TensorClass::lm_head) == WeightFormat::int4);
  CHECK_FALSE(tied.quantization->of(TensorClass::embedding));
  // Both named in `ignore`: a 16-bit table. One of them only: the one table both quantized and
  // not, refused.
  CHECK_FALSE(model_with("llama-3.2-1b", w4a16(R"(["lm_head", "model.embed_tokens"])", R"(["Linear", "Embedding"])"))
                  .quantization->of(TensorClass::lm_head));
  CHECK_THROWS_WITH(model_with("llama-3.2-1b", w4a16(R"(["lm_head"])", R"(["Linear", "Embedding"])")),
                    Catch::Contains("quantization_config.ignore: names one of the LM head and the embedding, which are "
                                    "tied"));
}

TEST_CASE("quantization patterns: compressed-tensors reads no wildcards and no bare short names, refused not guessed at") {
  // compressed-tensors and vLLM match an entry without `re:` as a whole module name or a class
  // name: `*mlp*` and `self_attn` name no module of Qwen3-8B (model.layers.N.mlp.gate_proj, ...),
  // so `ignore` leaves every linear int4 by them. Read as the module they name they priced the MLP
  // (or attention) in bf16: 14,140,139,520 bytes, or 8,312,678,400, for the checkpoint's 6,071,347,200.
  for (const std::string entry : {"*mlp*", "model.layers.*.mlp.*", "self_attn", "mlp"}) {
    INFO(entry);
    CHECK_THROWS_WITH(model_with("qwen3-8b", w4a16(R"(["lm_head", ")" + entry + "\"]")),
                      Catch::Contains("quantization_config.ignore: \"" + entry +
                                      "\": compressed-tensors matches an entry without `re:` as a whole module name"));
    CHECK_THROWS_WITH(model_with("qwen3-8b", w4a16(R"(["lm_head"])", "[\"" + entry + "\"]")),
                      Catch::Contains("group_0.targets: \"" + entry + "\": compressed-tensors matches"));
  }
  // As regular expressions they are matched: the MLP, or the attention, whole.
  CHECK(weights(model_with("qwen3-8b", w4a16(R"(["lm_head", "re:.*mlp.*"])"))) == 14'140'139'520.0);
  CHECK(weights(model_with("qwen3-8b", w4a16(R"(["lm_head", "re:.*self_attn.*"])"))) ==
        36 * 150'994'944.0 * kInt4 + (36 * 41'943'040.0 + 2 * kTable8b + kNorms8b) * 2);
  const ModelSpec mlp = model_with("qwen3-8b", w4a16(R"(["lm_head"])", R"(["re:.*mlp.*"])"));
  CHECK(mlp.quantization->of(TensorClass::dense_ffn) == WeightFormat::int4);
  CHECK_FALSE(mlp.quantization->of(TensorClass::attention));
  // ModelOpt's exclude_modules are shell wildcards, still read as such.
  CHECK_FALSE(model_with("qwen3-8b", R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
"exclude_modules": ["lm_head", "*mlp*"]})")
                  .quantization->of(TensorClass::dense_ffn));
}
