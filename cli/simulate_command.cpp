#include "cli/simulate_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <optional>

#include "chart/chart.hpp"
#include "cli/pair_link_warning.hpp"
#include "cli/plot_command.hpp"
#include "cli/progress_bar.hpp"
#include "cli/requests_out.hpp"
#include "cli/simulate_columns.hpp"
#include "report/human_units.hpp"
#include "report/layout_label.hpp"
#include "report/output_format.hpp"
#include "report/sink.hpp"
#include "report/text_table.hpp"
#include "report/safe_text.hpp"
#include "report/warning_text.hpp"
#include "io/input_error.hpp"
#include "launch/launch_spec.hpp"
#include "model/kv_transfer.hpp"
#include "serve/disaggregated.hpp"
#include "serve/fleet.hpp"
#include "serve/kv_link.hpp"
#include "serve/speculative.hpp"

namespace roofline::cli {

using namespace serve;
using report::human;

namespace {

// Past this many sequence-steps a run takes seconds: worth a progress bar.
constexpr double kProgressSteps = 5e7;
// Past this a fleet is a typo: each replica holds its scheduler's state, a few hundred bytes idle.
constexpr long kMaxReplicas = 100'000;
// A router that reads loads advances every replica at every arrival: a few nanoseconds each when
// it has nothing to run (measured: 2 x 10^8 took 1.2 s a run), so 5 x 10^8 take some 3 s.
constexpr double kMaxLoadReads = 5e8;

// --disaggregate P:D's pools, and what the link carries for the traffic's mean prompt.
struct Pools {
  long prefill = 0, decode = 0;
  Workload prefill_layout;  // the prefill pool's (--prefill-tp), the decode pool's the replica's
  long prefill_kv_blocks = 0;
  Bytes prefill_kv_bytes{0};
  KvTransfer mean_prompt;
  long mean_prompt_tokens = 0;
  PoolFigures e, b;  // the expected run's, and the bound's handoff times
  bool reserve_at_arrival = false;  // the decode blocks reserved before the prefill (SGLang), not after it
};

// The run on the expected step time and the same traffic on the bound's.
struct Runs {
  SimResult expected, bound;
  // A fleet's (--replicas > 1) expected run: each request's replica, and the requests each got.
  std::vector<std::uint32_t> replica_of;
  std::vector<long> routed;  // disaggregated: the decode pool's, its prefill pool's below
  std::vector<long> prefill_routed;
  double imbalance = 1;
  Summary e, b;
  // Where the expected run (growing blocks) preempted, the bound replayed reserving whole lengths
  // at admission too: each of the bound's figures is the better of the two replays' (a thrashing
  // cache is no bound for throughput, a reserving queue none for latency).
  std::optional<SimResult> reserved_bound;
  std::optional<Pools> pools;  // --disaggregate
};

// "2:4" as 2 prefill and 4 decode replicas; InputError naming the flag.
std::optional<std::pair<long, long>> disaggregate_flag(const std::string& value) {
  if (value.empty()) return std::nullopt;
  const auto count = [](std::string_view text) -> std::optional<long> {
    long n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxReplicas) return std::nullopt;
    return n;
  };
  const std::size_t colon = value.find(':');
  const auto p = colon == std::string::npos ? std::nullopt : count(std::string_view(value).substr(0, colon));
  const auto d = colon == std::string::npos ? std::nullopt : count(std::string_view(value).substr(colon + 1));
  if (!p || !d) {
    throw io::InputError(fmt::format("--disaggregate: `{}` is not P:D, prefill and decode replicas each 1 to {}", value,
                                     kMaxReplicas));
  }
  return std::pair{*p, *d};
}

// A disaggregated run's handoff times and how busy its pools were.
PoolFigures pool_figures(const std::vector<Request>& requests, const DisaggregatedResult& d, long prefill_tp,
                         const std::string& router) {
  HandoffTimes t = handoff_times(requests, d);
  return {static_cast<long>(d.prefill_routed.size()), static_cast<long>(d.decode_routed.size()), prefill_tp, router,
          d.prefill_utilisation(), d.decode_utilisation(), d.link_utilisation(), distribution(std::move(t.prefill)),
          distribution(std::move(t.block_wait)), distribution(std::move(t.link_wait)), distribution(std::move(t.transfer)), distribution(std::move(t.decode_wait))};
}

// Each figure the better of two bounds: the lower latency, the higher rate.
Distribution better(const Distribution& a, const Distribution& b) {
  if (a.count == 0) return b;
  if (b.count == 0) return a;
  return {std::min(a.mean, b.mean), std::min(a.p50, b.p50), std::min(a.p90, b.p90), std::min(a.p99, b.p99),
          std::max(a.count, b.count)};
}

Summary better(const Summary& a, const Summary& b) {
  Summary s = a;
  s.ttft = better(a.ttft, b.ttft);
  s.tpot = better(a.tpot, b.tpot);
  s.itl = better(a.itl, b.itl);
  s.e2e = better(a.e2e, b.e2e);
  s.queue_wait = better(a.queue_wait, b.queue_wait);
  s.output_tokens_per_s = std::max(a.output_tokens_per_s, b.output_tokens_per_s);
  s.requests_per_s = std::max(a.requests_per_s, b.requests_per_s);
  if (a.goodput && b.goodput) s.goodput = std::max(*a.goodput, *b.goodput);
  return s;
}

// What speculation does to one sequence and where it stops paying, at the traffic's mean context.
struct SpeculationView {
  Speculation s;
  long context = 0;
  SpeculativeRate one;  // batch 1
  long max_batch = 0;  // the replica's: every rank's under data-parallel attention, at most what the cache holds
  bool cache_limited = false;  // max_batch is the cache's, below --max-batch
  std::vector<BatchRange> pays_expected, pays_bound;
};

SpeculationView speculation_view(const Replica& r, const Traffic& t, StepCost& cost, StepCost* draft) {
  SpeculationView v{*r.config.speculation, 0, {}, r.config.max_batch * cost.ranks(), false, {}, {}};
  double tokens = 0;
  for (const Request& q : t.requests) tokens += static_cast<double>(q.prompt) + static_cast<double>(q.gen) / 2;
  v.context = t.requests.empty() ? 1 : std::max(1L, std::lround(tokens / static_cast<double>(t.requests.size())));
  // Batches past what the cache holds at this context never run: searching them (every batch is
  // priced) took minutes and gigabytes at --max-batch 10^6.
  const long blocks = serve::blocks_for(r.config, v.context + v.s.k);
  const long held = std::max(1L, r.config.kv_blocks / blocks);
  if (held < v.max_batch) {
    v.max_batch = held;
    v.cache_limited = true;
  }
  const bool reads = r.config.draft_reads_target;
  v.one = speculative_rate(cost, draft, 1, v.context, v.s, reads);
  v.pays_expected = paying_batches(cost, draft, v.context, v.s, v.max_batch, Timing::expected, reads);
  v.pays_bound = paying_batches(cost, draft, v.context, v.s, v.max_batch, Timing::bound, reads);
  return v;
}

nlohmann::ordered_json json_of(const Replica& r, const SpeculationView& v) {
  const auto stop = [&](const std::vector<BatchRange>& pays) {
    const std::optional<long> b = stops_paying(pays, v.max_batch);
    return b ? nlohmann::ordered_json(*b) : nlohmann::ordered_json(nullptr);
  };
  const auto ranges = [](const std::vector<BatchRange>& pays) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const BatchRange& range : pays) a.push_back({range.from, range.to});
    return a;
  };
  return {{"k", v.s.k},
          {"accept", v.s.accept},
          {"draft", r.draft ? nlohmann::ordered_json(r.draft->model.name) : nlohmann::ordered_json(nullptr)},
          {"tokens_per_step", v.one.tokens},
          {"context", v.context},
          {"batch_1_tokens_per_s", {{"plain", v.one.plain_per_s(false)}, {"speculative", v.one.speculative_per_s(false)},
                                    {"plain_bound", v.one.plain_per_s(true)}, {"speculative_bound", v.one.speculative_per_s(true)}}},
          {"max_batch", v.max_batch},
          {"max_batch_held_by_cache", v.cache_limited},
          {"pays_at_batches", ranges(v.pays_expected)},
          {"pays_at_batches_bound", ranges(v.pays_bound)},
          {"stops_paying_at_batch", stop(v.pays_expected)},
          {"stops_paying_at_batch_bound", stop(v.pays_bound)}};
}

// The same figures as one row's columns (cli/simulate_columns.hpp): the ranges "1-37", "64".
SpeculativeFigures figures_of(const Replica& r, const SpeculationView& v) {
  const auto ranges = [](const std::vector<BatchRange>& pays) {
    std::vector<std::string> out;
    for (const BatchRange& range : pays) {
      out.push_back(range.from == range.to ? fmt::format("{}", range.from) : fmt::format("{}-{}", range.from, range.to));
    }
    return out;
  };
  SpeculativeFigures f;
  f.k = v.s.k;
  f.accept = v.s.accept;
  if (r.draft) f.draft = r.draft->model.name;
  f.tokens_per_step = v.one.tokens;
  f.context = v.context;
  f.batch_1_plain = v.one.plain_per_s(false);
  f.batch_1_speculative = v.one.speculative_per_s(false);
  f.batch_1_plain_bound = v.one.plain_per_s(true);
  f.batch_1_speculative_bound = v.one.speculative_per_s(true);
  f.max_batch = v.max_batch;
  f.max_batch_held_by_cache = v.cache_limited;
  f.pays_at_batches = ranges(v.pays_expected);
  f.pays_at_batches_bound = ranges(v.pays_bound);
  f.stops_paying_at_batch = stops_paying(v.pays_expected, v.max_batch);
  f.stops_paying_at_batch_bound = stops_paying(v.pays_bound, v.max_batch);
  return f;
}

// "pays at every batch up to 256", "pays at batches 1-37 and 64-80 of 256", "pays at no batch up to 256".
std::string where_it_pays(const std::vector<BatchRange>& pays, long max_batch) {
  if (pays.empty()) return fmt::format("pays at no batch up to {}", max_batch);
  if (pays.size() == 1 && pays[0].from == 1) {
    return pays[0].to == max_batch ? fmt::format("pays at every batch up to {}", max_batch)
                                   : fmt::format("stops paying from batch {}", pays[0].to + 1);
  }
  std::string list;
  for (std::size_t i = 0; i < pays.size(); ++i) {
    if (i > 0) list += i + 1 == pays.size() ? " and " : ", ";
    list += pays[i].from == pays[i].to ? fmt::format("{}", pays[i].from) : fmt::format("{}-{}", pays[i].from, pays[i].to);
  }
  return fmt::format("pays at batches {} of {}", list, max_batch);
}

std::string text_of(const Replica& r, const SpeculationView& v) {
  return fmt::format(
      "speculative: K {} at acceptance {:g}{}: {:.2f} tokens a verify step; one sequence at context {}: {} tokens/s "
      "against {} without ({} against {} on the bound); it {} (on the bound it {}){}",
      v.s.k, v.s.accept, r.draft ? " with draft " + r.draft->model.name : std::string(" (drafts cost nothing)"), v.one.tokens,
      v.context, report::three_digits(v.one.speculative_per_s(false)), report::three_digits(v.one.plain_per_s(false)),
      report::three_digits(v.one.speculative_per_s(true)), report::three_digits(v.one.plain_per_s(true)),
      where_it_pays(v.pays_expected, v.max_batch), where_it_pays(v.pays_bound, v.max_batch),
      v.cache_limited ? fmt::format(" (the most sequences the KV cache holds at context {})", v.context)
      : v.max_batch > r.config.max_batch ? " (batches of the replica, over its ranks)"
                                         : "");
}

// null when nothing was measured (TPOT of one-token requests): never a 0 that reads as instant.
nlohmann::ordered_json json_of(const Distribution& d) {
  if (d.count == 0) return nullptr;
  return {{"mean", d.mean}, {"p50", d.p50}, {"p90", d.p90}, {"p99", d.p99}};
}

// Which admissions the bound's figures came from: "grow", "reserve", or "grow and reserve", each
// figure the better of the two.
std::string bound_admission(const Replica& r, const Runs& runs) {
  return r.config.reserve_whole ? "reserve" : runs.reserved_bound ? "grow and reserve" : "grow";
}

nlohmann::ordered_json latencies(const Summary& s) {
  nlohmann::ordered_json j;
  j["ttft"] = json_of(s.ttft);
  j["tpot"] = json_of(s.tpot);
  j["e2e"] = json_of(s.e2e);
  j["queue_wait"] = json_of(s.queue_wait);
  j["itl"] = json_of(s.itl);
  j["output_tokens_per_s"] = s.output_tokens_per_s;
  j["requests_per_s"] = s.requests_per_s;
  j["goodput"] = s.goodput ? nlohmann::ordered_json(*s.goodput) : nlohmann::ordered_json(nullptr);
  j["goodput_unjudged"] = s.unjudged;
  return j;
}

// ServerConfig::unchunked_fit as the document names it.
std::string_view unchunked_fit_name(UnchunkedFit f) {
  switch (f) {
    case UnchunkedFit::alone: return "alone";
    case UnchunkedFit::skip: return "skip";
    case UnchunkedFit::stop: return "stop";
  }
  return "alone";
}

// --engine's preset as the document states it: which engine and version, where its defaults are
// documented, the defaults themselves and the flags given over them.
nlohmann::ordered_json json_of(const EnginePreset& p) {
  const EngineDefaults& d = p.defaults;
  return {{"name", engine_name(d.engine)},
          {"version", d.label},
          {"source", d.source},
          {"defaults",
           {{"max_batch", d.max_batch},
            {"max_batched_tokens", d.max_batched_tokens},
            {"chunked_prefill", d.chunked_prefill},
            {"block_tokens", d.block_tokens},
            {"admission", d.preemption == Preemption::none ? "reserve" : "grow"},
            {"preemption", d.preemption == Preemption::none ? "none" : "recompute"},
            {"queue_order", d.queue_order},
            {"prefix_cache", d.prefix_cache},
            {"mixed_steps", d.mixed_steps},
            {"unchunked_fit", unchunked_fit_name(d.unchunked_fit)}}},
          {"overrides", p.overrides},
          // The memory its cache was given: the engine's own rule, or the --reserve given in its place.
          {"memory", p.memory ? nlohmann::ordered_json{{"rule", p.memory->rule},
                                                       {"reserve", p.memory->reserve_fraction},
                                                       {"reserve_given", p.memory->reserve_given}}
                              : nlohmann::ordered_json(nullptr)}};
}

// The JSON document, without its envelope (the sink adds it).
nlohmann::ordered_json json_document(const SimulateArgs& a, const Replica& r, const Traffic& t, const Runs& runs,
                                     const std::optional<SpeculationView>& spec) {
  nlohmann::ordered_json j;
  j["model"] = r.point.model.name;
  j["gpu"] = r.point.gpu.name;
  j["tp"] = r.point.workload.tp;
  j["ep"] = r.point.workload.ep;
  j["dp_attention"] = r.point.workload.dp_attention;
  j["compute"] = name(r.point.workload.precision.compute);
  j["server"] = {{"max_batch", r.config.max_batch},           {"max_batched_tokens", r.config.max_batched_tokens},
                 {"chunked_prefill", r.config.chunked_prefill}, {"block_tokens", r.config.block_tokens},
                 {"kv_blocks", r.config.kv_blocks},           {"kv_bytes", r.cache.free.value()},
                 {"admission", r.config.reserve_whole ? "reserve" : "grow"},
                 {"mixed_steps", r.config.mixed_steps},
                 {"unchunked_fit", unchunked_fit_name(r.config.unchunked_fit)},
                 {"cache_step_tokens", r.cache.step_tokens}};
  // Only with --engine: a document without one is as it was before engines.
  if (r.engine) j["engine"] = json_of(*r.engine);
  j["traffic"] = {{"description", t.description}, {"requests", t.requests.size()}, {"duration", t.duration}};
  // Only for a fleet: one replica's document is as it was before fleets.
  if (a.replicas > 1) {
    j["fleet"] = {{"replicas", a.replicas}, {"router", a.router}, {"requests_per_replica", runs.routed},
                  {"imbalance", runs.imbalance}};
  }
  // Only for --disaggregate: a colocated document is as it was before pools.
  if (runs.pools) {
    const Pools& p = *runs.pools;
    const auto handoffs = [](const PoolFigures& f) {
      return nlohmann::ordered_json{{"prefill", json_of(f.prefill)},
                                    {"block_wait", json_of(f.block_wait)},
                                    {"link_wait", json_of(f.link_wait)},
                                    {"transfer", json_of(f.transfer)},
                                    {"decode_wait", json_of(f.decode_wait)}};
    };
    const auto layout = [](const Workload& w, long blocks, Bytes bytes) {
      return nlohmann::ordered_json{{"tp", w.tp},           {"pp", w.pp},           {"ep", w.ep},
                                    {"dp_attention", w.dp_attention}, {"kv_blocks", blocks}, {"kv_bytes", bytes.value()}};
    };
    j["disaggregated"] = {{"prefill_replicas", p.prefill},
                          {"decode_replicas", p.decode},
                          {"prefill_layout", layout(p.prefill_layout, p.prefill_kv_blocks, p.prefill_kv_bytes)},
                          {"decode_layout", layout(r.point.workload, r.config.kv_blocks, r.cache.free)},
                          {"router", a.router},
                          {"link", p.mean_prompt.network ? "network" : "interconnect"},
                          {"decode_blocks_reserved", p.reserve_at_arrival ? "at_arrival" : "after_prefill"},
                          {"mean_prompt_tokens", p.mean_prompt_tokens},
                          {"kv_bytes_mean_prompt", p.mean_prompt.bytes ? p.mean_prompt.bytes->value() : 0.0},
                          {"kv_transfer_mean_prompt_s", p.mean_prompt.time ? p.mean_prompt.time->value() : 0.0},
                          {"requests_per_prefill_replica", runs.prefill_routed},
                          {"requests_per_decode_replica", runs.routed},
                          {"busy", {{"prefill", p.e.prefill_busy}, {"decode", p.e.decode_busy}, {"link", p.e.link_busy}}},
                          {"handoffs", handoffs(p.e)},
                          {"bound_handoffs", handoffs(p.b)}};
  }
  j["timing"] = "expected";
  j["served"] = runs.e.served;
  j["dropped"] = runs.e.dropped;
  j["dropped_too_long"] = runs.expected.dropped_too_long;
  j["dropped_no_room"] = runs.expected.dropped_no_room;
  j["preemptions"] = runs.expected.preemptions;
  j["recomputed_tokens"] = runs.expected.recomputed_tokens;
  j["cached_tokens"] = runs.expected.cached_tokens;
  j["steps"] = runs.expected.steps;
  j.update(latencies(runs.e));
  j["mean_running"] = runs.e.mean_running;
  j["peak_running"] = runs.e.peak_running;
  j["peak_kv_share"] = runs.e.peak_kv_share;
  j["bound"] = latencies(runs.b);
  j["bound"]["admission"] = bound_admission(r, runs);
  j["speculative"] = spec ? json_of(r, *spec) : nlohmann::ordered_json(nullptr);
  j["warnings"] = r.warnings;
  return j;
}

// "fleet: 8 replicas behind a random router, …; 2311 to 2540 requests a replica (mean 2420.8; the
// most over the mean 1.049)".
std::string fleet_line(const SimulateArgs& a, const Runs& runs) {
  const auto [least, most] = std::minmax_element(runs.routed.begin(), runs.routed.end());
  const double mean = static_cast<double>(std::accumulate(runs.routed.begin(), runs.routed.end(), 0L)) /
                      static_cast<double>(runs.routed.size());
  return fmt::format("fleet: {} replicas behind a {} router, each with its own queue and KV cache; {} to {} requests "
                     "a replica (mean {:.1f}; the most over the mean {:.3f})",
                     a.replicas, a.router, *least, *most, mean, runs.imbalance);
}

// The pair rule's placement where it is not the whole fleet's (model/kv_transfer.hpp): the link is
// priced as each prefill replica paired with a decode replica in one domain, which a fleet spanning
// domains keeps only where its router pairs within them. The fleet's GPUs where it spans domains.
std::optional<long> fleet_past_domain(const GpuSpec& g, const Pools& p, int decode_gpus) {
  if (!g.interconnect || p.mean_prompt.network) return std::nullopt;
  const long fleet = p.prefill * gpus(p.prefill_layout) + p.decode * decode_gpus;
  if (fleet <= g.interconnect->domain) return std::nullopt;
  return fleet;
}

std::string pair_words(const GpuSpec& g, const Pools& p, int decode_gpus) {
  const std::optional<long> fleet = fleet_past_domain(g, p, decode_gpus);
  if (!fleet) return "";
  return fmt::format(", priced as a prefill and a decode replica paired in one {}-GPU domain: the fleet's {} GPUs span "
                     "more than one, and a pair across domains would send {}",
                     g.interconnect->domain, *fleet, g.network ? "over the network" : "between domains (no network named)");
}

// The pools, their routers and how the requests spread over them; then the link and how busy
// each pool was.
std::vector<std::string> pool_lines(const SimulateArgs& a, const Replica& r, const Runs& runs) {
  const Pools& p = *runs.pools;
  const auto spread = [](const std::vector<long>& v) {
    const auto [least, most] = std::minmax_element(v.begin(), v.end());
    return *least == *most ? fmt::format("{}", *least) : fmt::format("{} to {}", *least, *most);
  };
  // A decode replica holds no prefix group (serve/disaggregated.hpp): prefix-affinity routes the
  // decode pool's requests as it routes a request of none, least-loaded.
  const std::string routers =
      a.router == name(Routing::prefix_affinity)
          ? fmt::format("the prefill pool behind a {} router and the decode pool behind a least-loaded one (a decode "
                        "replica holds no prefix group: its cache arrives over the link)",
                        a.router)
          : fmt::format("each pool behind a {} router", a.router);
  return {fmt::format("disaggregated: {} prefill replicas (prompts only, each ending with its first token) and {} decode "
                      "replicas, {}, picking at arrival, each replica with its own queue and KV cache; {} requests a "
                      "prefill replica, {} a decode replica",
                      p.prefill, p.decode, routers, spread(runs.prefill_routed), spread(runs.routed)),
          fmt::format("layouts: a prefill replica {}, KV cache {} blocks ({}){}; a decode replica {}, {} blocks ({})",
                      report::layout_label(p.prefill_layout), p.prefill_kv_blocks, human(p.prefill_kv_bytes),
                      p.prefill_layout.tp != r.point.workload.tp ? " (--prefill-tp: the cache resharded on the link)" : "",
                      report::layout_label(r.point.workload), r.config.kv_blocks, human(r.cache.free)),
          fmt::format("link: each prompt's KV cache crosses the {} once its prefill ends and its decode replica has "
                      "reserved its blocks ({}), {} (the mean prompt's {} tokens: {} in {}{}); busy: the prefill pool "
                      "{:.1f}%, the decode pool {:.1f}%, a prefill replica's link{} {:.1f}% of the run",
                      p.mean_prompt.network ? "network" : "interconnect",
                      p.reserve_at_arrival ? "at its arrival, first come first served, before its prefill: SGLang's order"
                                           : "first come first served, as vLLM and TensorRT-LLM do",
                      // Data-parallel attention: one rank holds a request's whole cache (docs/layouts.md).
                      r.point.workload.dp_attention && r.point.workload.tp > 1
                          ? fmt::format("the whole cache from the rank holding it over that rank's own link, a "
                                        "replica's {} ranks sending {} at once, one each",
                                        r.point.workload.tp, r.point.workload.tp)
                          : std::string("each GPU's shard over its own link, one cache at a time each way"),
                      p.mean_prompt_tokens,
                      human(p.mean_prompt.bytes.value_or(Bytes(0))), human(p.mean_prompt.time.value_or(Seconds(0))),
                      pair_words(r.point.gpu, p, gpus(r.point.workload)), 100 * p.e.prefill_busy,
                      100 * p.e.decode_busy, r.point.workload.dp_attention && r.point.workload.tp > 1 ? "s" : "",
                      100 * p.e.link_busy)};
}

// How a step fills beside the running decodes, where it is not the simulator's own rule.
std::string step_words(const ServerConfig& c) {
  if (!c.mixed_steps) return ", prefill steps apart from decode steps (the decodes wait)";
  if (c.chunked_prefill) return "";
  switch (c.unchunked_fit) {
    case UnchunkedFit::alone: return "";
    case UnchunkedFit::skip: return ", a prompt past the budget's rest passed over for later ones";
    case UnchunkedFit::stop: return ", a prompt past the budget's rest waits with those behind it";
  }
  return "";
}

// "engine: vLLM 0.11 defaults (URL): ...; overrides: --max-batch 64" under the server line, which
// holds the values run.
std::string engine_line(const EnginePreset& p) {
  const EngineDefaults& d = p.defaults;
  const std::string batch = d.batch_from_cache
                                ? fmt::format("max batch from the cache (at least {}, at most 4096)", d.max_batch)
                                : fmt::format("max batch {}", d.max_batch);
  return fmt::format("engine: {} defaults ({}): {}, {}{} tokens a step, {}, blocks of {} tokens, {}, {} "
                     "queue, prefix cache {} (its hits as --prefix-hit and --prefix-groups give them); {}",
                     d.label, d.source, d.chunked_prefill ? "chunked prefills" : "whole prefills",
                     d.mixed_steps ? "" : "prefill steps apart from decode steps (no --enable-mixed-chunk), ",
                     d.max_batched_tokens,
                     batch, d.block_tokens,
                     d.preemption == Preemption::none ? "whole lengths reserved at admission (never preempted)"
                                                      : "preempted by recompute, the latest admitted first",
                     d.queue_order, d.prefix_cache ? "on" : "off",
                     p.overrides.empty() ? std::string("no flag overrides them")
                                         : fmt::format("overridden by {}", fmt::join(p.overrides, ", "))) +
         (p.memory ? fmt::format("; memory: {}", p.memory->rule) : std::string());
}

// The lines above the latencies: the replica or fleet, its server, engine and traffic, and what
// became of the requests.
std::vector<std::string> head_lines(const SimulateArgs& a, const Replica& r, const Traffic& t, const Runs& runs) {
  const ServerConfig& c = r.config;
  const bool fleet = a.replicas > 1;
  std::vector<std::string> lines;
  const std::string replicas = runs.pools ? fmt::format("{} prefill and {} decode replicas", runs.pools->prefill,
                                                        runs.pools->decode)
                               : fleet    ? fmt::format("{} replicas", a.replicas)
                                          : "one replica";
  lines.push_back(report::terminal_text(fmt::format("{} on {}, {}: {}, continuous batching", r.point.model.name,
                                                    r.point.gpu.name, report::layout_label(r.point.workload), replicas),
                                        false));
  if (fleet) lines.push_back(fleet_line(a, runs));
  if (runs.pools) {
    for (std::string& line : pool_lines(a, r, runs)) lines.push_back(std::move(line));
  }
  const int ranks = attention_ranks(r.point.workload);
  const long step = r.cache.step_tokens;
  lines.push_back(fmt::format("server: {}max batch {}, {} tokens a step, {} prefills{}; KV cache {} blocks of {} tokens ({}{}){}",
                              ranks > 1 ? fmt::format("{} attention ranks, each: ", ranks) : "", c.max_batch,
                              c.max_batched_tokens, c.chunked_prefill ? "chunked" : "whole", step_words(c),
                              c.kv_blocks, c.block_tokens, human(r.cache.free),
                              ranks > 1 ? fmt::format(", {} blocks a rank", c.kv_blocks / ranks) : "",
                              step > c.max_batched_tokens
                                  ? fmt::format(", beside the activations of the longest prompt's step ({} tokens, whole)", step)
                                  : ""));
  if (r.engine) lines.push_back(engine_line(*r.engine));
  lines.push_back(report::terminal_text("traffic: " + t.description, false));
  lines.push_back(fmt::format("served {}, dropped {} ({} longer than the context, {} larger than the cache); {} preemptions, "
                              "{:.0f} tokens recomputed, {:.0f} prompt tokens from the prefix cache",
                              runs.e.served, runs.e.dropped, runs.expected.dropped_too_long, runs.expected.dropped_no_room,
                              runs.expected.preemptions, runs.expected.recomputed_tokens, runs.expected.cached_tokens));
  return lines;
}

// What the latencies are, and the bound's two replays when there were two.
std::vector<std::string> latency_notes(const Runs& runs) {
  std::vector<std::string> lines{"latencies on the expected step time (what a server sees); on the roofline bound beside (the same arrivals "
      "at bound step times: below the expected run on the whole, not in every percentile)"};
  if (runs.pools) {
    lines.emplace_back(
        runs.pools->reserve_at_arrival
            ? "TTFT is to the first token the decode replica streams, as Dynamo, llm-d and SGLang return the decode "
              "worker's stream: the wait for decode blocks (reserved at the arrival, before the prefill, as SGLang's decode "
              "server does), the prefill's queue and compute, the link, the decode replica's wait and its step; queue wait "
              "is the arrival to the first prefill step, the wait for decode blocks in it; TPOT and ITL the decode "
              "replica's; the link's time is the same in both runs"
            : "TTFT is to the first token the decode replica streams, as Dynamo, llm-d and SGLang return the decode "
              "worker's stream: the prefill's queue and compute, the wait for decode blocks (reserved once the prefill "
              "ends, as vLLM's and TensorRT-LLM's decode servers do), the link, the decode replica's wait and its step; "
              "queue wait is the prefill replica's; TPOT and ITL the decode replica's; the link's time is the same in "
              "both runs");
  }
  if (runs.reserved_bound) {
    lines.push_back(fmt::format("the bound is each figure's better of two replays, growing blocks and reserving each "
                                "request's whole length at admission: growing, the expected run preempted {} times",
                                runs.expected.preemptions));
  }
  return lines;
}

// The lines under the latencies: throughput, goodput, the batch and speculation.
std::vector<std::string> tail_lines(const SimulateArgs& a, const Replica& r, const Runs& runs, const Targets& goal,
                                    const std::optional<SpeculationView>& spec) {
  const bool fleet = a.replicas > 1 || runs.pools;
  std::vector<std::string> lines;
  lines.push_back(fmt::format("throughput: {} output tokens/s ({} on the bound), {} requests/s",
                              report::three_digits(runs.e.output_tokens_per_s), report::three_digits(runs.b.output_tokens_per_s),
                              report::three_digits(runs.e.requests_per_s)));
  const std::string unjudged =
      runs.e.unjudged > 0 ? fmt::format("; {} one-token requests have no TPOT and are not judged", runs.e.unjudged) : "";
  // (With a TTFT target too, a one-token request is judged on its TTFT alone.)
  if (runs.e.goodput) {
    lines.push_back(fmt::format("goodput: {:.1f}% of requests meet {}{}{} ({:.1f}% on the bound){}", 100 * *runs.e.goodput,
                                goal.ttft ? "TTFT <= " + human(Seconds(*goal.ttft)) : "", goal.ttft && goal.tpot ? " and " : "",
                                goal.tpot ? "TPOT <= " + human(Seconds(*goal.tpot)) : "", 100 * runs.b.goodput.value_or(0),
                                unjudged));
  } else if (goal.ttft || goal.tpot) {
    lines.push_back("goodput: - (every request made one token: none has a TPOT to judge)");
  }
  lines.push_back(fmt::format("batch: {:.1f} sequences running on average over time{}, {} at most; KV cache at most {:.1f}% "
                              "full; {} steps{}",
                              runs.e.mean_running, runs.pools ? " in a decode replica" : fleet ? " in a replica" : "",
                              runs.e.peak_running,
                              100 * runs.e.peak_kv_share, runs.expected.steps, fleet ? " over the replicas" : ""));
  if (spec) lines.push_back(report::terminal_text(text_of(r, *spec), false));
  return lines;
}

// The latency table's rows: a name, then mean, p50, p90 and p99, then the bound's p50 and p99.
std::vector<std::vector<std::string>> latency_rows(const Runs& runs) {
  const auto cell = [](const Distribution& x, double v) { return x.count == 0 ? std::string("-") : human(Seconds(v)); };
  const auto row = [&](std::string name, const Distribution& d, const Distribution& b) {
    return std::vector<std::string>{std::move(name), cell(d, d.mean), cell(d, d.p50), cell(d, d.p90), cell(d, d.p99),
                                    cell(b, b.p50), cell(b, b.p99)};
  };
  std::vector<std::vector<std::string>> rows{row("TTFT", runs.e.ttft, runs.b.ttft), row("TPOT", runs.e.tpot, runs.b.tpot),
                                             row("ITL (a gap)", runs.e.itl, runs.b.itl),
                                             row("end to end", runs.e.e2e, runs.b.e2e),
                                             row("queue wait", runs.e.queue_wait, runs.b.queue_wait)};
  if (runs.pools) {
    // Where the TTFT went: arrival to the prefill's end, its wait for decode blocks, its cache
    // waiting for the link, from the prefill's end to the landing, and the landing to the decode
    // replica's first step.
    const Pools& p = *runs.pools;
    rows.push_back(row("prefill", p.e.prefill, p.b.prefill));
    rows.push_back(row("block wait", p.e.block_wait, p.b.block_wait));
    rows.push_back(row("link wait", p.e.link_wait, p.b.link_wait));
    rows.push_back(row("transfer", p.e.transfer, p.b.transfer));
    rows.push_back(row("decode wait", p.e.decode_wait, p.b.decode_wait));
  }
  return rows;
}

std::string markdown_text(const SimulateArgs& a, const Replica& r, const Traffic& t, const Runs& runs, const Targets& goal,
                          const std::optional<SpeculationView>& spec) {
  const std::vector<std::string> head = head_lines(a, r, t, runs);
  // The title a heading, the facts a list, the latencies a GitHub table (its notes its title).
  std::string md = "## " + head.front() + "\n\n";
  for (std::size_t i = 1; i < head.size(); ++i) md += "- " + head[i] + "\n";
  md += "\n";
  std::string notes;
  for (const std::string& n : latency_notes(runs)) notes += (notes.empty() ? "" : "; ") + n;
  md += report::render_markdown({notes, {"", "mean", "p50", "p90", "p99", "bound p50", "bound p99"}, latency_rows(runs)});
  md += "\n";
  for (const std::string& line : tail_lines(a, r, runs, goal, spec)) md += "- " + line + "\n";
  return md;
}

std::string table_text(const SimulateArgs& a, const Replica& r, const Traffic& t, const Runs& runs, const Targets& goal,
                       const std::optional<SpeculationView>& spec) {
  std::string out;
  for (const std::string& line : head_lines(a, r, t, runs)) out += line + "\n";
  out += "\n";
  for (const std::string& line : latency_notes(runs)) out += line + "\n";
  out += fmt::format("{:<11} {:>10} {:>10} {:>10} {:>10}   {:>10} {:>10}\n", "", "mean", "p50", "p90", "p99",
                     "bound p50", "bound p99");
  for (const std::vector<std::string>& c : latency_rows(runs)) {
    out += fmt::format("{:<11} {:>10} {:>10} {:>10} {:>10}   {:>10} {:>10}\n", c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
  }
  out += "\n";
  for (const std::string& line : tail_lines(a, r, runs, goal, spec)) out += line + "\n";
  return out;
}

chart::Figure figure(const Replica& r, const SimResult& s, long replicas) {
  using namespace chart;
  Figure f;
  f.title = fmt::format("{} on {}: batch and KV cache over time", r.point.model.name, r.point.gpu.name);
  // A fleet's sequences are all its replicas', its cache the mean replica's.
  f.subtitle = replicas > 1 ? fmt::format("expected step times; {} replicas together", replicas) : "expected step times";
  Curve running{"running", {}, {{31, 119, 180}, 1.5}}, waiting{"waiting", {}, {{255, 127, 14}, 1.5}};
  Curve kv{replicas > 1 ? "KV cache held, a replica's on average" : "KV cache held", {}, {{44, 160, 44}, 1.5}};
  double top = 1, end = 1;
  for (const Sample& x : s.samples) {
    running.points.push_back({x.time, static_cast<double>(x.running)});
    waiting.points.push_back({x.time, static_cast<double>(x.waiting)});
    kv.points.push_back({x.time, 100 * x.kv_share});
    top = std::max({top, static_cast<double>(x.running), static_cast<double>(x.waiting)});
    end = std::max(end, x.time);
  }
  Panel batch{{"time", "s", Scale::linear, 0, end}, {"sequences", "", Scale::linear, 0, top * 1.05}, {}, {}, {running, waiting}, {}, {}};
  // The running count is the replica's: under data-parallel attention every rank's batch.
  const int ranks = attention_ranks(r.point.workload);
  const std::string rule = replicas > 1 ? "max batch, all replicas" : ranks > 1 ? "max batch, all ranks" : "max batch";
  batch.rules.push_back({rule, static_cast<double>(r.config.max_batch * ranks * replicas), false, {{120, 120, 120}, 1, true}});
  Panel cache{{"time", "s", Scale::linear, 0, end}, {"KV cache held", "%", Scale::linear, 0, 100}, {}, {}, {kv}, {}, {}};
  f.panels = {batch, cache};
  // A chart file is an output: what the point could not model is said under its subtitle too.
  for (const std::string& w : r.warnings) f.notes.push_back(std::string(report::warning_label()) + w);
  return f;
}

// Every format through the report sinks: a table, Markdown and JSON show the run as one
// document; CSV and JSON lines as one row of the summary's figures (cli/simulate_columns.hpp).
void write_report(const SimulateArgs& a, const Replica& r, const Traffic& t, const Runs& runs, const Targets& goal,
                  const std::optional<SpeculationView>& spec, report::OutputFormat format, std::ostream& out) {
  const bool row = format == report::OutputFormat::csv || format == report::OutputFormat::jsonl;
  SimulateFigures f{r.point.model.name, r.point.gpu.name, r.point.workload.tp, r.point.workload.ep,
                    r.point.workload.dp_attention, name(r.point.workload.precision.compute), a.replicas, a.router,
                    runs.imbalance, std::nullopt, std::nullopt,
                    static_cast<long>(t.requests.size()), t.duration, &runs.expected, runs.e, runs.b,
                    bound_admission(r, runs), std::nullopt, std::nullopt, r.warnings};
  if (r.engine) {
    f.engine = std::string(engine_name(r.engine->defaults.engine));
    f.engine_version = std::string(r.engine->defaults.label);
  }
  if (runs.pools) f.pools = runs.pools->e;
  if (spec) f.speculative = figures_of(r, *spec);
  SimulateViews views;
  // Only the format asked for is built: the others cost little, but a row needs no table.
  if (format == report::OutputFormat::json) views.document = json_document(a, r, t, runs, spec);
  if (format == report::OutputFormat::table) views.table = table_text(a, r, t, runs, goal, spec);
  if (format == report::OutputFormat::markdown) views.markdown = markdown_text(a, r, t, runs, goal, spec);
  std::vector<SimulateColumn> columns = simulate_columns_for(a.replicas > 1, r.engine.has_value(), runs.pools.has_value(),
                                                         spec.has_value());
  const auto header = [columns](std::string& s) { append_simulate_csv_header(s, columns); };
  const auto sink = report::make_sink(format, row ? report::Shape::rows : report::Shape::document, {"", {}, header}, out);
  sink->add(SimulateRecord(f, std::move(columns), views, !row));
  sink->finish();
}

// --prefill-tp's pool: the replica at that tp, refused naming the flag where it cannot be
// (no room for the weights, a tp the model's heads do not divide into, ...).
struct PrefillReplica {
  Workload layout;
  long kv_blocks = 0;
  Bytes kv_bytes{0};
  std::vector<std::pair<long, double>> limited_layers;  // ServerConfig::limited_layers, at its layout
};

// --engine's memory rule where --reserve was not given (docs/engines.md, "Memory"): the replica
// assembled with nothing held back finds the layout's weights and activations and the engine's
// token budget, planner::engine_memory the --reserve that leaves it the engine's own cache, and the
// replica is assembled again at that reserve. A --reserve given wins, and is said in its place.
// `longest`: unchunked, the longest prompt served, whose step the cache is sized beside.
Replica engine_replica(ServeFlags flags, bool reserve_given, std::string_view command, long longest = 0) {
  if (flags.engine.empty()) return replica(flags, command, longest);
  if (reserve_given) {
    Replica r = replica(flags, command, longest);
    const double given = r.point.workload.reserve_fraction;
    r.engine->memory = planner::EngineMemoryTaken{
        fmt::format("--reserve {:g} given: {:g} of the memory for the weights, activations and cache, in place of "
                    "{}'s own rule",
                    given, 1 - given, r.engine->defaults.label),
        given, true};
    return r;
  }
  flags.workload.reserve = {0};
  const Replica bare = replica(flags, command, longest);
  // What the engine cannot run at all is said before its memory (TensorRT-LLM on an AMD GPU).
  const std::string_view engine = engine_name(bare.engine->defaults.engine);
  if (auto why = launch::layout_refusal(*launch::engine_named(engine), bare.point.gpu, bare.point.workload)) {
    throw io::InputError(fmt::format("--engine {}: {}", engine, *why));
  }
  const planner::EngineMemory memory =
      planner::engine_memory(bare.engine->defaults, bare.point.model, bare.point.gpu, bare.point.workload, bare.config,
                             bare.draft, bare.cache.step_tokens);
  flags.workload.reserve = {memory.reserve_fraction};
  Replica r = replica(flags, command, longest);
  r.engine->memory = planner::EngineMemoryTaken{memory.rule, memory.reserve_fraction, false};
  return r;
}

PrefillReplica prefill_replica(const ServeFlags& serve, bool reserve_given, long prefill_tp, const Replica& decode,
                               long longest) {
  if (prefill_tp < 1 || prefill_tp > 1024) {
    throw io::InputError(fmt::format("--prefill-tp: must be 1 to 1024, got {}", prefill_tp));
  }
  if (decode.point.workload.dp_attention) {
    throw io::InputError("--prefill-tp: not modelled with --dp-attention (the cache would be resharded between "
                         "data-parallel attention ranks); drop one of them");
  }
  if (decode.point.workload.pp > 1) {
    throw io::InputError("--prefill-tp: not modelled with --pp above 1; drop one of them");
  }
  ServeFlags flags = serve;
  flags.workload.tp = {std::to_string(prefill_tp)};
  try {
    const Replica p = engine_replica(flags, reserve_given, "simulate", longest);
    return {p.point.workload, p.config.kv_blocks, p.cache.free, p.config.limited_layers};
  } catch (const io::InputError& e) {
    throw io::InputError(fmt::format("--prefill-tp {}: the prefill pool's replica: {}", prefill_tp, e.what()));
  } catch (const std::invalid_argument& e) {  // planner::Refusal: a spec refused, exit 2 as well
    throw io::InputError(fmt::format("--prefill-tp {}: the prefill pool's replica: {}", prefill_tp, e.what()));
  }
}

}  // namespace

void add_simulate_options(Options& o, SimulateArgs& a) {
  add_serve_options(o, a.serve);
  // --reserve is declared (cli/workload_options.cpp, default 0.1) without a way to tell a value
  // given from its default, and --engine takes the engine's own memory rule only where none was
  // given: the list is emptied once --help has its default, so that it is empty after parsing
  // exactly when --reserve was not given (run_simulate puts the default back).
  a.serve.workload.reserve.clear();
  o.add("--plot", a.plot, "a .svg or .png of the batch and the KV cache over time").writes_file();
  o.add("--requests-out", a.requests_out,
        "a .csv or .jsonl of the expected run, a row a request: arrival, first step and token, finish, TTFT, TPOT, "
        "tokens, preemptions, or why it was dropped, and its replica")
      .writes_file();
  o.add("--format,-f", a.format, "table, markdown, csv, json or jsonl (a row of the summary's figures)")
      .one_of(report::output_format_names())
      .show_default();
  o.add("--replicas", a.replicas,
        "identical replicas behind a router, each with its own waiting queue, KV cache and scheduler; --rate is the "
        "fleet's")
      .show_default();
  o.add("--router", a.router,
        "how the router picks a replica for each arrival: round-robin; random (from --seed); least-loaded (fewest "
        "waiting and running then, ties in turn); prefix-affinity (a --prefix-groups group to the replica it "
        "hashes to, a request of none least-loaded); kv-aware (NVIDIA Dynamo's KV router: the fewest prompt blocks in "
        "prefill and held, this request's less its cached prefix there, ties in turn)")
      .one_of({kRoutingNames.begin(), kRoutingNames.end()})
      .show_default();
  o.add("--disaggregate", a.disaggregate,
        "P:D: P prefill replicas and D decode replicas, each pool behind --router, each prompt's KV cache crossing "
        "the link between them (docs/capacity-planning.md); TTFT is to the decode replica's first token");
  o.add("--prefill-tp", a.prefill_tp,
        "with --disaggregate: the prefill pool's tensor parallelism (--tp is the decode pool's); the cache is "
        "resharded on the link");
}

void run_simulate(const SimulateArgs& args, std::ostream& out, std::ostream& err) {
  // --reserve given, or left to its default (emptied by add_simulate_options).
  SimulateArgs a = args;
  const bool reserve_given = !a.serve.workload.reserve.empty();
  if (!reserve_given) a.serve.workload.reserve = WorkloadFlags{}.reserve;
  if (!a.requests_out.empty()) check_requests_out(a.requests_out);
  if (a.replicas < 1 || a.replicas > kMaxReplicas) {
    throw io::InputError(fmt::format("--replicas: must be 1 to {}, got {}", kMaxReplicas, a.replicas));
  }
  const Routing routing = *routing_named(a.router);  // CLI11 held it to the names
  const auto pools = disaggregate_flag(a.disaggregate);
  // As plan refuses it: with no groups every request would go least-loaded, under another name.
  if (routing == Routing::prefix_affinity && a.serve.prefix_groups == 0 && (a.replicas > 1 || pools)) {
    throw io::InputError("--router: prefix-affinity routes the requests of a prefix group to one replica, and this "
                         "traffic has none (every request would go least-loaded); give --prefix-groups N, or --router "
                         "least-loaded");
  }
  if (pools) {
    if (a.replicas != 1) {
      throw io::InputError("--replicas: a disaggregated fleet's replicas are --disaggregate P:D's; drop --replicas");
    }
    if (!a.serve.speculative.empty()) {
      throw io::InputError("--speculative: not modelled with --disaggregate (the draft's state would cross the link "
                           "too); drop one of them");
    }
    if (!a.plot.empty()) throw io::InputError("--plot: not drawn for --disaggregate's two pools; drop one of them");
  } else if (a.prefill_tp != 0) {
    throw io::InputError("--prefill-tp: the prefill pool's layout, only with --disaggregate P:D");
  }
  Replica r = engine_replica(a.serve, reserve_given, "simulate");
  const Traffic t = traffic(a.serve, a.serve.rate, r.config.block_tokens);
  // Unchunked, a prompt past the token budget runs whole in a step of its own: the cache is what
  // the memory leaves beside that step's activations (the block size, and so the traffic, alike),
  // the longest prompt's that the server does not drop.
  r = sized_beside_longest(std::move(r), t,
                           [&](long longest) { return engine_replica(a.serve, reserve_given, "simulate", longest); });
  const long longest = r.cache.step_tokens;
  check_engine(r, t);
  if (auto w = reserve_warning(r, t, a.serve, pools.has_value())) r.warnings.push_back(std::move(*w));
  const long replicas = pools ? pools->first + pools->second : a.replicas;
  const char* replicas_flag = pools ? "--disaggregate" : "--replicas";
  if (const double reads = static_cast<double>(replicas) * static_cast<double>(t.requests.size());
      replicas > 1 && make_router(routing, 1, 0)->reads_load() && reads > kMaxLoadReads) {
    throw io::InputError(fmt::format("{} and --router: a {} router reads all {} replicas' loads at each of {} "
                                     "arrivals, {:.3g} reads, over the {:g} a run may take; fewer replicas or "
                                     "requests, or --router round-robin or random",
                                     replicas_flag, a.router, replicas, t.requests.size(), reads, kMaxLoadReads));
  }
  // The link between the pools, priced from the model's cache and the GPU's interconnect.
  std::optional<DisaggregatedConfig> pool_config;
  std::optional<StepCost> prefill_cost;  // --prefill-tp's layout
  Runs runs;
  if (pools) {
    double prompt_tokens = 0;
    for (const Request& q : t.requests) prompt_tokens += static_cast<double>(q.prompt);
    Workload mean = r.point.workload;
    mean.prompt_tokens = std::max(1L, std::lround(prompt_tokens / static_cast<double>(t.requests.size())));
    KvTransfer probe = kv_transfer(r.point.model, r.point.gpu, mean);
    if (!probe.bytes) {
      throw io::InputError("--model: known only by its size, its KV cache's bytes are unknown: --disaggregate cannot "
                           "price the cache's trip between the pools");
    }
    // A pair leaving the domain of a GPU without a network is refused below, at both pools' layouts.
    if (!probe.time && !probe.refused) {
      throw io::InputError(fmt::format("--gpu: {} names no interconnect: --disaggregate cannot price the cache's trip "
                                       "between the pools",
                                       r.point.gpu.name));
    }
    Workload prefill_layout = r.point.workload;
    long prefill_kv_blocks = r.config.kv_blocks;
    Bytes prefill_kv_bytes = r.cache.free;
    std::vector<std::pair<long, double>> prefill_limited = r.config.limited_layers;
    if (a.prefill_tp != 0 && a.prefill_tp != r.point.workload.tp) {
      const PrefillReplica p =
          prefill_replica(a.serve, reserve_given, a.prefill_tp, r, r.config.chunked_prefill ? 0 : longest);
      prefill_layout = p.layout;
      prefill_kv_blocks = p.kv_blocks;
      prefill_limited = p.limited_layers;
      prefill_kv_bytes = p.kv_bytes;
      prefill_cost.emplace(r.point.model, r.point.gpu, prefill_layout);
    }
    if (const auto why = pair_refusal(r.point.gpu, gpus(prefill_layout), gpus(r.point.workload))) {
      throw io::InputError(
          fmt::format("{}: {}", prefill_layout.tp != r.point.workload.tp ? "--prefill-tp" : "--disaggregate", *why));
    }
    const KvLink link = kv_link(r.point.model, r.point.gpu, prefill_layout, r.point.workload);
    // The mean prompt's trip as the link prices it (resharded between different layouts).
    const LinkTime trip = link.time(mean.prompt_tokens);
    probe.time = Seconds(trip.busy + trip.latency);
    probe.network = link.network;
    pool_config = DisaggregatedConfig{static_cast<std::size_t>(pools->first), static_cast<std::size_t>(pools->second),
                                      routing, link.time, prefill_cost ? &*prefill_cost : nullptr,
                                      prefill_cost ? prefill_kv_blocks : 0, prefill_limited,
                                      r.engine && r.engine->defaults.decode_reserves_at_arrival};
    runs.pools = Pools{pools->first, pools->second, prefill_layout, prefill_kv_blocks, prefill_kv_bytes, probe,
                       mean.prompt_tokens, {}, {}, pool_config->reserve_at_arrival};
  }
  const Targets goal = targets(a.serve);
  ServerConfig config = r.config;
  config.sample_every = std::max(t.duration / 1000, 1e-3);
  const double steps = require_bounded_work(t, config);
  config.max_rows = 2 * kMaxSequenceSteps;
  // Two runs, the expected one and the bound's: a bar of 2000 steps on a terminal, for long runs.
  ProgressBar bar(err, 2000, stderr_is_terminal() && steps > kProgressSteps, 0);
  std::size_t done = 0;
  StepCost cost(r.point.model, r.point.gpu, r.point.workload);
  std::optional<StepCost> draft;
  if (r.draft) draft.emplace(r.draft->model, r.point.gpu, r.point.workload);
  StepCost* d = draft ? &*draft : nullptr;
  // One replica as it always ran; a fleet's runs each as a fleet behind the same router, the
  // bound's too (its least-loaded router reads the bound's own loads), so the bound stays a bound.
  // Disaggregated, the pools' handoff times of the expected run and the bound's (growing blocks)
  // are kept.
  const auto run = [&](const ServerConfig& c, Timing timing, Runs* routing_of) {
    if (pool_config) {
      DisaggregatedResult p = simulate_disaggregated(t.requests, cost, c, *pool_config, timing);
      if (routing_of != nullptr) {
        routing_of->pools->e = pool_figures(t.requests, p, runs.pools->prefill_layout.tp, a.router);
        routing_of->routed = p.decode_routed;
        routing_of->prefill_routed = p.prefill_routed;
        routing_of->replica_of.resize(t.requests.size());
        // A request dropped before its decode replica took it has none (kNoReplica).
        for (std::size_t i = 0; i < t.requests.size(); ++i) {
          routing_of->replica_of[i] = p.handoffs[i].queued < 0 ? kNoReplica : p.handoffs[i].decode_replica;
        }
      } else if (c.reserve_whole == config.reserve_whole) {
        runs.pools->b = pool_figures(t.requests, p, runs.pools->prefill_layout.tp, a.router);
      }
      return std::move(p.all);
    }
    if (a.replicas == 1) return simulate(t.requests, cost, c, timing, d);
    FleetResult f = simulate_fleet(t.requests, cost, c, {static_cast<std::size_t>(a.replicas), routing}, timing, d);
    if (routing_of != nullptr) {
      routing_of->imbalance = f.imbalance();
      routing_of->replica_of = std::move(f.replica_of);
      routing_of->routed = std::move(f.routed);
    }
    return std::move(f.all);
  };
  try {
    config.progress = [&](double share) { bar.advance_to(done + static_cast<std::size_t>(1000 * share)); };
    runs.expected = run(config, Timing::expected, &runs);
    done = 1000;
    runs.bound = run(config, Timing::bound, nullptr);
    // Growing blocks thrashed: a replay that cannot (whole lengths reserved at admission) may
    // serve more in the same memory, as TensorRT-LLM does, though its queue waits longer. A
    // third run, past the progress bar's two; one that stops at the work limit is left out.
    if (!config.reserve_whole && runs.expected.preemptions > 0) {
      ServerConfig reserved = config;
      reserved.reserve_whole = true;
      reserved.progress = nullptr;
      try {
        runs.reserved_bound = run(reserved, Timing::bound, nullptr);
      } catch (const WorkLimit&) {
        runs.reserved_bound.reset();
      }
    }
  } catch (const WorkLimit& e) {
    throw io::InputError(fmt::format("simulate: {}: the cache thrashes (sequences preempted and recomputed) or the "
                                     "estimate was short; lower --rate, --duration, --gen or --max-batch",
                                     e.what()));
  }
  bar.finish();
  std::optional<SpeculationView> spec;
  if (config.speculation) spec = speculation_view(r, t, cost, d);
  runs.e = summarize(runs.expected, goal);
  runs.b = summarize(runs.bound, goal);
  if (runs.reserved_bound) {
    const Summary reserved = summarize(*runs.reserved_bound, goal);
    runs.b = better(runs.b, reserved);
  }
  // The cache thrashed: the expected run recomputed more tokens than the prompts it served hold,
  // so its prefill did more than twice the work the traffic asked (a cache that preempts now and
  // then recomputes a few percent of it; under a prefix cache, a preemption recomputes only what
  // was evicted meanwhile). Past that the figures are the thrash's, not the server's: said.
  if (const SimResult& x = runs.expected; x.preemptions > 0 && x.recomputed_tokens > x.prompt_tokens) {
    const auto tokens = [](double n) {
      return n >= 1e3 && n < 1e6 ? fmt::format("{:.3g} k", n / 1e3) : report::human_count(n);
    };
    r.warnings.push_back(fmt::format(
        "the cache thrashed: {} preemptions recomputed {} tokens, {:.3g}× the prompts' {}; a larger cache, fewer "
        "sequences (--max-batch, or the engine's own limit) or reserving whole lengths (--admission reserve) "
        "avoids it",
        x.preemptions, tokens(x.recomputed_tokens), x.recomputed_tokens / std::max(1.0, x.prompt_tokens),
        tokens(x.prompt_tokens)));
  }
  // The pair rule's assumption, where the fleet spans domains, in every format (the table's link
  // line says it too), as plan's rows warn.
  if (runs.pools) {
    const Pools& p = *runs.pools;
    if (const auto fleet = fleet_past_domain(r.point.gpu, p, gpus(r.point.workload))) {
      // The mean prompt's cache, each prefill GPU's shard of it.
      const Bytes shard = p.mean_prompt.bytes.value_or(Bytes(0)) / static_cast<double>(cache_senders(p.prefill_layout));
      if (auto w = pair_link_warning(r.point.gpu, *fleet, "the fleet's", std::nullopt, shard)) {
        r.warnings.push_back(std::move(*w));
      }
    }
  }
  if (runs.e.served == 0 && runs.e.dropped > 0) {
    throw io::InputError(fmt::format("simulate: every request was dropped ({} longer than the model's context, {} larger "
                                     "{})",
                                     runs.expected.dropped_too_long, runs.expected.dropped_no_room,
                                     cache_dropped_from(r.point.workload)));
  }
  if (!a.plot.empty()) write_figure_file(figure(r, runs.expected, a.replicas), a.plot, "plot", err);
  if (!a.requests_out.empty()) write_requests_out(a.requests_out, t.requests, t.origin, runs.expected, runs.replica_of, err);
  const report::OutputFormat format = report::output_format(a.format);
  if (!report::info(format).carries_warnings) {
    for (const std::string& w : r.warnings) err << report::warning_label() << w << "\n";
  }
  write_report(a, r, t, runs, goal, spec, format, out);
}

}  // namespace roofline::cli
