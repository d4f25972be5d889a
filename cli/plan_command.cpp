#include "cli/plan_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "model/capacity_plan.hpp"
#include "model/engine.hpp"
#include "model/kv_transfer.hpp"
#include "model/layouts.hpp"
#include "report/human_units.hpp"
#include "report/layout_label.hpp"
#include "io/input_error.hpp"
#include "report/report_csv.hpp"
#include "report/report_json.hpp"
#include "report/safe_text.hpp"
#include "io/spec_loader.hpp"
#include "report/sink.hpp"
#include "report/warning_text.hpp"
#include "io/units_parse.hpp"
#include "cli/launch_files.hpp"
#include "cli/pair_link_warning.hpp"
#include "cli/plan_traffic.hpp"
#include "cli/pools_plan.hpp"
#include "planner/length_pools.hpp"
#include "launch/launch_spec.hpp"
#include "cli/workload_options.hpp"
#include "serve/engine_defaults.hpp"
#include "serve/router.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;

namespace {

struct PlanRow {
  const GpuSpec* gpu;
  Workload layout;  // its tp, pp, ep and attention
  std::optional<double> price;  // --price for this GPU
  CapacityPlan plan;
  std::string reason;  // the plan's refusal in words; empty when feasible
  std::string sized_on;
  std::vector<std::string> warnings;  // the point's (model/engine.hpp input_warnings), in words
};

// The times a plan was sized on, as a column: `expected` (the central estimate), `expected p90`,
// or `bound`.
std::string sizing_name(const Sizing& s) {
  if (s.bound) return "bound";
  if (s.confidence == 0.5) return "expected";
  return fmt::format("expected p{:g}", 100 * s.confidence);
}

// ... and in words, for the table's title.
std::string sizing_text(const Sizing& s) {
  if (s.bound) return "sized on the roofline bound (optimistic: published runs reach 0.27-0.85 of it)";
  if (s.confidence == 0.5) return "sized on the expected times (the central estimate; --bound for the bound)";
  return fmt::format("sized on the {:g}th percentile of the expected times", 100 * s.confidence);
}

// A planned figure, or an empty cell (JSON null) where no plan meets the target: a 0 for TPOT or
// the batch would be picked by a spreadsheet's MIN().
Cell planned(const PlanRow& r, Cell figure) { return r.plan.feasible ? figure : Cell(); }

struct PlanColumn {
  std::string_view name;  // the CSV column and the JSON key alike
  Cell (*get)(const PlanRow&);
};

// The plan's columns, once, for both CSV and JSON: one name each, its unit in it where not a count.
const std::array kPlanColumns = {
    PlanColumn{"gpu_name", [](const PlanRow& r) -> Cell { return std::string_view(r.gpu->name); }},
    PlanColumn{"tp", [](const PlanRow& r) -> Cell { return static_cast<long>(r.layout.tp); }},
    PlanColumn{"pp", [](const PlanRow& r) -> Cell { return static_cast<long>(r.layout.pp); }},
    PlanColumn{"ep", [](const PlanRow& r) -> Cell { return static_cast<long>(r.layout.ep); }},
    PlanColumn{"dp_attention", [](const PlanRow& r) -> Cell { return r.layout.dp_attention; }},
    // The format the linears compute in moves the TTFT: a checkpoint's own (fp8) is stated.
    PlanColumn{"compute", [](const PlanRow& r) -> Cell { return name(r.layout.precision.compute); }},
    PlanColumn{"warnings", [](const PlanRow& r) -> Cell { return std::span<const std::string>(r.warnings); }},
    PlanColumn{"gpus_per_replica", [](const PlanRow& r) -> Cell { return static_cast<long>(gpus(r.layout)); }},
    PlanColumn{"sized_on", [](const PlanRow& r) -> Cell { return std::string_view(r.sized_on); }},
    PlanColumn{"feasible", [](const PlanRow& r) -> Cell { return r.plan.feasible; }},
    PlanColumn{"reason", [](const PlanRow& r) -> Cell { return std::string_view(r.reason); }},
    PlanColumn{"batch", [](const PlanRow& r) -> Cell { return planned(r, r.plan.batch); }},
    PlanColumn{"max_batch", [](const PlanRow& r) -> Cell { return optional_cell(r.plan.max_batch); }},
    PlanColumn{"decode_step_time_s", [](const PlanRow& r) -> Cell { return planned(r, r.plan.decode_step.value()); }},
    PlanColumn{"prefill_time_s", [](const PlanRow& r) -> Cell { return r.plan.prefill.value(); }},
    PlanColumn{"tpot_s", [](const PlanRow& r) -> Cell { return planned(r, r.plan.tpot.value()); }},
    PlanColumn{"ttft_s", [](const PlanRow& r) -> Cell { return planned(r, r.plan.ttft.value()); }},
    PlanColumn{"decode_tokens_per_s", [](const PlanRow& r) -> Cell { return planned(r, r.plan.decode_tokens_per_s); }},
    PlanColumn{"prefill_share", [](const PlanRow& r) -> Cell { return planned(r, r.plan.prefill_share); }},
    PlanColumn{"requests_per_s_per_replica",
               [](const PlanRow& r) -> Cell { return planned(r, r.plan.requests_per_s_per_replica); }},
    PlanColumn{"replicas", [](const PlanRow& r) -> Cell { return planned(r, r.plan.replicas); }},
    PlanColumn{"prefill_replicas", [](const PlanRow& r) -> Cell { return planned(r, r.plan.prefill_replicas); }},
    PlanColumn{"gpus", [](const PlanRow& r) -> Cell { return planned(r, r.plan.gpus); }},
    PlanColumn{"cost_per_million_tokens_usd",
               [](const PlanRow& r) -> Cell { return optional_cell(r.plan.cost_per_million_tokens); }},
    // kWh, not SI joules, in JSON too: the unit energy is bought in; the key says so.
    PlanColumn{"energy_per_million_tokens_kwh",
               [](const PlanRow& r) -> Cell { return optional_cell(r.plan.kwh_per_million_tokens); }},
    PlanColumn{"kv_transfer_bytes",
               [](const PlanRow& r) -> Cell {
                 return r.plan.kv_transfer_bytes ? Cell(r.plan.kv_transfer_bytes->value()) : Cell();
               }},
    PlanColumn{"kv_transfer_time_s",
               [](const PlanRow& r) -> Cell {
                 return r.plan.kv_transfer ? Cell(r.plan.kv_transfer->value()) : Cell();
               }},
};

// Feasible plans first, cheapest (or fewest GPUs) first; then the ones that cannot meet the target.
void rank(std::vector<PlanRow>& rows) {
  const auto key = [](const PlanRow& r) {
    return PlanRank{r.plan.feasible, r.plan.cost_per_million_tokens, r.plan.gpus};
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const PlanRow& a, const PlanRow& b) { return ranks_before(key(a), key(b)); });
}

std::vector<std::string> plan_header(bool disaggregate) {
  return {"gpu", "layout", "batch", "TPOT", "TTFT", "tok/s/replica", "prefill", "req/s/replica",
          disaggregate ? "decode+prefill" : "replicas", "GPUs", "$/M tokens", "kWh/M tokens"};
}

void append_plan_csv_header(std::string& out) {
  append_csv_row_of(out, kPlanColumns, [](const PlanColumn& c) { return Cell(c.name); });
}

// One plan as the sinks read it: the plan's columns for CSV and JSON, its cells for people.
class PlanRecord final : public Record {
 public:
  PlanRecord(const PlanRow& row, bool disaggregate) : row_(row), disaggregate_(disaggregate) {}
  void append_csv(std::string& out) const override {
    append_csv_row_of(out, kPlanColumns, [this](const PlanColumn& c) { return c.get(row_); });
  }
  [[nodiscard]] nlohmann::ordered_json json() const override {
    nlohmann::ordered_json o;
    for (const PlanColumn& c : kPlanColumns) o[std::string(c.name)] = cell_json(c.get(row_));
    return o;
  }
  [[nodiscard]] std::vector<std::string> cells() const override {
    const PlanRow& r = row_;
    const CapacityPlan& p = r.plan;
    if (!p.feasible) {
      return {r.gpu->name, layout_label(r.layout), "-", "-", "-", "-", "-", "-", "-", "-", "cannot (below)", "-"};
    }
    return {r.gpu->name, layout_label(r.layout), fmt::format("{}", p.batch), human(p.tpot), human(p.ttft),
            three_digits(p.decode_tokens_per_s), disaggregate_ ? "own pool" : fmt::format("{:.0f}%", 100 * p.prefill_share),
            three_digits(p.requests_per_s_per_replica),
            disaggregate_ ? fmt::format("{}+{}", p.replicas, p.prefill_replicas) : fmt::format("{}", p.replicas),
            fmt::format("{}", p.gpus), p.cost_per_million_tokens ? fmt::format("{:.4f}", *p.cost_per_million_tokens) : "-",
            p.kwh_per_million_tokens ? three_digits(*p.kwh_per_million_tokens) : "-"};
  }

 private:
  const PlanRow& row_;
  bool disaggregate_;
};

// What the disaggregated TPOT includes for the cache's trip between the pools.
std::string kv_transfer_note(const PlanRow& r) {
  const std::string who = fmt::format("{} with {}", r.gpu->name, layout_label(r.layout));
  if (!r.plan.kv_transfer_bytes) {
    return who + ": the model is known only by its size, so the KV cache it sends between the pools is not priced "
                 "(TPOT leaves it out)";
  }
  const std::string what =
      who + fmt::format(": each request's prompt cache ({}) goes from the prefill to the decode pool",
                        human(*r.plan.kv_transfer_bytes));
  if (!r.plan.kv_transfer) return what + "; the GPU names no interconnect, so its time is not priced (TPOT leaves it out)";
  // The pair rule (model/kv_transfer.hpp): one prefill and one decode replica, not the pools.
  const int pair = 2 * gpus(r.layout);
  const bool network = r.gpu->network && r.gpu->interconnect && pair > r.gpu->interconnect->domain;
  const std::string link =
      network ? fmt::format("network (a prefill and a decode replica, {} GPUs, fill more than its {}-GPU domain)", pair,
                            r.gpu->interconnect->domain)
              : "interconnect (priced as a prefill and a decode replica paired in one domain)";
  const int senders = cache_senders(r.layout);
  const std::string sender =
      r.layout.dp_attention && r.layout.tp > 1
          ? std::string(senders == 1 ? "the rank holding it sending it whole over its own link"
                                     : "the rank of each stage holding it sending its stage's part over its own link")
      : senders == 1 ? std::string("its one GPU sending it whole over its own link")
                     : fmt::format("each of its {} GPUs sending its shard over its own link", senders);
  return what + fmt::format(" in {} over the GPU's {}, {}, before the second token: TPOT carries it over the gen - 1 "
                            "gaps",
                            human(*r.plan.kv_transfer), link, sender);
}

// A disaggregated plan's fleet that spans more than one domain, its transfers priced over the
// interconnect by the pair rule (model/kv_transfer.hpp): said as a warning, so that every format
// carries it (CSV's and JSON's `warnings`), with the time a transfer between domains would take.
std::optional<std::string> fleet_link_warning(const GpuSpec& g, const Workload& w, const CapacityPlan& p) {
  if (!p.feasible || !g.interconnect || !p.kv_transfer || !p.kv_transfer_bytes) return std::nullopt;
  if (2 * gpus(w) > g.interconnect->domain) return std::nullopt;  // the pair itself went over the network
  const auto said = pair_link_warning(g, p.gpus, "the steady plan's", *p.kv_transfer,
                                      *p.kv_transfer_bytes / static_cast<double>(cache_senders(w)));
  if (!said) return std::nullopt;
  return fmt::format("{} with {}: {}", g.name, layout_label(w), *said);
}

void print(const std::vector<PlanRow>& rows, const PlanArgs& a, const ModelSpec& m, const Workload& w, int too_big,
           std::ostream& out) {
  // The targets as every time is written ("500ms" typed reads "500 ms").
  const auto target = [](const std::string& flag, std::string_view name) {
    return human(Seconds(quantity_flag(flag, Dimension::time, name)));
  };
  const std::string title = fmt::format("{}: {} requests/s, {} prompt + {} generated tokens, TTFT ≤ {}, TPOT ≤ {}{}; {}",
                                        m.name, a.rate, w.prompt_tokens, w.gen_tokens, target(a.ttft, "ttft"),
                                        target(a.tpot, "tpot"),
                                        a.disaggregate ? ", prefill and decode in separate pools" : "",
                                        sizing_text(Sizing{a.bound, a.confidence}));
  const auto sink = make_sink(output_format(a.format), Shape::rows, {title, plan_header(a.disaggregate), append_plan_csv_header}, out);
  for (const PlanRow& r : rows) {
    sink->add(PlanRecord(r, a.disaggregate));
    if (!r.plan.feasible) {
      sink->note(fmt::format("{} with {} cannot meet the target: {}", r.gpu->name, layout_label(r.layout), r.reason));
    }
    if (a.disaggregate && r.plan.feasible) sink->note(kv_transfer_note(r));
  }
  if (too_big > 0) {
    sink->note(fmt::format("{} layout{} searched leave{} no room for one sequence beside the weights", too_big,
                           too_big == 1 ? "" : "s", too_big == 1 ? "s" : ""));
  }
  std::vector<std::string> said;
  for (const PlanRow& r : rows) add_unsaid(said, r.warnings);
  note_warnings(*sink, said);
  sink->finish();
}

// --percentile and the flags that go with it, or against it.
void check_percentile(const PlanArgs& a) {
  const double p = *a.percentile_given;
  if (!(p >= 50 && p < 100)) throw InputError(fmt::format("--percentile: must be 50 to below 100, got {}", p));
  if (a.confidence != 0.5) {
    throw InputError("--confidence: not with --percentile, whose simulation runs on the central expected step times");
  }
}

struct Skip {
  std::string gpu;     // "NVIDIA H100 SXM"
  std::string layout;  // "tp 1 ep 2"
  std::string reason;  // "--ep: ...", as require_valid words it
};

// --prefill-tp's pool for a row: the row's layout at that tp and the steady plan made of it, whose
// prefill count starts the prefill pool's search. A layout the model or GPU cannot take, or data-
// parallel attention or a pipeline (whose caches the link would reshard between ranks or stages,
// not modelled), is refused naming the flag; a prefill layout that cannot hold the weights makes
// the row infeasible, said so.
void add_prefill_pool(SteadyPlan& s, const ModelSpec& m, const LoadTarget& target, long tp) {
  if (tp == s.workload.tp) return;
  if (s.workload.dp_attention || s.workload.pp > 1) {
    throw InputError("--prefill-tp: not modelled with --dp-attention or --pp above 1 (the cache would be resharded "
                     "between ranks or stages); drop one of them");
  }
  Workload w = s.workload;
  w.tp = static_cast<int>(tp);
  if (const auto why = validate(w, m, *s.gpu)) {
    throw InputError(fmt::format("--prefill-tp {}: {} on {}: --{}: {}", tp, layout_label(w), s.gpu->name, why->field,
                                 why->message));
  }
  if (const auto why = pair_refusal(*s.gpu, roofline::gpus(w), roofline::gpus(s.workload))) {
    throw InputError(fmt::format("--prefill-tp {}: {}", tp, *why));
  }
  CapacityPlan plan = plan_capacity(m, *s.gpu, w, target);
  if (s.plan.feasible && !plan.feasible) {
    s.plan.feasible = false;
    s.reason = fmt::format("the prefill pool at --prefill-tp {}: {}", tp,
                           plan.why_not ? infeasible_text(*plan.why_not) : std::string("infeasible"));
  }
  s.prefill = SteadyPlan::PrefillPool{w, std::move(plan)};
}

struct SteadyRows {
  std::vector<PlanRow> rows;
  int too_big = 0;            // --search's layouts that hold no sequence beside the weights
  std::vector<Skip> invalid;  // pairs of --tp, --pp, --ep the model or GPU cannot take
};

// The steady plan of every GPU and layout compared, at these lengths (x) and this load.
SteadyRows steady_rows(const PlanArgs& a, const WorkloadAxes& x, const ModelSpec& m, const std::vector<GpuSpec>& gpus,
                       LoadTarget target) {
  // Every flag holds one value but the GPUs and layouts compared: a product over those, or with
  // --search every layout each GPU can hold the weights in.
  std::vector<std::size_t> index(kWorkloadFlags, 0);
  SteadyRows out;
  std::vector<PlanRow>& rows = out.rows;
  auto add = [&](const GpuSpec& g, const Workload& w) {
    CapacityPlan plan = plan_capacity(m, g, w, target);
    std::string reason = plan.why_not ? infeasible_text(*plan.why_not) : std::string();
    std::string sized_on = sizing_name(plan.sizing);
    std::vector<std::string> warnings = warning_texts(input_warnings(m, g, w));
    if (a.disaggregate) {
      if (auto fleet = fleet_link_warning(g, w, plan)) warnings.push_back(std::move(*fleet));
    }
    rows.push_back({&g, w, target.price_per_gpu_hour, std::move(plan), std::move(reason), std::move(sized_on),
                    std::move(warnings)});
  };
  int& too_big = out.too_big;
  std::vector<Skip>& invalid = out.invalid;
  std::optional<std::string> first_pair_refusal;
  // Two replicas leaving the domain of a GPU that names no network: the cache's trip cannot be
  // priced, skipped and said as a layout leaving the domain is (model/kv_transfer.hpp).
  const auto pair_refused = [&](const GpuSpec& g, const Workload& w) {
    if (!a.disaggregate) return false;
    const auto why = pair_refusal(g, roofline::gpus(w), roofline::gpus(w));
    if (!why) return false;
    invalid.push_back({g.name, layout_label(w), fmt::format("--disaggregate: {}", *why)});
    if (!first_pair_refusal) first_pair_refusal = invalid.back().reason;
    return true;
  };
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (!a.prices.empty()) target.price_per_gpu_hour = a.prices.size() == 1 ? a.prices[0] : a.prices[i];
    index[static_cast<std::size_t>(WorkloadFlag::gpu)] = i;
    if (a.search) {
      int skipped = 0;
      std::vector<RefusedLayout> refused;
      for (const Workload& w : candidate_layouts(m, gpus[i], workload_at(x, index, m, gpus[i]), &skipped, &refused)) {
        if (!pair_refused(gpus[i], w)) add(gpus[i], w);
      }
      too_big += skipped;
      for (const RefusedLayout& r : refused) {
        invalid.push_back({gpus[i].name, layout_label(r.layout), fmt::format("--{}: {}", r.why.field, r.why.message)});
      }
      continue;
    }
    for (std::size_t t = 0; t < x.tp.size(); ++t) {
      for (std::size_t s = 0; s < x.pp.size(); ++s) {
        for (std::size_t e = 0; e < x.ep.size(); ++e) {
          index[static_cast<std::size_t>(WorkloadFlag::tp)] = t;
          index[static_cast<std::size_t>(WorkloadFlag::pp)] = s;
          index[static_cast<std::size_t>(WorkloadFlag::ep)] = e;
          const Workload w = workload_at(x, index, m, gpus[i]);
          // A pair the model or GPU cannot take is skipped and said, as sweep does: the others
          // are still compared.
          if (const auto why = validate(w, m, gpus[i])) {
            invalid.push_back({gpus[i].name, layout_label(w),
                               fmt::format("--{}: {}", why->field, why->message)});
            continue;
          }
          if (pair_refused(gpus[i], w)) continue;
          add(gpus[i], w);
        }
      }
    }
  }
  if (a.search && rows.empty() && first_pair_refusal) throw InputError(*first_pair_refusal);
  if (a.search && rows.empty()) {
    throw InputError(fmt::format("plan --search: no layout of up to {} GPUs holds {}'s weights on {}", kMostGpusSearched,
                                 m.name, a.workload.gpu.size() == 1 ? gpus.front().name : "these GPUs"));
  }
  if (rows.empty()) {
    // Every pair was skipped: the first reason is the answer.
    throw InputError(invalid.front().reason);
  }
  return out;
}

// --pools: the prompt length split, refused where it cannot be planned (naming --pools).
void check_pools(const PlanArgs& a, const PlanTraffic& t) {
  const long split = *a.pools;
  if (split < 1 || split > kMaxTokens) {
    throw InputError(fmt::format("--pools: a prompt length of 1 to {} tokens, got {}", kMaxTokens, split));
  }
  if (!t.trace && !(t.prompt && t.prompt->kind != serve::LengthDistribution::Kind::fixed)) {
    throw InputError("--pools: routes by prompt length, and a fixed --prompt sends every request to one pool; give a "
                     "distribution (--prompt lognormal:MEAN:SIGMA, uniform:A:B or empirical:FILE[:COLUMN]) or a trace "
                     "(--arrivals FILE.csv)");
  }
  if (a.disaggregate) throw InputError("--pools: each pool is a colocated fleet; not with --disaggregate");
}

// --pools: the stream split at the prompt length; each pool's steady plans at its own mean
// lengths and share of the rate, each sized by simulating its own share of the stream.
void plan_pools(const PlanArgs& a, const PercentileArgs& p, const WorkloadAxes& x, const ModelSpec& m,
                const std::vector<GpuSpec>& gpus, const LoadTarget& target, std::ostream& out, std::ostream& err) {
  const planner::PercentileScenario base = percentile_scenario(p);
  const std::vector<serve::Request> stream = pool_stream(p.traffic, base.arrivals, base.seed);
  const planner::LengthSplit split = planner::split_by_prompt(stream, *a.pools);
  const std::array<planner::PoolScenario, 2> scenarios = planner::pool_scenarios(split, base, target);
  std::array<PoolSizing, 2> pools;
  for (std::size_t i = 0; i < 2; ++i) {
    const planner::PoolScenario& scenario = scenarios[i];
    WorkloadAxes px = x;
    px.prompt = {scenario.prompt_tokens};
    px.gen = {scenario.gen_tokens};
    PoolSizing& sizing = pools[i];
    sizing.pool = scenario.pool;
    sizing.target = scenario.target;
    for (const PlanRow& r : steady_rows(a, px, m, gpus, sizing.target).rows) {
      sizing.plans.push_back({r.gpu, r.layout, r.plan, r.reason, r.price, std::nullopt, r.warnings});
    }
    if (const auto w = reservation_warning(scenario.scenario)) {
      for (SteadyPlan& s : sizing.plans) s.warnings.push_back(*w);
    }
    sizing.arrivals_cv = scenario.scenario.arrivals.cv;
    sizing.rows = size_percentile_rows(m, sizing.plans, sizing.target, scenario.scenario, err);
  }
  // The whole stream's CV: a trace's measured, the process's own where drawn (the draws measure it
  // only to within their sampling).
  print_pool_plans(m, split, pools[0], pools[1], target, p.traffic.trace ? planner::gap_cv(stream) : arrivals_cv(base), p,
                   out, err);
}

}  // namespace

std::vector<std::string_view> plan_column_names() {
  std::vector<std::string_view> names;
  for (const PlanColumn& c : kPlanColumns) names.push_back(c.name);
  return names;
}

void add_plan_options(Options& o, PlanArgs& a) {
  using enum WorkloadFlag;
  add_workload_options(o, a.workload, {batch, context, prompt, gen});
  o.add("--prompt,-p", a.workload.prompt,
        "prompt tokens per request; with --percentile also lognormal:MEAN:SIGMA, uniform:A:B or "
        "empirical:FILE[:COLUMN] (the steady columns then price its mean)")
      .show_default()
      .given(a.prompt_given);
  o.add("--gen", a.workload.gen, "generated tokens per request, in the same forms").show_default().given(a.gen_given);
  o.add("--price", a.prices, "$ per GPU-hour: one for all, or one per --gpu");
  o.add("--rate", a.rate,
        "requests per second; with a trace (--arrivals FILE.csv), its arrivals rescaled to this rate where given, "
        "else the trace's own rate (not this default)")
      .show_default()
      .given(a.rate_given);
  o.add("--trace-rate", a.trace_rate, "with a trace (--arrivals FILE.csv): its arrivals rescaled to this rate, as --rate");
  o.add("--pools", a.pools,
        "with --percentile and a prompt distribution or trace: prompts of at most this many tokens to one pool, "
        "longer ones to another, each sized by simulation, one row per pair of --gpu (docs/capacity-planning.md)");
  o.add("--ttft", a.ttft, "time-to-first-token target, with a unit").show_default();
  o.add("--tpot", a.tpot, "time-per-output-token target, with a unit").show_default();
  o.flag("--disaggregate", a.disaggregate, "size separate prefill and decode pools");
  o.add("--prefill-tp", a.prefill_tp,
        "with --disaggregate --percentile: the prefill pool's tensor parallelism, each row's --tp the decode pool's; "
        "the cache is resharded on the link");
  o.add("--confidence", a.confidence,
        "size on the expected times' quantile: 0.5 the central estimate, 0.9 the pessimistic end of the 10-90% interval")
      .show_default();
  o.flag("--bound", a.bound, "size on the roofline bound itself (optimistic: no system reaches it)");
  o.flag("--search", a.search,
         "rank every layout of each GPU that holds the weights: tp up to the interconnect's domain (whole domains "
         "beyond it with a network), pp 1, 2, 4 or 8, and for models with experts ep = tp with and without --dp-attention");
  o.add("--format,-f", a.format, "table, markdown, csv, json or jsonl").one_of(output_format_names()).show_default();
  o.add("--top", a.top, "only the N best rows of the ranking (say so on stderr), in every format");
  o.add("--emit", a.emit,
        "vllm, sglang or trtllm: write each ranked row that meets the targets as the script that runs it on that "
        "engine");
  o.add("--emit-dir", a.emit_dir, "with --emit: the folder the scripts go to [rooflineplan-launch]").writes_file();
  o.add("--percentile", a.percentile_given,
        "size so that this percentile of TTFT and TPOT meets the targets under --arrivals, confirmed by simulation");
  o.add("--arrivals", a.percentile.arrivals,
        "with --percentile: poisson, gamma:CV or a trace .csv (its own columns, or the Azure traces' arrived_at, "
        "num_prefill_tokens, num_decode_tokens): its arrivals and lengths")
      .show_default();
  o.add("--duration", a.percentile.duration, "with --percentile: traffic simulated per check").show_default();
  o.add("--seed", a.percentile.seed, "with --percentile: seed of the simulated traffic").show_default();
  o.add("--engine", a.percentile.engine,
        "with --percentile: simulate the checks with that engine's prefill chunking, KV block size and admission "
        "(vllm, sglang or trtllm; docs/engines.md), the plan's batch and token budget kept")
      .one_of({serve::kEngineNames.begin(), serve::kEngineNames.end()});
  o.add("--router", a.percentile.router,
        "with --percentile: how the fleet's one stream of requests is routed to its replicas (round-robin, the "
        "default of NVIDIA Dynamo's frontend and of IPVS; random; least-loaded; prefix-affinity; kv-aware, Dynamo's KV "
        "router)")
      .one_of({serve::kRoutingNames.begin(), serve::kRoutingNames.end()})
      .show_default();
}

void run_plan(const PlanArgs& a, std::ostream& out, std::ostream& err) {
  if (a.workload.model.empty() || a.workload.gpu.empty()) throw InputError("plan: --model and --gpu are required");
  // The rate's bounds: check_rate (cli/plan_traffic.hpp).
  constexpr double kMaxPrice = 1e6;
  check_rate(a.rate, "rate");
  if (a.trace_rate) check_rate(*a.trace_rate, "trace-rate");
  if (a.pools && !a.percentile_given) {
    throw InputError("--pools: each pool is sized by simulating its share of the traffic; add --percentile");
  }
  // Distributions and traces read first: the workload's flags then check the steady plan's
  // lengths (the fixed ones, or the means it prices).
  const auto one = [](const std::vector<std::string>& v) { return v.size() == 1 ? v.front() : std::string(); };
  PlanTraffic traffic =
      plan_traffic({one(a.workload.prompt), one(a.workload.gen), a.prompt_given, a.gen_given, a.rate_given, a.trace_rate, a.pools},
                   a.percentile.arrivals, a.rate, a.percentile_given.has_value());
  if (a.pools) check_pools(a, traffic);
  WorkloadFlags flags = a.workload;
  if (traffic.prompt_tokens > 0) flags.prompt = {std::to_string(traffic.prompt_tokens)};
  if (traffic.gen_tokens > 0) flags.gen = {std::to_string(traffic.gen_tokens)};
  const WorkloadAxes x = parse_workload(flags);
  x.require_one({WorkloadFlag::gpu, WorkloadFlag::tp, WorkloadFlag::pp, WorkloadFlag::ep});
  // The search sets the layout itself: a layout flag beside it was dropped without a word.
  if (a.search) {
    const std::vector<long> one_gpu{1};
    const std::vector<std::string_view> given = [&] {
      std::vector<std::string_view> v;
      if (x.tp != one_gpu) v.emplace_back("--tp");
      if (x.pp != one_gpu) v.emplace_back("--pp");
      if (x.ep != one_gpu) v.emplace_back("--ep");
      if (x.dp_attention) v.emplace_back("--dp-attention");
      if (x.microbatches != 0) v.emplace_back("--microbatches");
      return v;
    }();
    if (!given.empty()) {
      throw InputError(fmt::format("--search: it chooses tp, pp, ep and data-parallel attention itself, and would "
                                   "drop {}; give those without --search to plan that layout",
                                   fmt::join(given, ", ")));
    }
  }
  // The lengths the steady plan prices, fixed or means, as the workload's flags read them.
  traffic.prompt_tokens = x.prompt.front();
  traffic.gen_tokens = x.gen.front();
  // The plan sizes a replica by its decode steps (TPOT, requests a second = tokens / gen): a request
  // of one token has none, and was judged on a step it never runs (a --percentile row said P99
  // TPOT 0 s where simulate says none).
  if (traffic.gen_tokens < 2) {
    throw InputError(fmt::format("--gen: {} output token{} a request leave{} no decode step, and the plan sizes "
                                 "replicas by theirs; prefill-only traffic is not planned (simulate runs it)",
                                 traffic.gen_tokens, traffic.gen_tokens == 1 ? "" : "s",
                                 traffic.gen_tokens == 1 ? "s" : ""));
  }
  if (!a.prices.empty() && a.prices.size() != 1 && a.prices.size() != x.gpu.size()) {
    throw InputError(fmt::format("--price: give one price for all GPUs or one per GPU ({}), not {}", x.gpu.size(),
                                 a.prices.size()));
  }
  for (double price : a.prices) {
    if (!(price >= 0)) throw InputError(fmt::format("--price: must not be negative, got {}", price));
    if (!(price <= kMaxPrice)) throw InputError(fmt::format("--price: at most {:g} $ per GPU-hour, got {:g}", kMaxPrice, price));
  }
  if (!a.emit.empty() && !launch::engine_named(a.emit)) {
    throw InputError(fmt::format("--emit: {}, not '{}'", launch::kEngineNames, a.emit));
  }
  const ModelSpec m = read_flag_file("--model", x.model.front(), [&] { return load_model(x.model.front()); });
  std::vector<GpuSpec> gpus;
  for (const std::string& g : x.gpu) gpus.push_back(read_flag_file("--gpu", g, [&] { return load_gpu(g); }));
  // Quantiles past 0.99 read the log-normal's tail further than 26 published runs can say.
  if (!(a.confidence >= 0.5 && a.confidence <= 0.99)) {
    throw InputError(fmt::format("--confidence: must be in [0.5, 0.99], got {}", a.confidence));
  }
  if (a.bound && a.confidence != 0.5) throw InputError("--confidence: not with --bound, which sizes on the bound itself");
  LoadTarget target{traffic.rate, Seconds(latency_target(a.ttft, "ttft")),
                    Seconds(latency_target(a.tpot, "tpot")), std::nullopt, a.disaggregate,
                    Sizing{a.bound, a.confidence}};

  SteadyRows steady = steady_rows(a, x, m, gpus, target);
  std::vector<PlanRow>& rows = steady.rows;
  const int too_big = steady.too_big;
  const std::vector<Skip>& invalid = steady.invalid;
  // On stderr, as sweep's skips are: a CSV or JSON reader sees them too, and the rows stay rows.
  // One line a reason, its layouts together: a search's grid skips a tp at each of its pp and ep
  // (Mixtral-8x7B's was 26 lines). "NVIDIA H100 SXM with tp 4, tp 4 × pp 2": the GPU said once
  // where every layout is its.
  std::vector<std::vector<const Skip*>> by_reason;
  for (const Skip& s : invalid) {
    const auto same = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& g) { return g.front()->reason == s.reason; });
    if (same != by_reason.end()) same->push_back(&s);
    else by_reason.push_back({&s});
  }
  for (const std::vector<const Skip*>& group : by_reason) {
    const bool one_gpu = std::all_of(group.begin(), group.end(), [&](const Skip* s) { return s->gpu == group.front()->gpu; });
    std::vector<std::string> who;
    for (const Skip* s : group) who.push_back(one_gpu ? s->layout : fmt::format("{} with {}", s->gpu, s->layout));
    const std::string skipped = one_gpu ? fmt::format("{} with {}", group.front()->gpu, fmt::join(who, ", "))
                                        : fmt::format("{}", fmt::join(who, "; "));
    err << report::warning_label()
        << report::terminal_text(fmt::format("skipped {}: {}", skipped, group.front()->reason)) << "\n";
  }
  const PercentileArgs unset;
  if (!a.percentile_given && (a.percentile.arrivals != unset.arrivals || a.percentile.duration != unset.duration ||
                              a.percentile.seed != unset.seed)) {
    throw InputError("--arrivals, --duration and --seed: only with --percentile");
  }
  if (!a.percentile_given && a.percentile.router != unset.router) {
    throw InputError("--router: only with --percentile, whose simulated fleet it routes");
  }
  if (!a.percentile_given && !a.percentile.engine.empty()) {
    throw InputError("--engine: only with --percentile, whose simulated checks it schedules (--emit names the engine "
                     "of a steady plan's scripts)");
  }
  if (a.top && *a.top < 1) throw InputError(fmt::format("--top: must be at least 1, got {}", *a.top));
  if (a.emit.empty() && a.emit_dir) throw InputError("--emit-dir: only with --emit");
  if (!a.emit.empty() && a.disaggregate) {
    throw InputError("--emit: writes a colocated replica's launch; a disaggregated plan's two pools are not written");
  }
  if (a.prefill_tp != 0 && (!a.disaggregate || !a.percentile_given)) {
    throw InputError("--prefill-tp: the prefill pool's layout, only with --disaggregate --percentile (whose simulated "
                     "checks run each pool on its own)");
  }
  if (a.prefill_tp != 0 && (a.prefill_tp < 1 || a.prefill_tp > 1024)) {
    throw InputError(fmt::format("--prefill-tp: must be 1 to 1024, got {}", a.prefill_tp));
  }
  if (a.percentile_given) {
    if (!a.emit.empty()) throw InputError("--emit: writes the ranked steady plans' rows, not a --percentile plan's");
    check_percentile(a);
    PercentileArgs p = a.percentile;
    p.percentile = *a.percentile_given;
    p.format = a.format;
    p.top = a.top;
    p.traffic = traffic;
    if (a.pools) {
      plan_pools(a, p, x, m, gpus, target, out, err);
      return;
    }
    std::vector<SteadyPlan> plans;
    for (const PlanRow& r : rows) {
      plans.push_back({r.gpu, r.layout, r.plan, r.reason, r.price, std::nullopt, r.warnings});
    }
    if (a.prefill_tp != 0) {
      for (SteadyPlan& s : plans) add_prefill_pool(s, m, target, a.prefill_tp);
    }
    print_percentile_plans(m, plans, target, p, out, err);
    return;
  }
  rank(rows);
  if (a.top && static_cast<std::size_t>(*a.top) < rows.size()) {
    err << fmt::format("note: --top {}: the first {} of {} ranked rows\n", *a.top, *a.top, rows.size());
    rows.resize(static_cast<std::size_t>(*a.top));
  }
  // The launch files first: a row no engine runs as planned is refused before any output.
  if (!a.emit.empty()) {
    std::vector<LaunchRow> launch_rows;
    for (const PlanRow& r : rows) launch_rows.push_back({r.gpu, r.layout, &r.plan, r.sized_on});
    write_launch_files(*launch::engine_named(a.emit), a.emit_dir.value_or("rooflineplan-launch"), m, x.model.front(),
                       launch_rows, err);
  }
  print(rows, a, m, workload_at(x, std::vector<std::size_t>(kWorkloadFlags, 0), m, gpus.front()), too_big, out);
}

}  // namespace roofline::cli
