#pragma once
// Hugging Face `config.json` files, read as they are (yaml-cpp reads JSON): the families whose
// shapes rooflineplan models (io/hf_families.cpp), mapped onto its one generic description with
// per-layer kinds. Every field of a config is read, or known not to change what is priced, or the
// config is refused naming it: a config is never priced on a guess.
#include <string_view>
#include <vector>

#include "model/model_spec.hpp"
#include "io/yaml_document.hpp"

namespace roofline::io {

// A config.json names its architecture or model type; rooflineplan's own YAML never does.
[[nodiscard]] bool is_hf_config(const YamlDocument& doc);

// Throws InputError naming file:line:column and the field: an architecture that is not read (with
// the list of those that are), every missing field, a field neither read nor known to be harmless,
// a quantization or layer kind that is not modelled.
[[nodiscard]] ModelSpec read_hf_config(const YamlDocument& doc);

// The model schema's fields (`moe.top_k`) that config.json keys are mapped onto, so a test can
// hold them to the schema.
[[nodiscard]] std::vector<std::string_view> model_fields_read_from_hf_config();

}  // namespace roofline::io
