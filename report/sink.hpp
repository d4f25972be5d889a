#pragma once
// Where records go: one sink per output format, fed a record at a time, so that a sweep of
// millions of points never holds its rows. Commands say what a record is (its CSV, JSON and
// table cells); the sinks say how each format lays records out.
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "report/output_format.hpp"

namespace roofline::report {

// What the records of one output share, known before the first: the headers and a title.
struct Columns {
  std::string title;                                // tables: a line above; Markdown: a heading
  std::vector<std::string> table_header;            // the cells people read
  // A function, not a pointer: a header may depend on the run (simulate's fleet and engine
  // columns appear only when there is a fleet or an engine).
  std::function<void(std::string&)> append_csv_header;
};

// One record as each format reads it; a sink asks only for its own part, so that a CSV sweep
// never builds JSON.
class Record {
 public:
  virtual ~Record() = default;
  virtual void append_csv(std::string& out) const = 0;  // whole lines, each ending in CRLF
  [[nodiscard]] virtual nlohmann::ordered_json json() const = 0;
  [[nodiscard]] virtual std::vector<std::string> cells() const = 0;  // one table row, for people
  // The record shown alone (a point's full report); a one-row table unless a record says more.
  [[nodiscard]] virtual std::string view(bool markdown, const Columns& columns) const;
};

// Many records (a sweep, a plan: a table, an array), or one shown whole (a point: its report
// view, a JSON object).
enum class Shape { rows, document };

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void add(const Record& r) = 0;
  // Whether a record's text depends on no other record (CSV, JSON lines): then render() may run
  // on any thread, and add_rendered() takes its text, records in order, as add() would write them.
  [[nodiscard]] virtual bool renders_alone() const { return false; }
  virtual void render(const Record& r, std::string& out) const;
  virtual void add_rendered(std::string_view text);
  // A remark for people, written under a table; machine formats carry the same facts as columns.
  virtual void note(std::string line) = 0;
  // Writes what is still held; called once, after the last record.
  virtual void finish() = 0;
};

// The one place a format becomes a sink.
[[nodiscard]] std::unique_ptr<Sink> make_sink(OutputFormat f, Shape shape, Columns columns, std::ostream& out);

}  // namespace roofline::report
