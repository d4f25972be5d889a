#include "cli/simulate_columns.hpp"

#include <array>
#include <type_traits>

#include "report/report_csv.hpp"
#include "report/report_json.hpp"

namespace roofline::cli {

namespace {

using report::Cell;
using serve::Distribution;
using serve::Summary;
using Scope = SimulateColumnScope;

// One statistic of one latency, expected or bound; empty when nothing was measured (the TPOT of
// one-token requests), never a 0 that reads as instant.
template <Distribution Summary::*D, double Distribution::*S, bool Bound>
Cell stat(const SimulateFigures& f) {
  const Distribution& d = (Bound ? f.b : f.e).*D;
  return d.count == 0 ? Cell() : Cell(d.*S);
}

// mean, p50, p90 and p99 of one latency, under a prefix ("ttft", "bound_ttft").
#define ROOFLINE_SIM_STATS(prefix, member, bound)                                            \
  SimulateColumn{prefix "_mean_s", Scope::always, stat<&Summary::member, &Distribution::mean, bound>}, \
      SimulateColumn{prefix "_p50_s", Scope::always, stat<&Summary::member, &Distribution::p50, bound>}, \
      SimulateColumn{prefix "_p90_s", Scope::always, stat<&Summary::member, &Distribution::p90, bound>}, \
      SimulateColumn{prefix "_p99_s", Scope::always, stat<&Summary::member, &Distribution::p99, bound>}

Cell text(const std::string& s) { return std::string_view(s); }

// One statistic of one of a disaggregated run's handoff times.
template <Distribution PoolFigures::*D, double Distribution::*S>
Cell handoff(const SimulateFigures& f) {
  const Distribution& d = (*f.pools).*D;
  return d.count == 0 ? Cell() : Cell(d.*S);
}

// One of a speculative run's figures.
template <auto M>
Cell speculative(const SimulateFigures& f) {
  const auto& v = (*f.speculative).*M;
  using T = std::remove_cvref_t<decltype(v)>;
  if constexpr (std::is_same_v<T, std::optional<std::string>>) {
    return v ? Cell(std::string_view(*v)) : Cell();
  } else if constexpr (std::is_same_v<T, std::optional<long>>) {
    return report::optional_cell(v);
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    return std::span<const std::string>(v);
  } else {
    return v;
  }
}

#define ROOFLINE_SIM_SPECULATIVE(name, member) \
  SimulateColumn { "speculative_" name, Scope::speculative, speculative<&SpeculativeFigures::member> }

#define ROOFLINE_SIM_HANDOFF(prefix, member)                                                                 \
  SimulateColumn{prefix "_mean_s", Scope::pools, handoff<&PoolFigures::member, &Distribution::mean>},       \
      SimulateColumn{prefix "_p50_s", Scope::pools, handoff<&PoolFigures::member, &Distribution::p50>},     \
      SimulateColumn{prefix "_p90_s", Scope::pools, handoff<&PoolFigures::member, &Distribution::p90>},     \
      SimulateColumn{prefix "_p99_s", Scope::pools, handoff<&PoolFigures::member, &Distribution::p99>}

const std::array kColumns = {
    SimulateColumn{"model", Scope::always, [](const SimulateFigures& f) { return text(f.model); }},
    SimulateColumn{"gpu", Scope::always, [](const SimulateFigures& f) { return text(f.gpu); }},
    SimulateColumn{"tp", Scope::always, [](const SimulateFigures& f) -> Cell { return f.tp; }},
    SimulateColumn{"ep", Scope::always, [](const SimulateFigures& f) -> Cell { return f.ep; }},
    SimulateColumn{"dp_attention", Scope::always, [](const SimulateFigures& f) -> Cell { return f.dp_attention; }},
    SimulateColumn{"compute", Scope::always, [](const SimulateFigures& f) -> Cell { return f.compute; }},
    SimulateColumn{"warnings", Scope::always, [](const SimulateFigures& f) -> Cell { return f.warnings; }},
    SimulateColumn{"replicas", Scope::fleet, [](const SimulateFigures& f) -> Cell { return f.replicas; }},
    SimulateColumn{"router", Scope::fleet, [](const SimulateFigures& f) { return text(f.router); }},
    SimulateColumn{"imbalance", Scope::fleet, [](const SimulateFigures& f) -> Cell { return f.imbalance; }},
    SimulateColumn{"prefill_replicas", Scope::pools, [](const SimulateFigures& f) -> Cell { return f.pools->prefill_replicas; }},
    SimulateColumn{"decode_replicas", Scope::pools, [](const SimulateFigures& f) -> Cell { return f.pools->decode_replicas; }},
    SimulateColumn{"prefill_tp", Scope::pools, [](const SimulateFigures& f) -> Cell { return f.pools->prefill_tp; }},
    SimulateColumn{"pool_router", Scope::pools, [](const SimulateFigures& f) { return text(f.pools->router); }},
    SimulateColumn{"prefill_busy", Scope::pools, [](const SimulateFigures& f) -> Cell { return f.pools->prefill_busy; }},
    SimulateColumn{"decode_busy", Scope::pools, [](const SimulateFigures& f) -> Cell { return f.pools->decode_busy; }},
    SimulateColumn{"link_busy", Scope::pools, [](const SimulateFigures& f) -> Cell { return f.pools->link_busy; }},
    ROOFLINE_SIM_HANDOFF("prefill", prefill),
    ROOFLINE_SIM_HANDOFF("block_wait", block_wait),
    ROOFLINE_SIM_HANDOFF("link_wait", link_wait),
    ROOFLINE_SIM_HANDOFF("transfer", transfer),
    ROOFLINE_SIM_HANDOFF("decode_wait", decode_wait),
    SimulateColumn{"engine", Scope::engine,
                   [](const SimulateFigures& f) { return f.engine ? text(*f.engine) : Cell(); }},
    SimulateColumn{"engine_version", Scope::engine,
                   [](const SimulateFigures& f) { return f.engine_version ? text(*f.engine_version) : Cell(); }},
    ROOFLINE_SIM_SPECULATIVE("k", k),
    ROOFLINE_SIM_SPECULATIVE("accept", accept),
    ROOFLINE_SIM_SPECULATIVE("draft", draft),
    ROOFLINE_SIM_SPECULATIVE("tokens_per_step", tokens_per_step),
    ROOFLINE_SIM_SPECULATIVE("context_tokens", context),
    ROOFLINE_SIM_SPECULATIVE("batch_1_plain_tokens_per_s", batch_1_plain),
    ROOFLINE_SIM_SPECULATIVE("batch_1_speculative_tokens_per_s", batch_1_speculative),
    ROOFLINE_SIM_SPECULATIVE("batch_1_plain_bound_tokens_per_s", batch_1_plain_bound),
    ROOFLINE_SIM_SPECULATIVE("batch_1_speculative_bound_tokens_per_s", batch_1_speculative_bound),
    ROOFLINE_SIM_SPECULATIVE("max_batch", max_batch),
    ROOFLINE_SIM_SPECULATIVE("max_batch_held_by_cache", max_batch_held_by_cache),
    ROOFLINE_SIM_SPECULATIVE("pays_at_batches", pays_at_batches),
    ROOFLINE_SIM_SPECULATIVE("pays_at_batches_bound", pays_at_batches_bound),
    ROOFLINE_SIM_SPECULATIVE("stops_paying_at_batch", stops_paying_at_batch),
    ROOFLINE_SIM_SPECULATIVE("stops_paying_at_batch_bound", stops_paying_at_batch_bound),
    SimulateColumn{"requests", Scope::always, [](const SimulateFigures& f) -> Cell { return f.requests; }},
    SimulateColumn{"duration_s", Scope::always, [](const SimulateFigures& f) -> Cell { return f.duration; }},
    SimulateColumn{"served", Scope::always, [](const SimulateFigures& f) -> Cell { return f.e.served; }},
    SimulateColumn{"dropped", Scope::always, [](const SimulateFigures& f) -> Cell { return f.e.dropped; }},
    SimulateColumn{"preemptions", Scope::always, [](const SimulateFigures& f) -> Cell { return f.expected->preemptions; }},
    SimulateColumn{"recomputed_tokens", Scope::always,
                   [](const SimulateFigures& f) -> Cell { return f.expected->recomputed_tokens; }},
    SimulateColumn{"cached_tokens", Scope::always, [](const SimulateFigures& f) -> Cell { return f.expected->cached_tokens; }},
    SimulateColumn{"steps", Scope::always, [](const SimulateFigures& f) -> Cell { return f.expected->steps; }},
    SimulateColumn{"output_tokens_per_s", Scope::always, [](const SimulateFigures& f) -> Cell { return f.e.output_tokens_per_s; }},
    SimulateColumn{"requests_per_s", Scope::always, [](const SimulateFigures& f) -> Cell { return f.e.requests_per_s; }},
    SimulateColumn{"goodput", Scope::always, [](const SimulateFigures& f) { return report::optional_cell(f.e.goodput); }},
    ROOFLINE_SIM_STATS("ttft", ttft, false),
    ROOFLINE_SIM_STATS("tpot", tpot, false),
    ROOFLINE_SIM_STATS("itl", itl, false),
    ROOFLINE_SIM_STATS("e2e", e2e, false),
    ROOFLINE_SIM_STATS("queue_wait", queue_wait, false),
    SimulateColumn{"mean_running", Scope::always, [](const SimulateFigures& f) -> Cell { return f.e.mean_running; }},
    SimulateColumn{"peak_running", Scope::always, [](const SimulateFigures& f) -> Cell { return f.e.peak_running; }},
    SimulateColumn{"peak_kv_share", Scope::always, [](const SimulateFigures& f) -> Cell { return f.e.peak_kv_share; }},
    SimulateColumn{"bound_admission", Scope::always, [](const SimulateFigures& f) { return text(f.bound_admission); }},
    SimulateColumn{"bound_output_tokens_per_s", Scope::always,
                   [](const SimulateFigures& f) -> Cell { return f.b.output_tokens_per_s; }},
    SimulateColumn{"bound_requests_per_s", Scope::always, [](const SimulateFigures& f) -> Cell { return f.b.requests_per_s; }},
    SimulateColumn{"bound_goodput", Scope::always, [](const SimulateFigures& f) { return report::optional_cell(f.b.goodput); }},
    ROOFLINE_SIM_STATS("bound_ttft", ttft, true),
    ROOFLINE_SIM_STATS("bound_tpot", tpot, true),
    ROOFLINE_SIM_STATS("bound_itl", itl, true),
    ROOFLINE_SIM_STATS("bound_e2e", e2e, true),
    ROOFLINE_SIM_STATS("bound_queue_wait", queue_wait, true),
};

#undef ROOFLINE_SIM_STATS
#undef ROOFLINE_SIM_HANDOFF
#undef ROOFLINE_SIM_SPECULATIVE

}  // namespace

std::span<const SimulateColumn> simulate_columns() { return kColumns; }

std::vector<SimulateColumn> simulate_columns_for(bool fleet, bool engine, bool pools, bool speculative) {
  std::vector<SimulateColumn> out;
  for (const SimulateColumn& c : kColumns) {
    if ((c.scope == Scope::fleet && !fleet) || (c.scope == Scope::engine && !engine) || (c.scope == Scope::pools && !pools) ||
        (c.scope == Scope::speculative && !speculative)) {
      continue;
    }
    out.push_back(c);
  }
  return out;
}

std::vector<std::string_view> simulate_column_names() {
  std::vector<std::string_view> names;
  for (const SimulateColumn& c : kColumns) names.push_back(c.name);
  return names;
}

void append_simulate_csv_header(std::string& out, const std::vector<SimulateColumn>& columns) {
  report::append_csv_row_of(out, columns, [](const SimulateColumn& c) { return Cell(c.name); });
}

void SimulateRecord::append_csv(std::string& out) const {
  report::append_csv_row_of(out, columns_, [this](const SimulateColumn& c) { return c.get(f_); });
}

nlohmann::ordered_json SimulateRecord::json() const {
  if (as_document_) return views_.document;
  nlohmann::ordered_json o;
  // The warnings are a column, as every command's rows carry them: an array here, one CSV cell
  // of them joined by " | ".
  for (const SimulateColumn& c : columns_) o[std::string(c.name)] = report::cell_json(c.get(f_));
  return o;
}

}  // namespace roofline::cli
