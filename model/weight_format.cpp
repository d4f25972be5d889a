#include "model/weight_format.hpp"

namespace roofline {

namespace {

using enum WeightFormat;
constexpr std::array<FormatLayout, kWeightFormatCount> kLayouts = {{
    {fp32, "fp32", DType::fp32, Scaling::none, 0, 0, 0, 0, "32-bit float"},
    {fp16, "fp16", DType::fp16, Scaling::none, 0, 0, 0, 0, "16-bit float"},
    {bf16, "bf16", DType::bf16, Scaling::none, 0, 0, 0, 0, "bfloat16"},
    {fp8, "fp8", DType::fp8, Scaling::matrix, 0, 4, 0, 0, "e4m3, an fp32 scale per matrix"},
    {fp8_channel, "fp8-channel", DType::fp8, Scaling::channel, 0, 4, 0, 0, "e4m3, an fp32 scale per output channel"},
    {fp8_block, "fp8-block", DType::fp8, Scaling::block, 128, 4, 0, 0, "e4m3, an fp32 scale per 128 x 128 block"},
    {int8, "int8", DType::int8, Scaling::none, 0, 0, 0, 0, "weight-only int8 (per-channel scales not counted)"},
    {int4, "int4", DType::int4, Scaling::group, 0, 2, 0, 0, "symmetric int4, an fp16 scale per group"},
    {awq, "awq", DType::int4, Scaling::group, 0, 2, 0.5, 0, "int4, an fp16 scale and a 4-bit zero per group"},
    {gptq, "gptq", DType::int4, Scaling::group, 0, 2, 0.5, 0, "int4, an fp16 scale and a 4-bit zero per group"},
    {fp4, "fp4", DType::fp4, Scaling::group, 0, 2, 0, 0, "e2m1, an fp16 scale per group"},
    {mxfp4, "mxfp4", DType::fp4, Scaling::group, 32, 1, 0, 0, "e2m1, an e8m0 scale per 32"},
    {nvfp4, "nvfp4", DType::fp4, Scaling::group, 16, 1, 0, 4, "e2m1, an e4m3 scale per 16 and an fp32 one per matrix"},
    {fp6, "fp6", DType::fp6, Scaling::group, 0, 2, 0, 0, "e2m3, an fp16 scale per group"},
    {mxfp6, "mxfp6", DType::fp6, Scaling::group, 32, 1, 0, 0, "e2m3, an e8m0 scale per 32"},
}};

constexpr std::array<std::string_view, kTensorClassCount> kClassNames = {"attention", "dense_ffn", "experts",
                                                                          "lm_head",   "embedding", "shared_experts"};

}  // namespace

const FormatLayout& layout(WeightFormat f) { return kLayouts[static_cast<std::size_t>(f)]; }
std::string_view name(WeightFormat f) { return layout(f).name; }
DType element_of(WeightFormat f) { return layout(f).element; }
const std::array<FormatLayout, kWeightFormatCount>& all_weight_formats() { return kLayouts; }

std::optional<WeightFormat> weight_format_from_name(std::string_view n) {
  for (const FormatLayout& l : kLayouts) {
    if (l.name == n) return l.format;
  }
  return std::nullopt;
}

WeightFormat weight_format_of(DType t) {
  switch (t) {
    case DType::fp32:
    case DType::tf32: return fp32;
    case DType::fp16: return fp16;
    case DType::bf16: return bf16;
    case DType::fp8: return fp8;
    case DType::int8: return int8;
    case DType::int4: return int4;
    case DType::fp4: return fp4;
    case DType::fp6: return fp6;
  }
  return fp16;
}

// A format's cost with its fixed scales in, and the scale bytes still to share over a group the
// workload chooses: worked out once, since the engine asks for it on every pass.
struct CostTemplate {
  StorageCost fixed;
  double per_workload_group = 0;
};

static CostTemplate cost_template(const FormatLayout& l) {
  const double scale = l.scale_bytes + l.zero_bytes;
  CostTemplate t{{bytes_per_element(l.element), 0, l.matrix_bytes}, 0};
  switch (l.scaling) {
    case Scaling::none: break;
    case Scaling::matrix: t.fixed.per_matrix += scale; break;
    case Scaling::channel: t.fixed.per_channel = scale; break;
    case Scaling::block:
      t.fixed.block = l.group;
      t.fixed.per_block = scale;
      break;
    case Scaling::group:
      if (l.group > 0) t.fixed.per_weight += scale / l.group;
      else t.per_workload_group = scale;
      break;
  }
  return t;
}

StorageCost storage_cost(WeightFormat f, int group_size) {
  static const std::array<CostTemplate, kWeightFormatCount> templates = [] {
    std::array<CostTemplate, kWeightFormatCount> t{};
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = cost_template(kLayouts[i]);
    return t;
  }();
  const CostTemplate& t = templates[static_cast<std::size_t>(f)];
  StorageCost c = t.fixed;
  if (t.per_workload_group > 0) c.per_weight += t.per_workload_group / group_size;
  return c;
}

double stored_bytes(WeightFormat f, double in, double out, double copies, int group_size) {
  return storage_cost(f, group_size).bytes(in, out, copies);
}

double bytes_per_weight(WeightFormat f, int group_size) {
  const StorageCost c = storage_cost(f, group_size);
  return c.per_weight + (c.block > 0 ? c.per_block / (c.block * c.block) : 0);
}

bool is_wide_float(WeightFormat f) { return layout(f).scaling == Scaling::none && is_wide_float(element_of(f)); }

bool takes_group_size(WeightFormat f) { return layout(f).scaling == Scaling::group && layout(f).group == 0; }

std::string weight_format_names(std::string_view separator) {
  std::string out;
  for (const FormatLayout& l : kLayouts) {
    if (!out.empty()) out += separator;
    out += l.name;
  }
  return out;
}

std::string_view name(TensorClass c) { return kClassNames[static_cast<std::size_t>(c)]; }

}  // namespace roofline
