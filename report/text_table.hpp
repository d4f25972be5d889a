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

// The plain layout of a table (column widths, which columns align right), read from the rows it
// holds, so that a stream can lay out its first rows and draw later ones in the same columns.
struct PlainLayout {
  std::vector<std::size_t> widths;
  std::vector<bool> numeric;
};
[[nodiscard]] PlainLayout plain_layout(const TextTable& t);
void append_plain_row(std::string& out, const PlainLayout& layout, const std::vector<std::string>& row);

// Markdown needs no layout: the title and header, then each row on its own.
void append_markdown_head(std::string& out, const TextTable& t);
void append_markdown_row(std::string& out, std::size_t columns, const std::vector<std::string>& row);

}  // namespace roofline::report
