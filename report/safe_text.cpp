#include "report/safe_text.hpp"

#include <algorithm>
#include <cstdint>

namespace roofline::report {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF), or 0 when its first byte begins none.
std::size_t sequence_length(std::string_view s, char32_t& code) {
  const auto b = [&s](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = b(0);
  std::size_t n = 0;
  if (lead < 0x80) {
    code = lead;
    return 1;
  }
  if (lead >= 0xC2 && lead <= 0xDF) n = 2, code = lead & 0x1F;
  else if (lead >= 0xE0 && lead <= 0xEF) n = 3, code = lead & 0x0F;
  else if (lead >= 0xF0 && lead <= 0xF4) n = 4, code = lead & 0x07;
  else return 0;
  if (s.size() < n) return 0;
  for (std::size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (b(i) & 0x3F);
  }
  const bool overlong = (n == 3 && code < 0x800) || (n == 4 && code < 0x10000);
  const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
  if (overlong || surrogate || code > 0x10FFFF) return 0;
  return n;
}

// Copies `s`, each code point through `keep` (true: copy; false: `replace` in its place), each
// byte that begins no UTF-8 sequence as U+FFFD.
template <class Keep>
std::string filtered(std::string_view s, Keep keep, std::string_view replace) {
  // Most names are printable ASCII: nothing to do.
  if (std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F; })) return std::string(s);
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    char32_t code = 0;
    const std::size_t n = sequence_length(s, code);
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

bool is_control(char32_t c) { return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F); }

}  // namespace

std::string terminal_text(std::string_view s, bool keep_newlines) {
  return filtered(
      s, [keep_newlines](char32_t c) { return !is_control(c) || (keep_newlines && (c == '\n' || c == '\t')); },
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
