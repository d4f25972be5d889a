#include "report/report_csv.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <array>
#include <cmath>


#include "report/report_columns.hpp"

namespace roofline::report {

namespace {

// A number as fmt's "{}" writes it (the shortest text that reads back the same), faster: a sweep
// writes some forty numbers a row. A whole number below 10^15 is its integer's digits (what "{}"
// writes for it, with no exponent); any other goes into a buffer on the stack, the format parsed
// at compile time, since fmt's path into a std::string costs more than the number itself.
void append_number(std::string& out, double v) {
  if (v == std::trunc(v) && std::abs(v) < 1e15) {
    const fmt::format_int digits(static_cast<long long>(v));
    // -0.0 is "-0" in fmt, and 0 as an integer.
    if (v == 0 && std::signbit(v)) out += '-';
    out.append(digits.data(), digits.size());
    return;
  }
  std::array<char, 40> digits;  // the longest double, "-2.2250738585072014e-308", is 24
  const auto end = fmt::format_to(digits.data(), FMT_COMPILE("{}"), v);
  out.append(digits.data(), end);
}

}  // namespace

void append_csv_cell(std::string& out, const Cell& c) {
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          // An empty cell: not applicable.
        } else if constexpr (std::is_same_v<T, std::string_view>) {
          append_csv_field(out, v);
        } else if constexpr (std::is_same_v<T, std::span<const std::string>>) {
          append_csv_field(out, fmt::format("{}", fmt::join(v, " | ")));
        } else if constexpr (std::is_same_v<T, bool>) {
          out += v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, double>) {
          append_number(out, v);
        } else {
          const fmt::format_int digits(v);
          out.append(digits.data(), digits.size());
        }
      },
      c);
}


void append_csv_field(std::string& out, std::string_view field) {
  // A spreadsheet reads a cell starting with = + - @ (or a tab or carriage return before one) as
  // a formula: a model named "=HYPERLINK(...)" would run when the CSV is opened. OWASP's rule:
  // such a text cell starts with ' and is quoted, so it is read as text.
  const bool formula = !field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos;
  if (!formula && field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  if (formula) out += '\'';
  for (char ch : field) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
}

void append_csv_header(std::string& out) {
  append_csv_row_of(out, report_columns(), [](const Column& c) { return Cell(c.csv_name); });
}

void append_csv_row(std::string& out, const Report& r) {
  append_csv_row_of(out, report_columns(), [&r](const Column& c) { return c.get(r); });
}

void append_ops_csv_header(std::string& out) {
  append_csv_row_of(out, op_columns(), [](const OpColumn& c) { return Cell(c.csv_name); });
}

void append_ops_csv_rows(std::string& out, const Report& r) {
  for (const OpRow& row : op_rows(r)) {
    append_csv_row_of(out, op_columns(), [&](const OpColumn& c) { return c.get(row); });
  }
}

std::string ops_csv(const Report& r) {
  std::string out;
  append_ops_csv_header(out);
  append_ops_csv_rows(out, r);
  return out;
}

}  // namespace roofline::report
