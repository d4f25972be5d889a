#include "report/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "report/safe_text.hpp"

namespace roofline::report {

namespace {

// Display width in code points, so that "µs" and Chinese text align like ASCII does.
std::size_t display_width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::vector<std::size_t> column_widths(const TextTable& t) {
  std::vector<std::size_t> w(t.header.size(), 0);
  auto widen = [&w](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < w.size(); ++i) w[i] = std::max(w[i], display_width(row[i]));
  };
  widen(t.header);
  for (const auto& row : t.rows) widen(row);
  return w;
}

// Numbers align right so that digits line up; text aligns left. A column is numeric when most
// of its filled body cells start like a number (a "compute" among times stays aligned).
std::vector<bool> numeric_columns(const TextTable& t) {
  std::vector<int> votes(t.header.size(), 0);
  for (const auto& row : t.rows) {
    for (std::size_t i = 0; i < row.size() && i < votes.size(); ++i) {
      if (row[i].empty()) continue;
      const char c = row[i][0];
      votes[i] += std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? 1 : -1;
    }
  }
  std::vector<bool> numeric(votes.size());
  for (std::size_t i = 1; i < votes.size(); ++i) numeric[i] = votes[i] > 0;
  return numeric;
}

void append_cell(std::string& out, const std::string& cell, std::size_t width, bool left) {
  const std::string pad(width - std::min(width, display_width(cell)), ' ');
  out += left ? cell + pad : pad + cell;
}

// Cells may hold names read from files: control characters would drive the terminal and a line
// break would split a row, so each cell is laid out as it will be shown.
std::vector<std::string> shown(const std::vector<std::string>& row) {
  std::vector<std::string> out;
  out.reserve(row.size());
  for (const std::string& cell : row) out.push_back(terminal_text(cell));
  return out;
}

TextTable shown(const TextTable& t) {
  TextTable out{terminal_text(t.title), shown(t.header), {}};
  out.rows.reserve(t.rows.size());
  for (const auto& row : t.rows) out.rows.push_back(shown(row));
  return out;
}

}  // namespace

PlainLayout plain_layout(const TextTable& t) {
  const TextTable s = shown(t);
  return {column_widths(s), numeric_columns(s)};
}

void append_plain_row(std::string& out, const PlainLayout& layout, const std::vector<std::string>& raw) {
  const std::vector<std::string> row = shown(raw);
  out += "  ";
  for (std::size_t i = 0; i < layout.widths.size(); ++i) {
    if (i > 0) out += "  ";
    append_cell(out, i < row.size() ? row[i] : std::string(), layout.widths[i], !layout.numeric[i]);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += "\n";
}

std::string render_plain(const TextTable& t) {
  const PlainLayout layout = plain_layout(t);
  std::string out;
  if (!t.title.empty()) out += terminal_text(t.title) + "\n";
  append_plain_row(out, layout, t.header);
  std::size_t total = 0;
  for (std::size_t w : layout.widths) total += w + 2;
  out += "  " + std::string(total - 2, '-') + "\n";
  for (const auto& row : t.rows) append_plain_row(out, layout, row);
  return out;
}

void append_markdown_row(std::string& out, std::size_t columns, const std::vector<std::string>& row) {
  out += "|";
  for (std::size_t i = 0; i < columns; ++i) out += fmt::format(" {} |", markdown_cell(i < row.size() ? row[i] : ""));
  out += "\n";
}

void append_markdown_head(std::string& out, const TextTable& t) {
  if (!t.title.empty()) out += fmt::format("### {}\n\n", terminal_text(t.title));
  append_markdown_row(out, t.header.size(), t.header);
  out += "|";
  for (std::size_t i = 0; i < t.header.size(); ++i) out += i == 0 ? "---|" : "---:|";
  out += "\n";
}

std::string render_markdown(const TextTable& t) {
  std::string out;
  append_markdown_head(out, t);
  for (const auto& row : t.rows) append_markdown_row(out, t.header.size(), row);
  return out;
}

}  // namespace roofline::report
