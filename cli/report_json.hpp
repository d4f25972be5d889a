#pragma once
// The JSON contract of DESIGN.md: SI units, nested by section, ops and warnings as arrays.
#include <nlohmann/json.hpp>

#include "report.hpp"

namespace roofline::cli {

[[nodiscard]] nlohmann::ordered_json report_json(const Report& r);

}  // namespace roofline::cli
