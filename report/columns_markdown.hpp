#pragma once
// The output columns as docs/outputs.md lists them, from the tables the formats write: a test
// keeps the page equal to these, as the field tables of docs/inputs.md are kept to the schema.
#include <span>
#include <string>
#include <string_view>

namespace roofline::report {

// | JSON key | CSV column |, one row a column of the report (the point command, sweep).
[[nodiscard]] std::string report_columns_markdown();
// The same for the per-operator rows of --ops.
[[nodiscard]] std::string op_columns_markdown();
// Columns whose JSON key is their CSV name (plan's), as one line: `a`, `b`, … in order.
[[nodiscard]] std::string names_markdown(std::span<const std::string_view> names);

}  // namespace roofline::report
