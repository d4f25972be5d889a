#pragma once
// The output formats, listed once: `--format` names, what each is for, and which carry a
// point's warnings inside the document. Every command that writes reports reads this list.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::report {

enum class OutputFormat { table, markdown, csv, json, jsonl };

struct OutputFormatInfo {
  std::string_view name;  // as --format takes it
  OutputFormat format;
  std::string_view help;
  bool carries_warnings;  // the document holds the warnings; other formats say them on stderr
};

[[nodiscard]] std::span<const OutputFormatInfo> output_formats();
[[nodiscard]] const OutputFormatInfo& info(OutputFormat f);

// The format of that name; std::invalid_argument listing the names otherwise.
[[nodiscard]] OutputFormat output_format(std::string_view name);

// Every name, in the list's order, for a flag's allowed values and its help.
[[nodiscard]] std::vector<std::string> output_format_names();

}  // namespace roofline::report
