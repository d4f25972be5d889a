#include "io/csv_records.hpp"

#include <csv.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <new>
#include <string_view>

#include "io/input_error.hpp"
#include "io/text_check.hpp"

namespace roofline::io {

namespace {

// libcsv calls back per field and per record; it knows no lines, so the file is fed one line at
// a time and each record keeps the line its first field ended on (where it starts, unless its
// first cell spans lines).
struct Collector {
  std::size_t line = 0;
  CsvRecord current;
  std::vector<CsvRecord> records;
};

void on_field(void* field, std::size_t size, void* data) {
  auto& c = *static_cast<Collector*>(data);
  if (c.current.cells.empty()) c.current.line = c.line;
  c.current.cells.emplace_back(static_cast<const char*>(field), size);
}

void on_record(int, void* data) {
  auto& c = *static_cast<Collector*>(data);
  c.records.push_back(std::move(c.current));
  c.current = {};
}

// A file with no LF at all ends its lines at CR (a classic Mac file); any other, at LF (CRLF once).
bool has_cr_lines(std::string_view text) { return text.find('\n') == std::string_view::npos; }

}  // namespace

TextPosition csv_position(std::string_view text, std::size_t offset) {
  return position_of(text, offset, has_cr_lines(text));
}

std::vector<CsvRecord> csv_records(const std::string& text, const std::string& path) {
  csv_parser parser{};
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) throw std::bad_alloc();
  Collector c;
  const auto fail = [&](std::string_view why) {
    const std::string reason = fmt::format("{}:{}: not CSV: {}", path, c.line, why);
    csv_free(&parser);
    throw InputError(reason);
  };
  // A UTF-8 byte order mark, as spreadsheets write one, is no part of the first header cell.
  std::size_t start = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  // A line ends at LF (CRLF one break); at a lone CR only in a file with no LF (counted at LF
  // alone, a file of CR line ends was one line, and every error said line 1). Counted at every
  // lone CR, as libcsv ends records, a row with a CR inside it was named by the line after it.
  const bool cr_lines = has_cr_lines(text);
  // Only an unquoted lone CR ends two records in one line: one before it, one at the line's LF (or,
  // on a last line without one, at csv_fini).
  const auto one_record = [&](std::size_t before) {
    if (!cr_lines && c.records.size() - before > 1) {
      fail("a carriage return (CR) alone inside the line, where libcsv would end the row (the file's lines end in "
           "LF; save it with one kind of line end)");
    }
  };
  std::size_t before = 0;
  while (start < text.size()) {
    const std::size_t next = next_line(text, start, cr_lines);
    const std::size_t end = next == std::string_view::npos ? text.size() : next;
    ++c.line;
    before = c.records.size();
    if (csv_parse(&parser, text.data() + start, end - start, on_field, on_record, &c) != end - start) {
      fail(csv_strerror(csv_error(&parser)));
    }
    one_record(before);
    start = end;
  }
  if (csv_fini(&parser, on_field, on_record, &c) != 0) fail("a quoted cell is not closed");
  one_record(before);
  csv_free(&parser);
  return std::move(c.records);
}

std::optional<double> csv_number(const std::string& cell) {
  double v = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace roofline::io
