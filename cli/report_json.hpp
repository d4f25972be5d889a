#pragma once
// The JSON contract of DESIGN.md: SI units, nested by section, ops and warnings as arrays.
#include <nlohmann/json.hpp>

#include "report.hpp"
#include "report_columns.hpp"

namespace roofline::cli {

// `with_ops` adds the per-operator array; sweeps leave it out of their JSON lines.
[[nodiscard]] nlohmann::ordered_json report_json(const Report& r, bool with_ops = true);

// null for "not applicable", else the value.
[[nodiscard]] nlohmann::ordered_json cell_json(const Cell& c);

}  // namespace roofline::cli
