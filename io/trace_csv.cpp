#include "io/trace_csv.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "io/csv_records.hpp"
#include "io/input_error.hpp"
#include "io/nearest_word.hpp"
#include "io/text_check.hpp"
#include "io/text_file.hpp"

namespace roofline::io {

namespace {

// An hour at 1000 requests a second is 3.6 million rows, ~100 MB.
constexpr std::size_t kMaxTraceBytes = 256U << 20;
// Tokens of one request past this are a typo, as the workload flags' own limit says.
constexpr double kMaxTokens = 1e9;

enum Col { kArrival, kPrompt, kOutput, kCached, kCols };
constexpr std::array<std::string_view, kCols> kNames = {"arrival_s", "prompt_tokens", "output_tokens", "cached_tokens"};
// The same columns as the Azure LLM inference traces name them (Splitwise's, as Vidur
// redistributes them: arrived_at, num_prefill_tokens, num_decode_tokens); empty: none.
constexpr std::array<std::string_view, kCols> kAzureNames = {"arrived_at", "num_prefill_tokens", "num_decode_tokens", ""};

std::array<std::optional<std::size_t>, kCols> read_header(const CsvRecord& h, const std::string& path) {
  std::array<std::optional<std::size_t>, kCols> at{};
  std::vector<std::string> names(kNames.begin(), kNames.end());
  for (std::string_view n : kAzureNames) {
    if (!n.empty()) names.emplace_back(n);
  }
  for (std::size_t i = 0; i < h.cells.size(); ++i) {
    auto k = std::find(kNames.begin(), kNames.end(), h.cells[i]);
    std::size_t col = static_cast<std::size_t>(k - kNames.begin());
    if (k == kNames.end()) {
      const auto azure = std::find(kAzureNames.begin(), kAzureNames.end(), h.cells[i]);
      if (azure == kAzureNames.end() || h.cells[i].empty()) {
        throw InputError(fmt::format("{}:{}: column `{}`: not a column of a trace{} (they are {})", path, h.line,
                                     h.cells[i], did_you_mean(h.cells[i], names), fmt::join(names, ", ")));
      }
      col = static_cast<std::size_t>(azure - kAzureNames.begin());
    }
    auto& slot = at[col];
    if (slot) {
      throw InputError(fmt::format("{}:{}: column `{}`: given twice (as `{}` before)", path, h.line, h.cells[i],
                                   h.cells[*slot]));
    }
    slot = i;
  }
  for (std::size_t k = 0; k < kCached; ++k) {
    if (!at[k]) {
      throw InputError(fmt::format("{}:{}: column `{}` (or `{}`) is missing (a trace has {}, {} and {}, "
                                   "cached_tokens may be added)",
                                   path, h.line, kNames[k], kAzureNames[k], kNames[kArrival], kNames[kPrompt],
                                   kNames[kOutput]));
    }
  }
  return at;
}

// A finite number at least `least`, read whole; a count when `whole`.
std::optional<double> number(const std::string& cell, double least, bool whole) {
  const std::optional<double> v = csv_number(cell);
  if (!v || *v < least) return std::nullopt;
  if (whole && (*v != std::floor(*v) || *v > kMaxTokens)) return std::nullopt;
  return v;
}

TraceRow read_row(const CsvRecord& r, const std::array<std::optional<std::size_t>, kCols>& at,
                  const std::vector<std::string>& header, const std::string& path) {
  const std::size_t width = header.size();
  if (r.cells.size() != width) {
    throw InputError(fmt::format("{}:{}: has {} cells, the header {}", path, r.line, r.cells.size(), width));
  }
  TraceRow row;
  row.line = r.line;
  std::array<double, kCols> v{};
  for (std::size_t k = 0; k < kCols; ++k) {
    if (!at[k]) continue;
    const std::string& cell = r.cells[*at[k]];
    const double least = k == kPrompt || k == kOutput ? 1 : 0;
    const auto x = number(cell, least, k != kArrival);
    if (!x) {
      const char* what = k == kArrival ? "seconds, at least 0" : least > 0 ? "a count of tokens, 1 to 10^9"
                                                                           : "a count of tokens, 0 to 10^9";
      // Named as the file names it (arrived_at, or arrival_s).
      throw InputError(fmt::format("{}:{}: {}: `{}` is not {}", path, r.line, header[*at[k]],
                                   text_problem(cell, TextUse::value) ? "(unprintable)" : cell, what));
    }
    v[k] = *x;
  }
  row.arrival = v[kArrival];
  row.prompt = static_cast<long>(v[kPrompt]);
  row.output = static_cast<long>(v[kOutput]);
  row.cached = static_cast<long>(v[kCached]);
  if (row.cached >= row.prompt) {
    throw InputError(fmt::format("{}:{}: cached_tokens: {} is not shorter than the prompt ({}): a prefill computes at "
                                 "least one token", path, r.line, row.cached, row.prompt));
  }
  return row;
}

}  // namespace

namespace {

// A CSV file of rows under a header, read whole and checked as text (a byte-order mark dropped);
// refused when it has no row, `what` saying what a row is.
std::vector<CsvRecord> csv_table(const std::string& path, std::string_view kind, std::string_view what) {
  std::string text = read_text_file(path, kind, kMaxTraceBytes);
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  if (const auto p = text_problem(text, TextUse::file)) {
    const TextPosition at = csv_position(text, p->offset);  // lines as csv_records counts them
    throw InputError(fmt::format("{}:{}:{}: {}", path, at.line, at.column, p->what));
  }
  std::vector<CsvRecord> records = csv_records(text, path);
  if (records.size() < 2) throw InputError(fmt::format("{}: has no rows; {}", path, what));
  return records;
}

}  // namespace

std::vector<TraceRow> read_trace(const std::string& path) {
  const std::vector<CsvRecord> records = csv_table(path, "a trace", "a trace is a header and a row a request");
  const auto at = read_header(records.front(), path);
  std::vector<TraceRow> rows;
  rows.reserve(records.size() - 1);
  for (std::size_t i = 1; i < records.size(); ++i) {
    TraceRow row = read_row(records[i], at, records.front().cells, path);
    if (!rows.empty() && row.arrival < rows.back().arrival) {
      throw InputError(fmt::format("{}:{}: {}: {} is before line {}'s {}: a trace is in order of arrival", path,
                                   row.line, records.front().cells[*at[kArrival]], row.arrival, rows.back().line,
                                   rows.back().arrival));
    }
    rows.push_back(row);
  }
  return rows;
}

std::vector<long> read_lengths(const std::string& path, const std::string& column, Lengths which,
                               std::string* used) {
  const Col col = which == Lengths::prompt ? kPrompt : kOutput;
  const std::vector<std::string> defaults = {std::string(kNames[col]), std::string(kAzureNames[col])};
  const std::vector<CsvRecord> records =
      csv_table(path, "a file of lengths", "a file of lengths is a header and a row a length");
  const std::vector<std::string>& header = records.front().cells;
  const std::vector<std::string> wanted = column.empty() ? defaults : std::vector<std::string>{column};
  std::optional<std::size_t> at;
  for (const std::string& w : wanted) {
    const auto i = std::find(header.begin(), header.end(), w);
    if (i != header.end()) {
      at = static_cast<std::size_t>(i - header.begin());
      break;
    }
  }
  if (!at) {
    throw InputError(fmt::format("{}:{}: no column {}{} (it has {})", path, records.front().line,
                                 fmt::join(wanted, " or "), column.empty() ? "" : did_you_mean(column, header),
                                 fmt::join(header, ", ")));
  }
  if (used != nullptr) *used = header[*at];
  std::vector<long> out;
  out.reserve(records.size() - 1);
  for (std::size_t i = 1; i < records.size(); ++i) {
    const CsvRecord& r = records[i];
    if (r.cells.size() != header.size()) {
      throw InputError(fmt::format("{}:{}: has {} cells, the header {}", path, r.line, r.cells.size(), header.size()));
    }
    const std::string& cell = r.cells[*at];
    const auto x = number(cell, 1, true);
    if (!x) {
      throw InputError(fmt::format("{}:{}: {}: `{}` is not a count of tokens, 1 to 10^9", path, r.line, header[*at],
                                   text_problem(cell, TextUse::value) ? "(unprintable)" : cell));
    }
    out.push_back(static_cast<long>(*x));
  }
  return out;
}

}  // namespace roofline::io
