#include "report/report_record.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/human_units.hpp"
#include "report/layout_label.hpp"
#include "report/report_csv.hpp"
#include "report/report_json.hpp"
#include "report/report_view.hpp"
#include "report/weight_formats.hpp"

namespace roofline::report {

namespace {

bool has(std::span<const SweptColumn> swept, SweptColumn c) { return std::find(swept.begin(), swept.end(), c) != swept.end(); }

// The group size the point was priced at; where no class the model has takes one (bf16 weights),
// said so, as the stderr warning says it: --group-size 64,128 on bf16 rows reads "64 (unused)".
std::string group_size_text(const Report& r) {
  for (int c = 0; c < kTensorClassCount; ++c) {
    const std::optional<WeightFormat> f = class_format(r, static_cast<TensorClass>(c));
    if (f && takes_group_size(*f)) return fmt::format("{}", r.workload.precision.group_size);
  }
  return fmt::format("{} (unused)", r.workload.precision.group_size);
}

// The added columns that go before `batch` (the formats and the kernel), between `prompt` and
// `context` (gen), and before `fits` (the reserve, which decides it).
constexpr SweptColumn kBeforeBatch[] = {SweptColumn::lm_head, SweptColumn::group_size, SweptColumn::kv,
                                        SweptColumn::activations, SweptColumn::compute, SweptColumn::attention};

std::string_view header_of(SweptColumn c) {
  switch (c) {
    case SweptColumn::lm_head: return "lm-head";
    case SweptColumn::group_size: return "group-size";
    case SweptColumn::kv: return "kv";
    case SweptColumn::activations: return "activations";
    case SweptColumn::compute: return "compute";
    case SweptColumn::attention: return "attention";
    case SweptColumn::gen: return "gen";
    case SweptColumn::reserve: return "reserve";
  }
  return "";
}

std::string cell_of(const Report& r, SweptColumn c) {
  const Precision& p = r.workload.precision;
  switch (c) {
    case SweptColumn::lm_head: return std::string(name(p.of(TensorClass::lm_head)));
    case SweptColumn::group_size: return group_size_text(r);
    case SweptColumn::kv: return std::string(name(p.kv));
    case SweptColumn::activations: return std::string(name(p.activations));
    case SweptColumn::compute: return std::string(name(p.compute));
    case SweptColumn::attention: return r.workload.attention == AttentionKernel::naive ? "naive" : "flash";
    case SweptColumn::gen: return fmt::format("{}", r.workload.gen_tokens);
    case SweptColumn::reserve: return fmt::format("{:g}", r.workload.reserve_fraction);
  }
  return "";
}

// The fixed columns with the swept ones in their places; `fixed(i)` gives the i-th fixed cell.
template <class Fixed, class Added>
std::vector<std::string> laid_out(std::span<const SweptColumn> swept, Fixed&& fixed, Added&& added) {
  // model gpu layout weights | batch prompt | context TTFT step tokens/s decode | fits
  std::vector<std::string> out;
  for (int i = 0; i < 4; ++i) out.push_back(fixed(i));
  for (SweptColumn c : kBeforeBatch) {
    if (has(swept, c)) out.push_back(added(c));
  }
  for (int i = 4; i < 6; ++i) out.push_back(fixed(i));
  if (has(swept, SweptColumn::gen)) out.push_back(added(SweptColumn::gen));
  for (int i = 6; i < 11; ++i) out.push_back(fixed(i));
  if (has(swept, SweptColumn::reserve)) out.push_back(added(SweptColumn::reserve));
  out.push_back(fixed(11));
  return out;
}

}  // namespace

void ReportRecord::append_csv(std::string& out) const {
  if (ops_) {
    append_ops_csv_rows(out, r_);
  } else {
    append_csv_row(out, r_);
  }
}

nlohmann::ordered_json ReportRecord::json() const { return report_json(r_, json_ops_); }

std::vector<std::string> ReportRecord::cells() const {
  const Report& r = r_;
  const std::vector<std::string> fixed = {
      r.model.spec.name, r.gpu.spec.name, layout_label(r.workload),
      std::string(block_format_name(r)), fmt::format("{}", r.workload.batch),
      fmt::format("{}", r.workload.prompt_tokens), fmt::format("{}", r.workload.context_tokens),
      human(r.prefill.time), human(r.decode.step.time), three_digits(r.decode.tokens_per_s),
      std::string(name(r.decode.step.bound)), r.memory.fits ? "yes" : "no"};
  if (swept_.empty()) return fixed;
  return laid_out(
      swept_, [&](int i) { return fixed[static_cast<std::size_t>(i)]; }, [&](SweptColumn c) { return cell_of(r, c); });
}

std::string ReportRecord::view(bool markdown, const Columns&) const {
  return markdown ? render_report_markdown(r_, ops_) : render_report_plain(r_, ops_);
}

Columns report_record_columns(bool ops, std::span<const SweptColumn> swept) {
  static const std::vector<std::string> kFixed = {"model", "gpu",      "layout", "weights", "batch", "prompt",
                                                  "context", "TTFT", "step",   "tokens/s", "decode", "fits"};
  return {"",
          laid_out(
              swept, [](int i) { return kFixed[static_cast<std::size_t>(i)]; },
              [](SweptColumn c) { return std::string(header_of(c)); }),
          ops ? append_ops_csv_header : append_csv_header};
}

}  // namespace roofline::report
