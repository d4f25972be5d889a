#pragma once
// `plan`'s traffic as typed: --prompt and --gen (a count; with --percentile also a distribution as
// `simulate` takes it: lognormal:MEAN:SIGMA, uniform:A:B, empirical:FILE[:COLUMN]), --arrivals
// (poisson, gamma:CV, or with --percentile a trace .csv) rescaled by --trace-rate or --rate, and
// --pools SPLIT. The steady plan is per fixed length: where the lengths vary, it and the closed
// form price their mean (the distribution's, or the trace's), and the output says which.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/traffic.hpp"

namespace roofline::cli {

// The flags as given. `prompt` and `gen`: the one value given (or the default), empty for a list
// (which the workload's flags refuse).
struct PlanTrafficFlags {
  std::string prompt, gen;
  bool prompt_given = false, gen_given = false, rate_given = false;
  std::optional<double> trace_rate;  // --trace-rate: a trace's arrivals rescaled to this rate
  std::optional<long> pools;         // --pools SPLIT: prompts <= SPLIT tokens to one pool, longer to another
};

struct PlanTraffic {
  // The lengths the steady plan (and the closed form) price: the means of distributions and
  // traces here, the fixed counts once the workload's flags have read them (plan_command.cpp).
  long prompt_tokens = 0, gen_tokens = 0;
  // Drawn by the checks where given as distributions.
  std::optional<serve::LengthDistribution> prompt, gen;
  // A trace's requests, arrivals from 0 rescaled to `rate`.
  std::shared_ptr<const std::vector<serve::Request>> trace;
  double rate = 0;             // the whole fleet's requests/s: --rate, or a trace's, rescaled or its own
  std::string arrivals_words;  // "gamma:4", or the trace and its rate
  std::string closed_form_words;  // a trace's: the CV of its gaps the closed form reads; else empty
  std::string prompt_lengths, gen_lengths;  // for people and the columns: "512", "log-normal mean 1024 sigma 0.8"
  // Where the steady and closed-form lengths come from, in words; empty for fixed lengths.
  std::string mean_source;
  [[nodiscard]] bool varies() const { return prompt || gen || trace; }
};

// A plan's rate, requests/s in all: above 0, at least kMinRate and at most kMaxRate, or an
// InputError naming `flag` (`what`, where given, says whose rate it is: a trace's own). Past a
// billion requests a second the rate is a typo, and replicas counted from it would not fit a
// count; below one request in 11 days the cost and energy of a token divide by almost nothing
// (10^-310 gave inf $/M tokens).
inline constexpr double kMinRate = 1e-6, kMaxRate = 1e9;
void check_rate(double rate, std::string_view flag, std::string_view what = "");

// Reads the flags for a plan with (`percentile`) or without a simulation, at --rate `rate`
// (`rate_given` when typed). InputError naming the flag: a distribution or a trace without
// --percentile, a trace beside --prompt or --gen, --trace-rate without a trace or against --rate.
[[nodiscard]] PlanTraffic plan_traffic(const PlanTrafficFlags& f, const std::string& arrivals, double rate,
                                       bool percentile);

// A long run of requests at `rate` for --pools to split: the trace itself, or kPoolStreamRequests
// drawn from the distributions under `arrivals` (poisson or gamma:CV) with `seed`.
[[nodiscard]] std::vector<serve::Request> pool_stream(const PlanTraffic& t, const serve::ArrivalProcess& arrivals,
                                                      std::uint64_t seed);

}  // namespace roofline::cli
