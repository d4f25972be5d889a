#pragma once
// CSV for spreadsheets: header first, RFC 4180 quoting, SI values with units in column names.
// Rows are appended to a buffer so that a sweep writes millions without a stream per cell.
#include <string>

#include "model/report.hpp"
#include "report/report_columns.hpp"

namespace roofline::report {

void append_csv_header(std::string& out);
void append_csv_row(std::string& out, const Report& r);

// The per-operator table: one row per operator of both phases, with its own header.
[[nodiscard]] std::string ops_csv(const Report& r);
void append_ops_csv_header(std::string& out);
void append_ops_csv_rows(std::string& out, const Report& r);

// One cell: empty for "not applicable", true/false, shortest round-trip numbers, quoted text.
void append_csv_cell(std::string& out, const Cell& c);

// One row of any column table: get(column) gives each cell; the row ends in CRLF.
template <class Columns, class Get>
void append_csv_row_of(std::string& out, const Columns& columns, Get get) {
  bool first = true;
  for (const auto& c : columns) {
    if (!first) out += ',';
    first = false;
    append_csv_cell(out, get(c));
  }
  out += "\r\n";
}

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. A text
// field a spreadsheet would read as a formula (= + - @ first) is quoted and starts with '.
void append_csv_field(std::string& out, std::string_view field);

}  // namespace roofline::report
