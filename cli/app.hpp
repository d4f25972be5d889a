#pragma once
// The `rooflineplan` command line, as a function so that tests and fuzzers run it in-process.
#include <ostream>

namespace roofline::cli {

// A failure that is not the input's: a write that failed, a measurement that failed.
inline constexpr int kExitFailure = 1;

// Returns the exit code: 0 on success, 2 for bad input (files, flags, values), 1 for any other
// failure, including a write to `out` that did not go through (checked after its last flush).
// Every exception becomes a message on `err` and one of these codes.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
