#pragma once
// Hugging Face `config.json` files, read as they are (yaml-cpp reads JSON): the decoder families
// whose shapes rooflineplan models, mapped onto its one generic transformer description.
#include <string_view>
#include <vector>

#include "model/model_spec.hpp"
#include "io/yaml_document.hpp"

namespace roofline::io {

// A config.json names its architecture or model type; rooflineplan's own YAML never does.
[[nodiscard]] bool is_hf_config(const YamlDocument& doc);

// Throws InputError naming the file and every missing field, or the feature that is not modelled
// (DeepSeek's latent attention), with the architectures that are known.
[[nodiscard]] ModelSpec read_hf_config(const YamlDocument& doc);

// The model schema's fields (`moe.top_k`) that config.json keys are mapped onto, so a test can
// hold them to the schema.
[[nodiscard]] std::vector<std::string_view> model_fields_read_from_hf_config();

}  // namespace roofline::io
