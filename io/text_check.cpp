#include "io/text_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "text/utf8.hpp"

namespace roofline::io {

namespace {

// What a terminal, an SVG or a Markdown heading would act on: the C0 and C1 controls and DEL
// (ESC starts the sequences that clear a screen or retitle a window), the Unicode line and
// paragraph separators, and the bidirectional overrides that make text display other than it
// reads ("Trojan Source", CVE-2021-42574).
std::optional<std::string_view> control_name(char32_t c) {
  switch (c) {
    case 0x09: return "tab";
    case 0x0A: return "line feed";
    case 0x0D: return "carriage return";
    case 0x1B: return "escape";
    case 0x7F: return "delete";
    case 0x2028: return "line separator";
    case 0x2029: return "paragraph separator";
    default: break;
  }
  if (text::is_control(c)) return "control character";
  if ((c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F) {
    return "bidirectional control";
  }
  return std::nullopt;
}

bool allowed_in_file(char32_t c) {
  return c == '\t' || c == '\n' || c == '\r' || c >= 0x80 || (c >= 0x20 && c != 0x7F);
}

}  // namespace

std::optional<TextProblem> text_problem(std::string_view text, TextUse use) {
  for (std::size_t i = 0; i < text.size();) {
    const text::CodePoint d = text::decode_utf8(text.substr(i));
    if (d.length == 0) {
      return TextProblem{i, fmt::format("byte 0x{:02X} is not UTF-8 (a Latin-1 or Windows-1252 file? save it as UTF-8)",
                                        static_cast<unsigned char>(text[i]))};
    }
    if (use == TextUse::value || !allowed_in_file(d.code)) {
      if (const auto name = control_name(d.code)) {
        const auto code = static_cast<std::uint32_t>(d.code);
        return TextProblem{i, fmt::format("{} U+{:04X} is not printable text", *name, code)};
      }
    }
    i += d.length;
  }
  return std::nullopt;
}

std::size_t next_line(std::string_view text, std::size_t start, bool lone_cr) {
  const std::size_t brk = text.find_first_of(lone_cr ? "\r\n" : "\n", start);
  if (brk == std::string_view::npos) return std::string_view::npos;
  return text[brk] == '\r' && brk + 1 < text.size() && text[brk + 1] == '\n' ? brk + 2 : brk + 1;
}

TextPosition position_of(std::string_view text, std::size_t offset, bool lone_cr) {
  std::size_t line = 1, start = 0;
  for (std::size_t next = next_line(text, 0, lone_cr); next != std::string_view::npos && next <= offset;
       next = next_line(text, next, lone_cr)) {
    ++line;
    start = next;
  }
  return {line, offset - start + 1};
}

}  // namespace roofline::io
