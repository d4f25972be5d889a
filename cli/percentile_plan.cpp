#include "cli/percentile_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

#include "cli/serve_flags.hpp"
#include "cli/workload_options.hpp"
#include "io/input_error.hpp"
#include "io/units_parse.hpp"
#include "report/human_units.hpp"
#include "report/layout_label.hpp"
#include "report/report_csv.hpp"
#include "report/report_json.hpp"
#include "report/sink.hpp"
#include "serve/engine_defaults.hpp"
#include "serve/kv_capacity.hpp"
#include "serve/simulator.hpp"
#include "serve/summary.hpp"

namespace roofline::cli {

using namespace serve;
using report::Cell;
using report::human;

namespace {

// Past these a fleet is not worth simulating replica by replica.
constexpr long kMaxReplicas = 1'000'000;
constexpr int kSteps = 24;  // simulations a correction may take
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// The cliff is looked for up to 1.25^9 = 7.45 times the planned rate per replica.
constexpr double kCliffStep = 1.25;
constexpr int kCliffSteps = 8;
// A check's traffic: at least 5000 requests, for a 99th percentile of 50 above it, and at most
// 200 000, or as many as 2 × 10^7 sequence-steps allow (a request: its output tokens and its
// prefill, about 0.4 s a check); a row takes up to some 40 checks. Past them --gen is refused.
constexpr double kLeastCheckRequests = 5000, kMostCheckRequests = 200000, kMaxCheckSteps = 2e7;

// The pool whose replicas are searched: colocated replicas, or (disaggregated) the prefill pool,
// whose replicas run one prompt at a time (a rank, under data-parallel attention) and return its
// first token; the decode pool keeps the steady plan's count and TPOT (its batch is sized for it,
// and no prefill stalls it).
struct Pool {
  bool prefill_only = false;
  double mu = 0;       // requests/s a replica serves
  double ttft = 0;     // a request's TTFT without queueing
  long steady = 0;     // the steady plan's count
};

Pool pool_of(const SteadyPlan& s) {
  if (s.plan.prefill_replicas == 0) return {false, s.plan.requests_per_s_per_replica, s.plan.ttft.value(), s.plan.replicas};
  return {true, 1 / s.plan.prefill_per_request.value(), s.plan.ttft.value(), s.plan.prefill_replicas};
}

// A request's sequence-steps in a check: its output tokens and its prompt, one chunk; a prefill
// pool's request makes its first token only.
double check_steps(const SteadyPlan& s) {
  return pool_of(s).prefill_only ? 2 : static_cast<double>(s.workload.gen_tokens) + 1;
}

// One replica of a steady plan, ready to simulate at any rate.
class Checker {
 public:
  Checker(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t, const PercentileArgs& a, double duration)
      : plan_(s), target_(t), args_(a), duration_(duration), cost_(m, *s.gpu, s.workload), pool_(pool_of(s)) {
    // Under data-parallel attention the batch is spread over the ranks, each its own server.
    const long ranks = cost_.ranks();
    config_.max_batch = pool_.prefill_only ? 1 : (s.plan.batch + ranks - 1) / ranks;
    config_.chunked_prefill = !pool_.prefill_only;
    if (const auto e = engine_named(a.engine)) {
      const EngineDefaults d = engine_defaults(*e, s.gpu->memory_capacity.value() / kGiB, s.gpu->name);
      config_.chunked_prefill = d.chunked_prefill && !pool_.prefill_only;
      config_.block_tokens = d.block_tokens;
      config_.reserve_whole = d.preemption == Preemption::none;
    }
    config_.max_batched_tokens = std::max(config_.max_batched_tokens, s.workload.prompt_tokens);
    config_.kv_blocks = cache_blocks(m, *s.gpu, s.workload, config_.block_tokens, config_.max_batched_tokens).blocks;
    config_.max_context = m.max_context.value_or(0);
    config_.sample_every = 1e9;
    // Bursts may draw up to four times a check's requests (below): so many steps at most.
    config_.max_rows = 4 * kMaxCheckSteps;
  }

  struct Point {
    double ttft = 0, tpot = 0;
    long too_long = 0, too_large = 0;  // requests the replica dropped: a percentile of the rest says nothing
    [[nodiscard]] bool meets(const LoadTarget& t) const {
      return too_long + too_large == 0 && ttft <= t.ttft.value() && tpot <= t.tpot.value();
    }
  };

  // The P-th percentiles of TTFT and TPOT at `rate` requests/s on one replica.
  Point at(double rate, const ArrivalProcess& arrivals) {
    const LengthDistribution prompt{LengthDistribution::Kind::fixed, static_cast<double>(plan_.workload.prompt_tokens), 0};
    // A prefill replica's work ends with the first token.
    const auto out = pool_.prefill_only ? 1.0 : static_cast<double>(plan_.workload.gen_tokens);
    const LengthDistribution gen{LengthDistribution::Kind::fixed, out, 0};
    const double most = std::min(kMostCheckRequests, kMaxCheckSteps / check_steps(plan_));
    const double span = std::min(std::max(duration_, kLeastCheckRequests / rate), most / rate);
    // Bursts may draw more than rate × span: four times the most is as far as a check goes.
    const auto cap = static_cast<std::size_t>(4 * most);
    const auto requests = generate(arrivals, rate, span, prompt, gen, 0, config_.block_tokens,
                                   static_cast<std::uint64_t>(args_.seed), cap);
    if (requests.size() > cap) {
      throw io::InputError(fmt::format("--arrivals {}: a check's bursts drew more than {} requests; lower the CV",
                                       args_.arrivals, cap));
    }
    const SimResult r = simulate(requests, cost_, config_, target_.sizing.bound ? Timing::bound : Timing::expected);
    std::vector<double> ttft, tpot;
    for (const Outcome& o : r.served) {
      ttft.push_back(o.ttft);
      if (o.gen > 1) tpot.push_back(o.tpot);
    }
    std::sort(ttft.begin(), ttft.end());
    std::sort(tpot.begin(), tpot.end());
    const double tpot_p = pool_.prefill_only ? plan_.plan.tpot.value() : percentile(tpot, args_.percentile);
    return {percentile(ttft, args_.percentile), tpot_p, r.dropped_too_long, r.dropped_no_room};
  }

 private:
  const SteadyPlan& plan_;
  const LoadTarget& target_;
  const PercentileArgs& args_;
  double duration_;
  StepCost cost_;
  Pool pool_;
  ServerConfig config_;
};

struct Row {
  const SteadyPlan* steady = nullptr;
  // The searched pool's count: colocated replicas, or the prefill pool's.
  long closed_form = 0, replicas = 0;
  Checker::Point at_plan{};
  double cliff = 0;  // requests/s per replica at which the P-th TTFT doubles; 0: not found
  bool feasible = false;
  std::string reason;
  FleetCost cost;  // of the fleet this row sizes, where it meets the target
};

// The fewest replicas whose closed-form P-th TTFT meets the target, from the steady count up.
long closed_form_replicas(const Pool& pool, const LoadTarget& t, double cv, double p) {
  const auto ttft = [&](long n) {
    const double k = static_cast<double>(n);
    return pool.ttft + closed_form_wait(t.requests_per_s / k, pool.mu, cv * cv / k, 0, p);
  };
  long lo = std::max(1L, pool.steady), hi = lo;
  while (ttft(hi) > t.ttft.value()) {
    if (hi >= kMaxReplicas) return 0;
    lo = hi;
    hi = std::min(kMaxReplicas, hi * 2);
  }
  if (ttft(lo) <= t.ttft.value()) return lo;
  while (hi - lo > 1) {
    const long mid = lo + (hi - lo) / 2;
    (ttft(mid) <= t.ttft.value() ? hi : lo) = mid;
  }
  return hi;
}

// The rate per replica, above `rate`, at which the P-th TTFT reaches twice `ttft`: doubling then
// bisecting, by simulation.
double cliff(Checker& c, double rate, const ArrivalProcess& arrivals, double ttft) {
  double lo = rate, hi = rate * kCliffStep;
  int steps = 0;
  while (c.at(hi, arrivals).ttft < 2 * ttft) {
    if (++steps > kCliffSteps) return 0;
    lo = hi;
    hi *= kCliffStep;
  }
  for (int i = 0; i < 8; ++i) {
    const double mid = (lo + hi) / 2;
    (c.at(mid, arrivals).ttft < 2 * ttft ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Requests are routed round robin: each of n replicas sees every n-th arrival, so its gaps are
// sums of n of the fleet's: gamma of shape n/CV², a CV of CV/√n (Poisson's CV is 1).
ArrivalProcess per_replica(double cv, long n) { return {ArrivalProcess::Kind::gamma, cv / std::sqrt(static_cast<double>(n))}; }

Row size(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t, const PercentileArgs& a, double cv,
         double duration) {
  Row row;
  row.steady = &s;
  if (!s.plan.feasible) {
    row.reason = s.reason;
    return row;
  }
  if (const auto why = unsupported(s.workload)) {
    row.reason = "not simulated: " + *why;
    return row;
  }
  row.closed_form = closed_form_replicas(pool_of(s), t, cv, a.percentile / 100);
  Checker c(m, s, t, a, duration);
  const auto check = [&](long n) { return c.at(t.requests_per_s / static_cast<double>(n), per_replica(cv, n)); };
  // Bisection between a count that misses (lo) and one that meets (hi), from the closed form's.
  long lo = 0, hi = std::max(1L, row.closed_form);
  // Drops come from the requests' lengths, not the load: no count of replicas serves them.
  if (const Checker::Point first = check(hi); first.too_long + first.too_large > 0) {
    row.reason = fmt::format("the simulated replica drops requests ({} longer than the model's context, {} larger {})",
                             first.too_long, first.too_large, cache_dropped_from(s.workload));
    return row;
  }
  int steps = 0;
  while (!check(hi).meets(t)) {
    if (++steps > kSteps || hi >= kMaxReplicas) {
      row.reason = fmt::format("the P{} latencies miss the targets at {} replicas", a.percentile, hi);
      return row;
    }
    lo = hi;
    hi = std::min(kMaxReplicas, hi * 2);
  }
  while (hi - lo > 1) {
    const long mid = lo + (hi - lo) / 2;
    (check(mid).meets(t) ? hi : lo) = mid;
  }
  row.replicas = hi;
  row.at_plan = check(hi);
  row.feasible = true;
  row.cliff = cliff(c, t.requests_per_s / static_cast<double>(hi), per_replica(cv, hi), row.at_plan.ttft);
  return row;
}

bool disaggregated(const Row& r) { return r.steady->plan.prefill_replicas > 0; }

long gpus(const Row& r) {
  return (r.replicas + (disaggregated(r) ? r.steady->plan.replicas : 0)) * gpus(r.steady->workload);
}

struct Column {
  std::string_view key;
  Cell (*get)(const Row&);
};

// A figure of a row that met the target, else an empty cell (JSON null), never a 0 that a
// spreadsheet's MIN() would pick.
Cell sized(const Row& r, Cell figure) { return r.feasible ? figure : Cell(); }

// The names are the steady plan's where they mean the same (plan_command.cpp's columns).
const std::array kColumns = {
    Column{"gpu_name", [](const Row& r) -> Cell { return std::string_view(r.steady->gpu->name); }},
    Column{"tp", [](const Row& r) -> Cell { return static_cast<long>(r.steady->workload.tp); }},
    Column{"pp", [](const Row& r) -> Cell { return static_cast<long>(r.steady->workload.pp); }},
    Column{"ep", [](const Row& r) -> Cell { return static_cast<long>(r.steady->workload.ep); }},
    Column{"dp_attention", [](const Row& r) -> Cell { return r.steady->workload.dp_attention; }},
    Column{"gpus_per_replica", [](const Row& r) -> Cell { return static_cast<long>(gpus(r.steady->workload)); }},
    Column{"feasible", [](const Row& r) -> Cell { return r.feasible; }},
    Column{"reason", [](const Row& r) -> Cell { return std::string_view(r.reason); }},
    Column{"batch", [](const Row& r) -> Cell { return sized(r, r.steady->plan.batch); }},
    Column{"steady_replicas", [](const Row& r) -> Cell { return sized(r, pool_of(*r.steady).steady); }},
    Column{"closed_form_replicas", [](const Row& r) -> Cell { return sized(r, r.closed_form); }},
    Column{"replicas", [](const Row& r) -> Cell {
             return sized(r, disaggregated(r) ? r.steady->plan.replicas : r.replicas);
           }},
    Column{"prefill_replicas", [](const Row& r) -> Cell { return sized(r, disaggregated(r) ? r.replicas : 0L); }},
    Column{"gpus", [](const Row& r) -> Cell { return sized(r, gpus(r)); }},
    Column{"ttft_percentile_s", [](const Row& r) -> Cell { return sized(r, r.at_plan.ttft); }},
    Column{"tpot_percentile_s", [](const Row& r) -> Cell { return sized(r, r.at_plan.tpot); }},
    // Empty where the cliff lies beyond the search (the table says "beyond +N%").
    Column{"cliff_requests_per_s_per_replica",
           [](const Row& r) -> Cell { return r.feasible && r.cliff > 0 ? Cell(r.cliff) : Cell(); }},
    Column{"cost_per_million_tokens_usd", [](const Row& r) -> Cell { return report::optional_cell(r.cost.usd_per_million_tokens); }},
    Column{"energy_per_million_tokens_kwh",
           [](const Row& r) -> Cell { return report::optional_cell(r.cost.kwh_per_million_tokens); }},
};

// As the steady plan ranks: feasible first, cheapest (or fewest GPUs) first.
void rank(std::vector<Row>& rows) {
  const auto key = [](const Row& r) { return PlanRank{r.feasible, r.cost.usd_per_million_tokens, gpus(r)}; };
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) { return ranks_before(key(a), key(b)); });
}

void csv_header(std::string& out) {
  report::append_csv_row_of(out, kColumns, [](const Column& c) { return Cell(c.key); });
}

class RowRecord final : public report::Record {
 public:
  RowRecord(const Row& r, double load) : r_(r), load_(load) {}
  void append_csv(std::string& out) const override {
    report::append_csv_row_of(out, kColumns, [this](const Column& c) { return c.get(r_); });
  }
  [[nodiscard]] nlohmann::ordered_json json() const override {
    nlohmann::ordered_json o;
    for (const Column& c : kColumns) o[std::string(c.key)] = report::cell_json(c.get(r_));
    return o;
  }
  [[nodiscard]] std::vector<std::string> cells() const override {
    const SteadyPlan& s = *r_.steady;
    if (!r_.feasible) {
      return {s.gpu->name, report::layout_label(s.workload), "-", "-", "-", "-", "-", "-", "-", "-", "cannot (below)", "-"};
    }
    const double rate = load_ / static_cast<double>(r_.replicas);
    return {s.gpu->name, report::layout_label(s.workload), fmt::format("{}", s.plan.batch),
            fmt::format("{}", pool_of(s).steady), fmt::format("{}", r_.closed_form),
            disaggregated(r_) ? fmt::format("{}+{}", s.plan.replicas, r_.replicas) : fmt::format("{}", r_.replicas),
            fmt::format("{}", gpus(r_)), human(Seconds(r_.at_plan.ttft)), human(Seconds(r_.at_plan.tpot)), report::three_digits(rate),
            r_.cliff > 0 ? fmt::format("{} (+{:.0f}%)", report::three_digits(r_.cliff), 100 * (r_.cliff / rate - 1))
                         : fmt::format("beyond +{:.0f}%", 100 * (std::pow(kCliffStep, kCliffSteps + 1) - 1)),
            r_.cost.usd_per_million_tokens ? fmt::format("{:.4f}", *r_.cost.usd_per_million_tokens) : "-"};
  }

 private:
  const Row& r_;
  double load_;
};

}  // namespace

std::vector<std::string_view> percentile_plan_column_names() {
  std::vector<std::string_view> names;
  for (const Column& c : kColumns) names.push_back(c.key);
  return names;
}

ArrivalProcess arrival_flag(const std::string& value) {
  if (value == "poisson") return {};
  if (value.starts_with("gamma:")) {
    double cv = 0;
    const std::string_view s = std::string_view(value).substr(6);
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), cv);
    if (ec == std::errc() && end == s.data() + s.size() && cv > 0 && cv <= 100) return {ArrivalProcess::Kind::gamma, cv};
  }
  throw io::InputError(fmt::format("--arrivals: `{}` is not poisson or gamma:CV (CV above 0, at most 100)", value));
}

double closed_form_wait(double rate, double mu, double ca2, double cs2, double p) {
  const double rho = rate / mu;
  if (rho >= 1) return std::numeric_limits<double>::infinity();
  if (rho <= 1 - p) return 0;
  return (ca2 + cs2) / 2 / mu / (1 - rho) * std::log(rho / (1 - p));
}

// How the checks prefill: chunked, or as --engine's engine does.
std::string_view prefill_words(const PercentileArgs& a) {
  const auto e = engine_named(a.engine);
  return !e || engine_defaults(*e, 80).chunked_prefill ? "chunked prefill" : "whole prefills";
}

// With --engine, what the checks take from it and what they keep of the plan (the fields named
// here do not depend on the GPU's memory).
std::string engine_words(const PercentileArgs& a) {
  const auto e = engine_named(a.engine);
  if (!e) return "";
  const EngineDefaults d = engine_defaults(*e, 80);
  return fmt::format("; --engine {}: {}'s scheduler defaults ({}): its prefill chunking, KV blocks of {} tokens, {}; "
                     "the plan's batch and token budget override its own",
                     a.engine, d.label, d.source, d.block_tokens,
                     d.preemption == Preemption::none ? "whole lengths reserved at admission" : "blocks grown, recompute");
}

void print_percentile_plans(const ModelSpec& m, const std::vector<SteadyPlan>& plans, const LoadTarget& target,
                            const PercentileArgs& a, std::ostream& out, std::ostream& err) {
  const ArrivalProcess arr = arrival_flag(a.arrivals);
  const double duration = quantity_flag(a.duration, io::Dimension::time, "duration");
  if (duration > 86400) throw io::InputError(fmt::format("--duration: at most a day of traffic a check, got {:g} s", duration));
  if (a.seed < 0) throw io::InputError(fmt::format("--seed: must be at least 0, got {}", a.seed));
  for (const SteadyPlan& s : plans) {
    const double least = kLeastCheckRequests * check_steps(s);
    if (s.plan.feasible && least > kMaxCheckSteps) {
      throw io::InputError(fmt::format("--gen: a --percentile check simulates at least {:g} requests of {} output "
                                       "tokens ({:.3g} sequence-steps), over the {:g} a check may take; lower --gen, "
                                       "or plan without --percentile",
                                       kLeastCheckRequests, s.workload.gen_tokens, least, kMaxCheckSteps));
    }
  }
  const std::string pct = fmt::format("P{}", a.percentile);
  const std::string title = fmt::format(
      "{}: {:g} requests/s ({}, routed round robin), P{} TTFT <= {} and TPOT <= {}; replicas searched with a "
      "closed form (Kingman, exponential tail) and confirmed by simulation ({} step times, {}; a prefill "
      "pool one prompt at a time a rank; seed {}); the cliff is the rate per replica at which P{} TTFT doubles",
      m.name, target.requests_per_s, a.arrivals, a.percentile, human(target.ttft), human(target.tpot),
      target.sizing.bound ? "bound" : "expected", prefill_words(a), a.seed, a.percentile) + engine_words(a);
  const std::vector<std::string> header{"gpu", "layout", "batch", "steady", "closed form", "replicas", "GPUs", pct + " TTFT",
                                        pct + " TPOT", "req/s/replica", "cliff req/s/replica", "$/M tokens"};
  const auto sink = report::make_sink(report::output_format(a.format), report::Shape::rows, {title, header, csv_header}, out);
  std::vector<Row> rows;
  rows.reserve(plans.size());
  const double cv = arr.kind == ArrivalProcess::Kind::gamma ? arr.cv : 1;
  try {
    for (const SteadyPlan& s : plans) {
      Row row = size(m, s, target, a, cv, duration);
      if (row.feasible) {
        LoadTarget priced = target;
        priced.price_per_gpu_hour = s.price_per_gpu_hour;
        row.cost = fleet_cost(gpus(row), *s.gpu, priced, s.workload.gen_tokens);
      }
      rows.push_back(std::move(row));
    }
  } catch (const WorkLimit& e) {
    throw io::InputError(fmt::format("--percentile: a check stopped: {}; lower --gen or the CV of --arrivals", e.what()));
  }
  rank(rows);
  if (a.top && static_cast<std::size_t>(*a.top) < rows.size()) {
    err << fmt::format("note: --top {}: the first {} of {} ranked rows\n", *a.top, *a.top, rows.size());
    rows.resize(static_cast<std::size_t>(*a.top));
  }
  for (const Row& r : rows) {
    sink->add(RowRecord(r, target.requests_per_s));
    const std::string who = fmt::format("{} with {}", r.steady->gpu->name, report::layout_label(r.steady->workload));
    if (!r.feasible) sink->note(fmt::format("{} cannot meet the target: {}", who, r.reason));
    if (r.feasible && disaggregated(r)) {
      sink->note(fmt::format("{}: disaggregated, the prefill pool is searched (replicas decode+prefill; steady, "
                             "closed form and req/s/replica are the prefill pool's); the decode pool keeps the steady "
                             "plan's {} replicas and TPOT, the cache's transfer included",
                             who, r.steady->plan.replicas));
    }
  }
  sink->finish();
}

}  // namespace roofline::cli
