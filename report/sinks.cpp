#include <cerrno>
#include <optional>
#include <stdexcept>

#include "report/run_envelope.hpp"
#include "report/safe_text.hpp"
#include "report/sink.hpp"
#include "report/terminal_width.hpp"
#include "report/text_table.hpp"
#include "report/write_error.hpp"

namespace roofline::report {

// A sink whose records need each other (a table's columns, a JSON array) renders none alone.
void Sink::render(const Record&, std::string&) const {
  throw std::logic_error("Sink::render: this format lays records out together");
}
void Sink::add_rendered(std::string_view) {
  throw std::logic_error("Sink::add_rendered: this format lays records out together");
}

namespace {

// Rows are gathered into a buffer and written a megabyte at a time: a stream write per row
// would dominate a sweep of cheap points.
constexpr std::size_t kFlushBytes = 1 << 20;

// A plain table lays its columns out from the first rows it holds, then draws the rest in the
// same columns without holding them. A table this long is read from its top; past it, a wider
// cell pushes its own row to the right rather than the sink keeping every row.
constexpr std::size_t kTableWindow = 1000;

class BufferedSink : public Sink {
 public:
  BufferedSink(Columns columns, std::ostream& out) : columns_(std::move(columns)), out_(out) {}
  void note(std::string line) override { notes_.push_back(std::move(line)); }
  void finish() override {
    close();
    flush();
  }

 protected:
  // Ends the output; tables add their notes here, machine formats leave them out.
  virtual void close() {}
  void written() {
    if (buffer_.size() >= kFlushBytes) flush();
  }
  // A failed write stops the output here: a sweep on a full disk does not run its remaining
  // points, and the command exits 1 with the reason.
  void flush() {
    write(buffer_);
    buffer_.clear();
  }
  // Text already gathered elsewhere (a chunk of rows): what is held goes first, then the text
  // itself, without a copy into the buffer.
  void write_through(std::string_view text) {
    flush();
    write(text);
  }
  void append_notes(std::string_view before = "") {
    if (!notes_.empty()) buffer_ += before;
    for (const std::string& n : notes_) buffer_ += terminal_text(n) + "\n";
  }
  Columns columns_;
  std::string buffer_;

 private:
  void write(std::string_view text) {
    errno = 0;
    out_.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out_) throw WriteError("", write_failure_reason(errno));
  }
  std::ostream& out_;
  std::vector<std::string> notes_;
};

// A format whose records are each whole lines of their own (CSV, JSON lines): rendered alone, on
// any thread, and written in the order they come.
class LineSink : public BufferedSink {
 public:
  using BufferedSink::BufferedSink;
  void add(const Record& r) final {
    render(r, buffer_);
    written();
  }
  [[nodiscard]] bool renders_alone() const final { return true; }
  void add_rendered(std::string_view text) final { write_through(text); }
};

class CsvSink final : public LineSink {
 public:
  CsvSink(Columns columns, std::ostream& out) : LineSink(std::move(columns), out) {
    if (columns_.append_csv_header) columns_.append_csv_header(buffer_);
  }
  void render(const Record& r, std::string& out) const override { r.append_csv(out); }
};

// Text in JSON is escaped by nlohmann; bytes that are not UTF-8 (a Latin-1 name) become U+FFFD
// rather than an exception.
std::string json_text(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

class JsonLinesSink final : public LineSink {
 public:
  using LineSink::LineSink;
  void render(const Record& r, std::string& out) const override {
    out += json_text(r.json(), -1);
    out += '\n';
  }
};

// The pretty JSON of one document, or of its records as the array `rows`, written as they come;
// either after the run's envelope (report/run_envelope.hpp). Each element is indented as
// nlohmann's dump(2) of the whole object would indent it.
class JsonSink final : public BufferedSink {
 public:
  JsonSink(Shape shape, Columns columns, std::ostream& out) : BufferedSink(std::move(columns), out), shape_(shape) {}
  void add(const Record& r) override {
    if (shape_ == Shape::document) {
      buffer_ += json_text(enveloped(r.json()), 2) + "\n";
      return;
    }
    if (count_++ == 0) {
      open_rows();
      buffer_ += "\n    ";
    } else {
      buffer_ += ",\n    ";
    }
    for (char c : json_text(r.json(), 2)) {
      buffer_ += c;
      if (c == '\n') buffer_ += "    ";  // JSON strings hold no raw line breaks: each one is layout
    }
    written();
  }

 private:
  // The envelope's keys, then the array's key: the envelope's closing brace comes at the end.
  void open_rows() {
    std::string head = json_text(run_envelope(), 2);
    head.erase(head.rfind('}'));
    while (!head.empty() && head.back() == '\n') head.pop_back();
    buffer_ += head + ",\n  \"rows\": [";
  }
  void close() override {
    if (shape_ != Shape::rows) return;
    if (count_ == 0) {
      open_rows();
      buffer_ += "]\n}\n";
      return;
    }
    buffer_ += "\n  ]\n}\n";
  }
  Shape shape_;
  std::size_t count_ = 0;
};

class PlainTableSink final : public BufferedSink {
 public:
  PlainTableSink(Shape shape, Columns columns, std::ostream& out)
      : BufferedSink(std::move(columns), out),
        shape_(shape),
        window_{columns_.title, columns_.table_header, {}},
        width_(table_width(out)) {}
  void add(const Record& r) override {
    if (shape_ == Shape::document) {
      buffer_ += r.view(false, columns_);
      return;
    }
    if (layout_) {
      append_plain_row(buffer_, *layout_, r.cells());
      streamed_ = true;
      written();
      return;
    }
    window_.rows.push_back(r.cells());
    if (window_.rows.size() == kTableWindow) draw_window();
  }

 private:
  void draw_window() {
    layout_ = plain_layout(window_, width_);
    buffer_ += render_plain(window_, width_);
    window_.rows.clear();
    written();
  }
  void close() override {
    if (shape_ == Shape::rows && !layout_) draw_window();
    if (streamed_) {
      if (const std::string note = fit_note(*layout_, columns_.table_header); !note.empty()) buffer_ += note + "\n";
    }
    append_notes();
  }
  Shape shape_;
  TextTable window_;
  bool streamed_ = false;  // rows drawn after the first window's table
  std::size_t width_;  // the terminal's columns, or 0 (report/terminal_width.hpp)
  std::optional<PlainLayout> layout_;
};

class MarkdownSink final : public BufferedSink {
 public:
  MarkdownSink(Shape shape, Columns columns, std::ostream& out) : BufferedSink(std::move(columns), out), shape_(shape) {
    if (shape_ == Shape::rows) append_markdown_head(buffer_, {columns_.title, columns_.table_header, {}});
  }
  void add(const Record& r) override {
    if (shape_ == Shape::document) {
      buffer_ += r.view(true, columns_);
      return;
    }
    append_markdown_row(buffer_, columns_.table_header.size(), r.cells());
    written();
  }

 private:
  void close() override {
    append_notes("\n");  // a line that is not a row ends the table
  }
  Shape shape_;
};

}  // namespace

std::string Record::view(bool markdown, const Columns& columns) const {
  const TextTable t{columns.title, columns.table_header, {cells()}};
  return markdown ? render_markdown(t) : render_plain(t);
}

std::unique_ptr<Sink> make_sink(OutputFormat f, Shape shape, Columns columns, std::ostream& out) {
  switch (f) {
    case OutputFormat::table: return std::make_unique<PlainTableSink>(shape, std::move(columns), out);
    case OutputFormat::markdown: return std::make_unique<MarkdownSink>(shape, std::move(columns), out);
    case OutputFormat::csv: return std::make_unique<CsvSink>(std::move(columns), out);
    case OutputFormat::json: return std::make_unique<JsonSink>(shape, std::move(columns), out);
    case OutputFormat::jsonl: return std::make_unique<JsonLinesSink>(std::move(columns), out);
  }
  throw std::logic_error("an output format without a sink");
}

}  // namespace roofline::report
