#pragma once
// How wide a table may be drawn: a terminal's columns when the output is the process's standard
// output and that is a terminal ($COLUMNS where set, else what the terminal reports), else no
// limit: a file or a pipe gets the whole table.
#include <cstddef>
#include <ostream>

namespace roofline::report {

[[nodiscard]] std::size_t table_width(const std::ostream& out);

}  // namespace roofline::report
