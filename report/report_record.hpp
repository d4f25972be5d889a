#pragma once
// A Report as a record for the sinks: its CSV row (or its per-operator rows), its JSON, a
// compact row for sweep tables and, shown alone, the full report view.
#include <span>
#include <vector>

#include "model/report.hpp"
#include "report/sink.hpp"

namespace roofline::report {

// The workload flags the compact table has no column of its own for (model, GPU, layout, weights,
// batch, prompt and context have one). A sweep that gives one of them several values adds its
// column, in this order, so that its rows are told apart; one value, and the table is as before.
enum class SweptColumn { lm_head, group_size, kv, activations, compute, attention, gen, reserve };

class ReportRecord final : public Record {
 public:
  // `ops`: the per-operator rows in tables and CSV; `json_ops`: the per-operator array in JSON;
  // `swept`: the table's added columns, as report_record_columns was given them.
  ReportRecord(const Report& r, bool ops, bool json_ops, std::span<const SweptColumn> swept = {})
      : r_(r), ops_(ops), json_ops_(json_ops), swept_(swept) {}
  void append_csv(std::string& out) const override;
  [[nodiscard]] nlohmann::ordered_json json() const override;
  [[nodiscard]] std::vector<std::string> cells() const override;
  [[nodiscard]] std::string view(bool markdown, const Columns& columns) const override;

 private:
  const Report& r_;
  bool ops_, json_ops_;
  std::span<const SweptColumn> swept_;
};

// The columns of report records: the report's CSV header (or the operators'), and the compact
// table a sweep shows one point per line in, with a column for each of `swept` (CSV and JSON
// carry every field whatever it holds).
[[nodiscard]] Columns report_record_columns(bool ops, std::span<const SweptColumn> swept = {});

}  // namespace roofline::report
