#pragma once
// "Did you mean ...?": the candidate closest to a misspelt word by edit distance, if close enough
// to be a plausible typo.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace roofline::io {

[[nodiscard]] std::optional<std::string> nearest_word(std::string_view word, std::span<const std::string> candidates);

// ", did you mean `x`?" or nothing.
[[nodiscard]] std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

}  // namespace roofline::io
