#pragma once
// Bad input: a file, flag or value the user must fix. The message already names where
// (`file:line:column: field: ...`); the command prints it and exits with code 2.
#include <stdexcept>
#include <string>

namespace roofline::io {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr int kExitInputError = 2;

}  // namespace roofline::io
