#pragma once
// A CSV file's records as libcsv reads them (RFC 4180 quoting), each with the line it starts on:
// the one CSV reader behind every file of rows (measurements, serving traces).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/text_check.hpp"

namespace roofline::io {

struct CsvRecord {
  std::size_t line = 0;  // from 1
  std::vector<std::string> cells;
};

// Every record of `text`; an InputError naming `path:line:` when it is not CSV. Lines end at LF
// (CRLF is one break); a lone CR ends a line only in a file with no LF at all (a classic Mac
// file). In a file of LF or CRLF lines a lone CR outside quotes, which libcsv ends a record at,
// is refused at its line: counted as a break it named the line after the row, and taken as a
// record's end it split one line into two rows. Inside quotes it is the cell's text.
[[nodiscard]] std::vector<CsvRecord> csv_records(const std::string& text, const std::string& path);

// 1-based line and column (in bytes) of `offset` in a CSV file's `text`, lines counted as
// csv_records counts them (io::position_of counts a lone CR as YAML does, always a break).
[[nodiscard]] TextPosition csv_position(std::string_view text, std::size_t offset);

// A cell as a finite number, read whole by std::from_chars (no sign of text after it, no NaN or
// infinity); nullopt otherwise. The files of rows check its range themselves.
[[nodiscard]] std::optional<double> csv_number(const std::string& cell);

}  // namespace roofline::io
