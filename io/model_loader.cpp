#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "io/document_kind.hpp"
#include "io/hf_config.hpp"
#include "io/nearest_word.hpp"
#include "io/presets.hpp"
#include "io/schema.hpp"
#include "io/spec_loader.hpp"

namespace roofline::io {

DType parse_dtype(const std::string& text) {
  if (auto t = dtype_from_name(text)) return *t;
  std::vector<std::string> names;
  for (DType t : kAllDTypes) names.emplace_back(name(t));
  throw std::invalid_argument(
      fmt::format("unknown dtype \"{}\"{} (one of {})", text, did_you_mean(text, names), fmt::join(names, ", ")));
}

WeightFormat parse_weight_format(const std::string& text) {
  if (auto f = weight_format_from_name(text)) return *f;
  std::vector<std::string> names;
  for (const FormatLayout& l : all_weight_formats()) names.emplace_back(l.name);
  throw std::invalid_argument(fmt::format("unknown weight format \"{}\"{} (one of {})", text, did_you_mean(text, names),
                                          fmt::join(names, ", ")));
}

ModelSpec read_model(const YamlDocument& doc) {
  check_document_kind(doc, SchemaKind::model);
  if (is_hf_config(doc)) return read_hf_config(doc);
  ModelSpec m = read_document(model_schema(), doc);
  // The spec's own rules name the field as written (`moe.top_k`): point at it.
  if (const auto e = validate(m)) MapReader(doc, doc.root, "", {}).fail_at(e->field, e->message);
  // An assumption the file's own fields contradict would be a false warning: refused at it.
  const auto listed = [&m](Assumption a) { return std::find(m.assumptions.begin(), m.assumptions.end(), a) != m.assumptions.end(); };
  const MapReader root(doc, doc.root, "", {});
  if (listed(Assumption::dtype_bf16) && m.dtype != DType::bf16) {
    root.fail("assumptions", "dtype_bf16 says the weights were taken as bf16, but `dtype` is not bf16");
  }
  if (listed(Assumption::dtype_fp32_as_bf16) && m.dtype != DType::bf16) {
    root.fail("assumptions", "dtype_fp32_as_bf16 says the float32 weights were taken as bf16, but `dtype` is not bf16");
  }
  if (listed(Assumption::mtp_not_modelled) && !(m.architecture && m.architecture->mtp_modules > 0)) {
    root.fail("assumptions", "mtp_not_modelled needs `mtp_modules`: the model has no MTP layers to leave out");
  }
  if (listed(Assumption::towers_in_memory) && !(m.architecture && m.architecture->tower_params > 0)) {
    root.fail("assumptions", "towers_in_memory needs `tower_params`: the model holds no towers");
  }
  if (m.architecture && m.architecture->mtp_modules > 0) m.assumptions.push_back(Assumption::mtp_not_modelled);
  if (m.architecture && m.architecture->tower_params > 0) m.assumptions.push_back(Assumption::towers_in_memory);
  // Each once, in order: a converted file lists those its fields imply too (`convert` writes every
  // caveat of the config it read).
  std::vector<Assumption> once;
  for (const Assumption a : m.assumptions) {
    if (std::find(once.begin(), once.end(), a) == once.end()) once.push_back(a);
  }
  m.assumptions = std::move(once);
  return m;
}

ModelSpec load_model(const std::string& file_or_preset) {
  return read_model(load_yaml_file(resolve_preset(PresetKind::model, file_or_preset)));
}

}  // namespace roofline::io
