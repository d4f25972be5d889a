#include "cli/requests_out.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>

#include "cli/atomic_file.hpp"
#include "cli/command.hpp"
#include "io/input_error.hpp"
#include "model/contract_error.hpp"
#include "report/report_columns.hpp"
#include "report/report_csv.hpp"
#include "report/report_json.hpp"
#include "report/sink.hpp"
#include "report/write_error.hpp"

namespace roofline::cli {

namespace {

using report::Cell;

// A request and what became of it: served (with its outcome) or dropped, and why.
struct RequestRow {
  std::size_t index = 0;
  const serve::Request* request = nullptr;
  const serve::Outcome* served = nullptr;
  const serve::Dropped* dropped = nullptr;
  std::uint32_t replica = 0;  // the fleet's replica the router sent it to (0 alone)
  double origin = 0;          // the run's start on the trace's clock (Traffic::origin)
};

// A time of the run on the clock its requests came from: a trace's own, so that a row is found
// by the arrival its trace gave it (the run itself counted from the first, cli/serve_flags.hpp).
double on_clock(const RequestRow& r, double run_s) { return r.origin + run_s; }

std::string_view status(const RequestRow& r) {
  if (r.served != nullptr) return "served";
  return r.dropped->too_long ? "dropped_longer_than_context" : "dropped_larger_than_cache";
}

// A served request's figure, or an empty cell for a dropped one.
Cell served(const RequestRow& r, double (*get)(const RequestRow&)) { return r.served ? Cell(get(r)) : Cell(); }

struct RequestColumn {
  std::string_view name;
  Cell (*get)(const RequestRow&);
};

const std::array kColumns = {
    RequestColumn{"request", [](const RequestRow& r) -> Cell { return static_cast<long>(r.index); }},
    RequestColumn{"arrival_s", [](const RequestRow& r) -> Cell { return on_clock(r, r.request->arrival); }},
    RequestColumn{"prompt_tokens", [](const RequestRow& r) -> Cell { return r.request->prompt; }},
    // What the prefix cache held as the request ran (a group's first on its replica found none),
    // which the run's cached_tokens sums; a dropped request's empty.
    RequestColumn{"cached_tokens", [](const RequestRow& r) -> Cell { return r.served ? Cell(r.served->cached) : Cell(); }},
    RequestColumn{"output_tokens", [](const RequestRow& r) -> Cell { return r.request->gen; }},
    RequestColumn{"status", [](const RequestRow& r) -> Cell { return status(r); }},
    RequestColumn{"first_step_s",
                  [](const RequestRow& r) {
                    return served(r, [](const RequestRow& x) { return on_clock(x, x.request->arrival + x.served->queue_wait); });
                  }},
    RequestColumn{"first_token_s",
                  [](const RequestRow& r) {
                    return served(r, [](const RequestRow& x) { return on_clock(x, x.request->arrival + x.served->ttft); });
                  }},
    RequestColumn{"finish_s",
                  [](const RequestRow& r) {
                    return served(r, [](const RequestRow& x) { return on_clock(x, x.request->arrival + x.served->e2e); });
                  }},
    RequestColumn{"ttft_s", [](const RequestRow& r) { return served(r, [](const RequestRow& x) { return x.served->ttft; }); }},
    // One output token has no gap to time: empty, never 0.
    RequestColumn{"tpot_s",
                  [](const RequestRow& r) -> Cell { return r.served && r.served->gen > 1 ? Cell(r.served->tpot) : Cell(); }},
    RequestColumn{"preemptions",
                  [](const RequestRow& r) -> Cell { return r.served ? Cell(r.served->preemptions) : Cell(); }},
    RequestColumn{"replica",
                  [](const RequestRow& r) -> Cell { return r.replica == kNoReplica ? Cell() : Cell(static_cast<long>(r.replica)); }},
};

void header(std::string& out) {
  report::append_csv_row_of(out, kColumns, [](const RequestColumn& c) { return Cell(c.name); });
}

class RequestRecord final : public report::Record {
 public:
  explicit RequestRecord(const RequestRow& r) : r_(r) {}
  void append_csv(std::string& out) const override {
    report::append_csv_row_of(out, kColumns, [this](const RequestColumn& c) { return c.get(r_); });
  }
  [[nodiscard]] nlohmann::ordered_json json() const override {
    nlohmann::ordered_json o;
    for (const RequestColumn& c : kColumns) o[std::string(c.name)] = report::cell_json(c.get(r_));
    return o;
  }
  [[nodiscard]] std::vector<std::string> cells() const override { return {}; }

 private:
  const RequestRow& r_;
};

std::optional<report::OutputFormat> format_of(const std::string& path) {
  if (has_extension(path, ".csv")) return report::OutputFormat::csv;
  if (has_extension(path, ".jsonl")) return report::OutputFormat::jsonl;
  return std::nullopt;
}

}  // namespace

void check_requests_out(const std::string& path) {
  if (!format_of(path)) {
    throw io::InputError(fmt::format("--requests-out {}: a .csv or a .jsonl file (the name says which)", path));
  }
}

void write_requests_out(const std::string& path, const std::vector<serve::Request>& requests, double origin,
                        const serve::SimResult& run, std::span<const std::uint32_t> replica_of, std::ostream& err) {
  check_requests_out(path);
  std::vector<RequestRow> rows(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    rows[i] = {i, &requests[i], nullptr, nullptr, replica_of.empty() ? 0 : replica_of[i], origin};
  }
  for (const serve::Outcome& o : run.served) rows[o.request].served = &o;
  for (const serve::Dropped& d : run.dropped) rows[d.request].dropped = &d;
  AtomicFile file(path, "requests-out", &err);
  const auto sink = report::make_sink(*format_of(path), report::Shape::rows, {"", {}, header}, file.stream());
  try {
    for (const RequestRow& r : rows) {
      // A request the run never reached (it arrived after the last step) has no row to write: the
      // simulation serves or drops every request, so this is a contract break, not an input.
      if (r.served == nullptr && r.dropped == nullptr) {
        throw ContractError(fmt::format("request {} was neither served nor dropped", r.index));
      }
      sink->add(RequestRecord(r));
    }
    sink->finish();
  } catch (const report::WriteError& e) {
    if (!e.target().empty()) throw;
    throw report::WriteError(fmt::format("--requests-out {}", path), e.reason());
  }
  file.commit();
}

}  // namespace roofline::cli
