#pragma once
// The report for people: the phase table (prefill beside decode), the memory ledger, B*, and a
// verdict per phase; with `ops`, the per-operator table. Rendered as plain text or Markdown.
#include <string>
#include <vector>

#include "model/report.hpp"
#include "report/text_table.hpp"

namespace roofline::report {

[[nodiscard]] TextTable phase_table(const Report& r);
[[nodiscard]] TextTable memory_table(const Report& r);
[[nodiscard]] TextTable ops_table(const Report& r);
[[nodiscard]] std::vector<std::string> summary_lines(const Report& r);  // model, GPU, workload
[[nodiscard]] std::string critical_batch_line(const Report& r);
[[nodiscard]] std::vector<std::string> verdicts(const Report& r);

[[nodiscard]] std::string render_report_plain(const Report& r, bool with_ops);
[[nodiscard]] std::string render_report_markdown(const Report& r, bool with_ops);

}  // namespace roofline::report
