#pragma once
// The columns that name a simulated row's GPU and layout (gpu_name, tp, pp, ep, dp_attention,
// compute) and what its pricing assumed (warnings),
// defined once for the --percentile plan's rows (cli/percentile_plan.cpp) and for each pool's side
// of a --pools pair (cli/pools_plan.cpp, prefixed short_ and long_), so both tables name and fill
// them alike.
#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include "planner/percentile_search.hpp"
#include "report/report_columns.hpp"

namespace roofline::cli {

struct LayoutColumn {
  std::string_view key;
  report::Cell (*get)(const planner::PercentileRow&);
};

inline constexpr std::array kLayoutColumns = {
    LayoutColumn{"gpu_name",
                 [](const planner::PercentileRow& r) -> report::Cell { return std::string_view(r.steady->gpu->name); }},
    LayoutColumn{"tp", [](const planner::PercentileRow& r) -> report::Cell { return static_cast<long>(r.steady->workload.tp); }},
    LayoutColumn{"pp", [](const planner::PercentileRow& r) -> report::Cell { return static_cast<long>(r.steady->workload.pp); }},
    LayoutColumn{"ep", [](const planner::PercentileRow& r) -> report::Cell { return static_cast<long>(r.steady->workload.ep); }},
    LayoutColumn{"dp_attention", [](const planner::PercentileRow& r) -> report::Cell { return r.steady->workload.dp_attention; }},
    // The format the linears compute in moves the TTFT: a checkpoint's own (fp8) is stated.
    LayoutColumn{"compute",
                 [](const planner::PercentileRow& r) -> report::Cell { return name(r.steady->workload.precision.compute); }},
    // What the point's pricing assumed (model/engine.hpp input_warnings), in words.
    LayoutColumn{"warnings",
                 [](const planner::PercentileRow& r) -> report::Cell {
                   return std::span<const std::string>(r.steady->warnings);
                 }},
};

// kLayoutColumns[I] as a column of a table whose getters also take the table's `Extra`.
template <std::size_t I, class Extra>
report::Cell layout_cell(const planner::PercentileRow& r, const Extra& /*unused*/) {
  return kLayoutColumns[I].get(r);
}

// A table's columns: the layout's first, then the table's own `rest`. `Column` is the table's
// {key, get(row, Extra)} pair.
template <class Column, class Extra, std::size_t N>
std::array<Column, kLayoutColumns.size() + N> with_layout_columns(const std::array<Column, N>& rest) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    std::array<Column, kLayoutColumns.size() + N> all{Column{kLayoutColumns[I].key, &layout_cell<I, Extra>}...};
    std::copy(rest.begin(), rest.end(), all.begin() + sizeof...(I));
    return all;
  }(std::make_index_sequence<kLayoutColumns.size()>{});
}

}  // namespace roofline::cli
