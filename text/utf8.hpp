#pragma once
// UTF-8 read one code point at a time: what io checks in a file it reads and report escapes in
// what it writes, decoded by the same rules on both sides.
#include <cstddef>
#include <string_view>

namespace roofline::text {

struct CodePoint {
  char32_t code = 0;
  std::size_t length = 0;  // bytes it took; 0: the bytes at the start begin no UTF-8 sequence
};

// The code point at the start of `s` (not empty), by RFC 3629: shortest form only, no
// surrogates, nothing past U+10FFFF.
[[nodiscard]] CodePoint decode_utf8(std::string_view s);

// The C0 controls, DEL and the C1 controls: characters a terminal acts on rather than shows.
[[nodiscard]] constexpr bool is_control(char32_t c) { return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0); }

// Columns a terminal gives the character: 2 for East Asian Wide and Fullwidth (Chinese, Japanese,
// Korean, fullwidth punctuation), 0 for combining marks and zero-width spaces, else 1.
[[nodiscard]] int display_width(char32_t c);

// Columns the UTF-8 text takes, character by character; a byte that begins no character counts
// as one column (it is shown as one replacement character).
[[nodiscard]] std::size_t display_width(std::string_view s);

}  // namespace roofline::text
