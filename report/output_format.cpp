#include "report/output_format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <stdexcept>

namespace roofline::report {

namespace {

constexpr std::array kFormats = {
    OutputFormatInfo{"table", OutputFormat::table, "aligned columns for a terminal", false},
    OutputFormatInfo{"markdown", OutputFormat::markdown, "GitHub tables", false},
    OutputFormatInfo{"csv", OutputFormat::csv, "RFC 4180, SI units in the column names", false},
    OutputFormatInfo{"json", OutputFormat::json, "one document (an array for many rows)", true},
    OutputFormatInfo{"jsonl", OutputFormat::jsonl, "one JSON object per line", true},
};

}  // namespace

std::span<const OutputFormatInfo> output_formats() { return kFormats; }

const OutputFormatInfo& info(OutputFormat f) {
  for (const OutputFormatInfo& i : kFormats) {
    if (i.format == f) return i;
  }
  throw std::logic_error("an output format missing from the list");
}

OutputFormat output_format(std::string_view name) {
  for (const OutputFormatInfo& i : kFormats) {
    if (i.name == name) return i.format;
  }
  throw std::invalid_argument(fmt::format("unknown format \"{}\": one of {}", name, fmt::join(output_format_names(), ", ")));
}

std::vector<std::string> output_format_names() {
  std::vector<std::string> names;
  for (const OutputFormatInfo& i : kFormats) names.emplace_back(i.name);
  return names;
}

}  // namespace roofline::report
