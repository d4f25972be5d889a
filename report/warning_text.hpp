#pragma once
// The engine's warnings and a plan's refusals in words, in the reader's language ("en" or "zh"), with the numbers in
// the units every other output uses.
#include <string>
#include <string_view>
#include <vector>

#include "model/capacity_plan.hpp"
#include "model/report.hpp"

namespace roofline::report {

class Sink;

[[nodiscard]] std::string warning_text(const Warning& w, std::string_view lang = "en");
// Why a capacity plan is not feasible.
[[nodiscard]] std::string infeasible_text(const Infeasible& why, std::string_view lang = "en");
// "warning: " or "注意：", what a line of warning starts with.
[[nodiscard]] std::string_view warning_label(std::string_view lang = "en");
[[nodiscard]] std::vector<std::string> warning_texts(const Report& r, std::string_view lang = "en");
[[nodiscard]] std::vector<std::string> warning_texts(const std::vector<Warning>& warnings, std::string_view lang = "en");
// Adds to `said` the texts it does not hold yet, in order: a plan's table states each row's
// warnings once under its rows.
void add_unsaid(std::vector<std::string>& said, const std::vector<std::string>& texts);
// Each of `said` as a note of the table ("warning: …"), in order.
void note_warnings(Sink& sink, const std::vector<std::string>& said, std::string_view lang = "en");

}  // namespace roofline::report
