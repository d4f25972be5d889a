#pragma once
// A ModelSpec as rooflineplan's model YAML (io/model_schema.cpp): what `convert` prints, so a
// Hugging Face config becomes a file the user can read and edit. Reading it back gives the same spec.
#include <string>

#include "model/model_spec.hpp"

namespace roofline::io {

[[nodiscard]] std::string model_yaml(const ModelSpec& m);

}  // namespace roofline::io
