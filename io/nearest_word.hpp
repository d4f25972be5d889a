#pragma once
// "Did you mean ...?": the candidate closest to a misspelt word by edit distance, if close enough
// to be a plausible typo.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::io {

// Every plausible candidate, sorted: those whose stem the word is (`h100` → `h100-pcie`,
// `h100-sxm`: the word then a '-', '.' or '_'), else all at the least edit distance within
// reach (`llama-3-8b` → `llama-2-7b`, `llama-3.1-8b`). Empty when none is near.
[[nodiscard]] std::vector<std::string> nearest_words(std::string_view word, std::span<const std::string> candidates);

// ", did you mean `x`?", ", did you mean `x` or `y`?" or nothing.
[[nodiscard]] std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

}  // namespace roofline::io
