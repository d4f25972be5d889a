#pragma once
// Each engine's spelling of a launch spec: its refusals and its script. One file an engine
// (vllm_launch.cpp, sglang_launch.cpp, trtllm_launch.cpp), each naming the version and the pages
// its flags come from.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "launch/launch_script.hpp"
#include "launch/launch_spec.hpp"

namespace roofline::launch {

[[nodiscard]] std::optional<std::string> vllm_refusal(const LaunchSpec& s);
[[nodiscard]] Script vllm_script(const LaunchSpec& s);
[[nodiscard]] std::optional<std::string> sglang_refusal(const LaunchSpec& s);
[[nodiscard]] Script sglang_script(const LaunchSpec& s);
[[nodiscard]] std::optional<std::string> trtllm_refusal(const LaunchSpec& s);
[[nodiscard]] Script trtllm_script(const LaunchSpec& s);

// A cache format the engines cannot hold: every engine keeps K/V in 16 bits or fp8.
[[nodiscard]] std::optional<std::string> kv_refusal(std::string_view engine, const LaunchSpec& s);

// A stage whose cache, as an engine sizes it, holds fewer of the plan's sequences than a rank runs
// (batch_per_rank): its index (first 0) and the sequences it holds.
struct ShortCache {
  std::size_t stage = 0;
  long held = 0;
};
// The stage whose cache holds the fewest sequences, where that is fewer than the plan's; `cache`:
// the share of a GPU of stage i the engine gives its cache. Empty where every stage holds them (or
// nothing per sequence is modelled).
[[nodiscard]] std::optional<ShortCache> short_cache(const LaunchSpec& s,
                                                    const std::function<double(std::size_t)>& cache);

}  // namespace roofline::launch
