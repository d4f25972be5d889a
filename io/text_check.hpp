#pragma once
// Text that reaches an output as it was read: names and sources land in terminals, JSON, SVG and
// Markdown headings. It must be UTF-8 (JSON cannot carry anything else; nlohmann::json throws)
// and free of the characters a terminal or a document acts on rather than shows.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace roofline::io {

struct TextProblem {
  std::size_t offset;  // of the first offending byte
  std::string what;    // "byte 0xE9 is not UTF-8", "control character U+001B (escape)"
};

enum class TextUse {
  value,  // a name, a source, a key: one line, no control character at all
  file,   // a whole file: line breaks and tabs are its layout
};

// The first reason `text` cannot be shown as it is, or nothing. Never quotes the text itself, so
// a message built from it can be printed whatever the file held.
[[nodiscard]] std::optional<TextProblem> text_problem(std::string_view text, TextUse use);

// Where the line after the one holding `start` begins, past its break: LF, CRLF or (`lone_cr`) a
// lone CR, as YAML ends its lines; npos where that line has no break (the text's last). A CSV file
// counts a lone CR only where it has no LF (io/csv_records.hpp).
[[nodiscard]] std::size_t next_line(std::string_view text, std::size_t start, bool lone_cr = true);

// 1-based line and column (in bytes) of `offset` in `text`, lines ended as next_line ends them
// (by default as yaml-cpp counts them).
struct TextPosition {
  std::size_t line, column;
};
[[nodiscard]] TextPosition position_of(std::string_view text, std::size_t offset, bool lone_cr = true);

}  // namespace roofline::io
