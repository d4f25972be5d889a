#include "planner/fleet_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "planner/refusal.hpp"
#include "planner/replica.hpp"
#include "serve/engine_defaults.hpp"
#include "serve/fleet.hpp"
#include "serve/summary.hpp"

namespace roofline::planner {

using namespace serve;

double check_steps(const SteadyPlan& s) {
  const double colocated = static_cast<double>(s.workload.gen_tokens) + 1;
  return s.plan.prefill_replicas > 0 ? colocated + 2 : colocated;
}

double steady_latency(const SteadyPlan& s) {
  return s.plan.ttft.value() + static_cast<double>(s.workload.gen_tokens) * s.plan.tpot.value();
}

namespace {
// Requests that span kCheckLatencies of one request's latency at the target's rate.
double spanning(const SteadyPlan& s, const LoadTarget& t) {
  return std::ceil(kCheckLatencies * steady_latency(s) * t.requests_per_s);
}
}  // namespace

double tail_check_count(double percentile) {
  // 10 × 100 / (100 − P), a whole count where P's decimals give one (99.9: 10 000, not the 10 001
  // that 100 − 99.9 = 0.0999999999999943 would round up to).
  const double exact = kTailRequests * 100 / (100 - percentile), whole = std::round(exact);
  return std::abs(exact - whole) <= 1e-9 * whole ? whole : std::ceil(exact);
}

double check_count(const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario) {
  const double steps = check_steps(s);
  const double most = std::max(kLeastCheckRequests, std::min(kMostCheckRequests, kFastCheckSteps / steps));
  const double count = std::clamp(t.requests_per_s * scenario.duration, kLeastCheckRequests, most);
  return std::max({count, spanning(s, t), tail_check_count(scenario.percentile)});
}

double least_check_count(const SteadyPlan& s, const LoadTarget& t, double percentile) {
  return std::max({kLeastCheckRequests, spanning(s, t), tail_check_count(percentile)});
}

void check_bounded(const SteadyPlan& s, const LoadTarget& t, double percentile) {
  if (!s.plan.feasible) return;
  const double least = kLeastCheckRequests * check_steps(s);
  if (least > kMaxCheckSteps) {
    // Whole numbers, unrounded: at the edge (--gen 4000: 20 005 000) three digits said "2e+07,
    // over the 2e+07".
    throw Refusal(fmt::format("--gen: a --percentile check simulates at least {:.0f} requests of {} output tokens, {:.0f} "
                              "steps each (its output tokens and its prefill{}): {:.0f} sequence-steps, over the {:.0f} a "
                              "check may take; lower --gen, or plan without --percentile",
                              kLeastCheckRequests, s.workload.gen_tokens, check_steps(s),
                              s.plan.prefill_replicas > 0 ? ", and two in the prefill pool" : "", least, kMaxCheckSteps));
  }
  if (const double n = tail_check_count(percentile), steps = n * check_steps(s); steps > kMaxCheckSteps) {
    // The highest percentile a check of this plan may measure, cut to three decimals (never up).
    const double most = std::floor(kMaxCheckSteps / check_steps(s));
    const double highest = std::floor(1000 * 100 * (1 - kTailRequests / most)) / 1000;
    throw Refusal(fmt::format(
        "--percentile: a P{} check needs at least {:.0f} requests, {:g} of them above its P{} (fewer, and the "
        "percentile is a few requests or the greatest alone), of {:.0f} steps each (output tokens and prefill): "
        "{:.3g} sequence-steps, over the {:g} a check may take; plan for P{:g} at most{}",
        percentile, n, kTailRequests, percentile, check_steps(s), steps, kMaxCheckSteps, highest,
        s.workload.gen_tokens > 1 ? ", or lower --gen" : ""));
  }
  if (const double n = spanning(s, t), steps = n * check_steps(s); steps > kMaxCheckSteps) {
    throw Refusal(fmt::format(
        "--rate: a --percentile check must span {:g} of one request's steady latency ({:.3g} s on {}) to see whether "
        "the fleet keeps up: {:g} requests at {:g} req/s, {:.3g} sequence-steps, over the {:g} a check may take; "
        "lower --rate (size a share of the traffic: the fleet scales with it), or plan without --percentile",
        kCheckLatencies, steady_latency(s), s.gpu->name, n, t.requests_per_s, steps, kMaxCheckSteps));
  }
}

double kept_up(const std::vector<Request>& requests, const std::vector<Outcome>& served) {
  if (requests.empty()) return 1;
  const double end = requests.back().arrival, half = end / 2;
  double arrived = 0, finished = 0;
  for (const Request& r : requests) arrived += r.arrival >= half ? 1 : 0;
  for (const Outcome& o : served) {
    const double done = requests[o.request].arrival + o.e2e;
    finished += done >= half && done <= end ? 1 : 0;
  }
  return arrived > 0 ? finished / arrived : 1;
}

double PercentilePoint::cliff_ttft() const { return behind() ? std::numeric_limits<double>::infinity() : ttft; }

ServerConfig check_server(const ModelSpec& m, const SteadyPlan& s, const PercentileScenario& scenario, long ranks,
                          bool colocated) {
  ServerSettings set;
  set.max_batch = (s.plan.batch + ranks - 1) / ranks;
  // The title says the plan's budget overrides the engine's: it checked at 8192, where Llama-3.1-8B
  // on an H100 at 512 + 256 tokens and batch 221 (the emitted 733) has a P99 TTFT of 58.7 ms, not
  // 71.9 ms.
  set.max_batched_tokens = colocated && scenario.engine ? step_token_budget(s.workload.prompt_tokens, set.max_batch)
                                                        : std::max(set.max_batched_tokens, s.workload.prompt_tokens);
  set.chunked_prefill = true;
  set.engine = scenario.engine;
  // What --emit sglang writes: --enable-mixed-chunk, but under data-parallel attention (launch/
  // sglang_launch.cpp), where SGLang's default runs its prefill steps apart.
  if (scenario.engine == serve::Engine::sglang) set.mixed_steps = !s.workload.dp_attention;
  set.given.max_batch = set.given.max_batched_tokens = true;
  set.seed = scenario.seed;
  ServerConfig config = assemble_replica(m, *s.gpu, s.workload, set).config;
  config.sample_every = 1e9;  // no samples: the plan reads percentiles only
  return config;
}

std::vector<Request> check_traffic(const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario,
                                   ServerConfig& config) {
  const auto n = static_cast<std::size_t>(check_count(s, t, scenario));
  std::vector<Request> requests;
  if (scenario.stream) {
    if (const double least = least_check_count(s, t, scenario.percentile);
        static_cast<double>(scenario.stream->size()) < least) {
      const double tail = tail_check_count(scenario.percentile);
      throw Refusal(fmt::format(
          "--{}: {} holds {} requests, fewer than the {:.0f} a --percentile check on {} needs (at least {:g}, "
          "{:g} steady latencies of a request, {:.3g} s each, of arrivals at {:.4g} req/s, and {:g} above the P{}: "
          "{:.0f}): a shorter window counts the last latency's arrivals as unfinished and rests a P{} on a handful "
          "of requests; give a longer {}{}",
          scenario.stream_flag, scenario.stream_words,
          scenario.stream->size(), least, s.gpu->name, kLeastCheckRequests, kCheckLatencies, steady_latency(s),
          t.requests_per_s, kTailRequests, scenario.percentile, tail, scenario.percentile,
          scenario.stream_flag == "pools" ? "stream or move the split" : "trace",
          least == tail && least > kLeastCheckRequests ? " (or a lower --percentile: its tail is the larger)"
          : least > kLeastCheckRequests                ? " (or a lower --rate: the latencies' span is the larger)"
                                                       : ""));
    }
    requests.assign(scenario.stream->begin(),
                    scenario.stream->begin() + static_cast<std::ptrdiff_t>(std::min(n, scenario.stream->size())));
  } else {
    const LengthDistribution fixed_prompt{LengthDistribution::Kind::fixed, static_cast<double>(s.workload.prompt_tokens), 0};
    const LengthDistribution fixed_gen{LengthDistribution::Kind::fixed, static_cast<double>(s.workload.gen_tokens), 0};
    // Exactly n arrivals: the draws stop past n - 1, however long they take.
    requests = generate(scenario.arrivals, t.requests_per_s, std::numeric_limits<double>::infinity(),
                        scenario.prompt.value_or(fixed_prompt), scenario.gen.value_or(fixed_gen), 0, config.block_tokens,
                        scenario.seed, n - 1);
    requests.resize(std::min(requests.size(), n));
  }
  // An engine that refuses a prompt past its token budget unchunked (TensorRT-LLM's max_num_tokens,
  // which the plan's script sets to its budget) would turn such a request away: simulate refuses
  // it (cli/serve_flags.cpp), and the check ran it alone in its step.
  if (scenario.engine && !config.chunked_prefill &&
      serve::engine_defaults(*scenario.engine, 0).unchunked == serve::UnchunkedLimit::prompt) {
    const auto longest = std::max_element(requests.begin(), requests.end(),
                                          [](const Request& a, const Request& b) { return a.prompt < b.prompt; });
    if (longest != requests.end() && longest->prompt > config.max_batched_tokens) {
      throw Refusal(fmt::format("--engine: {} rejects a prompt longer than its token budget without chunked prefill "
                                "(max_num_tokens {}, which the plan sets: a whole {}-token prompt beside a token for "
                                "each sequence), and the arrivals hold one of {} tokens; plan for vLLM or SGLang, "
                                "which chunk a long prompt",
                                serve::engine_defaults(*scenario.engine, 0).label, config.max_batched_tokens,
                                s.workload.prompt_tokens, longest->prompt));
    }
  }
  // The work limit counts each request's own steps: a prompt longer than the token budget takes
  // a chunk a step.
  const double extra = check_steps(s) - static_cast<double>(s.workload.gen_tokens);
  const auto budget = static_cast<double>(std::max(1L, config.max_batched_tokens));
  double steps = 0, output_steps = 0;
  for (const Request& r : requests) {
    steps += static_cast<double>(r.gen) + extra - 1 + std::ceil(static_cast<double>(r.prompt) / budget);
    output_steps += static_cast<double>(r.gen);
  }
  // check_bounded bounds the mean request; lengths that vary may draw a tail far past it.
  if (steps > kMaxCheckSteps) {
    // A stream not drawn is a trace (whole, or a pool's share of it): its lengths are its own.
    const std::string flag = scenario.stream && !scenario.drawn ? "arrivals"
                             : output_steps >= steps / 2           ? "gen"
                                                                   : "prompt";
    throw Refusal(fmt::format("--{}: a --percentile check's {} requests hold {:.3g} sequence-steps (their outputs and "
                              "prompt chunks), over the {:g} a check may take; lower --rate or --duration, or lengths "
                              "with a shorter tail",
                              flag, requests.size(), steps, kMaxCheckSteps));
  }
  config.max_rows = 2 * steps;
  return requests;
}

void scale_traffic(const std::vector<Request>& at_target, double target_rate, double rate, std::vector<Request>& into) {
  const double scale = target_rate / rate;
  into = at_target;
  for (Request& r : into) r.arrival *= scale;
}

CheckedRow::CheckedRow(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario)
    : target_(t), scenario_(scenario), cost_(m, *s.gpu, s.workload) {}

void CheckedRow::prepare(const ModelSpec& m, const SteadyPlan& s, bool colocated) {
  config_ = check_server(m, s, scenario_, cost_.ranks(), colocated);
  requests_ = check_traffic(s, target_, scenario_, config_);
}

const std::vector<Request>& CheckedRow::traffic_at(double rate) {
  ++checks_;
  if (rate == target_.requests_per_s) return requests_;
  scale_traffic(requests_, target_.requests_per_s, rate, scaled_);
  return scaled_;
}

FleetCheck::FleetCheck(const ModelSpec& m, const SteadyPlan& s, const LoadTarget& t, const PercentileScenario& scenario)
    : CheckedRow(m, s, t, scenario) {
  prepare(m, s, true);
}

long allowed_over(std::size_t n, double p) {
  if (n == 0) return std::numeric_limits<long>::max();
  const auto lo = static_cast<long>(std::floor(p / 100 * static_cast<double>(n - 1)));
  return static_cast<long>(n) - lo - 1;
}

PercentilePoint FleetCheck::at(long replicas, double rate, double ttft_over, double tpot_over) {
  const std::vector<Request>& requests = traffic_at(rate);
  LatencyCap cap;
  ServerConfig config = config_;
  if (std::isfinite(ttft_over) || std::isfinite(tpot_over)) {
    std::size_t decoding = 0;  // TPOT is over the requests of more than one output token
    for (const Request& r : requests) decoding += r.gen > 1 ? 1 : 0;
    cap = {ttft_over, tpot_over, allowed_over(requests.size(), scenario_.percentile), allowed_over(decoding, scenario_.percentile)};
    config.cap = &cap;
  }
  FleetResult f;
  try {
    f = simulate_fleet(requests, cost_, config, {static_cast<std::size_t>(replicas), scenario_.routing},
                       target_.sizing.bound ? Timing::bound : Timing::expected);
  } catch (const CapReached&) {
    constexpr double never = std::numeric_limits<double>::infinity();
    PercentilePoint stopped{never, never, 0, 0, 0};
    stopped.stopped = true;
    return stopped;
  }
  std::vector<double> ttft, tpot;
  ttft.reserve(f.all.served.size());
  tpot.reserve(f.all.served.size());
  for (const Outcome& o : f.all.served) {
    ttft.push_back(o.ttft);
    if (o.gen > 1) tpot.push_back(o.tpot);
  }
  std::sort(ttft.begin(), ttft.end());
  std::sort(tpot.begin(), tpot.end());
  return {percentile(ttft, scenario_.percentile), percentile(tpot, scenario_.percentile), f.all.dropped_too_long,
          f.all.dropped_no_room, kept_up(requests, f.all.served)};
}

}  // namespace roofline::planner
