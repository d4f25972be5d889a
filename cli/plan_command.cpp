#include "cli/plan_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "model/capacity_plan.hpp"
#include "report/human_units.hpp"
#include "io/input_error.hpp"
#include "report/report_csv.hpp"
#include "report/report_json.hpp"
#include "io/spec_loader.hpp"
#include "report/text_table.hpp"
#include "io/units_parse.hpp"
#include "cli/value_lists.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;

namespace {

struct PlanRow {
  const GpuSpec* gpu;
  int tp;
  CapacityPlan plan;
};


struct PlanColumn {
  std::string_view json_key;
  std::string_view csv_name;
  Cell (*get)(const PlanRow&);
};

// The plan's columns, once, for both CSV and JSON.
const std::array kPlanColumns = {
    PlanColumn{"gpu", "gpu_name", [](const PlanRow& r) -> Cell { return std::string_view(r.gpu->name); }},
    PlanColumn{"tp", "tp", [](const PlanRow& r) -> Cell { return static_cast<long>(r.tp); }},
    PlanColumn{"feasible", "feasible", [](const PlanRow& r) -> Cell { return r.plan.feasible; }},
    PlanColumn{"reason", "reason", [](const PlanRow& r) -> Cell { return std::string_view(r.plan.reason); }},
    PlanColumn{"batch", "batch", [](const PlanRow& r) -> Cell { return r.plan.batch; }},
    PlanColumn{"max_batch", "max_batch", [](const PlanRow& r) -> Cell { return optional_cell(r.plan.max_batch); }},
    PlanColumn{"decode_step_time", "decode_step_time_s", [](const PlanRow& r) -> Cell { return r.plan.decode_step.value(); }},
    PlanColumn{"prefill_time", "prefill_time_s", [](const PlanRow& r) -> Cell { return r.plan.prefill.value(); }},
    PlanColumn{"tpot", "tpot_s", [](const PlanRow& r) -> Cell { return r.plan.tpot.value(); }},
    PlanColumn{"ttft", "ttft_s", [](const PlanRow& r) -> Cell { return r.plan.ttft.value(); }},
    PlanColumn{"decode_tokens_per_s", "decode_tokens_per_s", [](const PlanRow& r) -> Cell { return r.plan.decode_tokens_per_s; }},
    PlanColumn{"prefill_share", "prefill_share", [](const PlanRow& r) -> Cell { return r.plan.prefill_share; }},
    PlanColumn{"requests_per_s_per_replica", "requests_per_s_per_replica",
               [](const PlanRow& r) -> Cell { return r.plan.requests_per_s_per_replica; }},
    PlanColumn{"replicas", "replicas", [](const PlanRow& r) -> Cell { return r.plan.replicas; }},
    PlanColumn{"prefill_replicas", "prefill_replicas", [](const PlanRow& r) -> Cell { return r.plan.prefill_replicas; }},
    PlanColumn{"gpus", "gpus", [](const PlanRow& r) -> Cell { return r.plan.gpus; }},
    PlanColumn{"cost_per_million_tokens", "cost_per_million_tokens_usd",
               [](const PlanRow& r) -> Cell { return optional_cell(r.plan.cost_per_million_tokens); }},
};

// Feasible plans first, cheapest (or fewest GPUs) first; then the ones that cannot meet the target.
void rank(std::vector<PlanRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const PlanRow& a, const PlanRow& b) {
    if (a.plan.feasible != b.plan.feasible) return a.plan.feasible;
    const double ca = a.plan.cost_per_million_tokens.value_or(0), cb = b.plan.cost_per_million_tokens.value_or(0);
    if (ca != cb) return ca < cb;
    return a.plan.gpus < b.plan.gpus;
  });
}

TextTable plan_table(const std::vector<PlanRow>& rows, bool disaggregate) {
  TextTable t{"", {"gpu", "tp", "batch", "TPOT", "TTFT", "tok/s/replica", "prefill", "req/s/replica",
                   disaggregate ? "decode+prefill" : "replicas", "GPUs", "$/M tokens"}, {}};
  for (const PlanRow& r : rows) {
    const CapacityPlan& p = r.plan;
    if (!p.feasible) {
      t.rows.push_back({r.gpu->name, fmt::format("{}", r.tp), "-", "-", "-", "-", "-", "-", "-", "-", "cannot (below)"});
      continue;
    }
    t.rows.push_back({r.gpu->name, fmt::format("{}", r.tp), fmt::format("{}", p.batch), human(p.tpot), human(p.ttft),
                      three_digits(p.decode_tokens_per_s),
                      disaggregate ? "own pool" : fmt::format("{:.0f}%", 100 * p.prefill_share),
                      three_digits(p.requests_per_s_per_replica),
                      disaggregate ? fmt::format("{}+{}", p.replicas, p.prefill_replicas) : fmt::format("{}", p.replicas),
                      fmt::format("{}", p.gpus),
                      p.cost_per_million_tokens ? fmt::format("{:.4f}", *p.cost_per_million_tokens) : "-"});
  }
  return t;
}

void print(const std::vector<PlanRow>& rows, const PlanArgs& a, const ModelSpec& m, std::ostream& out) {
  if (a.format == "json") {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const PlanRow& r : rows) {
      nlohmann::ordered_json o;
      for (const PlanColumn& c : kPlanColumns) o[std::string(c.json_key)] = cell_json(c.get(r));
      j.push_back(std::move(o));
    }
    out << j.dump(2) << "\n";
    return;
  }
  if (a.format == "csv") {
    std::string csv;
    append_csv_row_of(csv, kPlanColumns, [](const PlanColumn& c) { return Cell(c.csv_name); });
    for (const PlanRow& r : rows) append_csv_row_of(csv, kPlanColumns, [&r](const PlanColumn& c) { return c.get(r); });
    out << csv;
    return;
  }
  out << fmt::format("{}: {} requests/s, {} prompt + {} generated tokens, TTFT ≤ {}, TPOT ≤ {}{}\n", m.name, a.rate,
                     a.prompt, a.gen, a.ttft, a.tpot, a.disaggregate ? ", prefill and decode in separate pools" : "");
  out << render_plain(plan_table(rows, a.disaggregate));
  for (const PlanRow& r : rows) {
    if (!r.plan.feasible) out << fmt::format("{} with tp {} cannot meet the target: {}\n", r.gpu->name, r.tp, r.plan.reason);
  }
}

}  // namespace

CLI::App* add_plan_command(CLI::App& app, PlanArgs& a) {
  CLI::App* p = app.add_subcommand("plan", "GPUs needed for a load under latency targets, ranked by cost");
  p->add_option("--model,-m", a.model, "model: a file or a preset name")->required();
  p->add_option("--gpu,-g", a.gpus, "GPUs to compare (list)")->delimiter(',')->required();
  p->add_option("--tp", a.tp, "tensor-parallel sizes to try (list)")->delimiter(',');
  p->add_option("--price", a.prices, "$ per GPU-hour: one for all, or one per --gpu")->delimiter(',');
  p->add_option("--rate", a.rate, "requests per second")->capture_default_str();
  p->add_option("--prompt,-p", a.prompt, "prompt tokens per request")->capture_default_str();
  p->add_option("--gen", a.gen, "generated tokens per request")->capture_default_str();
  p->add_option("--ttft", a.ttft, "time-to-first-token target, with a unit")->capture_default_str();
  p->add_option("--tpot", a.tpot, "time-per-output-token target, with a unit")->capture_default_str();
  p->add_option("--weights", a.weights, "weight format [model dtype]");
  p->add_option("--kv", a.kv, "KV cache format");
  p->add_option("--compute", a.compute, "compute format");
  p->add_option("--reserve", a.reserve, "fraction of memory held back")->capture_default_str();
  p->add_flag("--disaggregate", a.disaggregate, "size separate prefill and decode pools");
  p->add_option("--format,-f", a.format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}))->capture_default_str();
  return p;
}

void run_plan(const PlanArgs& a, std::ostream& out) {
  if (!(a.rate > 0)) throw InputError(fmt::format("--rate: must be positive, got {}", a.rate));
  if (!a.prices.empty() && a.prices.size() != 1 && a.prices.size() != a.gpus.size()) {
    throw InputError(fmt::format("--price: give one price for all GPUs or one per GPU ({}), not {}", a.gpus.size(),
                                 a.prices.size()));
  }
  for (double price : a.prices) {
    if (!(price >= 0)) throw InputError(fmt::format("--price: must not be negative, got {}", price));
  }
  const ModelSpec m = load_model(a.model);
  std::vector<GpuSpec> gpus;
  for (const std::string& g : a.gpus) gpus.push_back(load_gpu(g));
  LoadTarget target{a.rate, Seconds(quantity_flag(a.ttft, Dimension::time, "ttft")),
                    Seconds(quantity_flag(a.tpot, Dimension::time, "tpot")), std::nullopt, a.disaggregate};

  std::vector<PlanRow> rows;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (!a.prices.empty()) target.price_per_gpu_hour = a.prices.size() == 1 ? a.prices[0] : a.prices[i];
    for (long tp : expand_counts(a.tp, "tp")) {
      WorkloadArgs point;
      point.prompt = a.prompt;
      point.gen = a.gen;
      point.tp = static_cast<int>(tp);
      point.weights = a.weights;
      point.kv = a.kv;
      point.compute = a.compute;
      point.reserve = a.reserve;
      const Workload w = make_workload(point, m, gpus[i]);
      rows.push_back({&gpus[i], point.tp, plan_capacity(m, gpus[i], w, target)});
    }
  }
  rank(rows);
  print(rows, a, m, out);
}

}  // namespace roofline::cli
