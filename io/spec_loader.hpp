#pragma once
// Model and GPU descriptions from YAML (the schema tables of io/schema.hpp), validated where
// they are read so that every error points at its line.
#include <string>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "io/yaml_document.hpp"

namespace roofline::io {

[[nodiscard]] ModelSpec read_model(const YamlDocument& doc);
[[nodiscard]] GpuSpec read_gpu(const YamlDocument& doc);

// A file path, or the name of a bundled preset (`llama-2-7b`, `a100-80gb`).
[[nodiscard]] ModelSpec load_model(const std::string& file_or_preset);
[[nodiscard]] GpuSpec load_gpu(const std::string& file_or_preset);

// A dtype name, or std::invalid_argument suggesting the nearest valid one.
[[nodiscard]] DType parse_dtype(const std::string& text);
// A weight format's name (model/weight_format.hpp), or std::invalid_argument listing them all.
[[nodiscard]] WeightFormat parse_weight_format(const std::string& text);

}  // namespace roofline::io
