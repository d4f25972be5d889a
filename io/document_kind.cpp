#include "io/document_kind.hpp"

#include <fmt/format.h>

#include "io/hf_config.hpp"
#include "io/input_error.hpp"

namespace roofline::io {

namespace {

struct KeyCount {
  int model_only = 0;
  int gpu_only = 0;
  int shared = 0;  // name, source
};

KeyCount count_keys(const YAML::Node& root) {
  KeyCount n;
  for (const auto& entry : root) {
    if (!entry.first.IsScalar()) continue;
    const std::string& key = entry.first.Scalar();
    const bool model = has_field(model_schema(), key), gpu = has_field(gpu_schema(), key);
    if (model && gpu) ++n.shared;
    else if (model) ++n.model_only;
    else if (gpu) ++n.gpu_only;
  }
  return n;
}

}  // namespace

void check_document_kind(const YamlDocument& doc, SchemaKind expected) {
  if (!doc.root.IsMap()) return;
  const bool hf = is_hf_config(doc);
  const KeyCount n = count_keys(doc.root);
  const bool model = n.model_only > 0 || hf;
  const bool gpu = n.gpu_only > 0;
  const auto refuse = [&](std::string_view message) {
    throw InputError(fmt::format("{}:{}:{}: {}", doc.path, doc.root.Mark().line + 1, doc.root.Mark().column + 1,
                                 message));
  };
  if (expected == SchemaKind::model) {
    if (model) return;
    if (gpu) refuse("this looks like a GPU description (memory, compute), not a model; pass it as --gpu");
  } else {
    if (gpu) return;
    if (hf) refuse("this looks like a Hugging Face config.json, a model, not a GPU; pass it as --model");
    if (model) refuse("this looks like a model description (layers, hidden, params), not a GPU; pass it as --model");
  }
  if (n.shared == 0) {
    refuse(fmt::format("not a {} description: none of its keys is one of its fields (see the field tables in docs/inputs.md)",
                       expected == SchemaKind::model ? "model" : "GPU"));
  }
}

}  // namespace roofline::io
