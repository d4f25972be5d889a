#include "cli/convert_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "io/input_error.hpp"
#include "io/model_writer.hpp"
#include "io/spec_loader.hpp"
#include "report/safe_text.hpp"
#include "report/warning_text.hpp"

namespace roofline::cli {

using namespace io;

namespace {

// What the model holds that the YAML written for it lost: a guard on the writer, which must carry
// every per-layer kind, recurrent layer and checkpoint format the Hugging Face reader fills.
std::vector<std::string_view> lost_in_yaml(const ModelSpec& m, const ModelSpec& back) {
  std::vector<std::string_view> lost;
  const auto formats = [](const ModelSpec& x) {
    return x.quantization
               ? std::make_pair(x.quantization->formats, x.quantization->group_size)
               : std::make_pair(std::array<std::optional<WeightFormat>, kTensorClassCount>{}, std::optional<int>{});
  };
  if (formats(m) != formats(back)) lost.push_back("quantization");
  if (!m.architecture || !back.architecture) return lost;
  const Architecture &a = *m.architecture, &b = *back.architecture;
  if (a.mixer_pattern != b.mixer_pattern) lost.push_back("mixer_pattern");
  if (a.ffn_pattern != b.ffn_pattern) lost.push_back("ffn_pattern");
  if (a.sliding_window != b.sliding_window) lost.push_back("sliding_window");
  if (a.attention_chunk != b.attention_chunk) lost.push_back("attention_chunk");
  if (a.attention_sinks != b.attention_sinks) lost.push_back("attention_sinks");
  if (a.qk_norm != b.qk_norm) lost.push_back("qk_norm");
  if (a.attention_gate != b.attention_gate) lost.push_back("attention_gate");
  if (a.head_gate != b.head_gate) lost.push_back("head_gate");
  if (a.recurrent.has_value() != b.recurrent.has_value()) lost.push_back("recurrent");
  if (a.recurrent && b.recurrent && a.recurrent->fp32_state != b.recurrent->fp32_state) {
    lost.push_back("recurrent.fp32_state");
  }
  if (a.sparse.has_value() != b.sparse.has_value()) lost.push_back("sparse");
  if (a.moe && b.moe && a.moe->latent != b.moe->latent) lost.push_back("moe.latent");
  const auto full = [](const Architecture& x) {
    return x.full_attention ? std::make_tuple(x.full_attention->heads, x.full_attention->kv_heads,
                                              x.full_attention->head_dim, x.full_attention->shared_kv)
                            : std::make_tuple(0, 0, 0L, false);
  };
  if (full(a) != full(b)) lost.push_back("full_attention");
  if (a.tower_params != b.tower_params) lost.push_back("tower_params");
  if (std::tie(a.kv_shared_layers, a.kv_shared_ffn) != std::tie(b.kv_shared_layers, b.kv_shared_ffn)) {
    lost.push_back("kv_shared_layers");
  }
  if (std::tie(a.per_layer_input, a.per_layer_vocab) != std::tie(b.per_layer_input, b.per_layer_vocab)) {
    lost.push_back("per_layer_input");
  }
  return lost;
}

}  // namespace

void add_convert_options(Options& o, std::string& model) {
  o.add("model", model, "config.json, a model YAML file or a preset name").required();
}

// A converted file that prices the model differently would be silently wrong: it is read back
// before it is printed, and refused naming what the YAML cannot hold yet.
void run_convert(const std::string& model, std::ostream& out) {
  const ModelSpec m = read_flag_file("model", model, [&] { return load_model(model); });
  const std::string yaml = model_yaml(m);
  std::vector<std::string_view> lost;
  try {
    lost = lost_in_yaml(m, read_model(parse_yaml(yaml, model)));
  } catch (const InputError&) {
    lost = {"this model (the written file does not read back)"};  // a stack without attention: no heads to write
  }
  if (!lost.empty()) {
    throw InputError(
        fmt::format("{}: rooflineplan's model YAML cannot hold {} yet; the converted file would price "
                    "the model differently, so none is written",
                    model, fmt::join(lost, ", ")));
  }
  // What the reader assumed or left out (a dtype taken as bf16, a vision tower not priced) is the
  // YAML's `assumptions:`, so pricing the file warns as the config did; said at the top in words.
  for (const Assumption a : m.assumptions) {
    out << "# caveat, from " << report::terminal_text(model) << ": " << report::warning_text(Warning{Assumed{a}}) << "\n";
  }
  out << yaml;
}

}  // namespace roofline::cli
