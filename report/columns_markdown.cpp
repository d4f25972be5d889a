#include "report/columns_markdown.hpp"

#include <fmt/format.h>

#include "report/report_columns.hpp"

namespace roofline::report {

namespace {

template <class Columns, class Key>
std::string key_table(const Columns& columns, Key key) {
  std::string out = "| JSON key | CSV column |\n|---|---|\n";
  for (const auto& c : columns) out += fmt::format("| `{}` | `{}` |\n", key(c), c.csv_name);
  return out;
}

}  // namespace

std::string report_columns_markdown() {
  return key_table(report_columns(), [](const Column& c) { return c.json_path; });
}

std::string op_columns_markdown() {
  return key_table(op_columns(), [](const OpColumn& c) { return fmt::format("ops[].{}", c.json_key); });
}

std::string names_markdown(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view n : names) out += fmt::format("{}`{}`", out.empty() ? "" : ", ", n);
  return out + "\n";
}

}  // namespace roofline::report
