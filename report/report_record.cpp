#include "report/report_record.hpp"

#include <fmt/format.h>

#include "report/human_units.hpp"
#include "report/layout_label.hpp"
#include "report/report_csv.hpp"
#include "report/report_json.hpp"
#include "report/report_view.hpp"
#include "report/weight_formats.hpp"

namespace roofline::report {

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
  return {r.model.spec.name, r.gpu.spec.name, layout_label(r.workload),
          std::string(block_format_name(r)), fmt::format("{}", r.workload.batch),
          fmt::format("{}", r.workload.prompt_tokens), fmt::format("{}", r.workload.context_tokens),
          human(r.prefill.time), human(r.decode.step.time), three_digits(r.decode.tokens_per_s),
          std::string(name(r.decode.step.bound)), r.memory.fits ? "yes" : "no"};
}

std::string ReportRecord::view(bool markdown, const Columns&) const {
  return markdown ? render_report_markdown(r_, ops_) : render_report_plain(r_, ops_);
}

Columns report_record_columns(bool ops) {
  return {"",
          {"model", "gpu", "layout", "weights", "batch", "prompt", "context", "TTFT", "step", "tokens/s", "decode", "fits"},
          ops ? append_ops_csv_header : append_csv_header};
}

}  // namespace roofline::report
