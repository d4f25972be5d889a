#pragma once
// The charts of `plot` and `explain`, filled from engine reports (a point and its scans,
// model/scans.hpp): every number drawn is one the engine computed; the builders only choose
// ranges and colours.
#include <string_view>

#include "chart/chart.hpp"
#include "model/engine.hpp"

namespace roofline::chart {

enum class Detail {
  full,     // every operator as a point, every dtype's roof (files)
  summary,  // the two phases and the roof they compute on (a terminal's 80 columns)
};

// Attainable FLOP/s against arithmetic intensity, log-log: the bandwidth slope, a compute roof
// per dtype, the ridge point, and each operator and phase where it ran.
// `lang`: "en" or "zh", the words of chart/chart_phrases.hpp; numbers and units are the same in both.
[[nodiscard]] Figure roofline_figure(const Report& r, Detail detail, std::string_view lang = "en");

// Decode step time (with its compute and memory parts) and tokens/s against batch: B*, the
// memory limit, and the report's own batch marked.
[[nodiscard]] Figure batch_figure(const Report& base, std::string_view lang = "en");

// Decode step time against context, split into reading the weights and the rest (the KV cache);
// the context where the batch no longer fits is shaded.
[[nodiscard]] Figure context_figure(const Report& base, std::string_view lang = "en");

}  // namespace roofline::chart
