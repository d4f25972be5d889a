#include "io/hf_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <vector>

#include "io/hf_reading.hpp"
#include "io/input_error.hpp"

namespace roofline::io {

namespace {

// The model schema's fields the reader fills that the schema carries, for the schema test.
constexpr auto kSchemaFieldsRead = std::to_array<std::string_view>(
    {"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "max_context", "position_embeddings",
     "tied_embeddings", "attention_bias", "moe.experts", "moe.top_k", "moe.ffn", "moe.shared_experts",
     "moe.dense_layers", "moe.latent", "mla.q_lora_rank", "mla.kv_lora_rank", "mla.nope_dim", "mla.rope_dim", "mla.v_dim",
     "mixer_pattern", "ffn_pattern", "sliding_window", "attention_chunk", "attention_sinks", "qk_norm",
     "attention_gate", "recurrent.kind", "recurrent.inner", "recurrent.state", "recurrent.heads", "recurrent.groups",
     "recurrent.conv_kernel", "recurrent.dt_rank", "recurrent.conv_bias", "recurrent.fp32_state", "sparse.top_k", "sparse.index_heads",
     "sparse.index_dim", "full_attention.heads", "full_attention.kv_heads", "full_attention.head_dim", "head_gate",
     "full_attention.shared_kv", "tower_params", "kv_shared_layers", "kv_shared_ffn", "per_layer_input",
     "per_layer_vocab"});

// The architecture a config names (quoted in errors, kept in the spec's source: printable only),
// and the key it was named by.
struct Named {
  std::string name;
  std::string_view key;
};

Named architecture_of(const YamlDocument& doc) {
  const YAML::Node list = doc.root["architectures"];
  if (list && list.IsSequence() && list.size() > 0 && list[0].IsScalar()) {
    check_text(doc, list[0], "architectures[0]");
    return {list[0].Scalar(), "architectures"};
  }
  // null or [] (sub-configs write them) name nothing, and model_type does; a bare string or a map
  // is not what transformers writes, and read past it the model_type's family would be a guess.
  if (list && !list.IsNull() && !(list.IsSequence() && list.size() == 0)) {
    MapReader(doc, doc.root, "", {})
        .fail("architectures", "must be a list of class names whose first is the model's, such as "
                               "[\"LlamaForCausalLM\"]");
  }
  const YAML::Node type = doc.root["model_type"];
  if (type && type.IsScalar()) {
    check_text(doc, type, "model_type");
    if (const HfFamily* f = hf_family_of_type(type.Scalar())) return {std::string(f->architecture), "model_type"};
    return {type.Scalar(), "model_type"};
  }
  return {"", "architectures"};
}

std::string known_list() {
  std::vector<std::string_view> names;
  for (const HfFamily& f : hf_families()) names.push_back(f.architecture);
  return fmt::format("{}", fmt::join(names, ", "));
}

// An architecture rooflineplan does not know is refused, never read as a Llama: its blocks may be
// anything (Falcon's parallel attention, a hybrid), and a plan priced on a guess is silently wrong.
const HfFamily& family_of(const YamlDocument& doc) {
  const Named named = architecture_of(doc);
  if (const HfFamily* f = hf_family(named.name)) return *f;
  const MapReader r(doc, doc.root, "", {});
  const std::string why = fmt::format(
      "`{}` is not an architecture rooflineplan reads ({}); describe the model in "
      "rooflineplan's YAML (docs/inputs.md describes its fields)",
      named.name.empty() ? "(none given)" : named.name, known_list());
  if (r.has(named.key)) r.fail(named.key, why);
  r.fail_here(why);
}

// The text decoder of a multimodal wrapper: the family its text config names, or the wrapper's.
const HfFamily& text_family_of(const HfFields& text, const HfFamily& wrapper) {
  const std::string type = text.given("model_type") ? text.text("model_type") : std::string(wrapper.text_model_type);
  const HfFamily* f = hf_family_of_type(type);
  if (f == nullptr || !f->text_model_type.empty()) {
    text.fail("model_type",
              fmt::format("\"{}\" is not a text decoder rooflineplan reads under {}", type, wrapper.architecture));
  }
  return *f;
}

std::optional<DType> dtype_in(const HfFields& c) {
  c.use({"torch_dtype", "dtype"});
  std::optional<DType> found;
  for (std::string_view key : {"torch_dtype", "dtype"}) {
    if (!c.given(key)) continue;
    const std::string s = c.text(key);
    std::optional<DType> d;
    if (s == "bfloat16") d = DType::bf16;
    if (s == "float16") d = DType::fp16;
    if (s == "float32") d = DType::fp32;
    if (!d) c.fail(key, fmt::format("\"{}\" is not a weight format rooflineplan knows (bfloat16, float16, float32)", s));
    // transformers writes `dtype` beside the older `torch_dtype`: two that disagree leave the
    // weights' format unknown, and one of them was dropped without a word.
    if (found && *found != *d) {
      c.fail(key, fmt::format("\"{}\" disagrees with torch_dtype \"{}\": the weights' format is one of them", s,
                              c.text("torch_dtype")));
    }
    found = d;
  }
  return found;
}

// GPT-2: plain GELU FFN of n_inner (4 × n_embd when null), LayerNorm, a bias on every linear,
// learned positions.
void read_gpt2(const HfFields& c, Architecture& a) {
  c.require({"n_layer", "n_embd", "n_head", "vocab_size", "n_positions"});
  a.layers = c.small_count("n_layer", "layers");
  a.hidden = c.count("n_embd", "hidden");
  a.heads = a.kv_heads = c.small_count("n_head", "heads");
  if (a.hidden % a.heads != 0) {
    c.fail("n_head", fmt::format("{} heads do not divide n_embd {}", a.heads, a.hidden));
  }
  a.head_dim = a.hidden / a.heads;
  a.ffn_type = FfnType::plain;
  // transformers' GPT-2 default; n_embd's range keeps 4 × n_embd far inside 64 bits.
  a.ffn = c.given("n_inner") ? c.count("n_inner", "ffn") : 4 * a.hidden;
  c.use("n_inner");
  a.norm = NormType::layernorm;
  a.linear_bias = true;
  a.position_embeddings = c.count("n_positions", "position_embeddings");
}

Architecture read_architecture(const HfFields& c, const HfFamily& f) {
  Architecture a;
  a.tied_embeddings = c.flag("tie_word_embeddings", f.tied);
  if (f.shape == HfShape::gpt2) {
    read_gpt2(c, a);
    a.vocab = c.count("vocab_size", "vocab");
    return a;
  }
  c.require({"num_hidden_layers", "hidden_size", "vocab_size"});
  a.layers = c.small_count("num_hidden_layers", "layers");
  a.hidden = c.count("hidden_size", "hidden");
  a.vocab = c.count("vocab_size", "vocab");
  switch (f.shape) {
    case HfShape::mamba:
    case HfShape::mamba2:
      read_mamba(c, f, a);
      break;
    case HfShape::nemotron_h:
      read_nemotron_h(c, f, a);
      break;
    case HfShape::gpt2:
    case HfShape::decoder:
      read_attention(c, f, a);
      read_layer_kinds(c, f, a);
      read_global_attention(c, f, a);
      read_ffn(c, f, a);
      break;
  }
  return a;
}

// Multi-token-prediction modules (DeepSeek-V3's, GLM's, MiMo's) ship beside the model and serve
// speculative decoding only: not priced in the model, and said so; `--speculative K:ACCEPT:mtp`
// drafts with them. A config saying only use_mtp has one.
int mtp_modules(const HfFields& c) {
  const auto given = [&](std::string_view key) {
    return c.given(key) ? static_cast<int>(c.number_in(key, {0, 1'000})) : 0;
  };
  const int layers = given("num_nextn_predict_layers"), modules = given("num_mtp_modules");
  const int qwen = given("mtp_num_hidden_layers");  // Qwen3.5's
  const bool used = c.flag("use_mtp", false);
  c.use({"num_nextn_predict_layers", "num_mtp_modules", "mtp_transformer_layers", "mtp_num_hidden_layers"});
  return std::max({layers, modules, qwen, used ? 1 : 0});
}

// The context a YaRN-scaled config serves: original_max_position_embeddings × factor, the product
// vLLM derives max_model_len from (vllm/config.py, _get_and_verify_max_len), and as Qwen's model
// cards extend Qwen3 from 32768 to 131072 tokens (rope_scaling {rope_type: yarn, factor: 4}). The
// caller keeps the larger of it and max_position_embeddings, where vLLM takes the product even
// when smaller (Kimi-K2-Thinking's copy here: 131072 of 262144) and SGLang's get_context_length
// max_position_embeddings alone; configs such as DeepSeek's give both alike. Other rope types keep
// max_position_embeddings: llama3's and longrope's is the extended length already, and vLLM's
// product for linear and dynamic scaling would give Gemma 3's documented 131072 tokens eight times
// over (vLLM skips Gemma 3 so). Read from rope_scaling, or rope_parameters (transformers 5), `type`
// the older key.
std::optional<long> yarn_context(const HfFields& c) {
  for (const std::string_view key : {"rope_scaling", "rope_parameters"}) {
    if (!c.filled(key)) continue;
    const HfFields rope = c.child(key, c.what());
    const std::string_view type_key = rope.given("rope_type") ? "rope_type" : "type";
    if (!rope.given(type_key) || rope.text(type_key) != "yarn" || !rope.given("original_max_position_embeddings")) {
      continue;
    }
    const double factor = rope.given("factor") ? rope.real_in("factor", {1, 1e4}) : 1.0;
    const double context = static_cast<double>(rope.count("original_max_position_embeddings", "max_context")) * factor;
    if (!(context <= hf_range("max_context").max)) rope.fail("factor", "scales the context past any model's");
    return static_cast<long>(context);
  }
  return std::nullopt;
}

// The text config's dtype where it gives one (Llama 4 gives both), else the wrapper's; none:
// bf16, as serving engines load it (transformers would load fp32), and said so.
// float32 too is loaded in 16 bits, and said so: vLLM's `--dtype auto` downcasts a float32
// config to its platform's first supported dtype, bf16 from compute capability 8.0 and fp16 below
// (vllm/config/model.py _resolve_auto_dtype, "Downcast for float32 models"; platforms/cuda.py
// supported_dtypes), and SGLang's `--dtype auto` to fp16 (bf16 for Gemma; "Following the common
// practice, we use float16 for float32 models", python/sglang/srt/configs/model_config.py). Priced
// in fp32 its weights, cache and matrix products took twice the bytes and the GPU's non-tensor-core
// fp32 peak: Llama-3.2-1B's prompt of 1024 tokens on an H100 31.9 ms, not the 2.65 ms of its bf16
// twin. `--weights fp32 --activations fp32` (or --kv, --compute) price it in fp32 as asked.
DType dtype_of(const HfFields& top, const HfFields* text, std::vector<Assumption>& assumed) {
  const std::optional<DType> text_dtype = text ? dtype_in(*text) : std::nullopt;
  const std::optional<DType> top_dtype = dtype_in(top);
  const std::optional<DType> dtype = text_dtype ? text_dtype : top_dtype;
  if (!dtype) assumed.push_back(Assumption::dtype_bf16);
  if (dtype == DType::fp32) {
    assumed.push_back(Assumption::dtype_fp32_as_bf16);
    return DType::bf16;
  }
  return dtype.value_or(DType::bf16);
}

// validate()'s rules name rooflineplan's fields: the error points at the config field the value
// came from, in the text config or the wrapper, else at the mapping naming the field.
void check(const ModelSpec& m, const HfFields& c, const HfFields& top) {
  const auto e = validate(m);
  if (!e) return;
  if (!c.fail_at_origin(e->field, e->message) && !top.fail_at_origin(e->field, e->message)) {
    c.fail_here(fmt::format("{}: {}", e->field, e->message));
  }
}

std::string source_of(std::string_view architecture, const std::vector<Assumption>& assumed) {
  std::string s = fmt::format("Hugging Face config.json ({})", architecture);
  for (Assumption a : assumed) {
    switch (a) {
      case Assumption::dtype_bf16:
        s += "; no torch_dtype: bf16 assumed";
        break;
      case Assumption::vision_not_modelled:
        s += "; the vision tower is not priced";
        break;
      case Assumption::towers_in_memory:
        s += "; the vision/audio towers' weights are estimated from their configs and held, never run";
        break;
      case Assumption::quantization_beside:
        s += "; formats from hf_quant_config.json beside it";
        break;
      case Assumption::mtp_not_modelled:
        s += "; the multi-token-prediction layers are not priced";
        break;
      case Assumption::dtype_fp32_as_bf16:
        s += "; torch_dtype float32: bf16 assumed, as engines load it";
        break;
    }
  }
  return s;
}

// A checkpoint's name: its own (`_name_or_path`, which transformers writes into a saved config),
// else its file's (a folder's when the file is config.json), so that two configs of one family
// give rows that can be told apart; the architecture only for text read from no file.
std::string name_of(const YamlDocument& doc, const HfFields& top, std::string_view architecture) {
  if (top.given("_name_or_path") && !top.text("_name_or_path").empty()) return top.text("_name_or_path");
  const std::filesystem::path path(doc.path);
  std::string stem = path.stem().string();
  if (stem == "config" && path.has_parent_path()) stem = path.parent_path().filename().string();
  if (stem.empty() || stem == "." || stem == ".." || stem == "config") return std::string(architecture);
  return stem;
}

// The state a recurrent layer keeps, as the checkpoint asks engines to keep it (Qwen3.5's
// mamba_ssm_dtype, Nemotron's mamba_ssm_cache_dtype): float32 is held in fp32 whatever --kv says,
// as the model's card asks of a serving engine (NVIDIA's: vLLM's --mamba-ssm-cache-dtype float32);
// the others follow the KV format.
void state_format(const HfFields& c, Architecture& a) {
  for (std::string_view key : {"mamba_ssm_dtype", "mamba_ssm_cache_dtype"}) {
    if (!c.given(key)) continue;
    const std::string s = c.text(key);
    if (s != "float32" && s != "bfloat16" && s != "float16" && s != "auto") {
      c.refuse(key, fmt::format("\"{}\" is not a state format rooflineplan knows (float32, bfloat16, float16, auto)", s));
    }
    if (s == "float32" && a.recurrent) a.recurrent->fp32_state = true;
  }
}

// NVIDIA ModelOpt checkpoints describe their formats in hf_quant_config.json beside config.json,
// not in it (its `quantization`: quant_algo, group_size, exclude_modules). Read when it is there;
// it is refused, naming its own fields, when it cannot be priced.
std::optional<Quantization> modelopt_beside(const YamlDocument& doc, const HfFields& top, const Architecture& a,
                                            DType dtype, HfNaming naming) {
  // Only a checkpoint's own config.json: a folder of configs (tests/data/hf-configs) is not a checkpoint.
  if (doc.path.empty() || std::filesystem::path(doc.path).filename() != "config.json") return std::nullopt;
  std::error_code ec;
  const std::filesystem::path beside = std::filesystem::path(doc.path).parent_path() / "hf_quant_config.json";
  if (!std::filesystem::is_regular_file(beside, ec)) return std::nullopt;
  const YamlDocument file = load_yaml_file(beside.string());
  HfFields root(file, file.root, "", "hf_quant_config.json");
  root.share_refusals(top);  // refused with the config's own, in one error
  root.use("producer");
  root.require({"quantization"});
  const HfFields q = root.child("quantization", "hf_quant_config.json quantization");
  std::optional<Quantization> out = read_quantization(q, a, dtype, naming, "modelopt");
  root.refuse_unread({});
  return out;
}

}  // namespace

std::vector<std::string_view> model_fields_read_from_hf_config() {
  return {kSchemaFieldsRead.begin(), kSchemaFieldsRead.end()};
}

bool is_hf_config(const YamlDocument& doc) {
  return doc.root.IsMap() && (doc.root["architectures"] || doc.root["model_type"]);
}

ModelSpec read_hf_config(const YamlDocument& doc) {
  const HfFamily& family = family_of(doc);
  const HfFields top(doc, doc.root, "", std::string(family.architecture), family.defaults);
  ModelSpec m;
  m.name = name_of(doc, top, family.architecture);
  // A multimodal wrapper's decoder is its text_config, of the family the text config names.
  std::optional<HfFields> text;
  const HfFamily* decoder = &family;
  if (!family.text_model_type.empty()) {
    const HfFields probe = top.child("text_config", std::string(family.architecture));
    decoder = &text_family_of(probe, family);
    text.emplace(top.child("text_config", std::string(family.architecture), decoder->defaults));
    text->use("model_type");
  }
  const HfFields& c = text ? *text : top;

  m.dtype = dtype_of(top, text ? &*text : nullptr, m.assumptions);
  Architecture a = read_architecture(c, *decoder);
  const std::string_view positions = decoder->shape == HfShape::gpt2 ? "n_positions" : "max_position_embeddings";
  if (c.has(positions)) m.max_context = c.count(positions, "max_context");
  if (const std::optional<long> yarn = yarn_context(c)) m.max_context = std::max(m.max_context.value_or(0), *yarn);
  a.mtp_modules = mtp_modules(c);
  if (a.mtp_modules > 0) m.assumptions.push_back(Assumption::mtp_not_modelled);
  if (text) {
    const Towers towers = read_towers(top, family, static_cast<double>(a.hidden));
    a.tower_params = towers.params;
    if (towers.params > 0) m.assumptions.push_back(Assumption::towers_in_memory);
    if (towers.params == 0 || towers.unpriced) m.assumptions.push_back(Assumption::vision_not_modelled);
  }
  state_format(c, a);
  if (text && top.given("tie_word_embeddings") && top.flag("tie_word_embeddings", false) != a.tied_embeddings) {
    top.fail("tie_word_embeddings", "differs from the text config's, which the decoder follows");
  }
  top.use("tie_word_embeddings");
  // A wrapper's quantization is the whole checkpoint's, given at the top.
  const HfNaming naming{*decoder, text.has_value()};
  const HfFields& holder = top.given("quantization_config") || !text ? top : *text;
  if (holder.given("quantization_config")) {
    const std::string what = fmt::format("{} quantization_config", family.architecture);
    m.quantization = read_quantization(holder.child("quantization_config", what), a, m.dtype, naming);
  }
  top.use("quantization_config");
  if (!holder.given("quantization_config")) {
    if (auto modelopt = modelopt_beside(doc, top, a, m.dtype, naming)) {
      m.quantization = modelopt;
      m.assumptions.push_back(Assumption::quantization_beside);
    }
  }
  m.architecture = a;
  c.refuse_unread(decoder->harmless);
  if (text) top.refuse_unread(family.harmless);
  top.throw_refusals();
  m.source = source_of(family.architecture, m.assumptions);
  check(m, c, top);
  return m;
}

}  // namespace roofline::io
