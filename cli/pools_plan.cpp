#include "cli/pools_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

#include "cli/layout_columns.hpp"
#include "report/human_units.hpp"
#include "report/layout_label.hpp"
#include "report/report_csv.hpp"
#include "report/report_json.hpp"
#include "report/sink.hpp"
#include "report/warning_text.hpp"
#include "serve/router.hpp"

namespace roofline::cli {

using planner::PercentileRow;
using report::Cell;
using report::human;

namespace {

// A pair: the short pool's row and the long pool's, and the fleet they make together.
struct Pair {
  const PercentileRow* short_row = nullptr;
  const PercentileRow* long_row = nullptr;
  const PoolSizing* short_pool = nullptr;
  const PoolSizing* long_pool = nullptr;
  long split = 0;
  const PlanTraffic* traffic = nullptr;
  double rate = 0, cv = 1;  // the whole stream's
  bool feasible = false;
  long gpus = 0;
  std::optional<double> usd_per_million_tokens, kwh_per_million_tokens;
};

// Output tokens a second a pool serves, as its row's cost counts them (fleet_cost: its rate times
// the mean output its steady plan prices).
double tokens_per_s(const PoolSizing& p, const PercentileRow& r) {
  return p.target.requests_per_s * static_cast<double>(r.steady->workload.gen_tokens);
}

Pair pair_of(const PercentileRow& s, const PercentileRow& l, const PoolSizing& sp, const PoolSizing& lp, long split,
             const PlanTraffic& t) {
  Pair p;
  p.short_row = &s;
  p.long_row = &l;
  p.short_pool = &sp;
  p.long_pool = &lp;
  p.split = split;
  p.traffic = &t;
  p.feasible = s.feasible && l.feasible;
  if (!p.feasible) return p;
  p.gpus = planner::gpus(s) + planner::gpus(l);
  p.usd_per_million_tokens = planner::combined_per_million(s.cost.usd_per_million_tokens, tokens_per_s(sp, s),
                                                           l.cost.usd_per_million_tokens, tokens_per_s(lp, l));
  p.kwh_per_million_tokens = planner::combined_per_million(s.cost.kwh_per_million_tokens, tokens_per_s(sp, s),
                                                           l.cost.kwh_per_million_tokens, tokens_per_s(lp, l));
  return p;
}

// A figure of a pair that meets the targets, else an empty cell (JSON null).
Cell sized(const Pair& p, Cell figure) { return p.feasible ? figure : Cell(); }

// One pool's columns, named once and read for either pool (prefixed short_ and long_).
struct SideColumn {
  std::string_view key;
  Cell (*get)(const PercentileRow&, const PoolSizing&);
};

Cell met(const PercentileRow& r, Cell figure) { return r.feasible ? figure : Cell(); }

// The GPU and layout first (cli/layout_columns.hpp, as the --percentile plan's).
const std::array kSideColumns = with_layout_columns<SideColumn, PoolSizing>(std::array{
    SideColumn{"share", [](const PercentileRow&, const PoolSizing& p) -> Cell { return p.pool->share; }},
    SideColumn{"requests_per_s", [](const PercentileRow&, const PoolSizing& p) -> Cell { return p.target.requests_per_s; }},
    // The CV of the gaps of its share of the stream: what its closed form reads.
    SideColumn{"arrivals_cv", [](const PercentileRow&, const PoolSizing& p) -> Cell { return p.arrivals_cv; }},
    // The lengths its steady and closed-form counts price: the means of its share of the stream.
    SideColumn{"steady_prompt_tokens",
               [](const PercentileRow& r, const PoolSizing&) -> Cell { return static_cast<long>(r.steady->workload.prompt_tokens); }},
    SideColumn{"steady_gen_tokens",
               [](const PercentileRow& r, const PoolSizing&) -> Cell { return static_cast<long>(r.steady->workload.gen_tokens); }},
    SideColumn{"feasible", [](const PercentileRow& r, const PoolSizing&) -> Cell { return r.feasible; }},
    // Why the pool's row cannot meet the targets (empty where it can), as the percentile plan's `reason`.
    SideColumn{"reason", [](const PercentileRow& r, const PoolSizing&) -> Cell { return std::string_view(r.reason); }},
    SideColumn{"batch", [](const PercentileRow& r, const PoolSizing&) -> Cell { return met(r, r.steady->plan.batch); }},
    SideColumn{"steady_replicas", [](const PercentileRow& r, const PoolSizing&) -> Cell { return met(r, r.steady->plan.replicas); }},
    SideColumn{"closed_form_replicas", [](const PercentileRow& r, const PoolSizing&) -> Cell { return met(r, r.closed_form); }},
    SideColumn{"replicas", [](const PercentileRow& r, const PoolSizing&) -> Cell { return met(r, r.replicas); }},
    SideColumn{"gpus", [](const PercentileRow& r, const PoolSizing&) -> Cell { return met(r, planner::gpus(r)); }},
    SideColumn{"ttft_percentile_s", [](const PercentileRow& r, const PoolSizing&) -> Cell { return met(r, r.at_plan.ttft); }},
    SideColumn{"tpot_percentile_s", [](const PercentileRow& r, const PoolSizing&) -> Cell { return met(r, r.at_plan.tpot); }},
    SideColumn{"cost_per_million_tokens_usd",
               [](const PercentileRow& r, const PoolSizing&) -> Cell { return report::optional_cell(r.cost.usd_per_million_tokens); }},
});

struct Column {
  std::string key;
  Cell (*pair)(const Pair&) = nullptr;  // a column of the pair
  std::size_t side = 0;                 // else one pool's column, kSideColumns[side]
  bool long_side = false;
};

std::vector<Column> make_columns() {
  std::vector<Column> c;
  c.push_back({"split_prompt_tokens", [](const Pair& p) -> Cell { return p.split; }});
  c.push_back({"prompt_lengths", [](const Pair& p) -> Cell { return std::string_view(p.traffic->prompt_lengths); }});
  c.push_back({"gen_lengths", [](const Pair& p) -> Cell { return std::string_view(p.traffic->gen_lengths); }});
  // The whole stream's rate (the pools' sum) and the CV of its gaps, as the percentile plan's.
  c.push_back({"requests_per_s", [](const Pair& p) -> Cell { return p.rate; }});
  c.push_back({"arrivals_cv", [](const Pair& p) -> Cell { return p.cv; }});
  c.push_back({"router", [](const Pair& p) -> Cell { return serve::name(p.short_row->routing); }});
  c.push_back({"feasible", [](const Pair& p) -> Cell { return p.feasible; }});
  for (const bool long_side : {false, true}) {
    for (std::size_t i = 0; i < kSideColumns.size(); ++i) {
      c.push_back({fmt::format("{}_{}", long_side ? "long" : "short", kSideColumns[i].key), nullptr, i, long_side});
    }
  }
  c.push_back({"gpus", [](const Pair& p) -> Cell { return sized(p, p.gpus); }});
  c.push_back({"cost_per_million_tokens_usd", [](const Pair& p) -> Cell { return report::optional_cell(p.usd_per_million_tokens); }});
  c.push_back({"energy_per_million_tokens_kwh", [](const Pair& p) -> Cell { return report::optional_cell(p.kwh_per_million_tokens); }});
  return c;
}

const std::vector<Column>& columns() {
  static const std::vector<Column> c = make_columns();
  return c;
}

Cell cell(const Column& c, const Pair& p) {
  if (c.pair) return c.pair(p);
  return c.long_side ? kSideColumns[c.side].get(*p.long_row, *p.long_pool)
                     : kSideColumns[c.side].get(*p.short_row, *p.short_pool);
}

void csv_header(std::string& out) {
  report::append_csv_row_of(out, columns(), [](const Column& c) { return Cell(std::string_view(c.key)); });
}

std::string who(const PercentileRow& r) {
  return fmt::format("{} {}", r.steady->gpu->name, report::layout_label(r.steady->workload));
}

// "5 (steady 3)": the simulated count beside the steady plan's.
std::string count(const PercentileRow& r) {
  return r.feasible ? fmt::format("{} (steady {})", r.replicas, r.steady->plan.replicas) : "cannot";
}

class PairRecord final : public report::Record {
 public:
  explicit PairRecord(const Pair& p) : p_(p) {}
  void append_csv(std::string& out) const override {
    report::append_csv_row_of(out, columns(), [this](const Column& c) { return cell(c, p_); });
  }
  [[nodiscard]] nlohmann::ordered_json json() const override {
    nlohmann::ordered_json o;
    for (const Column& c : columns()) o[c.key] = report::cell_json(cell(c, p_));
    return o;
  }
  [[nodiscard]] std::vector<std::string> cells() const override {
    const PercentileRow& s = *p_.short_row;
    const PercentileRow& l = *p_.long_row;
    if (!p_.feasible) return {who(s), who(l), count(s), count(l), "-", "-", "-", "cannot (below)"};
    return {who(s), who(l), count(s), count(l), fmt::format("{}", p_.gpus),
            fmt::format("{} / {}", human(Seconds(s.at_plan.ttft)), human(Seconds(l.at_plan.ttft))),
            fmt::format("{} / {}", human(Seconds(s.at_plan.tpot)), human(Seconds(l.at_plan.tpot))),
            p_.usd_per_million_tokens ? fmt::format("{:.4f}", *p_.usd_per_million_tokens) : "-"};
  }

 private:
  const Pair& p_;
};

std::string pool_words(std::string_view name, const PoolSizing& p) {
  std::size_t checked = 0;
  for (const PercentileRow& r : p.rows) checked = std::max(checked, r.check_requests);
  return fmt::format("{} pool: {:.1f}% of the requests ({:.4g} req/s), mean lengths {:.4g} + {:.4g} tokens; each check "
                     "on the first {} of its {} requests",
                     name, 100 * p.pool->share, p.target.requests_per_s, p.pool->prompt_mean, p.pool->gen_mean, checked,
                     p.pool->requests.size());
}

}  // namespace

std::vector<std::string_view> pool_plan_column_names() {
  std::vector<std::string_view> names;
  for (const Column& c : columns()) names.push_back(c.key);
  return names;
}

void print_pool_plans(const ModelSpec& m, const planner::LengthSplit& split, const PoolSizing& short_pool,
                      const PoolSizing& long_pool, const LoadTarget& whole, double whole_cv, const PercentileArgs& a,
                      std::ostream& out, std::ostream& err) {
  std::vector<Pair> pairs;
  for (const PercentileRow& s : short_pool.rows) {
    for (const PercentileRow& l : long_pool.rows) {
      pairs.push_back(pair_of(s, l, short_pool, long_pool, split.split, a.traffic));
      pairs.back().rate = whole.requests_per_s;
      pairs.back().cv = whole_cv;
    }
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) {
    return ranks_before({x.feasible, x.usd_per_million_tokens, x.gpus}, {y.feasible, y.usd_per_million_tokens, y.gpus});
  });
  if (a.top && static_cast<std::size_t>(*a.top) < pairs.size()) {
    err << fmt::format("note: --top {}: the first {} of {} ranked rows\n", *a.top, *a.top, pairs.size());
    pairs.resize(static_cast<std::size_t>(*a.top));
  }
  const std::string pct = fmt::format("P{}", a.percentile);
  const std::string title = fmt::format(
      "{}: {:g} requests/s ({}), prompts {}, outputs {}; routed by prompt length: at most {} tokens to the short pool, "
      "longer to the long pool, each its own fleet behind a {} router; {} TTFT <= {} and TPOT <= {} in each pool; each "
      "pool's replicas searched from the closed form at its share of the rate and confirmed by simulating it on its "
      "share of the stream ({} step times, {}, seed {}); its steady and closed-form counts price its own "
      "mean lengths{}",
      m.name, whole.requests_per_s, a.traffic.arrivals_words + a.traffic.closed_form_words, a.traffic.prompt_lengths, a.traffic.gen_lengths,
      split.split, a.router, pct, human(whole.ttft), human(whole.tpot), whole.sizing.bound ? "bound" : "expected",
      prefill_words(a), a.seed, engine_words(a));
  const std::vector<std::string> header{fmt::format("short pool (<= {})", split.split),
                                        fmt::format("long pool (> {})", split.split),
                                        "short replicas",
                                        "long replicas",
                                        "GPUs",
                                        pct + " TTFT short / long",
                                        pct + " TPOT short / long",
                                        "$/M tokens"};
  const auto sink = report::make_sink(report::output_format(a.format), report::Shape::rows, {title, header, csv_header}, out);
  for (const Pair& p : pairs) sink->add(PairRecord(p));
  sink->note(pool_words("short", short_pool));
  sink->note(pool_words("long", long_pool));
  // Each pool's row that cannot meet the targets, or differs from its steady count (and why), once.
  for (const PoolSizing* side : {&short_pool, &long_pool}) {
    for (const PercentileRow& r : side->rows) {
      const std::string_view name = side == &short_pool ? "short" : "long";
      if (!r.feasible) sink->note(fmt::format("{} pool on {} cannot meet the target: {}", name, who(r), r.reason));
      if (r.feasible && r.at_steady) sink->note(fmt::format("{} pool: {}", name, steady_note(r, a, side->target)));
    }
  }
  std::vector<std::string> said;  // each row's warnings, once
  for (const PoolSizing* side : {&short_pool, &long_pool}) {
    for (const PercentileRow& r : side->rows) report::add_unsaid(said, r.steady->warnings);
  }
  report::note_warnings(*sink, said);
  sink->finish();
}

}  // namespace roofline::cli
