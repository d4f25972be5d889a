#pragma once
// A CSV file's records as libcsv reads them (RFC 4180 quoting), each with the line it starts on:
// the one CSV reader behind every file of rows (measurements, serving traces).
#include <cstddef>
#include <string>
#include <vector>

namespace roofline::io {

struct CsvRecord {
  std::size_t line = 0;  // from 1
  std::vector<std::string> cells;
};

// Every record of `text`; an InputError naming `path:line:` when it is not CSV.
[[nodiscard]] std::vector<CsvRecord> csv_records(const std::string& text, const std::string& path);

}  // namespace roofline::io
