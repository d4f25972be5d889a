#pragma once
// `simulate`'s summary as one row (CSV, JSON lines): each simulated configuration's figures,
// expected and bound beside, listed once so that the CSV header and the JSON keys stay in step.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/report_columns.hpp"
#include "report/sink.hpp"
#include "serve/simulator.hpp"
#include "serve/summary.hpp"

namespace roofline::cli {

// A disaggregated run's (--disaggregate P:D) own figures, of its expected run: its pools, how
// busy each was, and the times between a request's arrival and its first decode step.
struct PoolFigures {
  long prefill_replicas = 0, decode_replicas = 0;
  long prefill_tp = 1;  // the prefill pool's layout (--prefill-tp); the decode pool's is the row's tp
  std::string router;
  double prefill_busy = 0, decode_busy = 0, link_busy = 0;  // shares of the run, 0 to 1
  // Arrival to the prefill's first token; the prefill's end to the decode blocks' reservation;
  // the reservation to the cache's sending; the prefill's end to its landing; the landing to the
  // first decode step.
  serve::Distribution prefill, block_wait, link_wait, transfer, decode_wait;
};

// A speculative run's (--speculative K:ACCEPT[:DRAFT]) own figures, the JSON document's
// `speculative`: what one verify step yields, one sequence's rates at the traffic's mean context,
// and the batches at which speculation pays.
struct SpeculativeFigures {
  long k = 0;
  double accept = 0;
  std::optional<std::string> draft;  // none: drafts cost nothing
  double tokens_per_step = 0;        // (1 - accept^(k+1)) / (1 - accept)
  long context = 0;                  // the traffic's mean context, at which the figures below are priced
  double batch_1_plain = 0, batch_1_speculative = 0, batch_1_plain_bound = 0, batch_1_speculative_bound = 0;
  long max_batch = 0;
  bool max_batch_held_by_cache = false;
  std::vector<std::string> pays_at_batches, pays_at_batches_bound;  // ranges, "1-37", "64"; none: it pays at no batch
  std::optional<long> stops_paying_at_batch, stops_paying_at_batch_bound;  // none: it pays at max_batch
};

// What one run of `simulate` reports, as the row's columns read it. The strings are held here:
// cells point into them.
struct SimulateFigures {
  std::string model, gpu;
  long tp = 1, ep = 1;
  bool dp_attention = false;
  std::string_view compute;  // the format the linears compute in (a checkpoint's own fp8, stated)
  long replicas = 1;
  std::string router;  // fleets only
  double imbalance = 1;
  std::optional<std::string> engine, engine_version;  // with --engine
  long requests = 0;
  double duration = 0;
  const serve::SimResult* expected = nullptr;  // the expected run: its counts
  serve::Summary e, b;                         // expected, and the bound's
  std::string bound_admission;                 // "grow", "reserve" or "grow and reserve"
  std::optional<PoolFigures> pools;            // --disaggregate only
  std::optional<SpeculativeFigures> speculative;  // --speculative only
  std::span<const std::string> warnings;          // the run's, in words
};

// Which rows carry a column: every row, a fleet's (--replicas > 1), one with --engine, a
// disaggregated run's (--disaggregate), or a speculative run's (--speculative). A row without them
// is the row it was before fleets, engines, pools and speculation.
enum class SimulateColumnScope { always, fleet, engine, pools, speculative };

struct SimulateColumn {
  std::string_view name;  // CSV header and JSON key alike, units in the name
  SimulateColumnScope scope;
  report::Cell (*get)(const SimulateFigures&);
};

[[nodiscard]] std::span<const SimulateColumn> simulate_columns();
// The columns a row of this run carries, in order.
[[nodiscard]] std::vector<SimulateColumn> simulate_columns_for(bool fleet, bool engine, bool pools = false,
                                                              bool speculative = false);
// Every column name, for docs/outputs.md.
[[nodiscard]] std::vector<std::string_view> simulate_column_names();

// One run of `simulate` as each format reads it: a document (a table, Markdown, JSON with its
// envelope), or one row (CSV, JSON lines: the columns above, the warnings among them).
struct SimulateViews {
  nlohmann::ordered_json document;
  std::string table, markdown;
};

class SimulateRecord final : public report::Record {
 public:
  SimulateRecord(const SimulateFigures& f, std::vector<SimulateColumn> columns, const SimulateViews& views,
                 bool as_document)
      : f_(f), columns_(std::move(columns)), views_(views), as_document_(as_document) {}
  void append_csv(std::string& out) const override;
  [[nodiscard]] nlohmann::ordered_json json() const override;
  [[nodiscard]] std::vector<std::string> cells() const override { return {}; }
  [[nodiscard]] std::string view(bool markdown, const report::Columns&) const override {
    return markdown ? views_.markdown : views_.table;
  }

 private:
  const SimulateFigures& f_;
  std::vector<SimulateColumn> columns_;
  const SimulateViews& views_;
  bool as_document_;
};

// The CSV header of the columns given.
void append_simulate_csv_header(std::string& out, const std::vector<SimulateColumn>& columns);

}  // namespace roofline::cli
