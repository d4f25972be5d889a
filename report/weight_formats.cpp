#include "report/weight_formats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace roofline::report {

std::optional<WeightFormat> class_format(const Report& r, TensorClass c) {
  if (r.model.weight_bytes_by_class[static_cast<std::size_t>(c)] <= Bytes(0)) return std::nullopt;
  // A tied table is one tensor, weighed as the embedding's bytes and stored in the head's format
  // (model/parameters.cpp embedding_format): Llama-3.2-1B with --lm-head int4 was priced at 4 bits
  // and named bf16.
  const std::optional<Architecture>& a = r.model.spec.architecture;
  if (c == TensorClass::embedding && a && a->tied_embeddings) return r.workload.precision.of(TensorClass::lm_head);
  return r.workload.precision.of(c);
}

std::string_view block_format_name(const Report& r) {
  std::optional<WeightFormat> shared;
  for (TensorClass c : kBlockClasses) {
    const std::optional<WeightFormat> f = class_format(r, c);
    if (!f) continue;
    if (shared && *shared != *f) return "mixed";
    shared = f;
  }
  // No block weights at all is not a model the engine builds; say what --weights would set.
  return name(shared.value_or(r.workload.precision.of(TensorClass::attention)));
}

std::string weight_formats_text(const Report& r) {
  std::vector<std::pair<WeightFormat, std::string>> groups;
  for (int i = 0; i < kTensorClassCount; ++i) {
    const auto c = static_cast<TensorClass>(i);
    const std::optional<WeightFormat> f = class_format(r, c);
    if (!f) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == *f; });
    if (it == groups.end()) groups.emplace_back(*f, std::string(name(c)));
    else it->second += fmt::format(", {}", name(c));
  }
  if (groups.empty()) return std::string(block_format_name(r));
  if (groups.size() == 1) return std::string(name(groups.front().first));
  std::string out;
  for (const auto& [format, classes] : groups) {
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", name(format), classes);
  }
  return out;
}

}  // namespace roofline::report
