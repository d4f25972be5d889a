#include "cli/plan_traffic.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "cli/command.hpp"
#include "cli/serve_flags.hpp"
#include "cli/trace_flag.hpp"
#include "io/input_error.hpp"
#include "planner/length_pools.hpp"

namespace roofline::cli {

using io::InputError;
using serve::LengthDistribution;

namespace {

// A distribution's form, as opposed to a count (which the workload's flags read and check).
bool distribution(const std::string& value) {
  return value.starts_with("lognormal:") || value.starts_with("uniform:") || value.starts_with("empirical:");
}

// A length flag for the simulation, or nothing for a count.
std::optional<LengthDistribution> lengths(const std::string& value, std::string_view flag, bool percentile) {
  if (!distribution(value)) return std::nullopt;
  if (!percentile) {
    throw InputError(fmt::format("--{}: `{}` is a distribution, and a steady plan is sized for one fixed length; add "
                                 "--percentile to simulate the distribution (the steady columns then price its mean), "
                                 "or give a count",
                                 flag, value));
  }
  return length_flag(value, flag);
}

// The mean as a count the steady plan takes: rounded, at least one token.
long mean_count(double mean) { return std::max(1L, std::lround(mean)); }

}  // namespace

void check_rate(double rate, std::string_view flag, std::string_view what) {
  const std::string who = what.empty() ? "" : fmt::format("{}: ", what);
  if (!(rate > 0)) throw InputError(fmt::format("--{}: {}must be positive, got {}", flag, who, rate));
  if (!(rate >= kMinRate)) throw InputError(fmt::format("--{}: {}at least {:g} requests/s, got {:g}", flag, who, kMinRate, rate));
  if (!(rate <= kMaxRate)) throw InputError(fmt::format("--{}: {}at most {:g} requests/s, got {:g}", flag, who, kMaxRate, rate));
}

PlanTraffic plan_traffic(const PlanTrafficFlags& f, const std::string& arrivals, double rate, bool percentile) {
  PlanTraffic t;
  t.rate = rate;
  t.arrivals_words = arrivals;
  const bool trace = has_extension(arrivals, ".csv");
  if (f.trace_rate && !trace) {
    throw InputError("--trace-rate: only with a trace (--arrivals FILE.csv); --rate sets the fleet's rate");
  }
  if (!trace) {
    t.prompt = lengths(f.prompt, "prompt", percentile);
    t.gen = lengths(f.gen, "gen", percentile);
    t.prompt_lengths = t.prompt ? describe(*t.prompt) : f.prompt;
    t.gen_lengths = t.gen ? describe(*t.gen) : f.gen;
    // A count is checked where the workload's flags are (plan_command.cpp); here it is only kept.
    if (t.prompt) t.prompt_tokens = mean_count(t.prompt->mean());
    if (t.gen) t.gen_tokens = mean_count(t.gen->mean());
    if (t.prompt || t.gen) t.mean_source = "the distributions' means";
    return t;
  }
  // A trace is simulated only: the --arrivals check in plan_command.cpp refuses it without
  // --percentile already; this says why where it is reached first.
  if (!percentile) throw InputError(fmt::format("--arrivals {}: a trace is simulated; add --percentile", arrivals));
  if (f.prompt_given || f.gen_given) {
    throw InputError(fmt::format("--arrivals {}: a trace gives the lengths; drop --{}", arrivals,
                                 f.prompt_given ? "prompt" : "gen"));
  }
  if (f.trace_rate && f.rate_given && *f.trace_rate != rate) {
    throw InputError(fmt::format("--trace-rate: {:g} against --rate {:g}; give one (either rescales the trace)",
                                 *f.trace_rate, rate));
  }
  const TraceFlag file = read_trace_flag(arrivals);
  const std::vector<io::TraceRow>& rows = file.rows;
  // The steady plan and the closed form price every prompt token; a trace's cached prefixes,
  // simulated, would size the fleet for less work than the steady columns say (3000 rows of 4096
  // + 64 tokens, 4000 cached: 4 replicas against 13), so they are refused, not simulated unsaid.
  for (const io::TraceRow& row : rows) {
    if (row.cached > 0) {
      throw InputError(fmt::format("--arrivals {}:{}: column `cached_tokens`: {} cached tokens; a plan prices every prompt "
                                   "token (its steady columns know no cache), so a trace's cached prefixes are not "
                                   "planned: drop the column (or zero it), or `simulate` the trace to see the cache",
                                   arrivals, row.line, row.cached));
    }
  }
  const double span = file.span();
  const std::optional<double> own_rate = file.own_rate();
  if (!own_rate) {
    throw InputError(fmt::format("--arrivals {}: no time between its first and last arrival: no rate to plan for",
                                 arrivals));
  }
  const double own = *own_rate;
  const std::optional<double> wanted = f.trace_rate ? f.trace_rate : f.rate_given ? std::optional<double>(rate) : std::nullopt;
  t.rate = wanted.value_or(own);
  // The flag that set the rate: a trace's own is its --arrivals.
  if (f.trace_rate) {
    check_rate(t.rate, "trace-rate");
  } else if (f.rate_given) {
    check_rate(t.rate, "rate");
  } else {
    check_rate(t.rate, "arrivals", fmt::format("{}'s own rate, {} requests over {:g} s", arrivals, rows.size(), span));
  }
  const double scale = own / t.rate;
  auto requests = std::make_shared<std::vector<serve::Request>>();
  requests->reserve(rows.size());
  double prompt = 0, gen = 0;
  for (const io::TraceRow& row : rows) {
    requests->push_back({file.rescaled(row, scale), row.prompt, row.output, row.cached});
    prompt += static_cast<double>(row.prompt);
    gen += static_cast<double>(row.output);
  }
  const auto n = static_cast<double>(rows.size());
  t.prompt_tokens = mean_count(prompt / n);
  t.gen_tokens = mean_count(gen / n);
  const double cv = planner::gap_cv(*requests);
  t.trace = std::move(requests);
  t.arrivals_words = wanted ? fmt::format("trace {}, its {:.4g} requests/s rescaled to {:g}", arrivals, own, t.rate)
                           : fmt::format("trace {} at its own {:.4g} requests/s", arrivals, own);
  t.closed_form_words = fmt::format(", its gaps' CV {:.2f} read by the closed form", cv);
  t.prompt_lengths = fmt::format("trace {} (mean {:.4g})", arrivals, prompt / n);
  t.gen_lengths = fmt::format("trace {} (mean {:.4g})", arrivals, gen / n);
  t.mean_source = fmt::format("the trace's means over its {} requests", rows.size());
  return t;
}

std::vector<serve::Request> pool_stream(const PlanTraffic& t, const serve::ArrivalProcess& arrivals, std::uint64_t seed) {
  if (t.trace) return *t.trace;
  const LengthDistribution fixed_prompt{LengthDistribution::Kind::fixed, static_cast<double>(t.prompt_tokens), 0};
  const LengthDistribution fixed_gen{LengthDistribution::Kind::fixed, static_cast<double>(t.gen_tokens), 0};
  const std::size_t n = planner::kPoolStreamRequests;
  std::vector<serve::Request> requests =
      serve::generate(arrivals, t.rate, std::numeric_limits<double>::infinity(), t.prompt.value_or(fixed_prompt),
                      t.gen.value_or(fixed_gen), 0, 1, seed, n - 1);
  requests.resize(std::min(requests.size(), n));
  return requests;
}

}  // namespace roofline::cli
