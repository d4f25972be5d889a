#include "cli/ordered_parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>

#ifndef __EMSCRIPTEN__
#include <sched.h>
#endif

#include "io/input_error.hpp"

namespace roofline::cli {

namespace {
// Past a few dozen threads a sweep's rows come faster than one thread can write them.
[[maybe_unused]] constexpr unsigned kMostThreads = 32;  // unused single-threaded (Emscripten)
constexpr unsigned kMostAsked = 256;
}  // namespace

unsigned worker_threads() {
  if (const char* asked = std::getenv("ROOFLINEPLAN_THREADS")) {
    const std::string_view text(asked);
    unsigned n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMostAsked) {
      throw io::InputError(fmt::format("ROOFLINEPLAN_THREADS: a whole number from 1 to {}, not '{}'", kMostAsked, text));
    }
    return n;
  }
#ifdef __EMSCRIPTEN__
  return 1;
#else
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  unsigned n = 0;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0) n = static_cast<unsigned>(CPU_COUNT(&cpus));
  if (n == 0) n = std::thread::hardware_concurrency();
  if (n == 0) n = 1;
  return std::min(n, kMostThreads);
#endif
}

}  // namespace roofline::cli
