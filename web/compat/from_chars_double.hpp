#pragma once
// std::from_chars for double, for the WebAssembly build only (force-included by
// web/wasm_dependencies.cmake): Emscripten 3.1.6's libc++ (LLVM 14) reads integers with it but not
// floating point, which the loaders use to read every number. This overload keeps from_chars'
// contract (no leading whitespace or '+', no hex prefix, the C locale, ptr at the first character
// not read, value unchanged on an error), so the page refuses exactly what the binary refuses.
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string>

#if defined(__EMSCRIPTEN__) && defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 170000
namespace std {

inline from_chars_result from_chars(const char* first, const char* last, double& value,
                                    chars_format = chars_format::general) {
  if (first == last || *first == '+' || *first == ' ' || (*first >= '\t' && *first <= '\r')) {
    return {first, errc::invalid_argument};
  }
  const string text(first, last);
  const size_t sign = text[0] == '-' ? 1 : 0;
  // strtod reads "0x1p3" as 8; from_chars in the general format reads its "0" and stops.
  if (text.size() > sign + 1 && text[sign] == '0' && (text[sign + 1] == 'x' || text[sign + 1] == 'X')) {
    value = sign ? -0.0 : 0.0;
    return {first + sign + 1, errc{}};
  }
  if (text.size() > sign && (text[sign] == '+' || text[sign] == '-' || text[sign] == ' ')) {
    return {first, errc::invalid_argument};
  }
  errno = 0;
  char* end = nullptr;
  const double v = strtod(text.c_str(), &end);
  if (end == text.c_str()) return {first, errc::invalid_argument};
  const char* ptr = first + (end - text.c_str());
  if (errno == ERANGE) return {ptr, errc::result_out_of_range};
  value = v;
  return {ptr, errc{}};
}

}  // namespace std
#endif
