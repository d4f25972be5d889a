#pragma once
// The `rooflineplan` command line, as a function so that tests and fuzzers run it in-process.
#include <ostream>

namespace roofline::cli {

// Returns the exit code: 0 on success, 2 for bad input (files, flags, values).
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
