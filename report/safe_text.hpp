#pragma once
// Text from files (a model's or a GPU's name) made safe for the output it lands in. A name is
// data, not markup: an escape sequence must not clear a terminal, a newline must not end a
// Markdown heading, and a character XML forbids must not make an SVG unreadable. Each function
// also replaces bytes that are not UTF-8 with U+FFFD, so every output stays valid UTF-8.
#include <string>
#include <string_view>

namespace roofline::report {

// For a terminal, a table or Markdown: C0 controls, DEL and C1 controls become U+FFFD. With
// `keep_newlines`, line breaks and tabs stay (error messages and warnings laid out in lines).
[[nodiscard]] std::string terminal_text(std::string_view s, bool keep_newlines = false);

// For a Markdown table cell: terminal_text with `|` escaped, which would otherwise end the cell.
[[nodiscard]] std::string markdown_cell(std::string_view s);

// For XML 1.0 character data or an attribute (before &, <, > and " are escaped): the characters
// XML 1.0 forbids even as references (C0 controls but tab, newline and carriage return; U+FFFE
// and U+FFFF) are dropped.
[[nodiscard]] std::string xml_text(std::string_view s);

}  // namespace roofline::report
