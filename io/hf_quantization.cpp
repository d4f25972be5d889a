// A config's `quantization_config` as the format each tensor class is stored in
// (model/weight_format.hpp): the quantizer's format for the block linears, the modules it leaves
// alone (`modules_to_not_convert`, `ignore`) mapped onto tensor classes, and the KV cache format it
// declares. What cannot be mapped onto a whole class is refused with the field named, never priced
// as if it were.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>
#include <regex.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <memory>

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
  // torch's nn.Embedding by its class name, as compressed-tensors and vLLM match a target's class
  // (`targets: ["Linear", "Embedding"]`): the embedding table, as `Linear` is every block linear.
  if (named({"embed_tokens", "wte", "word_embeddings", "tok_embeddings"}) || pattern == "Embedding") {
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

// One linear module of the model, or a router beside them, under each name a checkpoint may give
// it (a multimodal wrapper's decoder has two prefixes, by the transformers version that saved it).
struct Module {
  std::vector<std::string> names;
  TensorClass tensors = TensorClass::attention;
  // router: priced in 16 bits whatever a list says; delta_gate: Gated DeltaNet's gate projections,
  // 16-bit under fp8-block (is_delta_net_gate), else a matrix of the attention class.
  enum Kind { priced, router, delta_gate } kind = priced;
};

// The modules of this model as its family's transformers classes name them, for matching patterns
// against: every layer's linears and routers, the first and last experts of each MoE layer (a
// pattern catching some experts catches one and leaves the other), the LM head and the embedding.
// Empty where the family's names are not written here (Gemma 4, Step, Laguna, Nemotron-H): a
// pattern is then read by the module it names (covered_by), as for a plain name.
std::vector<Module> modules_of(const Architecture& a, const HfNaming& naming) {
  const HfFamily& f = naming.decoder;
  const bool gpt2 = f.shape == HfShape::gpt2, mamba = f.shape == HfShape::mamba || f.shape == HfShape::mamba2;
  const bool phi3 = f.architecture == "Phi3ForCausalLM", llama4 = f.moe == HfMoe::llama4;
  const bool next = f.architecture.starts_with("Qwen3Next"), qwen35 = f.architecture.starts_with("Qwen3_5");
  const bool other_delta_net = a.recurrent && a.recurrent->is_linear_attention() && !next && !qwen35;
  if (f.shape == HfShape::nemotron_h || f.moe == HfMoe::gemma4 || f.moe == HfMoe::step || f.moe == HfMoe::laguna ||
      f.head_gate || (a.moe && a.moe->latent > 0) || other_delta_net) {
    return {};
  }
  std::vector<std::string> stacks = {"model.layers."};
  if (gpt2) stacks = {"transformer.h."};
  if (mamba) stacks = {"backbone.layers."};
  if (naming.wrapper) stacks = {"model.language_model.layers.", "language_model.model.layers."};
  std::vector<Module> out;
  const auto add = [&](int layer, std::string_view suffix, TensorClass c, Module::Kind kind = Module::priced) {
    Module m{{}, c, kind};
    for (const std::string& stack : stacks) m.names.push_back(fmt::format("{}{}.{}", stack, layer, suffix));
    out.push_back(std::move(m));
  };
  const auto each = [&](int layer, std::string_view module, std::initializer_list<std::string_view> matrices,
                        TensorClass c) {
    for (std::string_view m : matrices) add(layer, fmt::format("{}.{}", module, m), c);
  };
  using enum TensorClass;
  const std::initializer_list<std::string_view> glu = {"gate_proj", "up_proj", "down_proj"};
  for (int i = 0; i < a.layers; ++i) {
    switch (a.mixer(i)) {
      case Mixer::full:
      case Mixer::sliding:
      case Mixer::chunked:
        if (gpt2) {
          each(i, "attn", {"c_attn", "c_proj"}, attention);
        } else if (phi3) {
          each(i, "self_attn", {"qkv_proj", "o_proj"}, attention);
        } else if (a.mla) {
          if (a.mla->q_lora_rank > 0) each(i, "self_attn", {"q_a_proj", "q_b_proj"}, attention);
          else add(i, "self_attn.q_proj", attention);
          each(i, "self_attn", {"kv_a_proj_with_mqa", "kv_b_proj", "o_proj"}, attention);
          if (a.sparse) each(i, "self_attn.indexer", {"wq_b", "wk", "weights_proj"}, attention);
        } else {
          each(i, "self_attn", {"q_proj", "k_proj", "v_proj", "o_proj"}, attention);
        }
        break;
      case Mixer::linear:
        if (next) {
          add(i, "linear_attn.in_proj_qkvz", attention);
          add(i, "linear_attn.in_proj_ba", attention, Module::delta_gate);
        } else {
          each(i, "linear_attn", {"in_proj_qkv", "in_proj_z"}, attention);
          add(i, "linear_attn.in_proj_a", attention, Module::delta_gate);
          add(i, "linear_attn.in_proj_b", attention, Module::delta_gate);
        }
        add(i, "linear_attn.out_proj", attention);
        break;
      case Mixer::ssm:
        if (a.recurrent && a.recurrent->kind == RecurrentKind::mamba) {
          each(i, "mixer", {"in_proj", "x_proj", "dt_proj", "out_proj"}, attention);
        } else {
          each(i, "mixer", {"in_proj", "out_proj"}, attention);
        }
        break;
      case Mixer::none: break;
    }
    if (a.ffn_kind(i) == FfnKind::dense) {
      const std::string_view mlp = llama4 ? "feed_forward" : "mlp";
      if (gpt2) each(i, mlp, {"c_fc", "c_proj"}, dense_ffn);
      else if (phi3) each(i, mlp, {"gate_up_proj", "down_proj"}, dense_ffn);
      else if (a.ffn_type == FfnType::plain) each(i, mlp, {"up_proj", "down_proj"}, dense_ffn);
      else each(i, mlp, glu, dense_ffn);
    }
    if (a.ffn_kind(i) != FfnKind::moe || !a.moe) continue;
    const std::array<int, 2> experts = {0, std::max(a.moe->experts - 1, 0)};
    const int shared = a.moe->shared_experts;
    switch (f.moe) {
      case HfMoe::mixtral:
      case HfMoe::minimax:
        add(i, "block_sparse_moe.gate", attention, Module::router);
        for (int e : experts) {
          each(i, fmt::format("block_sparse_moe.experts.{}", e), {"w1", "w2", "w3"}, TensorClass::experts);
        }
        break;
      case HfMoe::qwen:
        add(i, "mlp.gate", attention, Module::router);
        for (int e : experts) each(i, fmt::format("mlp.experts.{}", e), glu, TensorClass::experts);
        if (shared > 0) {
          each(i, "mlp.shared_expert", glu, shared_experts);
          add(i, "mlp.shared_expert_gate", attention, Module::router);
        }
        break;
      case HfMoe::deepseek:
      case HfMoe::ernie:
        add(i, "mlp.gate", attention, Module::router);
        for (int e : experts) each(i, fmt::format("mlp.experts.{}", e), glu, TensorClass::experts);
        if (shared > 0) each(i, "mlp.shared_experts", glu, shared_experts);
        break;
      case HfMoe::gpt_oss:  // the experts one module, their matrices its parameters
        add(i, "mlp.router", attention, Module::router);
        add(i, "mlp.experts", TensorClass::experts);
        break;
      case HfMoe::llama4:
        add(i, "feed_forward.router", attention, Module::router);
        for (int e : experts) each(i, fmt::format("feed_forward.experts.{}", e), glu, TensorClass::experts);
        if (shared > 0) each(i, "feed_forward.shared_expert", glu, shared_experts);
        break;
      default: return {};
    }
  }
  Module head{{"lm_head"}, lm_head}, table{{"model.embed_tokens"}, embedding};
  if (gpt2) table.names = {"transformer.wte"};
  if (mamba) table.names = {"backbone.embeddings"};
  if (naming.wrapper) {
    head.names.push_back("language_model.lm_head");
    table.names = {"model.language_model.embed_tokens", "language_model.model.embed_tokens"};
  }
  out.push_back(std::move(head));
  out.push_back(std::move(table));
  return out;
}

// A list entry as the library that reads it matches module names: after `re:`, a regular
// expression matched from the name's start, as compressed-tensors and vLLM match it (Python's
// re.match); with `*`, `?` or `[`, a shell wildcard over the whole name, as ModelOpt and vLLM's
// ModelOpt reader match `exclude_modules` (Python's fnmatch: fnmatch(3) without FNM_PATHNAME, a
// backslash literal). compressed-tensors matches its other entries by the name itself (`lm_head`),
// not as wildcards. A plain name is matched whole: a module's own name (`model.layers.0.mlp.gate`,
// one layer's router) is that module whatever the library, where a shorter one (`experts`,
// `self_attn`) is read by the module it names (covered_by).
//
// The expressions are POSIX extended ones (regcomp(3)), whose glibc matcher keeps sets of states
// rather than backtracking: std::regex took more than a minute on `re:(.*)*x` against one module
// name (a config is untrusted input; the tool must not hang). What ERE reads otherwise than Python
// is refused, not matched another way: a class escape such as `\d` (a literal `d` to ERE), `(?`,
// a lazy quantifier, and a counted repetition `{n}` (nested, glibc's compiler builds every copy:
// `((a{100}){100}){100}` took 0.7 s and 200 MB). The checkpoints' expressions (`.*mlp.gate$`,
// `.*lm_head`, `model.visual.*`) read the same in both.
class NamePattern {
 public:
  static std::optional<NamePattern> of(std::string_view text, bool globs, const HfFields& q, std::string_view key) {
    NamePattern p;
    if (text.starts_with("re:")) {
      const std::string_view expression = text.substr(3);
      const auto unread = [&](std::string_view what) {
        q.fail(key, fmt::format("\"{}\": rooflineplan matches POSIX extended expressions, not {}; write the pattern "
                                "without it",
                                text, what));
      };
      // Module names run under 100 characters; glibc's compiler recurses on each group it opens.
      if (expression.size() > 256) unread("an expression of more than 256 characters");
      // `operand`: whether the character before is one a quantifier repeats (glibc reads `a**`
      // and `(*` where Python says "multiple repeat" or "nothing to repeat": `a**` caught every
      // module, leaving a W4A16 checkpoint priced all bf16).
      bool operand = false;
      for (std::size_t i = 0; i < expression.size(); ++i) {
        const char c = expression[i], next = i + 1 < expression.size() ? expression[i + 1] : '\0';
        if (c == '\\' && std::isalnum(static_cast<unsigned char>(next))) unread(fmt::format("the escape \\{}", next));
        if (c == '[') {  // a bracket expression's characters stand for themselves, a leading ] among them
          std::size_t end = i + 1;
          if (end < expression.size() && expression[end] == '^') ++end;
          if (end < expression.size() && expression[end] == ']') ++end;
          while (end < expression.size() && expression[end] != ']') ++end;
          i = end;
          operand = true;
          continue;
        }
        if (c == '\\') {
          ++i;  // an escaped character stands for itself
          operand = true;
        } else if (c == '{') {
          unread("a counted repetition {n}");
        } else if (c == '(' && next == '?') {
          unread("a group of the form (?…)");
        } else if ((c == '*' || c == '+' || c == '?') && next == '?') {
          unread("a lazy quantifier");
        } else if (c == '*' || c == '+' || c == '?') {
          if (!operand) unread("a quantifier with nothing to repeat");
          operand = false;
        } else {
          operand = c != '(' && c != '|' && c != '^';
        }
      }
      auto compiled = std::shared_ptr<regex_t>(new regex_t, [](regex_t* r) {
        regfree(r);
        delete r;
      });
      if (regcomp(compiled.get(), fmt::format("^({})", expression).c_str(), REG_EXTENDED | REG_NOSUB) != 0) {
        // regcomp leaves nothing to free where it fails.
        compiled = std::shared_ptr<regex_t>(new regex_t, [](regex_t* r) { delete r; });
        q.fail(key,
               fmt::format("\"{}\" is not a regular expression rooflineplan can match against module names", text));
      }
      p.regex_ = std::move(compiled);
      return p;
    }
    const bool wild = text.find_first_of("*?[") != std::string_view::npos;
    if (wild && !globs) return std::nullopt;
    p.text_ = std::string(text);
    p.glob_ = wild;
    return p;
  }
  [[nodiscard]] bool matches(const std::string& name) const {
    if (regex_) return regexec(regex_.get(), name.c_str(), 0, nullptr, 0) == 0;
    if (glob_) return ::fnmatch(text_.c_str(), name.c_str(), FNM_NOESCAPE) == 0;
    return name == text_;
  }

 private:
  std::shared_ptr<regex_t> regex_;  // shared: a pattern is copied, a compiled expression freed once
  std::string text_;
  bool glob_ = false;
};

// The classes a pattern catches among the model's modules: a class whose every module it catches,
// routers and 16-bit gates aside; one whose modules it catches only some of (gate_proj, not up_proj)
// is part of a class, `detail` saying which. Empty when it catches none of them: it names a module
// written by name, a vision tower, an MTP layer, or one of a family whose names are not written here.
struct NameMatch {
  Covered covered;
  std::string detail;
};
std::optional<NameMatch> covered_by_names(const NamePattern& p, const std::vector<Module>& modules, bool block_gates) {
  struct Tally {
    int caught = 0, total = 0;
    const std::string* hit = nullptr;
    const std::string* missed = nullptr;
  };
  std::array<Tally, kTensorClassCount> tally{};
  bool any = false;
  for (const Module& m : modules) {
    const bool caught = std::any_of(m.names.begin(), m.names.end(), [&](const std::string& n) { return p.matches(n); });
    any = any || caught;
    if (m.kind == Module::router || (m.kind == Module::delta_gate && block_gates)) continue;
    Tally& t = tally[index(m.tensors)];
    ++t.total;
    if (caught) {
      ++t.caught;
      if (!t.hit) t.hit = &m.names.front();
    } else if (!t.missed) {
      t.missed = &m.names.front();
    }
  }
  if (!any) return std::nullopt;
  Covered out{Covered::some, {}};
  for (std::size_t i = 0; i < tally.size(); ++i) {
    const Tally& t = tally[i];
    if (t.caught > 0 && t.caught < t.total) {
      return NameMatch{{Covered::part, {}},
                       fmt::format("it matches {} but not {}, both of the {} class", *t.hit, *t.missed,
                                   name(static_cast<TensorClass>(i)))};
    }
    out.classes[i] = t.total > 0 && t.caught == t.total;
  }
  return NameMatch{out, ""};
}

// What a list's entries are matched against: the model's modules (empty: by name only), its
// layers, whether its library reads wildcards (not compressed-tensors), and whether the model
// keeps DeltaNet's gates in 16 bits already.
struct Names {
  const std::vector<Module>& modules;
  int layers = 0;
  bool globs = true;
  bool block_gates = false;
};

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

// The classes a list of patterns covers; a pattern covering part of a class is refused. Each is
// matched against the model's module names as its library matches it (NamePattern: `re:.*gate.*`
// catches every gate_proj, not only the router); one that catches none of them (`self_attn`,
// `experts`, a vision tower) is read by the module it names (covered_by).
Classes classes_of_list(const HfFields& q, std::string_view key, const Names& n) {
  Classes out{};
  for (const std::string& pattern : q.words(key)) {
    // compressed-tensors (and vLLM reading its lists) matches an entry without `re:` as a whole
    // module name or a class name, never as a wildcard: `*mlp*` names no module, so the checkpoint
    // quantized (or, in `ignore`, left out) none by it. Read as the module it names, `ignore:
    // ["*mlp*"]` priced Qwen3-8B's int4 MLP in bf16.
    const bool literal = !n.globs && !pattern.starts_with("re:");
    if (literal && pattern.find_first_of("*?[") != std::string::npos) {
      q.fail(key, fmt::format("\"{}\": compressed-tensors matches an entry without `re:` as a whole module name "
                              "or a class name, not as a wildcard, so it names no module; write the pattern as a "
                              "regular expression (such as re:.*mlp.*)",
                              pattern));
    }
    std::optional<NameMatch> matched;
    if (const std::optional<NamePattern> p = NamePattern::of(pattern, n.globs, q, key); p && !n.modules.empty()) {
      matched = covered_by_names(*p, n.modules, n.block_gates);
    }
    const Covered c = matched ? matched->covered : covered_by_any(pattern, n.layers, n.block_gates);
    // A bare name under compressed-tensors that is no module of the model (`self_attn`, `mlp`:
    // the modules are model.layers.N.self_attn.q_proj, ...) matches nothing there, where read as the
    // module it names it would move a whole block class; the class name `Linear` is every linear.
    if (literal && !matched && c.what == Covered::some && pattern != "Linear" &&
        std::any_of(kBlockClasses.begin(), kBlockClasses.end(), [&](TensorClass t) { return c.classes[index(t)]; })) {
      q.fail(key, fmt::format("\"{}\": compressed-tensors matches an entry without `re:` as a whole module name "
                              "(model.layers.0.self_attn.q_proj) or a class name (Linear), and this names no module "
                              "of the model; write the pattern as a regular expression (re:.*{}.*)",
                              pattern, pattern));
    }
    if (c.what == Covered::part) {
      q.fail(key, fmt::format("\"{}\" names part of a tensor class ({}); rooflineplan prices formats per class "
                              "(attention, dense_ffn, experts, shared_experts, lm_head, embedding) and cannot map it",
                              pattern, matched ? matched->detail : "one layer, one matrix"));
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
    // One group size for the model (Precision::group_size): groups of 128 beside groups of 32 were
    // priced as whichever config group came last.
    const auto group = static_cast<int>(w.number_in("group_size", {1, 1'000'000}));
    if (out.group_size && *out.group_size != group) {
      w.fail("group_size", fmt::format("{} beside another config group's {}: rooflineplan prices one group size for "
                                       "the model's int4 weights and cannot price both",
                                       group, *out.group_size));
    }
    out.group_size = group;
    return symmetric ? WeightFormat::int4 : WeightFormat::awq;  // asymmetric: a zero point per group, AWQ's layout
  }
  if (type == "int" && bits == 8 && (strategy == "channel" || strategy == "tensor")) return WeightFormat::int8;
  w.fail("strategy",
         fmt::format("{}-bit {} weights with strategy {} are not a format rooflineplan names", bits, type, strategy));
}

// A compressed-tensors quantization scheme's fields that change no byte a format here prices (how
// scales are observed, grouped or stored), read by the activations' and the KV cache's schemes.
void use_scheme_details(const HfFields& scheme) {
  scheme.use({"strategy", "dynamic", "symmetric", "group_size", "block_structure", "observer", "observer_kwargs",
              "actorder", "scale_dtype", "zp_dtype"});
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
  use_scheme_details(in);
  in.refuse_unread({});
  if (type == "float" && bits == 8) return DType::fp8;
  if (type == "int" && bits == 8) return DType::int8;
  if (type == "float" && bits == 4) return DType::fp4;
  in.fail("num_bits", fmt::format("{}-bit {} activations are not a compute format rooflineplan names (fp8, int8, fp4)",
                                  bits, type));
}

// compressed-tensors' `format`, the checkpoint's or a config group's: the layouts that store each
// weight densely, as its scheme says. marlin-24 and the sparse ones keep 2 of 4 weights with their
// indices, which no format here prices; an unknown one is refused too.
void dense_format(const HfFields& h) {
  constexpr std::array<std::string_view, 9> kDense = {
      "dense",          "int-quantized",        "float-quantized",      "naive-quantized", "pack-quantized",
      "mixed-precision", "nvfp4-pack-quantized", "mxfp4-pack-quantized", "mxfp8-quantized"};
  if (!h.given("format")) {
    h.use("format");
    return;
  }
  const std::string f = h.text("format");
  if (std::find(kDense.begin(), kDense.end(), f) == kDense.end()) {
    h.fail("format", fmt::format("\"{}\" is not a dense compressed-tensors format ({}); sparse weights (2:4, "
                                 "bitmasks) and unknown layouts are not modelled",
                                 f, fmt::join(kDense, ", ")));
  }
}

// A KV cache scheme (compressed-tensors' `kv_cache_scheme`, which ModelOpt's newer configs write
// too) as the format the cache is held in: 8-bit floats, fp8. vLLM runs any such scheme as an fp8
// cache (vllm-project/vllm PR #30141: `if kv_cache_scheme is not None: kv_cache_dtype = "fp8"`).
std::optional<DType> kv_scheme(const HfFields& q) {
  if (!q.filled("kv_cache_scheme")) {
    // An empty scheme is not None to vLLM: it would run an fp8 cache of a scheme that says nothing.
    if (q.given("kv_cache_scheme")) {
      q.fail("kv_cache_scheme", "an empty scheme; vLLM runs any kv_cache_scheme but null as an fp8 cache: give its "
                                "num_bits and type, or null for none");
    }
    q.use("kv_cache_scheme");
    return std::nullopt;
  }
  const HfFields kv = q.child("kv_cache_scheme", q.what());
  const long bits = kv.number_in("num_bits", {1, 64});
  const std::string type = kv.text("type");
  use_scheme_details(kv);
  kv.refuse_unread({});
  if (type != "float" || bits != 8) {
    kv.fail("num_bits", fmt::format("a {}-bit {} KV cache is not a format rooflineplan prices (8-bit float: fp8)", bits,
                                    type));
  }
  return DType::fp8;
}

// compressed-tensors. `head_by_class`: a group quantizes every Linear, the LM head (an nn.Linear in
// the model llm-compressor saved) among them unless `ignore` names it, while no target names it.
// `tied_table`: a target names the embedding of a model whose table is the LM head's.
void read_compressed_tensors(const HfFields& q, const Architecture& a, const std::vector<Module>& modules,
                             Quantization& out, bool& head_by_class, bool& tied_table) {
  for (std::string_view key : {"sparsity_config", "transform_config"}) {
    if (q.filled(key)) q.fail(key, "sparse or transformed weights are not modelled");
    q.use(key);
  }
  dense_format(q);
  out.kv = kv_scheme(q);
  // llm-compressor writes its own version into every config it saves: nothing priced.
  q.use({"quantization_status", "global_compression_ratio", "provider", "version"});
  q.require({"config_groups"});
  const HfFields groups = q.child("config_groups", q.what());
  Classes done{};
  for (const std::string& name : groups.keys()) {
    const HfFields g = groups.child(name, q.what());
    g.use("output_activations");
    dense_format(g);
    const Classes named = classes_of_list(g, "targets", Names{modules, a.layers, false}), present = linears(a);
    // The LM head and the embedding where a target names them (`lm_head`, `model.embed_tokens`, the
    // class `Embedding`, or a pattern catching them), as GPTQ's `lm_head: true` quantizes the head:
    // the checkpoint stores them in the group's format. Dropped, a target naming the embedding left
    // it priced in 16 bits without a word. A tied table is one tensor, the head's (quantization.lm_head).
    Classes targets{};
    for (std::size_t i = 0; i < targets.size(); ++i) {
      targets[i] = named[i] && (present[i] || i == index(TensorClass::lm_head) || i == index(TensorClass::embedding));
    }
    if (a.tied_embeddings && targets[index(TensorClass::embedding)]) {
      targets[index(TensorClass::embedding)] = false;
      targets[index(TensorClass::lm_head)] = true;
      tied_table = true;
    }
    const std::vector<std::string> words = g.words("targets");
    if (g.given("weights") && !named[index(TensorClass::lm_head)] &&
        std::find(words.begin(), words.end(), "Linear") != words.end()) {
      head_by_class = true;
    }
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
  // The KV cache format the checkpoint declares, which vLLM's default --kv-cache-dtype auto takes:
  // resolve_kv_cache_dtype_string("auto", ...) maps kv_cache_quant_algo FP8 to fp8_e4m3 (tested in
  // vllm-project/vllm issue #34752; PR #35591). NVFP4 (4-bit elements and an fp8 scale per 16,
  // vllm-project/vllm PR #40177) is no KV format here: --kv fp4 holds no scales.
  out.kv = kv_scheme(q);
  if (q.given("kv_cache_quant_algo")) {
    const std::string kv = q.text("kv_cache_quant_algo");
    if (kv != "FP8") {
      q.fail("kv_cache_quant_algo",
             fmt::format("\"{}\" is not a KV cache format rooflineplan prices (FP8; NVFP4's fp8 scale per 16 "
                         "elements is in no --kv format)",
                         kv));
    }
    out.kv = DType::fp8;
  }
  q.use({"group_size", "kv_cache_quant_algo", "producer"});
}

}  // namespace

std::optional<Quantization> read_quantization(const HfFields& q, const Architecture& a, DType dtype,
                                              HfNaming naming, std::string_view given_method) {
  if (given_method.empty()) q.require({"quant_method"});
  const std::string method = given_method.empty() ? q.text("quant_method") : std::string(given_method);
  Quantization out;
  const std::vector<Module> modules = modules_of(a, naming);
  bool head_by_class = false, tied_table = false;
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
    read_compressed_tensors(q, a, modules, out, head_by_class, tied_table);
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
    const Classes c = classes_of_list(q, key, Names{modules, a.layers, method != "compressed-tensors", block_gates});
    keep_in_dtype(out, c);
    for (std::size_t i = 0; i < kept.size(); ++i) kept[i] = kept[i] || c[i];
  }
  // compressed-tensors quantizes the LM head with every Linear unless `ignore` names it, but vLLM
  // matches a target to its head (a ParallelLMHead, no Linear) by name only: `Linear` never
  // reaches it, and the checkpoint's packed head has no layer to load into.
  if (head_by_class && !kept[index(TensorClass::lm_head)] && !out.of(TensorClass::lm_head)) {
    q.fail("ignore", "leaves the LM head (an nn.Linear) to a group's `Linear` target, so the checkpoint stores it "
                     "quantized, but vLLM matches its LM head to a target by the name `lm_head` only and cannot load "
                     "it: name \"lm_head\" in `ignore` (a 16-bit head) or in the group's `targets`");
  }
  // One tied table, quantized by a target naming the embedding and kept by `ignore` naming the
  // head or the embedding alone: which the checkpoint stores is not for rooflineplan to guess.
  if (tied_table && kept[index(TensorClass::lm_head)] != kept[index(TensorClass::embedding)]) {
    q.fail("ignore", "names one of the LM head and the embedding, which are tied, one table, that a group's target "
                     "quantizes: name both (a 16-bit table) or neither");
  }
  // Shared experts without a format of their own take the routed experts': kept in the model's
  // dtype beside converted routed experts (Kimi-K2-Thinking), they are said to be so.
  if (kept[index(TensorClass::shared_experts)] && out.of(TensorClass::experts)) {
    out.of(TensorClass::shared_experts) = weight_format_of(dtype);
  }
  q.refuse_unread({});
  // Nothing stored quantized: no compute of its own; a declared KV cache format stays.
  if (std::none_of(out.formats.begin(), out.formats.end(), [](const auto& f) { return f.has_value(); })) {
    out.compute.reset();
    if (!out.kv) return std::nullopt;
  }
  return out;
}

}  // namespace roofline::io
