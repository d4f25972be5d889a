#include "report/terminal_width.hpp"

#include <charconv>
#include <cstdlib>
#include <iostream>
#include <string_view>

#ifndef __EMSCRIPTEN__
#include <sys/ioctl.h>
#include <unistd.h>
#endif

namespace roofline::report {

namespace {
// Narrower than this, a terminal's report is not believed: a table would be all cuts.
[[maybe_unused]] constexpr std::size_t kNarrowest = 40;  // unused where there is no terminal (Emscripten)
}  // namespace

std::size_t table_width(const std::ostream& out) {
#ifdef __EMSCRIPTEN__
  (void)out;
  return 0;
#else
  if (out.rdbuf() != std::cout.rdbuf() || ::isatty(STDOUT_FILENO) == 0) return 0;
  if (const char* columns = std::getenv("COLUMNS")) {
    const std::string_view text(columns);
    std::size_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec == std::errc() && end == text.data() + text.size() && n >= kNarrowest) return n;
  }
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= kNarrowest) return size.ws_col;
  return 0;
#endif
}

}  // namespace roofline::report
