#include "cli/value_lists.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>

#include "io/input_error.hpp"

namespace roofline::cli {

using namespace io;

namespace {

// A sweep of more points than this along one flag is a typo, not a plan.
constexpr std::size_t kMaxValuesPerFlag = 10'000'000;

long parse_long(std::string_view text, std::string_view flag, std::string_view item) {
  long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) {
    throw InputError(fmt::format("--{}: \"{}\" is past the range of a whole number ({} to {})", flag, item,
                                 std::numeric_limits<long>::min(), std::numeric_limits<long>::max()));
  }
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw InputError(fmt::format("--{}: \"{}\" is not a whole number, a list (1,2,4) or a range (1..1024:x2)", flag, item));
  }
  return v;
}

void expand_range(std::string_view item, std::string_view flag, std::vector<long>& out) {
  const auto dots = item.find("..");
  const auto colon = item.find(':', dots);
  const long first = parse_long(item.substr(0, dots), flag, item);
  const long last = parse_long(item.substr(dots + 2, colon == std::string_view::npos ? colon : colon - dots - 2), flag, item);
  char op = '+';
  long step = 1;
  if (colon != std::string_view::npos) {
    const std::string_view s = item.substr(colon + 1);
    if (s.empty() || (s[0] != '+' && s[0] != 'x')) {
      throw InputError(fmt::format("--{}: \"{}\": a range step is +N (arithmetic) or xN (geometric)", flag, item));
    }
    op = s[0];
    step = parse_long(s.substr(1), flag, item);
  }
  if (last < first) throw InputError(fmt::format("--{}: \"{}\" is empty: {} is below {}", flag, item, last, first));
  if ((op == '+' && step < 1) || (op == 'x' && (step < 2 || first < 1))) {
    throw InputError(fmt::format("--{}: \"{}\" never ends: use a step of +1 or more, or x2 or more from 1 up", flag, item));
  }
  for (long v = first; v <= last;) {
    if (out.size() >= kMaxValuesPerFlag) {
      throw InputError(fmt::format("--{}: more than {} values", flag, kMaxValuesPerFlag));
    }
    out.push_back(v);
    // The next value, unless it would pass `last` or 64 bits.
    long next = 0;
    if (op == '+' ? __builtin_add_overflow(v, step, &next) : __builtin_mul_overflow(v, step, &next)) break;
    if (next > last) break;
    v = next;
  }
}

}  // namespace

std::vector<long> expand_counts(const std::vector<std::string>& items, std::string_view flag) {
  std::vector<long> out;
  for (const std::string& item : items) {
    if (item.find("..") != std::string::npos) {
      expand_range(item, flag, out);
    } else {
      out.push_back(parse_long(item, flag, item));
    }
  }
  if (out.empty()) throw InputError(fmt::format("--{}: needs at least one value", flag));
  return out;
}

}  // namespace roofline::cli
