#include "report/safe_text.hpp"

#include <algorithm>

#include "text/utf8.hpp"

namespace roofline::report {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Copies `s`, each code point through `keep` (true: copy; false: `replace` in its place), each
// byte that begins no UTF-8 sequence as U+FFFD.
template <class Keep>
std::string filtered(std::string_view s, Keep keep, std::string_view replace) {
  // Most names are printable ASCII: nothing to do.
  if (std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F; })) return std::string(s);
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    const auto [code, n] = text::decode_utf8(s);
    if (n == 0) {
      out += kReplacement;
      s.remove_prefix(1);
      continue;
    }
    if (keep(code)) {
      out += s.substr(0, n);
    } else {
      out += replace;
    }
    s.remove_prefix(n);
  }
  return out;
}

}  // namespace

std::string terminal_text(std::string_view s, bool keep_newlines) {
  return filtered(
      s, [keep_newlines](char32_t c) { return !text::is_control(c) || (keep_newlines && (c == '\n' || c == '\t')); },
      kReplacement);
}

std::string markdown_cell(std::string_view s) {
  std::string out;
  for (char c : terminal_text(s)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string xml_text(std::string_view s) {
  return filtered(
      s,
      [](char32_t c) {
        const bool forbidden_control = c < 0x20 && c != '\t' && c != '\n' && c != '\r';
        return !forbidden_control && c != 0xFFFE && c != 0xFFFF;
      },
      "");
}

}  // namespace roofline::report
