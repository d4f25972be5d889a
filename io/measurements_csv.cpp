#include "io/measurements_csv.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "io/csv_records.hpp"
#include "io/input_error.hpp"
#include "io/nearest_word.hpp"
#include "io/ranges.hpp"
#include "io/text_check.hpp"
#include "io/text_file.hpp"

namespace roofline::io {

namespace {

// A measurements file is a few hundred rows; past this it is the wrong file.
constexpr std::size_t kMaxMeasurementsBytes = 16U << 20;

// The columns, each with where its cell goes; extra_flags and note may be absent.
struct Column {
  std::string_view name;
  std::string MeasurementRow::*text;  // nullptr: metric and measured, typed below
  bool required;
};
constexpr std::array<Column, 14> kColumns = {{
    {"id", &MeasurementRow::id, true},
    {"source", &MeasurementRow::source, true},
    {"model", &MeasurementRow::model, true},
    {"gpu", &MeasurementRow::gpu, true},
    {"weights", &MeasurementRow::weights, true},
    {"kv", &MeasurementRow::kv, true},
    {"tp", &MeasurementRow::tp, true},
    {"batch", &MeasurementRow::batch, true},
    {"prompt", &MeasurementRow::prompt, true},
    {"gen", &MeasurementRow::gen, true},
    {"extra_flags", &MeasurementRow::extra_flags, false},
    {"metric", nullptr, true},
    {"measured", nullptr, true},
    {"note", &MeasurementRow::note, false},
}};
// Cells that may not be empty: a row without them names no run.
constexpr std::array<std::string_view, 4> kNonEmpty = {"id", "source", "model", "gpu"};

using Record = CsvRecord;

std::vector<std::string> column_names() {
  std::vector<std::string> names;
  for (const Column& col : kColumns) names.emplace_back(col.name);
  return names;
}

// Where each column is in the file (nullopt: absent, which only optional columns may be).
std::array<std::optional<std::size_t>, kColumns.size()> read_header(const Record& header, const std::string& path) {
  std::array<std::optional<std::size_t>, kColumns.size()> at{};
  const std::vector<std::string> names = column_names();
  for (std::size_t i = 0; i < header.cells.size(); ++i) {
    const std::string& cell = header.cells[i];
    const auto known = std::find(names.begin(), names.end(), cell);
    if (known == names.end()) {
      throw InputError(fmt::format("{}:{}: column `{}`: not a column of a measurements file{} (they are {})", path,
                                   header.line, cell, did_you_mean(cell, names), fmt::join(names, ", ")));
    }
    auto& slot = at[static_cast<std::size_t>(known - names.begin())];
    if (slot) throw InputError(fmt::format("{}:{}: column `{}`: given twice", path, header.line, cell));
    slot = i;
  }
  for (std::size_t k = 0; k < kColumns.size(); ++k) {
    if (kColumns[k].required && !at[k]) {
      throw InputError(fmt::format("{}:{}: column `{}` is missing (a measurements file has {})", path, header.line,
                                   kColumns[k].name, fmt::join(names, ", ")));
    }
  }
  return at;
}

std::vector<std::string> metric_names() {
  std::vector<std::string> names;
  for (Metric m : kMetrics) names.emplace_back(name(m));
  return names;
}

// A positive finite number, read whole.
std::optional<double> positive_number(const std::string& cell) {
  const std::optional<double> v = csv_number(cell);
  if (!v || *v <= 0) return std::nullopt;
  return v;
}

MeasurementRow read_row(const Record& r, const std::array<std::optional<std::size_t>, kColumns.size()>& at,
                        std::size_t width, const std::string& path) {
  const auto error = [&](std::string_view column, std::string_view what) {
    return InputError(fmt::format("{}:{}: {}: {}", path, r.line, column, what));
  };
  if (r.cells.size() != width) {
    throw InputError(fmt::format("{}:{}: has {} cells, the header {}", path, r.line, r.cells.size(), width));
  }
  MeasurementRow row;
  row.line = r.line;
  for (std::size_t k = 0; k < kColumns.size(); ++k) {
    if (!at[k]) continue;
    const Column& col = kColumns[k];
    const std::string& cell = r.cells[*at[k]];
    // A note is never printed and may run over lines; every other cell is shown on one.
    const TextUse use = col.name == "note" ? TextUse::file : TextUse::value;
    if (const auto p = text_problem(cell, use)) throw error(col.name, p->what);
    if (cell.empty() && std::find(kNonEmpty.begin(), kNonEmpty.end(), col.name) != kNonEmpty.end()) {
      throw error(col.name, "is empty");
    }
    if (col.text) {
      row.*col.text = cell;
    } else if (col.name == "metric") {
      const auto m = metric_from_name(cell);
      if (!m) {
        const std::vector<std::string> names = metric_names();
        throw error(col.name, fmt::format("`{}` is not a metric{} (one of {})", cell, did_you_mean(cell, names),
                                          fmt::join(names, ", ")));
      }
      row.metric = *m;
    } else {
      const auto v = positive_number(cell);
      if (!v) throw error(col.name, fmt::format("`{}` is not a positive number", cell));
      row.measured = *v;
    }
  }
  // A figure no inference run has: a rate of 10^-300 or a time of 10^308 fits coefficients the
  // tool itself refuses (shares of 10^-300).
  const bool seconds = row.metric == Metric::ttft_s;
  const Range physical = seconds ? Range{1e-6, 1e5} : Range{1e-3, 1e9};
  if (!(row.measured >= physical.min && row.measured <= physical.max)) {
    throw error("measured", fmt::format("{:g} {} is outside {:g} … {:g} {}", row.measured, seconds ? "s" : "tokens/s",
                                        physical.min, physical.max, seconds ? "s" : "tokens/s"));
  }
  return row;
}

}  // namespace

std::vector<MeasurementRow> read_measurements(const std::string& path) {
  std::string text = read_text_file(path, "a measurements file", kMaxMeasurementsBytes);
  // A spreadsheet's UTF-8 export starts with a byte-order mark, which is not part of the header.
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  if (const auto p = text_problem(text, TextUse::file)) {
    const TextPosition at = csv_position(text, p->offset);  // lines as csv_records counts them
    throw InputError(fmt::format("{}:{}:{}: {}", path, at.line, at.column, p->what));
  }
  const std::vector<Record> records = csv_records(text, path);
  if (records.empty()) throw InputError(fmt::format("{}: is empty; a measurements file starts with its header", path));
  const auto at = read_header(records.front(), path);
  if (records.size() - 1 > kMaxMeasuredRuns) {
    throw InputError(fmt::format("{}:{}: row {} of {}: a measurements file holds at most {} runs (fit checks them "
                                 "in seconds); split it",
                                 path, records[kMaxMeasuredRuns + 1].line, kMaxMeasuredRuns + 1, records.size() - 1,
                                 kMaxMeasuredRuns));
  }
  std::vector<MeasurementRow> rows;
  std::unordered_map<std::string, std::size_t> lines;  // id -> the line that gave it first
  for (std::size_t i = 1; i < records.size(); ++i) {
    MeasurementRow row = read_row(records[i], at, records.front().cells.size(), path);
    if (const auto [same, fresh] = lines.emplace(row.id, row.line); !fresh) {
      throw InputError(fmt::format("{}:{}: id: `{}` is the id of line {} too", path, row.line, row.id, same->second));
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw InputError(fmt::format("{}: has a header and no rows", path));
  return rows;
}

}  // namespace roofline::io
