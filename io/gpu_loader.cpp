#include "io/document_kind.hpp"
#include "io/presets.hpp"
#include "io/schema.hpp"
#include "io/spec_loader.hpp"

namespace roofline::io {

GpuSpec read_gpu(const YamlDocument& doc) {
  check_document_kind(doc, SchemaKind::gpu);
  return read_document(gpu_schema(), doc);
}

GpuSpec load_gpu(const std::string& file_or_preset) {
  return read_gpu(load_yaml_file(resolve_preset(PresetKind::gpu, file_or_preset)));
}

}  // namespace roofline::io
