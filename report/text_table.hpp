#pragma once
// A table of already-formatted cells, rendered aligned for a terminal or as GitHub Markdown.
// Views build tables once; both renderers read them, so the two formats cannot drift.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace roofline::report {

struct TextTable {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// `width`: the columns of the terminal it is drawn on, 0 for no limit. A wider table has its widest
// text columns' cells cut (ending in …, said under it) down to 24 columns, then wraps: the columns
// that still do not fit continue in a table below, beside the first column again.
[[nodiscard]] std::string render_plain(const TextTable& t, std::size_t width = 0);
[[nodiscard]] std::string render_markdown(const TextTable& t);

// The plain layout of a table (column widths, which columns align right), read from the rows it
// holds, so that a stream can lay out its first rows and draw later ones in the same columns.
// Only a column narrowed to fit the terminal cuts its cells: a later row's wider cell in any other
// column is drawn whole and pushes the rest of its row to the right.
struct PlainLayout {
  std::vector<std::size_t> widths;
  std::vector<bool> numeric;
  std::vector<bool> narrowed;  // the text columns cut below their widest cell to fit `width`
  std::size_t shown = 0;       // the columns drawn, from the left; the rest are left out
  std::size_t width = 0;       // the terminal's columns it was fitted to (0: none)
  // Some cells are cut to their column's width: a column was narrowed.
  [[nodiscard]] bool cut() const { return std::find(narrowed.begin(), narrowed.end(), true) != narrowed.end(); }
};
[[nodiscard]] PlainLayout plain_layout(const TextTable& t, std::size_t width = 0);
// Rows streamed after a table was drawn keep its first part's columns: what they leave out, as a
// line for under them; empty when nothing is.
[[nodiscard]] std::string fit_note(const PlainLayout& layout, const std::vector<std::string>& header);
void append_plain_row(std::string& out, const PlainLayout& layout, const std::vector<std::string>& row);

// Markdown needs no layout: the title and header, then each row on its own.
void append_markdown_head(std::string& out, const TextTable& t);
void append_markdown_row(std::string& out, std::size_t columns, const std::vector<std::string>& row);

}  // namespace roofline::report
