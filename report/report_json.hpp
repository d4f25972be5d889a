#pragma once
// The JSON contract (docs/architecture.md, "Output contracts"): SI units, nested by section, ops and warnings as arrays.
#include <nlohmann/json.hpp>

#include "model/report.hpp"
#include "report/report_columns.hpp"

namespace roofline::report {

// `with_ops` adds the per-operator array; sweeps leave it out of their JSON lines.
[[nodiscard]] nlohmann::ordered_json report_json(const Report& r, bool with_ops = true);

// null for "not applicable", else the value.
[[nodiscard]] nlohmann::ordered_json cell_json(const Cell& c);

}  // namespace roofline::report
