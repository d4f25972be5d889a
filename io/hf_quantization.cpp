// A config's `quantization_config` as the format each tensor class is stored in
// (model/weight_format.hpp): the quantizer's format for the block linears, the modules it leaves
// alone (`modules_to_not_convert`, `ignore`) mapped onto tensor classes. What cannot be mapped onto
// a whole class is refused with the field named, never priced as if it were.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "io/hf_reading.hpp"
#include "model/precision.hpp"

namespace roofline::io {

namespace {

using Classes = std::array<bool, kTensorClassCount>;

constexpr std::size_t index(TensorClass c) { return static_cast<std::size_t>(c); }

Classes only(std::initializer_list<TensorClass> list) {
  Classes out{};
  for (TensorClass c : list) out[index(c)] = true;
  return out;
}

// What a module name or pattern covers. some: the classes in `classes`; nothing: a module priced in 16 bits anyway
// (routers), or not priced at all (the vision tower, multi-token-prediction layers).
struct Covered {
  enum { some, nothing, part } what;
  Classes classes{};
};

// A pattern's module names, without the regular-expression decorations (`re:.*mlp.gate$`).
std::vector<std::string> parts_of(std::string_view pattern) {
  std::string s(pattern.starts_with("re:") ? pattern.substr(3) : pattern);
  std::vector<std::string> parts;
  std::string part;
  for (char ch : s + ".") {
    if (ch == '.') {
      if (!part.empty()) parts.push_back(part);
      part.clear();
    } else if (std::string_view("*^$\\+?()").find(ch) == std::string_view::npos) {
      part += ch;
    }
  }
  return parts;
}

// One weight matrix of a layer, by its module's whole name: a projection (`q_proj`,
// `kv_a_proj_with_mqa`, GPT-2's `c_attn`), and a recurrent layer's input projections, Gated
// DeltaNet's `in_proj_qkvz` and `in_proj_ba` (Qwen3-Next) or `in_proj_qkv`, `in_proj_z`, `in_proj_a`
// and `in_proj_b` (Qwen3.5), Mamba's `in_proj`. Quantizers leave the small ones alone (64 to 128
// columns are not a whole fp8 block): excluded, each is one matrix of the attention class, never
// the class (the layer's `linear_attn` or `mixer` below). A substring of the short names was one
// too: GPT-2's whole `attn` (in `c_attn`) was refused as a matrix.
bool is_one_matrix(std::string_view part) {
  constexpr std::array<std::string_view, 9> kNames = {"w1", "w2", "w3", "c_attn", "c_proj", "c_fc", "qkv", "wo", "wqkv"};
  return part.ends_with("_proj") || part.ends_with("_proj_with_mqa") || part.starts_with("in_proj_") ||
         std::find(kNames.begin(), kNames.end(), part) != kNames.end();
}

// Gated DeltaNet's gate projections, 2 × value heads (or value heads) columns, narrower than one
// 128-wide scale block: Qwen's FP8 checkpoints (Qwen3-Next-80B-A3B-FP8, Qwen3.5-397B-A17B-FP8)
// leave them in bf16, listed per layer. Under fp8-block the model keeps them 16-bit anyway
// (LinearStep::block_exempt): excluded, they cover nothing.
bool is_delta_net_gate(std::string_view part) {
  return part == "in_proj_ba" || part == "in_proj_a" || part == "in_proj_b";
}

// `block_gates`: the attention class is stored in fp8-block, whose DeltaNet gates stay 16-bit.
Covered covered_by(std::string_view pattern, int layers, bool block_gates) {
  if (pattern.find_first_of("|[()") != std::string_view::npos) return {Covered::part};
  const std::vector<std::string> parts = parts_of(pattern);
  if (parts.empty()) return {Covered::part};
  const auto any = [&](auto pred) { return std::any_of(parts.begin(), parts.end(), pred); };
  const auto named = [&](std::initializer_list<std::string_view> names) {
    return any([&](const std::string& p) { return std::find(names.begin(), names.end(), p) != names.end(); });
  };
  if (any([](const std::string& p) {
        return p.find("vision") != std::string::npos || p.find("visual") != std::string::npos;
      }) ||
      named({"multi_modal_projector", "mm_projector", "image_newline", "patch_embed"})) {
    return {Covered::nothing};  // the vision tower, not modelled
  }
  if (named({"mtp", "eh_proj", "enorm", "hnorm", "shared_head"})) return {Covered::nothing};
  if (block_gates && is_delta_net_gate(parts.back())) return {Covered::nothing};  // every layer's, or one's
  for (const std::string& p : parts) {
    if (!std::all_of(p.begin(), p.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) || p.size() > 6) continue;
    if (std::stol(p) >= layers) return {Covered::nothing};  // DeepSeek's MTP layer follows the decoder's
    return {Covered::part};                                 // one layer of many
  }
  const std::string& last = parts.back();
  // Small tensors a quantizer leaves alone anyway (MiniMax-M2's router correction bias, norms,
  // biases, Mamba's decays, a recurrent layer's short convolution): priced in 16 bits whatever the
  // list says.
  if (last.ends_with("bias") || last.find("norm") != std::string::npos || last == "A_log" || last == "D" ||
      last == "conv1d") {
    return {Covered::nothing};
  }
  if (last == "lm_head") return {Covered::some, only({TensorClass::lm_head})};
  if (named({"embed_tokens", "wte", "word_embeddings", "tok_embeddings"})) {
    return {Covered::some, only({TensorClass::embedding})};
  }
  // Routers (and Qwen's shared-expert gate) are priced in 16 bits whatever the quantizer does.
  if (last == "router" || last == "gate" || last == "shared_expert_gate") return {Covered::nothing};
  if (named({"shared_expert", "shared_experts"}) && !is_one_matrix(last)) {
    return {Covered::some, only({TensorClass::shared_experts})};
  }
  if (is_one_matrix(last)) return {Covered::part};
  // transformers matches these names as substrings: a bare `experts` (or `*experts`) also names
  // `shared_experts`; `mlp.experts` names only the routed ones.
  if (named({"experts"})) {
    if (parts.front() == "experts") return {Covered::some, only({TensorClass::experts, TensorClass::shared_experts})};
    return {Covered::some, only({TensorClass::experts})};
  }
  if (named({"self_attn", "attention", "attn", "linear_attn", "mixer"})) {
    return {Covered::some, only({TensorClass::attention})};
  }
  if (named({"mlp", "feed_forward", "block_sparse_moe"})) {
    return {Covered::some, only({TensorClass::dense_ffn, TensorClass::experts, TensorClass::shared_experts})};
  }
  if (last == "Linear") {
    return {Covered::some, only({TensorClass::attention, TensorClass::dense_ffn, TensorClass::experts,
                                 TensorClass::shared_experts})};
  }
  return {Covered::part};
}

// A pattern with one group of alternatives (`re:.*mlp\.(gate|up|gate_up|down)_proj.*`, Kimi-K2-
// Thinking's), as the patterns it stands for; any other pattern as itself.
std::vector<std::string> alternatives(std::string_view pattern) {
  const auto open = pattern.find('('), close = pattern.find(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
      pattern.find_first_of("()", open + 1) != close || pattern.find_first_of("()", close + 1) != std::string_view::npos) {
    return {std::string(pattern)};
  }
  std::vector<std::string> out;
  std::string_view inner = pattern.substr(open + 1, close - open - 1);
  for (std::size_t from = 0;;) {
    const auto bar = inner.find('|', from);
    out.push_back(std::string(pattern.substr(0, open)) + std::string(inner.substr(from, bar - from)) +
                  std::string(pattern.substr(close + 1)));
    if (bar == std::string_view::npos) return out;
    from = bar + 1;
  }
}

// Alternatives that name every matrix of one FFN (gate, up and down, or gate_up and down) under
// one module cover that FFN: directly under `mlp` the dense layers' (shared and routed experts
// sit one module deeper), under `shared_experts` the shared ones.
std::optional<Covered> whole_ffn(const std::vector<std::string>& patterns) {
  std::vector<std::string> matrices;
  std::optional<std::string> owner;
  for (const std::string& p : patterns) {
    const std::vector<std::string> parts = parts_of(p);
    if (parts.size() < 2 || !is_one_matrix(parts.back())) return std::nullopt;
    if (owner && *owner != parts[parts.size() - 2]) return std::nullopt;
    owner = parts[parts.size() - 2];
    matrices.push_back(parts.back());
  }
  const auto has = [&](std::string_view m) { return std::find(matrices.begin(), matrices.end(), m) != matrices.end(); };
  const bool whole = has("down_proj") && (has("gate_up_proj") || (has("gate_proj") && has("up_proj")));
  if (!whole || !owner) return std::nullopt;
  if (*owner == "mlp" || *owner == "feed_forward") return Covered{Covered::some, only({TensorClass::dense_ffn})};
  if (*owner == "shared_experts" || *owner == "shared_expert") {
    return Covered{Covered::some, only({TensorClass::shared_experts})};
  }
  return std::nullopt;
}

Covered covered_by_any(std::string_view pattern, int layers, bool block_gates) {
  const std::vector<std::string> alts = alternatives(pattern);
  if (alts.size() == 1) return covered_by(alts.front(), layers, block_gates);
  if (const auto ffn = whole_ffn(alts)) return *ffn;
  Covered out{Covered::some};
  for (const std::string& alt : alts) {
    const Covered c = covered_by(alt, layers, block_gates);
    if (c.what == Covered::part) return c;
    for (std::size_t i = 0; i < out.classes.size(); ++i) out.classes[i] = out.classes[i] || c.classes[i];
  }
  return out;
}

// The classes a list of patterns covers; a pattern covering part of a class is refused.
// `block_gates`: DeltaNet's gate projections are kept 16-bit already (covered_by).
Classes classes_of_list(const HfFields& q, std::string_view key, int layers, bool block_gates = false) {
  Classes out{};
  for (const std::string& pattern : q.words(key)) {
    const Covered c = covered_by_any(pattern, layers, block_gates);
    if (c.what == Covered::part) {
      q.fail(key, fmt::format("\"{}\" names part of a tensor class (one layer, one matrix); rooflineplan prices "
                              "formats per class (attention, dense_ffn, experts, shared_experts, lm_head, "
                              "embedding) and cannot map it",
                              pattern));
    }
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = out[i] || c.classes[i];
  }
  return out;
}

// The block's linears a quantizer converts, where the model has them; the LM head and the
// embedding stay in the model's dtype unless the config says otherwise.
Classes linears(const Architecture& a) {
  Classes out{};
  for (TensorClass c : kBlockClasses) out[index(c)] = holds(a, c);
  return out;
}

void store(Quantization& out, const Classes& classes, WeightFormat f) {
  for (std::size_t i = 0; i < classes.size(); ++i) {
    if (classes[i]) out.formats[i] = f;
  }
}

void keep_in_dtype(Quantization& out, const Classes& classes) {
  for (std::size_t i = 0; i < classes.size(); ++i) {
    if (classes[i]) out.formats[i].reset();
  }
}

int group_size(const HfFields& q, std::string_view key) {
  if (q.given(key) && q.text(key) == "-1") {
    q.fail(key,
           "-1 (one scale per output channel over the whole input) is not a format rooflineplan names; int4 "
           "formats here keep one scale per group");
  }
  return static_cast<int>(q.number_in(key, {1, 1'000'000}));
}

// fp8 (transformers' FineGrainedFP8, vLLM's Fp8Config): 128 × 128 block scales where the
// config gives them, else one scale per tensor.
WeightFormat fp8(const HfFields& q) {
  if (q.given("fmt")) {
    const std::string f = q.text("fmt");
    if (f != "e4m3" && f != "float8_e4m3fn" && f != "e5m2") {
      q.fail("fmt", fmt::format("\"{}\" is not an fp8 element rooflineplan knows (e4m3, float8_e4m3fn, e5m2)", f));
    }
  }
  // Dynamic or static scales, the activations are fp8 either way (W8A8): the linears compute in
  // fp8 where the GPU can. The scales are stored as fp32 whatever `scale_fmt` says.
  if (q.given("activation_scheme")) {
    const std::string scheme = q.text("activation_scheme");
    if (scheme != "dynamic" && scheme != "static") {
      q.fail("activation_scheme", fmt::format("\"{}\" is not an fp8 activation scheme (dynamic, static)", scheme));
    }
  }
  q.use({"activation_scheme", "scale_fmt"});
  if (!q.given("weight_block_size")) {
    q.use("weight_block_size");
    return WeightFormat::fp8;
  }
  const std::vector<long> block = q.numbers("weight_block_size", {1, 1'000'000});
  if (block != std::vector<long>{128, 128}) {
    q.fail("weight_block_size", "only 128 × 128 blocks are a named format (fp8-block)");
  }
  return WeightFormat::fp8_block;
}

// compressed-tensors: one scheme's `weights` as a named format.
WeightFormat compressed_weights(const HfFields& w, Quantization& out) {
  const long bits = w.number_in("num_bits", {1, 64});
  const std::string type = w.text("type"), strategy = w.text("strategy");
  w.use({"dynamic", "actorder", "observer", "observer_kwargs", "scale_dtype", "zp_dtype"});
  const bool symmetric = w.flag("symmetric", true);
  if (type == "float" && bits == 8) {
    if (strategy == "tensor") return WeightFormat::fp8;
    if (strategy == "channel") return WeightFormat::fp8_channel;
    if (strategy == "block") {
      if (w.numbers("block_structure", {1, 1'000'000}) != std::vector<long>{128, 128}) {
        w.fail("block_structure", "only 128 × 128 blocks are a named format (fp8-block)");
      }
      return WeightFormat::fp8_block;
    }
  }
  if (type == "float" && bits == 4 && strategy == "tensor_group") {
    if (w.number_in("group_size", {1, 1'000'000}) != 16) w.fail("group_size", "NVFP4 scales groups of 16");
    return WeightFormat::nvfp4;
  }
  if (type == "int" && bits == 4 && strategy == "group") {
    out.group_size = static_cast<int>(w.number_in("group_size", {1, 1'000'000}));
    return symmetric ? WeightFormat::int4 : WeightFormat::awq;  // asymmetric: a zero point per group, AWQ's layout
  }
  if (type == "int" && bits == 8 && (strategy == "channel" || strategy == "tensor")) return WeightFormat::int8;
  w.fail("strategy",
         fmt::format("{}-bit {} weights with strategy {} are not a format rooflineplan names", bits, type, strategy));
}

// compressed-tensors: the format one scheme's `input_activations` are quantized to at run time
// (W8A8 fp8 or int8, NVFP4's W4A4), the one its linears compute in; none: weight-only.
std::optional<DType> compressed_compute(const HfFields& g) {
  if (!g.filled("input_activations")) {
    g.use("input_activations");
    return std::nullopt;
  }
  const HfFields in = g.child("input_activations", g.what());
  const long bits = in.number_in("num_bits", {1, 64});
  const std::string type = in.text("type");
  in.use({"strategy", "dynamic", "symmetric", "group_size", "block_structure", "observer", "observer_kwargs",
          "actorder", "scale_dtype", "zp_dtype"});
  in.refuse_unread({});
  if (type == "float" && bits == 8) return DType::fp8;
  if (type == "int" && bits == 8) return DType::int8;
  if (type == "float" && bits == 4) return DType::fp4;
  in.fail("num_bits", fmt::format("{}-bit {} activations are not a compute format rooflineplan names (fp8, int8, fp4)",
                                  bits, type));
}

void read_compressed_tensors(const HfFields& q, const Architecture& a, Quantization& out) {
  for (std::string_view key : {"sparsity_config", "transform_config"}) {
    if (q.filled(key)) q.fail(key, "sparse or transformed weights are not modelled");
    q.use(key);
  }
  // llm-compressor writes its own version into every config it saves: nothing priced.
  q.use({"format", "kv_cache_scheme", "quantization_status", "global_compression_ratio", "provider", "version"});
  q.require({"config_groups"});
  const HfFields groups = q.child("config_groups", q.what());
  Classes done{};
  for (const std::string& name : groups.keys()) {
    const HfFields g = groups.child(name, q.what());
    g.use({"output_activations", "format"});
    const Classes named = classes_of_list(g, "targets", a.layers), present = linears(a);
    Classes targets{};
    for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = named[i] && present[i];
    if (g.given("weights")) {
      const WeightFormat f = compressed_weights(g.child("weights", q.what()), out);
      for (std::size_t i = 0; i < targets.size(); ++i) {
        if (targets[i] && done[i] && out.formats[i] != f) g.fail("targets", "a tensor class in two formats");
        done[i] = done[i] || targets[i];
      }
      store(out, targets, f);
    }
    const std::optional<DType> compute = compressed_compute(g);
    if (compute && out.compute && *compute != *out.compute) {
      g.fail("input_activations", "a second compute format: one workload computes in one (give --compute)");
    }
    if (compute) out.compute = compute;
    g.refuse_unread({});
  }
  groups.refuse_unread({});
}

// AWQ and GPTQ: int4 in groups, with a zero point per group (GPTQ's format stores one even for
// symmetric weights; AWQ without zero points is symmetric int4).
void read_int4(const HfFields& q, const Architecture& a, bool awq, Quantization& out) {
  if (q.number_in("bits", {1, 64}) != 4)
    q.fail("bits", "only 4-bit AWQ and GPTQ weights are formats rooflineplan names");
  out.group_size = group_size(q, "group_size");
  if (awq) {
    store(out, linears(a), q.flag("zero_point", true) ? WeightFormat::awq : WeightFormat::int4);
    q.use({"version", "backend", "do_fuse", "fuse_max_seq_len", "modules_to_fuse", "exllama_config"});
    return;
  }
  store(out, linears(a), WeightFormat::gptq);
  if (q.flag("lm_head", false)) out.of(TensorClass::lm_head) = WeightFormat::gptq;
  q.use("modules_in_block_to_quantize");
  if (q.filled("modules_in_block_to_quantize")) {
    q.fail("modules_in_block_to_quantize",
           "a quantizer that converts some of a block's linears only is not mapped "
           "onto tensor classes");
  }
  q.use({"sym",
         "desc_act",
         "damp_percent",
         "true_sequential",
         "static_groups",
         "model_name_or_path",
         "model_file_base_name",
         "checkpoint_format",
         "meta",
         "pack_dtype",
         "tokenizer",
         "dataset",
         "use_exllama",
         "exllama_config",
         "max_input_length",
         "use_cuda_fp16",
         "cache_block_outputs",
         "batch_size",
         "module_name_preceding_first_block",
         "backend"});
}

void read_modelopt(const HfFields& q, const Architecture& a, Quantization& out) {
  const std::string algo = q.text("quant_algo");
  if (algo == "NVFP4") {
    if (q.given("group_size") && q.number_in("group_size", {1, 1'000'000}) != 16)
      q.fail("group_size", "NVFP4 scales groups of 16");
    store(out, linears(a), WeightFormat::nvfp4);
    out.compute = DType::fp4;  // W4A4: the activations quantized to NVFP4 too
  } else if (algo == "FP8") {
    store(out, linears(a), WeightFormat::fp8);
    out.compute = DType::fp8;
  } else {
    q.fail("quant_algo", fmt::format("\"{}\" is not a ModelOpt format rooflineplan names (NVFP4, FP8)", algo));
  }
  // The KV cache's format is the serving engine's choice (--kv): the checkpoint's scales only allow it.
  q.use({"group_size", "kv_cache_quant_algo", "producer", "kv_cache_scheme"});
}

}  // namespace

std::optional<Quantization> read_quantization(const HfFields& q, const Architecture& a, DType dtype,
                                              std::string_view given_method) {
  if (given_method.empty()) q.require({"quant_method"});
  const std::string method = given_method.empty() ? q.text("quant_method") : std::string(given_method);
  Quantization out;
  // The modules a method leaves in the model's dtype, by the names its configs use.
  std::vector<std::string_view> exclusions = {"modules_to_not_convert"};
  if (method == "fp8") {
    store(out, linears(a), fp8(q));
    out.compute = DType::fp8;
    exclusions.push_back("ignored_layers");  // vLLM's name for them
  } else if (method == "fbgemm_fp8") {
    store(out, linears(a), WeightFormat::fp8_channel);  // e4m3 with a scale per output channel
    out.compute = DType::fp8;                            // and each token's activations scaled at run time
    q.use("activation_scale_ub");
  } else if (method == "mxfp4") {
    // gpt-oss: transformers' Mxfp4 quantizer converts the experts only.
    Classes experts{};
    experts[index(TensorClass::experts)] = a.moe_layers() > 0;
    store(out, experts, WeightFormat::mxfp4);
  } else if (method == "awq" || method == "gptq") {
    read_int4(q, a, method == "awq", out);
  } else if (method == "modelopt") {
    read_modelopt(q, a, out);
    exclusions.insert(exclusions.end(), {"exclude_modules", "ignore"});
  } else if (method == "compressed-tensors") {
    read_compressed_tensors(q, a, out);
    exclusions = {"ignore"};
  } else {
    q.fail("quant_method", fmt::format("\"{}\" is not a quantization rooflineplan reads (fp8, fbgemm_fp8, mxfp4, "
                                       "modelopt, awq, gptq, compressed-tensors); give the format with --weights",
                                       method));
  }
  Classes kept{};
  // Under fp8-block the model already keeps DeltaNet's gate projections 16-bit: naming them
  // changes nothing. Under other formats they are one matrix of the class, refused.
  const bool block_gates = out.of(TensorClass::attention) == WeightFormat::fp8_block;
  for (std::string_view key : exclusions) {
    const Classes c = classes_of_list(q, key, a.layers, block_gates);
    keep_in_dtype(out, c);
    for (std::size_t i = 0; i < kept.size(); ++i) kept[i] = kept[i] || c[i];
  }
  // Shared experts without a format of their own take the routed experts': kept in the model's
  // dtype beside converted routed experts (Kimi-K2-Thinking), they are said to be so.
  if (kept[index(TensorClass::shared_experts)] && out.of(TensorClass::experts)) {
    out.of(TensorClass::shared_experts) = weight_format_of(dtype);
  }
  q.refuse_unread({});
  if (std::none_of(out.formats.begin(), out.formats.end(), [](const auto& f) { return f.has_value(); })) {
    return std::nullopt;
  }
  return out;
}

}  // namespace roofline::io
