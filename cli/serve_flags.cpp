#include "cli/serve_flags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "cli/command.hpp"
#include "cli/memory_check.hpp"
#include "cli/trace_flag.hpp"
#include "io/input_error.hpp"
#include "io/spec_loader.hpp"
#include "io/trace_csv.hpp"
#include "launch/launch_spec.hpp"
#include "model/engine.hpp"
#include "planner/replica.hpp"
#include "report/warning_text.hpp"
#include "serve/server.hpp"

namespace roofline::cli {

using namespace io;
using serve::ArrivalProcess;
using serve::LengthDistribution;

namespace {

// Past these a value is a typo: 10^6 requests a second, a year of traffic. A run holds its
// requests and their outcomes, twice (the expected run and the bound's), about kBytesPerRequest
// of address space each in all: 10^7 requests of 10 + 10 tokens (`simulate --rate 1e6 --duration
// 10s`) peaked at 3.32 GB resident and ran out of memory under `ulimit -v` 4.0 GB, not 4.5 GB
// (the vectors' doubling; f2c0c05).
constexpr double kMaxRate = 1e6, kMaxDuration = 3.2e7, kMaxRequests = 1e7, kBytesPerRequest = 450;
// A trace is a run's requests: it may hold as many (cli/trace_flag.hpp).
static_assert(kMaxTraceRequests == kMaxRequests);

std::optional<double> number(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// "a:b:c" split at its colons.
std::vector<std::string_view> parts(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t colon = s.find(':', start);
    out.push_back(s.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) return out;
    start = colon + 1;
  }
}

bool is_count(std::optional<double> v) { return v && *v >= 1 && *v <= static_cast<double>(kMaxTokens) && *v == std::floor(*v); }

void check_range(long v, long least, long most, std::string_view flag) {
  if (v < least || v > most) throw InputError(fmt::format("--{}: must be {} to {}, got {}", flag, least, most, v));
}

// --prefix-groups: each request dealt a group from its own stream of --seed.
void with_groups(Traffic& t, const ServeFlags& f) {
  if (f.prefix_groups == 0) return;
  serve::assign_groups(t.requests, f.prefix_groups, static_cast<std::uint64_t>(f.seed));
  t.description += fmt::format(", {} prefix groups", f.prefix_groups);
}

// --max-tokens: each output past it cut at it, as the engine stops there (finish_reason "length"),
// and said in the traffic's line.
void with_max_tokens(Traffic& t, const ServeFlags& f) {
  if (!f.max_tokens) return;
  if (*f.max_tokens < 1 || *f.max_tokens > kMaxTokens) {
    throw InputError(fmt::format("--max-tokens: must be 1 to {}, got {}", kMaxTokens, *f.max_tokens));
  }
  long cut = 0;
  for (serve::Request& r : t.requests) {
    if (r.gen <= *f.max_tokens) continue;
    r.gen = *f.max_tokens;
    ++cut;
  }
  t.description += fmt::format(", max_tokens {}", *f.max_tokens);
  if (cut > 0) t.description += fmt::format(" ({} output{} cut at it)", cut, cut == 1 ? "" : "s");
}

}  // namespace

void add_serve_options(Options& o, ServeFlags& f) {
  using enum WorkloadFlag;
  add_workload_options(o, f.workload, {prompt, gen, context, batch});
  o.add("--rate", f.rate, "requests per second arriving (not with a trace)");
  o.add("--arrivals", f.arrivals,
        "poisson, gamma:CV (CV > 1: bursts) or a trace .csv (its own columns, or the Azure traces' arrived_at, "
        "num_prefill_tokens, num_decode_tokens)")
      .show_default();
  o.add("--trace-rate", f.trace_rate,
        "with a trace: its arrival times scaled so that its mean rate is this many requests/s (its bursts kept)");
  o.add("--prompt", f.prompt,
        "prompt tokens: N, lognormal:MEAN:SIGMA, uniform:A:B or empirical:FILE[:COLUMN] (a CSV's column; not with a "
        "trace)");
  o.add("--gen", f.gen, "output tokens, in the same forms (not with a trace)");
  o.add("--max-tokens", f.max_tokens,
        "the clients' max_tokens, each request's cap on its output: an output past it is cut at it, and a reserving "
        "admission (--admission reserve, TensorRT-LLM) reserves prompt + this for every request (unset: its own output, "
        "as if known in advance)");
  o.add("--duration", f.duration, "time over which requests arrive, with a unit").show_default();
  o.add("--engine", f.engine,
        "vllm, sglang or trtllm: start from that engine's scheduler defaults (chunked prefill, token budget, "
        "sequences, KV block size, admission; docs/engines.md), which the flags given override")
      .one_of({serve::kEngineNames.begin(), serve::kEngineNames.end()});
  o.add("--max-batch", f.max_batch, "sequences running at once (each rank's, under --dp-attention)")
      .show_default()
      .given(f.given.max_batch);
  o.add("--max-batched-tokens", f.max_batched_tokens, "tokens a step computes (each decode counts one; each rank's)")
      .show_default()
      .given(f.given.max_batched_tokens);
  o.flag("--chunked-prefill,!--no-chunked-prefill", f.chunked_prefill,
         "split prompts over steps under the token budget (--no-chunked-prefill: whole, as an --engine's preset may not)")
      .given(f.given.chunked_prefill);
  o.add("--admission", f.admission,
        "grow: blocks taken as tokens are computed, a shortage preempting the latest admitted (vLLM, SGLang); "
        "reserve: a request's whole length reserved when admitted, never preempted (TensorRT-LLM's "
        "GUARANTEED_NO_EVICT)")
      .one_of({"grow", "reserve"})
      .show_default()
      .given(f.given.admission);
  o.add("--block-tokens", f.block_tokens, "tokens a KV cache block holds").show_default().given(f.given.block_tokens);
  o.add("--prefix-hit", f.prefix_hit, "share of each prompt a prefix cache holds, 0 to 1").show_default();
  o.add("--prefix-groups", f.prefix_groups,
        "deal the requests to this many groups, each as likely, whose requests share their cached prefix: a replica "
        "holds a group's only after admitting one of its requests (0: every request finds its cached share anywhere)")
      .show_default();
  o.add("--seed", f.seed, "seed of the generated traffic").show_default();
  o.add("--ttft", f.ttft, "time-to-first-token target for goodput, with a unit");
  o.add("--tpot", f.tpot, "time-per-output-token target for goodput, with a unit");
  o.add("--speculative", f.speculative,
        "K:ACCEPT[:draft-model|mtp]: K draft tokens a step, each accepted with probability ACCEPT, drafted by a "
        "model, by the target's multi-token-prediction modules (mtp), or at no cost (none given: prompt lookup)");
}

SpeculativeFlag speculative_flag(const std::string& value, const ModelSpec& target) {
  const std::vector<std::string_view> p = parts(value);
  const auto bad = [&](std::string_view why) {
    return InputError(fmt::format("--speculative: `{}` {} (give K:ACCEPT, K:ACCEPT:draft-model or K:ACCEPT:mtp)", value, why));
  };
  if (p.size() < 2) throw bad("is not K:ACCEPT");
  const auto k = number(p[0]), accept = number(p[1]);
  if (!k || *k < 1 || *k > 64 || *k != std::floor(*k)) throw bad("has a K that is not 1 to 64 tokens");
  if (!accept || *accept < 0 || *accept > 1) throw bad("has an acceptance that is not 0 to 1");
  SpeculativeFlag f{{static_cast<int>(*k), *accept}, std::nullopt};
  if (p.size() == 2) return f;
  // A model file's path may hold colons: the rest of the value is the draft.
  const std::string draft = value.substr(p[0].size() + p[1].size() + 2);
  if (draft.empty()) throw bad("ends in a colon with no draft after it");
  if (draft == "mtp") {
    try {
      f.draft = serve::mtp_draft(target);
    } catch (const std::invalid_argument& e) {
      throw InputError(fmt::format("--speculative: mtp: {}", e.what()));
    }
  } else {
    f.draft = serve::model_draft(read_flag_file("--speculative", draft, [&] { return io::load_model(draft); }));
  }
  if (const auto why = serve::unsupported(f.draft->model)) throw InputError(fmt::format("--speculative: the draft: {}", *why));
  return f;
}

// empirical:FILE[:COLUMN]: a file's column of token counts, each row as likely. Without a column,
// the trace's own name or the Azure traces' (prompt_tokens or num_prefill_tokens for --prompt).
LengthDistribution empirical_flag(const std::string& value, std::string_view flag) {
  std::string file = value.substr(std::string_view("empirical:").size()), column;
  if (!has_extension(file, ".csv")) {
    const auto colon = file.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      throw InputError(fmt::format("--{}: `{}`: empirical:FILE.csv or empirical:FILE:COLUMN", flag, value));
    }
    column = file.substr(colon + 1);
    file.resize(colon);
  }
  std::string used = column;
  std::vector<long> lengths = read_flag_file(fmt::format("--{}", flag), file, [&] {
    return io::read_lengths(file, column, flag == "prompt" ? io::Lengths::prompt : io::Lengths::output, &used);
  });
  return serve::empirical_lengths(std::move(lengths), fmt::format("{}:{}", file, used));
}

LengthDistribution length_flag(const std::string& value, std::string_view flag) {
  if (value.starts_with("empirical:")) return empirical_flag(value, flag);
  const std::vector<std::string_view> p = parts(value);
  const auto bad = [&](std::string_view why) {
    return InputError(
        fmt::format("--{}: `{}` {} (give N, lognormal:MEAN:SIGMA, uniform:A:B or empirical:FILE[:COLUMN])", flag, value, why));
  };
  if (value.empty()) throw bad("is empty");
  if (p.size() == 1) {
    if (!is_count(number(p[0]))) throw bad(fmt::format("is not a count of tokens from 1 to {}", kMaxTokens));
    return {LengthDistribution::Kind::fixed, *number(p[0]), 0};
  }
  if (p.size() != 3 || (p[0] != "lognormal" && p[0] != "uniform")) throw bad("is not a distribution");
  const auto a = number(p[1]), b = number(p[2]);
  if (p[0] == "lognormal") {
    if (!a || *a < 1 || *a > static_cast<double>(kMaxTokens)) throw bad("has a mean that is not 1 to 10^9 tokens");
    if (!b || *b < 0 || *b > 5) throw bad("has a sigma that is not 0 to 5");
    // A request has at least one token, so a draw below 1 counts as 1 (serve/traffic.cpp): where
    // that moves the mean by more than 1% the lengths run are not the distribution asked for
    // (lognormal:2:2 drew a mean of 2.63, 80% of prompts one token). The shift is
    // E[max(X, 1)] − a = P(X < 1) − E[X; X < 1], with ln X ~ N(μ, σ²), μ = ln a − σ²/2:
    // P(X < 1) = Φ(−μ/σ) and E[X; X < 1] = a·Φ(−(μ + σ²)/σ); rounding each draw to a whole token
    // adds a little more where most draws are a few tokens ("about").
    if (*b > 0) {
      const auto phi = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
      const double mu = std::log(*a) - *b * *b / 2;
      const double shift = phi(-mu / *b) - *a * phi(-(mu + *b * *b) / *b);
      if (shift > 0.01 * *a) {
        throw bad(fmt::format("draws {:.0f}% of its lengths below one token, which count as one: its mean would be "
                              "about {:.3g}, not {:g}; give a larger mean or a smaller sigma",
                              100 * phi(-mu / *b), *a + shift, *a));
      }
    }
    return {LengthDistribution::Kind::lognormal, *a, *b};
  }
  // Each bound said as it is wrong: `uniform:0:10` was told "needs counts A <= B", which 0 <= 10 is.
  const std::string counts = fmt::format("a count of tokens from 1 to {}", kMaxTokens);
  if (!is_count(a)) throw bad(fmt::format("has an A that is not {}", counts));
  if (!is_count(b)) throw bad(fmt::format("has a B that is not {}", counts));
  if (*a > *b) throw bad("needs counts A <= B");
  return {LengthDistribution::Kind::uniform, *a, *b};
}

std::string describe(const LengthDistribution& d) {
  if (d.kind == LengthDistribution::Kind::fixed) return fmt::format("{:g}", d.a);
  if (d.kind == LengthDistribution::Kind::uniform) return fmt::format("uniform {:g}..{:g}", d.a, d.b);
  if (d.kind == LengthDistribution::Kind::empirical) {
    return fmt::format("empirical ({}: {} lengths, mean {:.4g}, each drawn alone)", d.source, d.values->size(), d.a);
  }
  return fmt::format("log-normal mean {:g} sigma {:g}", d.a, d.b);
}

Replica sized_beside_longest(Replica r, const Traffic& t, const std::function<Replica(long)>& at) {
  const long budget = r.config.max_batched_tokens;
  if (r.config.chunked_prefill) return r;
  const long ranks = attention_ranks(r.point.workload);
  // Whether a replica sized beside a step of `step` tokens admits a prompt longer than that step,
  // by the rule its server drops arrivals by (serve::replica_holds): a request too long for the
  // context, or too large for that cache, is dropped and never runs its step.
  const auto admits_past = [&](const Replica& x, long step) {
    return std::any_of(t.requests.begin(), t.requests.end(), [&](const serve::Request& q) {
      return q.prompt > step && serve::replica_holds(q, x.config, ranks) == serve::Holds::yes;
    });
  };
  if (!admits_past(r, budget)) return r;
  // The steps to size beside: the prompts past the budget. A larger step leaves no more blocks,
  // so it admits no more requests: the first at which none longer is admitted is found halving.
  // The largest is always one (none is longer); where one leaves no cache, nothing runs at it, and
  // the step found refuses the run, naming its tokens.
  std::vector<long> steps;
  for (const serve::Request& q : t.requests) {
    if (q.prompt > budget) steps.push_back(q.prompt);
  }
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  std::size_t lo = 0, hi = steps.size() - 1;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    bool enough = true;
    try {
      enough = !admits_past(at(steps[mid]), steps[mid]);
    } catch (const std::invalid_argument&) {  // no room for a cache beside it (planner::Refusal)
    } catch (const InputError&) {              // nor for the engine's (--engine's memory rule)
    }
    if (enough) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return at(steps[lo]);
}

Replica replica(const ServeFlags& f, std::string_view command, long longest_prompt) {
  // The values given; an engine's preset holds its own in range.
  check_range(f.max_batch, 1, 1'000'000, "max-batch");
  check_range(f.max_batched_tokens, 1, 100'000'000, "max-batched-tokens");
  check_range(f.block_tokens, 1, 4096, "block-tokens");
  Replica r{one_point(f.workload, command), {}, {}, {}, {}, {}};
  // The flags as the scenario's server; planner::assemble_replica applies --engine's preset and
  // builds the server and its cache.
  planner::ServerSettings s;
  s.max_batch = f.max_batch;
  s.max_batched_tokens = f.max_batched_tokens;
  s.block_tokens = f.block_tokens;
  s.chunked_prefill = f.chunked_prefill;
  s.reserve_whole = f.admission == "reserve";
  if (!f.engine.empty()) s.engine = serve::engine_named(f.engine);
  s.given = {f.given.max_batch, f.given.max_batched_tokens, f.given.block_tokens, f.given.chunked_prefill,
             f.given.admission};
  s.seed = static_cast<std::uint64_t>(std::max(0L, f.seed));
  s.longest_prompt = longest_prompt;
  // Refused in this order: the model, the layout, then --speculative's value.
  if (const auto why = serve::unsupported(r.point.model)) throw InputError(fmt::format("--model: {}", *why));
  if (const auto why = serve::unsupported(r.point.workload)) throw InputError(*why);
  if (!f.speculative.empty()) {
    SpeculativeFlag spec = speculative_flag(f.speculative, r.point.model);
    s.speculation = spec.speculation;
    s.draft = std::move(spec.draft);
  }
  planner::AssembledReplica a = planner::assemble_replica(r.point.model, r.point.gpu, r.point.workload, std::move(s));
  r.config = a.config;
  // Only a reserving admission reserves the cap; a growing one's reserved bound (simulate's third
  // run) keeps its oracle, each request's own output.
  if (r.config.reserve_whole && f.max_tokens) r.config.max_tokens = *f.max_tokens;
  r.cache = a.cache;
  r.draft = std::move(a.draft);
  r.engine = std::move(a.engine);
  // Drafting with the MTP modules prices them: the engine's "not priced" no longer holds.
  ModelSpec target = r.point.model;
  if (r.draft && r.draft->reads_target) std::erase(target.assumptions, Assumption::mtp_not_modelled);
  for (std::string& w : report::warning_texts(evaluate(target, r.point.gpu, r.point.workload))) {
    r.warnings.push_back(std::move(w));
  }
  // A draft model of its own may ship in other formats; an MTP module is the target's checkpoint.
  if (r.draft && !r.draft->reads_target) {
    r.warnings.push_back(fmt::format("the draft {} is priced in the target's formats and layout", r.draft->model.name));
    // A draft proposes tokens of the target's vocabulary. Sizes padded apart (Qwen2.5-0.5B's 151936
    // beside Qwen2.5-72B's 152064) share a tokenizer; Llama-2's 32000 and Qwen3's 151936 do not.
    const auto vocab = [](const ModelSpec& m) { return m.architecture ? m.architecture->vocab : 0L; };
    const long mine = vocab(r.draft->model), theirs = vocab(r.point.model);
    if (mine > 0 && theirs > 0 && std::abs(mine - theirs) > std::max(mine, theirs) / 100) {
      r.warnings.push_back(fmt::format("the draft {}'s vocabulary of {} tokens is not the target's {}: a draft proposes "
                                       "the target's tokens, so the two must share a tokenizer; the acceptance rate "
                                       "given assumes they do",
                                       r.draft->model.name, mine, theirs));
    }
  }
  if (!r.cache.limited.empty()) r.warnings.emplace_back(kWindowBlocks);
  return r;
}

Traffic traffic(const ServeFlags& f, std::optional<double> given_rate, long block_tokens) {
  if (!(f.prefix_hit >= 0 && f.prefix_hit <= 1)) throw InputError(fmt::format("--prefix-hit: must be 0 to 1, got {}", f.prefix_hit));
  if (f.seed < 0) throw InputError(fmt::format("--seed: must be at least 0, got {}", f.seed));
  check_range(f.prefix_groups, 0, 1'000'000'000, "prefix-groups");
  const double duration = quantity_flag(f.duration, Dimension::time, "duration");
  if (duration > kMaxDuration) throw InputError(fmt::format("--duration: {} s is over a year", duration));
  Traffic t;
  t.duration = duration;
  if (has_extension(f.arrivals, ".csv")) {
    // Any --rate given is refused beside a trace, 0 and negatives too (they were taken as none).
    if (given_rate || !f.prompt.empty() || !f.gen.empty()) {
      throw InputError(fmt::format("--arrivals {}: a trace gives the arrivals and lengths; drop --rate, --prompt and --gen", f.arrivals));
    }
    const TraceFlag file = read_trace_flag(f.arrivals);
    const std::vector<TraceRow>& rows = file.rows;
    // Its rows are a run's requests, as generated traffic's are (the rows read are held already).
    require_memory(static_cast<double>(rows.size()) * kBytesPerRequest, "arrivals",
                   fmt::format("{} simulated requests (the rows of {})", rows.size(), f.arrivals));
    // --trace-rate: the trace rescaled from its first arrival (cli/trace_flag.hpp); without it, its
    // arrivals as they stand.
    double scale = 1;
    std::string rescaled;
    if (f.trace_rate) {
      if (!(*f.trace_rate > 0 && *f.trace_rate <= kMaxRate)) {
        throw InputError(fmt::format("--trace-rate: must be above 0, at most {:g}, got {:g}", kMaxRate, *f.trace_rate));
      }
      const std::optional<double> own = file.own_rate();
      if (!own) {
        throw InputError(fmt::format("--trace-rate: {} has no time between its first and last arrival to scale",
                                     f.arrivals));
      }
      scale = *own / *f.trace_rate;
      rescaled = fmt::format(", its {:.4g} requests/s scaled to {:g}", *own, *f.trace_rate);
    }
    // The run counts from the first arrival either way (a rescaled trace starts there at 0), and
    // so does --duration: a trace cut from its 1000th second had no request "before 60 s" unless
    // rescaled, and one of timestamps run on its own clock lost its steps to a double's spacing
    // there (Unix milliseconds, 1.7e12: TPOT 9.77 ms for 9.73; 1e15: every latency 0).
    // --requests-out writes the trace's clock back (`origin`).
    const double first = rows.front().arrival;
    t.origin = f.trace_rate ? 0 : first;
    // A cached_tokens cell is rounded down to whole KV blocks, as --prefix-hit is: a block prefix
    // cache (vLLM's, SGLang's paged one) hits full blocks only, so 99 of 100 tokens cached left 1 to
    // compute where 16-token blocks leave 4. Said in the traffic's line when it changes a row.
    long rounded_rows = 0, rounded_tokens = 0;
    for (const TraceRow& row : rows) {
      const double arrival = f.trace_rate ? file.rescaled(row, scale) : row.arrival - first;
      if (arrival >= duration) break;
      const long whole_blocks = row.cached / block_tokens * block_tokens;
      rounded_rows += whole_blocks < row.cached ? 1 : 0;
      rounded_tokens += row.cached - whole_blocks;
      const long cached = std::max(whole_blocks, serve::cached_tokens(row.prompt, f.prefix_hit, block_tokens));
      t.requests.push_back({arrival, row.prompt, row.output, cached});
    }
    t.trace = true;
    t.description = fmt::format("trace {}{}: {} requests arriving within {:g} s of its first", f.arrivals, rescaled,
                                t.requests.size(), duration);
    if (t.requests.size() < rows.size()) {
      t.description += fmt::format(" (--duration leaves out the {} after)", rows.size() - t.requests.size());
    }
    if (rounded_rows > 0) {
      t.description += fmt::format("; cached_tokens rounded down to whole KV blocks of {} tokens, as a block prefix "
                                   "cache hits ({} row{}, {} token{} computed instead)",
                                   block_tokens, rounded_rows, rounded_rows == 1 ? "" : "s", rounded_tokens,
                                   rounded_tokens == 1 ? "" : "s");
    }
    with_max_tokens(t, f);
    with_groups(t, f);
    return t;
  }
  if (f.trace_rate) throw InputError("--trace-rate: only with a trace (--arrivals FILE.csv); --rate sets the others' rate");
  ArrivalProcess a;
  const std::vector<std::string_view> p = parts(f.arrivals);
  if (p.size() == 2 && p[0] == "gamma") {
    const auto cv = number(p[1]);
    if (!cv || *cv <= 0 || *cv > 100) throw InputError(fmt::format("--arrivals {}: the CV must be above 0, at most 100", f.arrivals));
    a = {ArrivalProcess::Kind::gamma, *cv};
  } else if (f.arrivals != "poisson") {
    throw InputError(fmt::format("--arrivals: `{}` is not poisson, gamma:CV or a .csv trace", f.arrivals));
  }
  if (!given_rate) throw InputError("--rate: required without a trace (--arrivals FILE.csv): the requests a second arriving");
  const double rate = *given_rate;
  if (!(rate > 0 && rate <= kMaxRate)) throw InputError(fmt::format("--rate: must be above 0, at most {:g}, got {:g}", kMaxRate, rate));
  if (rate * duration > kMaxRequests) {
    throw InputError(fmt::format("--rate x --duration: {:g} requests, over the {:g} a run holds (about {:g} bytes "
                                 "each); lower --rate or --duration",
                                 rate * duration, kMaxRequests, kBytesPerRequest));
  }
  require_memory(rate * duration * kBytesPerRequest, "duration",
                 fmt::format("{:g} simulated requests (--rate x --duration)", rate * duration));
  if (f.prompt.empty() || f.gen.empty()) throw InputError(fmt::format("--{}: required without a trace", f.prompt.empty() ? "prompt" : "gen"));
  const LengthDistribution prompt = length_flag(f.prompt, "prompt"), gen = length_flag(f.gen, "gen");
  const auto most = static_cast<std::size_t>(kMaxRequests);
  t.requests = serve::generate(a, rate, duration, prompt, gen, f.prefix_hit, block_tokens, static_cast<std::uint64_t>(f.seed), most);
  if (t.requests.size() > most) {
    throw InputError(fmt::format("--arrivals {}: the arrivals drew more than {:g} requests in {:g} s at {:g} a "
                                 "second; lower --rate or --duration (or a gamma CV)",
                                 f.arrivals, kMaxRequests, duration, rate));
  }
  if (t.requests.empty()) {
    throw InputError(fmt::format("--rate x --duration: no request arrives in {:g} s at {:g} a second (seed {})", duration, rate, f.seed));
  }
  t.description = fmt::format("{} at {:g} req/s for {:g} s, prompt {}, output {}, seed {}",
                              a.kind == ArrivalProcess::Kind::poisson ? "Poisson" : fmt::format("gamma (CV {:g})", a.cv),
                              rate, duration, describe(prompt), describe(gen), f.seed);
  with_max_tokens(t, f);
  with_groups(t, f);
  return t;
}

double require_bounded_work(const Traffic& t, const serve::ServerConfig& c) {
  const auto budget = static_cast<double>(c.max_batched_tokens);
  double rows = 0;
  for (const serve::Request& r : t.requests) {
    rows += static_cast<double>(r.gen) + std::ceil(static_cast<double>(r.prompt - r.cached) / budget);
  }
  if (rows > kMaxSequenceSteps) {
    // A trace's lengths are its rows': only --duration (its first seconds) replays fewer.
    throw InputError(fmt::format("{}: the run would take about {:.3g} sequence-steps (every output token and prefill "
                                 "chunk of {} requests), over the {:g} a run may take; {}",
                                 t.trace ? "--arrivals and --duration" : "--gen, --rate and --duration", rows,
                                 t.requests.size(), kMaxSequenceSteps,
                                 t.trace ? "replay fewer of the trace's requests (a shorter --duration)"
                                         : "lower one of them"));
  }
  return rows;
}

void check_engine(const Replica& r, const Traffic& t) {
  if (!r.engine) return;
  // What plan --emit refuses for the engine (an int4 cache, naive attention, TensorRT-LLM's fp8 on a
  // GPU without fp8 tensor cores) is refused here alike: simulating it under the engine's name
  // would say how an engine that cannot run it runs it.
  const std::string_view engine = serve::engine_name(r.engine->defaults.engine);
  if (auto why = launch::layout_refusal(*launch::engine_named(engine), r.point.gpu, r.point.workload)) {
    throw InputError(fmt::format("--engine {}: {}", engine, *why));
  }
  if (r.config.chunked_prefill) return;
  const serve::EngineDefaults& d = r.engine->defaults;
  // The requests it serves: one its server drops on arrival (past the context, larger than the
  // cache: serve::replica_holds) asks nothing of its budget, as it sizes no step.
  const long ranks = attention_ranks(r.point.workload);
  long longest_prompt = 0, longest = 0;
  for (const serve::Request& q : t.requests) {
    if (serve::replica_holds(q, r.config, ranks) != serve::Holds::yes) continue;
    longest_prompt = std::max(longest_prompt, q.prompt);
    longest = std::max(longest, q.prompt + q.gen);
  }
  const long budget = r.config.max_batched_tokens;
  if (d.unchunked == serve::UnchunkedLimit::model_length) {
    // vLLM's max_model_len is the model's context unless --max-model-len lowers it; a model with
    // none here is taken at the longest request the traffic holds, the least a server of it needs.
    const long model_len = r.config.max_context > 0 ? r.config.max_context : longest;
    if (budget < model_len) {
      throw InputError(fmt::format("--max-batched-tokens: {} refuses a token budget ({}) below the longest sequence it "
                                   "serves (max_model_len {}{}) without chunked prefill; give --max-batched-tokens "
                                   "{} or more, or drop --no-chunked-prefill",
                                   d.label, budget, model_len, r.config.max_context > 0 ? ", the model's context" : ", the longest request",
                                   model_len));
    }
  } else if (d.unchunked == serve::UnchunkedLimit::prompt && longest_prompt > budget) {
    throw InputError(fmt::format("--max-batched-tokens: {} rejects a prompt longer than its token budget (max_num_tokens "
                                 "{}) without chunked prefill, and the traffic holds one of {} tokens; give "
                                 "--max-batched-tokens {} or more, or --chunked-prefill",
                                 d.label, budget, longest_prompt, longest_prompt));
  }
}

std::optional<std::string> reserve_warning(const Replica& r, const Traffic& t, const ServeFlags& f, bool disaggregated) {
  const serve::ServerConfig& c = r.config;
  if (!c.reserve_whole) return std::nullopt;
  if (f.max_tokens) {
    if (disaggregated) {
      throw InputError("--max-tokens: not modelled with --disaggregate under a reserving admission (its prefill pool "
                       "would reserve the cap too, where the engine's context phase makes one token); drop one of them, "
                       "or --admission grow");
    }
    // FCFS admission waits at the queue's head: a reservation past a rank's whole cache would hold
    // it, and every request behind it, for ever.
    const long ranks = attention_ranks(r.point.workload);
    const long rank_blocks = c.kv_blocks / ranks;
    const long decode_tokens = c.speculation ? c.speculation->k + 1 : 1;
    const auto policy = serve::make_policy(c);
    for (const serve::Request& q : t.requests) {
      if (serve::replica_holds(q, c, ranks) != serve::Holds::yes) continue;  // dropped on arrival
      const long tokens = policy->admission_tokens({}, q, decode_tokens);
      if (const long blocks = serve::blocks_for(c, tokens); blocks > rank_blocks) {
        throw InputError(fmt::format("--max-tokens: a request of {} prompt tokens reserves {} tokens at admission "
                                     "(prompt + max_tokens {}), {} blocks of {} tokens, more than the {} {} holds: it "
                                     "would never be admitted; lower --max-tokens",
                                     q.prompt, tokens, *f.max_tokens, blocks, c.block_tokens, rank_blocks,
                                     ranks > 1 ? "a rank's share of the cache" : "the whole cache"));
      }
    }
    return std::nullopt;
  }
  if (t.requests.empty()) return std::nullopt;
  const auto [least, most] = std::minmax_element(t.requests.begin(), t.requests.end(),
                                                 [](const serve::Request& a, const serve::Request& b) { return a.gen < b.gen; });
  if (least->gen == most->gen) return std::nullopt;
  return fmt::format("the reserving admission reserved each request's own output length ({} to {} tokens here), as "
                     "if each client's max_tokens were set to the output it would make; an engine cannot know it, and "
                     "reserves prompt + max_tokens (TensorRT-LLM's GUARANTEED_NO_EVICT), so it admits fewer at once: "
                     "give --max-tokens N for the cap the clients send",
                     least->gen, most->gen);
}

bool keeps_windows(const ModelSpec& m) {
  if (!m.architecture) return false;
  const auto mixers = m.architecture->mixer_counts();
  return mixers[static_cast<int>(Mixer::sliding)] + mixers[static_cast<int>(Mixer::chunked)] > 0;
}

serve::Targets targets(const ServeFlags& f) {
  serve::Targets t;
  if (!f.ttft.empty()) t.ttft = latency_target(f.ttft, "ttft");
  if (!f.tpot.empty()) t.tpot = latency_target(f.tpot, "tpot");
  return t;
}

}  // namespace roofline::cli
