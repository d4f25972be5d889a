#pragma once
// `rooflineplan presets`: every model and GPU preset with its headline figures and source: the
// bundled ones and $ROOFLINEPLAN_PRESETS's, each of those marked `*`, the header naming both folders.
#include <ostream>

namespace roofline::cli {

void print_presets(std::ostream& out);

}  // namespace roofline::cli
