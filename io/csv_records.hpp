#pragma once
// A CSV file's records as libcsv reads them (RFC 4180 quoting), each with the line it starts on:
// the one CSV reader behind every file of rows (measurements, serving traces).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace roofline::io {

struct CsvRecord {
  std::size_t line = 0;  // from 1
  std::vector<std::string> cells;
};

// Every record of `text`; an InputError naming `path:line:` when it is not CSV.
[[nodiscard]] std::vector<CsvRecord> csv_records(const std::string& text, const std::string& path);

// A cell as a finite number, read whole by std::from_chars (no sign of text after it, no NaN or
// infinity); nullopt otherwise. The files of rows check its range themselves.
[[nodiscard]] std::optional<double> csv_number(const std::string& cell);

}  // namespace roofline::io
