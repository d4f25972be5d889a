#pragma once
// Every way an accepted report leaves the tool, held to what a reader relies on: each output
// format (table, Markdown, CSV, JSON, JSON lines) as one document and as rows, each chart on
// the SVG and character canvases, and `explain` in English and Chinese. An exception, a JSON
// or SVG that does not parse back, a number that is not finite, a control character on a
// terminal, a name that changes the shape of a table, or a name that reaches CSV as a formula
// is a finding: the check prints what it saw and aborts.
#include <string>
#include <string_view>

#include "model/report.hpp"

namespace roofline::fuzz {

// Prints `what` (and `detail`, shown with escapes) to stderr and aborts.
[[noreturn]] void fail(std::string_view what, std::string_view detail = {});

// Every number the report columns and operator columns carry is finite.
void check_columns_finite(const Report& r);

// Every sink, shape and chart above, in-process.
void check_every_writer(const Report& r);

// `rooflineplan explain -m model -g gpu --lang en|zh` in-process (the specs as paths or preset
// names): exit 0, 1 or 2, no exception, no control character and no inf or nan in what it prints.
// `names` are the specs' names, whose own bytes are not held to that.
void check_explain(const std::string& model, const std::string& gpu, std::string_view names);

// Text a terminal shows: no byte below 0x20 but line breaks and tabs, no DEL.
void check_terminal_text(std::string_view what, std::string_view text);

// A word "inf" or "nan" (a number printed without a check), unless `names` hold one themselves.
void check_no_inf_nan(std::string_view what, std::string_view text, std::string_view names);

// Writes `bytes` to a file of this process's own (in $TMPDIR or /tmp) named `<stem><ext>` and
// returns its path: the commands take files, and the fuzzers hand them the input.
std::string scratch_file(std::string_view stem, std::string_view ext, std::string_view bytes);

}  // namespace roofline::fuzz
