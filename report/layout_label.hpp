#pragma once
// A replica's layout in a few words, as tables, plans and chart titles show it.
#include <string>

#include "model/workload.hpp"

namespace roofline::report {

// "tp 1", "tp 8", "tp 4 × pp 2", "tp 8 ep 8 dp-attn".
[[nodiscard]] std::string layout_label(const Workload& w);

}  // namespace roofline::report
