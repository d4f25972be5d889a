#pragma once
// A table of already-formatted cells, rendered aligned for a terminal or as GitHub Markdown.
// Views build tables once; both renderers read them, so the two formats cannot drift.
#include <string>
#include <vector>

namespace roofline::report {

struct TextTable {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

[[nodiscard]] std::string render_plain(const TextTable& t);
[[nodiscard]] std::string render_markdown(const TextTable& t);

}  // namespace roofline::report
