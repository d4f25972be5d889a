#include "io/nearest_word.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace roofline::io {

namespace {

// Optimal string alignment distance: Levenshtein plus swaps of neighbours, since "fp61" is a
// slip for "fp16" far more often than for "fp32".
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string> nearest_words(std::string_view word, std::span<const std::string> candidates) {
  std::vector<std::string> out;
  if (!word.empty()) {
    for (const std::string& c : candidates) {
      if (c.size() > word.size() && c.starts_with(word) && std::string_view("-._").find(c[word.size()]) != std::string_view::npos) {
        out.push_back(c);
      }
    }
  }
  if (out.empty()) {
    // Within reach: two edits, or a third of the word's length for long words.
    std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3);
    for (const std::string& c : candidates) {
      const std::size_t d = edit_distance(word, c);
      if (d > best_distance) continue;
      if (d < best_distance) {
        best_distance = d;
        out.clear();
      }
      out.push_back(c);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  const std::vector<std::string> all = nearest_words(word, candidates);
  if (all.empty()) return {};
  std::string list;
  for (std::size_t i = 0; i < all.size(); ++i) {
    list += fmt::format("{}`{}`", i == 0 ? "" : i + 1 == all.size() ? " or " : ", ", all[i]);
  }
  return fmt::format(", did you mean {}?", list);
}

}  // namespace roofline::io
