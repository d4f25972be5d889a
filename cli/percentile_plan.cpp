#include "cli/percentile_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

#include "cli/layout_columns.hpp"
#include "cli/progress_bar.hpp"
#include "cli/serve_flags.hpp"
#include "cli/workload_options.hpp"
#include "io/input_error.hpp"
#include "io/units_parse.hpp"
#include "report/human_units.hpp"
#include "report/layout_label.hpp"
#include "report/report_csv.hpp"
#include "report/report_json.hpp"
#include "report/sink.hpp"
#include "report/warning_text.hpp"
#include "planner/disaggregated_search.hpp"
#include "planner/length_pools.hpp"
#include "planner/percentile_search.hpp"
#include "serve/engine_defaults.hpp"
#include "serve/router.hpp"
#include "serve/step_cost.hpp"

namespace roofline::cli {

using namespace serve;
using planner::disaggregated;
using planner::gpus;
using planner::pool_of;
using report::Cell;
using report::human;

namespace {

using planner::PercentileRow;
using Row = PercentileRow;

// What every row shares: the traffic as read, the rate the plan sized for and its arrivals' CV.
struct Ctx {
  const PlanTraffic& traffic;
  double rate = 0, cv = 1;
};

struct Column {
  std::string_view key;
  Cell (*get)(const Row&, const Ctx&);
};

// A figure of a row that met the target, else an empty cell (JSON null), never a 0 that a
// spreadsheet's MIN() would pick.
Cell sized(const Row& r, Cell figure) { return r.feasible ? figure : Cell(); }

// A row's counts: colocated replicas, or disaggregated the decode pool's (`replicas` and the
// steady and closed-form columns) beside the prefill pool's (the prefill_ columns).
struct Counts {
  long steady = 0, closed_form = 0, replicas = 0;                      // colocated, or the decode pool's
  long steady_prefill = 0, closed_form_prefill = 0, prefill = 0;  // 0 colocated
};
Counts counts(const Row& r) {
  if (!disaggregated(r)) return {pool_of(r.steady->plan).steady, r.closed_form, r.replicas, 0, 0, 0};
  return {r.steady->plan.replicas, r.decode_start, r.decode_replicas, pool_of(planner::prefill_plan(*r.steady)).steady, r.closed_form,
          r.replicas};
}
// "NVIDIA H100 SXM with tp 4", and the prefill pool's tp where it has its own (--prefill-tp).
std::string row_name(const Row& r) {
  const std::string name = fmt::format("{} with {}", r.steady->gpu->name, report::layout_label(r.steady->workload));
  return r.steady->prefill ? fmt::format("{} (decode), tp {} (prefill)", name, r.steady->prefill->workload.tp) : name;
}

// "D+P" disaggregated, as the steady plan's table writes its pools.
std::string pair(const Row& r, long decode, long prefill) {
  return disaggregated(r) ? fmt::format("{}+{}", decode, prefill) : fmt::format("{}", decode);
}

// The names are the steady plan's where they mean the same (plan_command.cpp's columns).
// The GPU and layout first (cli/layout_columns.hpp, as each pool's in the --pools table).
const std::array kColumns = with_layout_columns<Column, Ctx>(std::array{
    Column{"gpus_per_replica", [](const Row& r, const Ctx&) -> Cell { return static_cast<long>(gpus(r.steady->workload)); }},
    // The prefill pool's tp (--prefill-tp, else the row's); empty colocated.
    Column{"prefill_tp", [](const Row& r, const Ctx&) -> Cell {
             return r.steady->plan.prefill_replicas > 0 ? Cell(static_cast<long>(planner::prefill_workload(*r.steady).tp)) : Cell();
           }},
    Column{"router", [](const Row& r, const Ctx&) -> Cell { return serve::name(r.routing); }},
    // What the checks simulated, and the lengths the steady and closed-form columns price (the
    // fixed ones, or the distribution's or the trace's means): never a mean unsaid.
    // The rate the fleet is sized for (--rate, or a trace's own or rescaled) and the CV of the
    // gaps its checks simulate and its closed form reads (a trace's measured): in every format,
    // not the title alone.
    Column{"requests_per_s", [](const Row&, const Ctx& t) -> Cell { return t.rate; }},
    Column{"arrivals_cv", [](const Row&, const Ctx& t) -> Cell { return t.cv; }},
    Column{"prompt_lengths", [](const Row&, const Ctx& t) -> Cell { return std::string_view(t.traffic.prompt_lengths); }},
    Column{"gen_lengths", [](const Row&, const Ctx& t) -> Cell { return std::string_view(t.traffic.gen_lengths); }},
    Column{"steady_prompt_tokens", [](const Row& r, const Ctx&) -> Cell { return static_cast<long>(r.steady->workload.prompt_tokens); }},
    Column{"steady_gen_tokens", [](const Row& r, const Ctx&) -> Cell { return static_cast<long>(r.steady->workload.gen_tokens); }},
    Column{"feasible", [](const Row& r, const Ctx&) -> Cell { return r.feasible; }},
    Column{"reason", [](const Row& r, const Ctx&) -> Cell { return std::string_view(r.reason); }},
    Column{"batch", [](const Row& r, const Ctx&) -> Cell { return sized(r, r.steady->plan.batch); }},
    Column{"steady_replicas", [](const Row& r, const Ctx&) -> Cell { return sized(r, counts(r).steady); }},
    Column{"steady_prefill_replicas", [](const Row& r, const Ctx&) -> Cell { return sized(r, counts(r).steady_prefill); }},
    Column{"closed_form_replicas", [](const Row& r, const Ctx&) -> Cell { return sized(r, counts(r).closed_form); }},
    Column{"closed_form_prefill_replicas", [](const Row& r, const Ctx&) -> Cell { return sized(r, counts(r).closed_form_prefill); }},
    Column{"replicas", [](const Row& r, const Ctx&) -> Cell { return sized(r, counts(r).replicas); }},
    Column{"prefill_replicas", [](const Row& r, const Ctx&) -> Cell { return sized(r, counts(r).prefill); }},
    Column{"gpus", [](const Row& r, const Ctx&) -> Cell { return sized(r, gpus(r)); }},
    Column{"ttft_percentile_s", [](const Row& r, const Ctx&) -> Cell { return sized(r, r.at_plan.ttft); }},
    Column{"tpot_percentile_s", [](const Row& r, const Ctx&) -> Cell { return sized(r, r.at_plan.tpot); }},
    // The fleet of the steady count, simulated alike: why the answer differs (empty where it does not).
    Column{"steady_ttft_percentile_s",
           [](const Row& r, const Ctx&) -> Cell { return r.feasible && r.at_steady ? Cell(r.at_steady->ttft) : Cell(); }},
    Column{"steady_tpot_percentile_s",
           [](const Row& r, const Ctx&) -> Cell { return r.feasible && r.at_steady ? Cell(r.at_steady->tpot) : Cell(); }},
    // Empty where the cliff lies beyond the search (the table says "beyond +N%").
    Column{"cliff_requests_per_s_per_replica",
           [](const Row& r, const Ctx&) -> Cell { return r.feasible && r.cliff > 0 ? Cell(r.cliff) : Cell(); }},
    Column{"cost_per_million_tokens_usd", [](const Row& r, const Ctx&) -> Cell { return report::optional_cell(r.cost.usd_per_million_tokens); }},
    Column{"energy_per_million_tokens_kwh",
           [](const Row& r, const Ctx&) -> Cell { return report::optional_cell(r.cost.kwh_per_million_tokens); }},
});

void csv_header(std::string& out) {
  report::append_csv_row_of(out, kColumns, [](const Column& c) { return Cell(c.key); });
}

class RowRecord final : public report::Record {
 public:
  RowRecord(const Row& r, double load, const Ctx& t) : r_(r), load_(load), t_(t) {}
  void append_csv(std::string& out) const override {
    report::append_csv_row_of(out, kColumns, [this](const Column& c) { return c.get(r_, t_); });
  }
  [[nodiscard]] nlohmann::ordered_json json() const override {
    nlohmann::ordered_json o;
    for (const Column& c : kColumns) o[std::string(c.key)] = report::cell_json(c.get(r_, t_));
    return o;
  }
  [[nodiscard]] std::vector<std::string> cells() const override {
    const SteadyPlan& s = *r_.steady;
    // Both pools' layouts where they differ: "tp 4, prefill tp 1".
    const std::string layout = s.prefill ? fmt::format("{}, prefill tp {}", report::layout_label(s.workload), s.prefill->workload.tp)
                                         : report::layout_label(s.workload);
    if (!r_.feasible) {
      return {s.gpu->name, layout, "-", "-", "-", "-", "-", "-", "-", "-", "cannot (below)", "-"};
    }
    const Counts n = counts(r_);
    const double rate = load_ / static_cast<double>(n.replicas);
    return {s.gpu->name, layout, fmt::format("{}", s.plan.batch),
            pair(r_, n.steady, n.steady_prefill), pair(r_, n.closed_form, n.closed_form_prefill),
            pair(r_, n.replicas, n.prefill), fmt::format("{}", gpus(r_)), human(Seconds(r_.at_plan.ttft)), human(Seconds(r_.at_plan.tpot)), report::three_digits(rate),
            r_.cliff > 0 ? fmt::format("{} (+{:.0f}%)", report::three_digits(r_.cliff), 100 * (r_.cliff / rate - 1))
                         : fmt::format("beyond +{:.0f}%", 100 * (std::pow(planner::kCliffStep, planner::kCliffSteps + 1) - 1)),
            r_.cost.usd_per_million_tokens ? fmt::format("{:.4f}", *r_.cost.usd_per_million_tokens) : "-"};
  }

 private:
  const Row& r_;
  double load_;
  Ctx t_;
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
  throw io::InputError(fmt::format("--arrivals: `{}` is not poisson or gamma:CV (CV above 0, at most 100), nor a trace .csv", value));
}

// How the checks prefill: chunked, or as --engine's engine does.
std::string_view prefill_words(const PercentileArgs& a) {
  const auto e = engine_named(a.engine);
  return !e || engine_defaults(*e, 80).chunked_prefill ? "chunked prefill" : "whole prefills";
}

// Disaggregated: the two pools, and when the decode side reserves (the engine's order).
std::string pool_words(const PercentileArgs& a) {
  const auto e = engine_named(a.engine);
  const bool at_arrival = e && engine_defaults(*e, 80).decode_reserves_at_arrival;
  return fmt::format("; prefill and decode pools, each request's cache crossing the link between them into decode blocks "
                     "reserved {}",
                     at_arrival ? "at its arrival, before its prefill (SGLang)" : "once its prefill ends");
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

// The arrivals a check simulated, in a note: "gamma:8 arrivals", or the trace's.
std::string arrivals_phrase(const PercentileArgs& a) {
  return a.traffic.trace ? std::string("the trace's arrivals") : a.arrivals + " arrivals";
}

// A disaggregated row's reason: what the steady plan's pools showed when simulated, and which
// side of the link queued.
std::string steady_pools_note(const Row& r, const PercentileArgs& a, const LoadTarget& t) {
  const Counts n = counts(r);
  const planner::PercentilePoint& p = *r.at_steady;
  const PercentileRow::Waits& w = *r.steady_waits;
  const std::string who = row_name(r);
  std::string why;
  if (p.ttft > t.ttft.value() && w.decode >= w.prefill) {
    why = fmt::format("; the steady decode pool runs its batch of {} full only on average, so caches that land in a "
                      "burst wait for a slot",
                      r.steady->plan.batch);
  } else if (p.ttft > t.ttft.value()) {
    why = "; prompts queue for the prefill pool (and its links), which the steady plan fills only on average";
  }
  if (p.tpot > t.tpot.value()) why += "; the decode steps run longer than the steady plan's mean TPOT";
  if (p.behind()) {
    why += fmt::format("; they fall behind the arrivals: over the second half of them they finished {:.0f}% as many "
                       "as arrived",
                       100 * p.kept_up);
  }
  if (!p.meets(t)) {
    return fmt::format("{}: {} decode+prefill replicas, not the steady plan's {}+{}: the simulated pools of {}+{} ({}, "
                       "routed {}) reach P{} TTFT {} and TPOT {} (the steady plan's mean TPOT {}); P{} waits "
                       "{} for decode blocks and a decode slot, {} for a prefill step and the link{}",
                       who, pair(r, n.replicas, n.prefill), n.steady, n.steady_prefill, n.steady, n.steady_prefill,
                       arrivals_phrase(a), a.router, a.percentile, human(Seconds(p.ttft)), human(Seconds(p.tpot)),
                       human(r.steady->plan.tpot), a.percentile, human(Seconds(w.decode)), human(Seconds(w.prefill)), why);
  }
  return fmt::format("{}: {} decode+prefill replicas, fewer than the steady plan's {}+{}: its simulated pools meet the "
                     "targets with room (P{} TTFT {} and TPOT {}): a prefill replica batches prompts under the token "
                     "budget, and the cache's trip is in the TTFT, not spread over the TPOT as the steady plan "
                     "spreads it",
                     who, pair(r, n.replicas, n.prefill), n.steady, n.steady_prefill, a.percentile, human(Seconds(p.ttft)),
                     human(Seconds(p.tpot)));
}

// What the fleet of the steady count showed, where the answer differs from it: the reason.
std::string steady_note(const Row& r, const PercentileArgs& a, const LoadTarget& t) {
  if (disaggregated(r)) return steady_pools_note(r, a, t);
  const long steady = pool_of(r.steady->plan).steady;
  const planner::PercentilePoint& p = *r.at_steady;
  const std::string who = fmt::format("{} with {}", r.steady->gpu->name, report::layout_label(r.steady->workload));
  if (r.replicas > steady) {
    const bool ttft = p.ttft > t.ttft.value(), tpot = p.tpot > t.tpot.value();
    std::string why;
    if (p.behind()) {
      why += fmt::format("; it falls behind the arrivals: over the second half of them it finished {:.0f}% as many "
                         "as arrived",
                         100 * p.kept_up);
    }
    if (ttft) why += "; requests queue for the batch's slots, which the steady plan fills only on average";
    if (tpot) why += "; prefill chunks share the decodes' steps and lengthen them past the mean the steady plan sees";
    return fmt::format("{}: {} replicas, not the steady plan's {}: the simulated fleet of {} ({}, routed {}) "
                       "reaches P{} TTFT {} and TPOT {}{}",
                       who, r.replicas, steady, steady, arrivals_phrase(a), a.router, a.percentile, human(Seconds(p.ttft)),
                       human(Seconds(p.tpot)), why);
  }
  return fmt::format("{}: {} replicas, fewer than the steady plan's {}: the simulated replicas (chunked prefill under "
                     "a token budget) serve more than the steady plan's rate a replica within the targets; at {} "
                     "P{} TTFT {} and TPOT {}",
                     who, r.replicas, steady, steady, a.percentile, human(Seconds(p.ttft)), human(Seconds(p.tpot)));
}

// What each check simulated, as run (the rows' checks may differ: their windows span their own
// latencies): the requests and the seconds of arrivals they span at the target's rate, in the
// units every other duration is said in ("17.0 min", not "1.02e+03 s"), and what --duration asked
// at that rate: lengthened where the checks hold more (the least, the latencies' span or the tail),
// cut where fewer (the work, a trace that holds fewer).
std::string simulated_words(const std::vector<Row>& rows, const PercentileArgs& a, double requests_per_s) {
  std::size_t least = 0, most = 0;
  double shortest = 0, longest = 0;
  for (const Row& r : rows) {
    if (r.check_requests == 0) continue;
    if (most == 0 || r.check_requests < least) least = r.check_requests;
    most = std::max(most, r.check_requests);
    if (longest == 0 || r.check_seconds < shortest) shortest = r.check_seconds;
    longest = std::max(longest, r.check_seconds);
  }
  // A trace holds what it holds: a check takes all of it where --duration asks more, and a trace
  // under the least a check needs was refused (fleet_check.hpp), so "never under" stays true.
  const std::string trace =
      a.traffic.trace ? fmt::format(", and to the trace's {} requests where it holds fewer", a.traffic.trace->size()) : "";
  // A tail past the least (P99.9: 10 000 requests) raises it, said where it does.
  const double tail = planner::tail_check_count(a.percentile);
  const std::string tail_words =
      tail > planner::kLeastCheckRequests
          ? fmt::format(", nor {:.0f} requests ({:g} above the P{})", tail, planner::kTailRequests, a.percentile)
          : "";
  // As planner::check_traffic counts them: the rate times the duration, whole requests.
  const double asked = std::floor(requests_per_s * quantity_flag(a.duration, io::Dimension::time, "duration"));
  const auto fewest = static_cast<double>(least), greatest = static_cast<double>(most);
  const std::string_view verdict = most == 0                              ? ""
                                   : fewest > asked                       ? ", lengthened"
                                   : greatest < asked                     ? ", cut"
                                   : fewest == asked && greatest == asked ? ", kept"
                                   : fewest == asked                      ? ", lengthened for some rows"
                                   : greatest == asked                    ? ", cut for some rows"
                                                                          : ", lengthened or cut by row";
  const std::string rule = fmt::format("a check is held to {:g} to {:g} requests by work{}, never under {:g} requests "
                                       "nor {:g} latencies of a request{}",
                                       planner::kLeastCheckRequests, planner::kMostCheckRequests, trace,
                                       planner::kLeastCheckRequests, planner::kCheckLatencies, tail_words);
  const std::string asked_words = fmt::format("--duration {} asked {:.0f} requests{}: {}", a.duration, asked, verdict, rule);
  if (most == 0) return fmt::format("no check run ({})", asked_words);
  const auto span = [](const std::string& lo, const std::string& hi) { return lo == hi ? lo : lo + " to " + hi; };
  return fmt::format("each check simulated {} requests, {} of arrivals ({})", span(fmt::format("{}", least), fmt::format("{}", most)),
                     span(human(Seconds(shortest)), human(Seconds(longest))), asked_words);
}

double arrivals_cv(const planner::PercentileScenario& scenario) {
  return scenario.arrivals.kind == ArrivalProcess::Kind::gamma ? scenario.arrivals.cv : 1;
}

planner::PercentileScenario percentile_scenario(const PercentileArgs& a) {
  planner::PercentileScenario scenario;
  scenario.percentile = a.percentile;
  // A trace's own gaps are simulated; the closed form reads them as a renewal process of their CV.
  scenario.arrivals = a.traffic.trace ? ArrivalProcess{ArrivalProcess::Kind::gamma, planner::gap_cv(*a.traffic.trace)}
                                      : arrival_flag(a.arrivals);
  scenario.duration = quantity_flag(a.duration, io::Dimension::time, "duration");
  if (scenario.duration > 86400) {
    throw io::InputError(fmt::format("--duration: at most a day of traffic a check, got {:g} s", scenario.duration));
  }
  if (a.seed < 0) throw io::InputError(fmt::format("--seed: must be at least 0, got {}", a.seed));
  scenario.seed = static_cast<std::uint64_t>(a.seed);
  scenario.engine = engine_named(a.engine);
  scenario.routing = *routing_named(a.router);  // CLI11 held it to the names
  // The plan's traffic has no prefix groups (no --prefix-groups as simulate has): prefix-affinity
  // would route every request as a request of none, least-loaded, under its own name.
  if (scenario.routing == Routing::prefix_affinity) {
    throw io::InputError("--router: prefix-affinity routes requests of a prefix group, and a --percentile plan's "
                         "traffic has none (every request would go least-loaded); use --router least-loaded, or "
                         "simulate --prefix-groups to see a prefix-affinity fleet");
  }
  scenario.prompt = a.traffic.prompt;
  scenario.gen = a.traffic.gen;
  scenario.stream = a.traffic.trace;
  return scenario;
}

// An engine that reserves a request's whole length at admission (TensorRT-LLM's GUARANTEED_NO_EVICT)
// reserves prompt + the client's max_tokens; the checks, which have no cap to give it, reserve each
// request's own output, as simulate does without --max-tokens (cli/serve_flags.cpp's
// reserve_warning): where the outputs vary, more run at once than the engine admits, and the
// replicas may be too few. Said in every format, as a row's warning.
std::optional<std::string> reservation_warning(const planner::PercentileScenario& s) {
  if (!s.engine || engine_defaults(*s.engine, 80).preemption != Preemption::none) return std::nullopt;
  const bool varies = s.stream ? std::any_of(s.stream->begin(), s.stream->end(),
                                             [&](const serve::Request& q) { return q.gen != s.stream->front().gen; })
                               : s.gen && s.gen->kind != serve::LengthDistribution::Kind::fixed;
  if (!varies) return std::nullopt;
  return std::string("the checks' reserving admission reserved each request's own output length, as if each client's "
                     "max_tokens were set to the output it would make; the engine reserves prompt + max_tokens and "
                     "admits fewer at once, so these replicas may be too few: simulate --max-tokens N checks a "
                     "replica with the cap the clients send");
}

std::vector<Row> size_percentile_rows(const ModelSpec& m, const std::vector<SteadyPlan>& plans, const LoadTarget& target,
                                      const planner::PercentileScenario& scenario, std::ostream& err) {
  // Refused naming the flag, as simulate refuses it (a step's cost refused it unnamed).
  if (const auto why = serve::unsupported(m)) throw io::InputError(fmt::format("--model: {}", *why));
  for (const SteadyPlan& s : plans) {
    planner::check_bounded(s, target, scenario.percentile);
    planner::check_link(m, s);
  }
  std::vector<Row> rows;
  rows.reserve(plans.size());
  // A row takes some 15 checks: the bar moves by them within a row, and by rows.
  constexpr std::size_t kUnits = 1000, kChecksARow = 16;
  ProgressBar bar(err, plans.size() * kUnits, stderr_is_terminal(), 0);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const auto progress = [&](long checks) {
      bar.advance_to(i * kUnits + std::min(kUnits - 1, static_cast<std::size_t>(checks) * kUnits / kChecksARow));
    };
    rows.push_back(planner::size_row(m, plans[i], target, scenario, progress));
    bar.advance_to((i + 1) * kUnits);
  }
  bar.finish();
  return rows;
}

std::string lengths_words(const PlanTraffic& t, long prompt_tokens, long gen_tokens) {
  if (!t.varies()) return fmt::format("{} prompt + {} output tokens", prompt_tokens, gen_tokens);
  return fmt::format("prompts {}, outputs {}; the steady and closed-form columns price {}: {} + {} tokens",
                     t.prompt_lengths, t.gen_lengths, t.mean_source, prompt_tokens, gen_tokens);
}

void print_percentile_plans(const ModelSpec& m, const std::vector<SteadyPlan>& priced, const LoadTarget& target,
                            const PercentileArgs& a, std::ostream& out, std::ostream& err) {
  const planner::PercentileScenario scenario = percentile_scenario(a);
  std::vector<SteadyPlan> plans = priced;  // the rows point into these, with the reservation's warning
  if (const auto w = reservation_warning(scenario)) {
    for (SteadyPlan& s : plans) s.warnings.push_back(*w);
  }
  std::vector<Row> rows = size_percentile_rows(m, plans, target, scenario, err);
  const std::string pct = fmt::format("P{}", a.percentile);
  const std::string title = fmt::format(
      "{}: {:g} requests/s ({}, one stream routed {} to the replicas), {}; P{} TTFT <= {} and TPOT <= {}; replicas "
      "searched from a closed form (Kingman, exponential tail) and confirmed by simulating the fleet ({} step times, "
      "{}{}; {}; seed {}); the cliff is the rate per replica at which P{} TTFT doubles",
      m.name, target.requests_per_s, a.traffic.arrivals_words + a.traffic.closed_form_words, a.router,
      lengths_words(a.traffic, plans.front().workload.prompt_tokens, plans.front().workload.gen_tokens), a.percentile,
      human(target.ttft), human(target.tpot),
      target.sizing.bound ? "bound" : "expected", prefill_words(a),
      target.disaggregate ? pool_words(a) : "",
      simulated_words(rows, a, target.requests_per_s), a.seed, a.percentile) +
                            engine_words(a);
  const bool pools = target.disaggregate;
  const std::vector<std::string> header{"gpu", "layout", "batch", pools ? "steady D+P" : "steady",
                                        pools ? "closed form D+P" : "closed form", pools ? "decode+prefill" : "replicas",
                                        "GPUs", pct + " TTFT",
                                        pct + " TPOT", "req/s/replica", "cliff req/s/replica", "$/M tokens"};
  const auto sink = report::make_sink(report::output_format(a.format), report::Shape::rows, {title, header, csv_header}, out);
  planner::rank(rows);
  if (a.top && static_cast<std::size_t>(*a.top) < rows.size()) {
    err << fmt::format("note: --top {}: the first {} of {} ranked rows\n", *a.top, *a.top, rows.size());
    rows.resize(static_cast<std::size_t>(*a.top));
  }
  std::vector<std::string> said;  // each row's warnings, stated once under the table
  for (const Row& r : rows) report::add_unsaid(said, r.steady->warnings);
  // The checks simulate the cache as simulate does, and say so as it does.
  if (keeps_windows(m)) report::add_unsaid(said, {std::string(kWindowBlocks)});
  for (const Row& r : rows) {
    sink->add(RowRecord(r, target.requests_per_s, Ctx{a.traffic, target.requests_per_s, arrivals_cv(scenario)}));
    const std::string who = row_name(r);
    if (!r.feasible) sink->note(fmt::format("{} cannot meet the target: {}", who, r.reason));
    if (r.feasible && r.at_steady) sink->note(steady_note(r, a, target));
    if (r.feasible && disaggregated(r)) {
      sink->note(fmt::format("{}: disaggregated, both pools simulated and searched (steady, closed form and replicas "
                             "are decode+prefill; the closed form keeps the steady decode count); TTFT is to the decode "
                             "replica's first token, the cache's trip over the link included; req/s/replica and the "
                             "cliff are a decode replica's",
                             who));
    }
  }
  report::note_warnings(*sink, said);
  sink->finish();
}

}  // namespace roofline::cli
