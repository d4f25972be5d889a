#include "text/utf8.hpp"

#include <algorithm>
#include <array>

namespace roofline::text {

CodePoint decode_utf8(std::string_view s) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {lead, 1};
  const std::size_t length = lead >= 0xF8 ? 0 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
  if (length == 0 || length > s.size()) return {};
  char32_t code = lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return {};
    code = (code << 6) | (byte(i) & 0x3F);
  }
  // The smallest code point each length may carry: anything below is an overlong form.
  constexpr std::array<char32_t, 5> kSmallest = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return {};
  return {code, length};
}

namespace {

struct Range {
  char32_t first, last;
};

// The East Asian Wide (W) and Fullwidth (F) blocks of Unicode's EastAsianWidth.txt, as Markus
// Kuhn's wcwidth groups them, plus the emoji blocks terminals draw wide. Held here rather than
// asked of glibc's wcwidth, whose answer depends on the process's locale (a "C" locale says -1
// for every Chinese character), or of ICU, which the WebAssembly build does not have.
constexpr std::array<Range, 17> kWide = {{
    {0x1100, 0x115F},    // Hangul Jamo initial consonants
    {0x2E80, 0x303E},    // CJK radicals, Kangxi radicals, ideographic description, CJK punctuation
    {0x3041, 0x33FF},    // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, CJK strokes, enclosed
    {0x3400, 0x4DBF},    // CJK Unified Ideographs Extension A
    {0x4E00, 0x9FFF},    // CJK Unified Ideographs
    {0xA000, 0xA4CF},    // Yi
    {0xA960, 0xA97F},    // Hangul Jamo Extended-A
    {0xAC00, 0xD7A3},    // Hangul syllables
    {0xF900, 0xFAFF},    // CJK Compatibility Ideographs
    {0xFE10, 0xFE19},    // vertical forms
    {0xFE30, 0xFE6F},    // CJK compatibility forms, small form variants
    {0xFF00, 0xFF60},    // fullwidth ASCII and punctuation (the Chinese comma and parentheses)
    {0xFFE0, 0xFFE6},    // fullwidth signs
    {0x1F300, 0x1F64F},  // pictographs and emoticons
    {0x1F900, 0x1F9FF},  // supplemental symbols and pictographs
    {0x20000, 0x2FFFD},  // CJK Unified Ideographs Extensions B to F
    {0x30000, 0x3FFFD},  // CJK Unified Ideographs Extension G and later
}};

bool within(char32_t c, const Range& r) { return c >= r.first && c <= r.last; }

}  // namespace

int display_width(char32_t c) {
  // Combining diacritical marks, zero-width space and joiners, direction marks: drawn on or
  // between their neighbours, no column of their own.
  if (within(c, {0x0300, 0x036F}) || within(c, {0x200B, 0x200F})) return 0;
  return std::any_of(kWide.begin(), kWide.end(), [&](const Range& r) { return within(c, r); }) ? 2 : 1;
}

std::size_t display_width(std::string_view s) {
  std::size_t columns = 0;
  while (!s.empty()) {
    const auto [code, n] = decode_utf8(s);
    columns += n == 0 ? 1 : static_cast<std::size_t>(display_width(code));
    s.remove_prefix(n == 0 ? 1 : n);
  }
  return columns;
}

}  // namespace roofline::text
