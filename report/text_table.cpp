#include "report/text_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "report/safe_text.hpp"
#include "text/utf8.hpp"

namespace roofline::report {

namespace {

// Display width in terminal columns: "µs" takes one, a Chinese character two.
std::size_t display_width(const std::string& s) { return text::display_width(s); }

// A text column is cut no narrower than this: a name (NVIDIA A100 80GB SXM) still reads whole.
constexpr std::size_t kNarrowestCut = 24;

// The longest start of `cell` that fits `width` columns with the … after it.
std::string cut_to(const std::string& cell, std::size_t width) {
  std::string out;
  std::size_t used = 0;
  for (std::size_t i = 0; i < cell.size();) {
    std::size_t end = i + 1;
    while (end < cell.size() && (static_cast<unsigned char>(cell[end]) & 0xC0) == 0x80) ++end;
    const std::size_t w = display_width(cell.substr(i, end - i));
    if (used + w + 1 > width) break;
    out += cell.substr(i, end - i);
    used += w;
    i = end;
  }
  return out + "…";
}

std::size_t drawn_width(const std::vector<std::size_t>& widths, std::size_t shown) {
  std::size_t total = 0;
  for (std::size_t i = 0; i < shown; ++i) total += widths[i] + 2;
  return total;  // two spaces before the first column and between the others
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

// A cell starts like a number with a digit, a '.' or a '-' (a negative figure, or the "-" a
// figure left empty is shown as). A '+' starts one only before a digit or a '.': signed figures
// ("+12.2%" beside "-25.6%", an error or a bias) are numbers, and a '+' alone is not one.
bool starts_like_number(const std::string& cell) {
  const std::size_t at = cell[0] == '+' ? 1 : 0;
  if (at == cell.size()) return false;
  const char c = cell[at];
  return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || (at == 0 && c == '-');
}

// Numbers align right so that digits line up; text aligns left. A column is numeric when most
// of its filled body cells start like a number (a "compute" among times stays aligned).
std::vector<bool> numeric_columns(const TextTable& t) {
  std::vector<int> votes(t.header.size(), 0);
  for (const auto& row : t.rows) {
    for (std::size_t i = 0; i < row.size() && i < votes.size(); ++i) {
      if (row[i].empty()) continue;
      votes[i] += starts_like_number(row[i]) ? 1 : -1;
    }
  }
  std::vector<bool> numeric(votes.size());
  for (std::size_t i = 1; i < votes.size(); ++i) numeric[i] = votes[i] > 0;
  return numeric;
}

// A cell wider than its column is cut only where the column was narrowed to fit a terminal;
// elsewhere (a row streamed after the columns were laid out: a sweep's "16.9 min" below "143 ms")
// it is drawn whole, since a cut number reads as another number and a cut name as another name.
void append_cell(std::string& out, const std::string& raw, std::size_t width, bool left, bool may_cut) {
  const std::string cell = may_cut && display_width(raw) > width ? cut_to(raw, width) : raw;
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

PlainLayout plain_layout(const TextTable& t, std::size_t width) {
  const TextTable s = shown(t);
  PlainLayout l{column_widths(s), numeric_columns(s), std::vector<bool>(t.header.size(), false), t.header.size(), width};
  if (width == 0) return l;
  // First the widest text column is cut, a column at a time, down to kNarrowestCut; numbers are
  // never cut (a cut number reads as another number).
  while (drawn_width(l.widths, l.shown) > width) {
    std::size_t widest = l.widths.size();
    for (std::size_t i = 0; i < l.widths.size(); ++i) {
      if (!l.numeric[i] && l.widths[i] > kNarrowestCut && (widest == l.widths.size() || l.widths[i] > l.widths[widest])) {
        widest = i;
      }
    }
    if (widest == l.widths.size()) break;
    const std::size_t excess = drawn_width(l.widths, l.shown) - width;
    l.widths[widest] -= std::min(excess, l.widths[widest] - kNarrowestCut);
    l.narrowed[widest] = true;
  }
  // Then columns from the right, the first and one more always kept, so that the columns left
  // out wrap into a table of fewer (a terminal too narrow for two columns gets lines past its edge).
  while (l.shown > 2 && drawn_width(l.widths, l.shown) > width) --l.shown;
  return l;
}

std::string fit_note(const PlainLayout& l, const std::vector<std::string>& header) {
  if (l.shown >= header.size()) return {};
  std::vector<std::string> left_out(header.begin() + static_cast<std::ptrdiff_t>(l.shown), header.end());
  return fmt::format("(to fit {} columns, the rows after the first table leave out {}; a wider terminal, a file or a "
                     "pipe gets them)",
                     l.width, fmt::join(left_out, ", "));
}

void append_plain_row(std::string& out, const PlainLayout& layout, const std::vector<std::string>& raw) {
  const std::vector<std::string> row = shown(raw);
  out += "  ";
  for (std::size_t i = 0; i < layout.shown; ++i) {
    if (i > 0) out += "  ";
    append_cell(out, i < row.size() ? row[i] : std::string(), layout.widths[i], !layout.numeric[i], layout.narrowed[i]);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += "\n";
}

std::string render_plain(const TextTable& t, std::size_t width) {
  const PlainLayout layout = plain_layout(t, width);
  std::string out;
  if (!t.title.empty()) out += terminal_text(t.title) + "\n";
  append_plain_row(out, layout, t.header);
  out += "  " + std::string(std::max<std::size_t>(drawn_width(layout.widths, layout.shown), 2) - 2, '-') + "\n";
  for (const auto& row : t.rows) append_plain_row(out, layout, row);
  if (layout.cut()) {
    // Short enough for the narrowest terminal fitted (40 columns); a file or a pipe gets them whole.
    out += fmt::format("(… ends the cells cut to fit {} columns)\n", width);
  }
  // Columns that did not fit wrap: they continue below, beside the first column again, so that
  // nothing is lost (a plan's replicas and cost sit at its right).
  if (layout.shown < t.header.size()) {
    auto rest_of = [&](const std::vector<std::string>& row) {
      std::vector<std::string> r{row.empty() ? std::string() : row[0]};
      for (std::size_t i = layout.shown; i < row.size(); ++i) r.push_back(row[i]);
      return r;
    };
    TextTable rest{"", rest_of(t.header), {}};
    for (const auto& row : t.rows) rest.rows.push_back(rest_of(row));
    out += "\n" + render_plain(rest, width);
  }
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
