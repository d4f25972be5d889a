#pragma once
// `rooflineplan presets`: every bundled model and GPU with its headline figures and source.
#include <ostream>

namespace roofline::cli {

void print_presets(std::ostream& out);

}  // namespace roofline::cli
