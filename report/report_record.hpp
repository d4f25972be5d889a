#pragma once
// A Report as a record for the sinks: its CSV row (or its per-operator rows), its JSON, a
// compact row for sweep tables and, shown alone, the full report view.
#include "model/report.hpp"
#include "report/sink.hpp"

namespace roofline::report {

class ReportRecord final : public Record {
 public:
  // `ops`: the per-operator rows in tables and CSV; `json_ops`: the per-operator array in JSON.
  ReportRecord(const Report& r, bool ops, bool json_ops) : r_(r), ops_(ops), json_ops_(json_ops) {}
  void append_csv(std::string& out) const override;
  [[nodiscard]] nlohmann::ordered_json json() const override;
  [[nodiscard]] std::vector<std::string> cells() const override;
  [[nodiscard]] std::string view(bool markdown, const Columns& columns) const override;

 private:
  const Report& r_;
  bool ops_, json_ops_;
};

// The columns of report records: the report's CSV header (or the operators'), and the compact
// table a sweep shows one point per line in.
[[nodiscard]] Columns report_record_columns(bool ops);

}  // namespace roofline::report
