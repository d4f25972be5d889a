#pragma once
// The scalar fields of a Report, listed once. JSON nests them by `json_path`; CSV flattens them
// under `csv_name` (units in the name). Adding a field here adds it to both, in step.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/report.hpp"

namespace roofline::report {

// monostate is JSON null / an empty CSV cell: "not applicable", never a silent zero. A list of
// texts (a plan row's warnings) is a JSON array, and one CSV cell of them joined by " | ".
using Cell = std::variant<std::monostate, double, long, bool, std::string_view, std::span<const std::string>>;

template <class T>
[[nodiscard]] Cell optional_cell(const std::optional<T>& v) {
  return v ? Cell(*v) : Cell();
}

struct Column {
  std::string_view json_path;  // "decode.step_time"
  std::string_view csv_name;   // "decode_step_time_s"
  Cell (*get)(const Report&);
};

[[nodiscard]] std::span<const Column> report_columns();

// One operator of one phase as the tables read it: the bound's figures and its expected time.
struct OpRow {
  Phase phase;
  const OpResult& op;
  Seconds expected;  // model/expected.hpp, expected_op_time
};

// One operator of one phase: the per-operator table (LLM-Viewer style) in JSON and CSV.
struct OpColumn {
  std::string_view json_key;
  std::string_view csv_name;
  Cell (*get)(const OpRow&);
};

// Each operator of both phases with its expected time, prefill first.
[[nodiscard]] std::vector<OpRow> op_rows(const Report& r);

[[nodiscard]] std::span<const OpColumn> op_columns();

}  // namespace roofline::report
