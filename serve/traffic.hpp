#pragma once
// The requests a server sees: when they arrive and how long their prompts and outputs are. The
// random draws are written out here (splitmix64 and textbook transforms), not taken
// from <random>'s distributions, whose algorithms the standard leaves to each library: a seed
// gives the same requests on every platform.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace roofline::serve {

struct Request {
  double arrival = 0;  // seconds from the start
  long prompt = 0;     // prompt tokens
  long gen = 0;        // output tokens, the first one included
  long cached = 0;     // prompt tokens a prefix cache already holds (whole blocks)
  // The prefix group it shares its cached prefix with (a conversation's turns, an application's
  // system prompt), 0 for none. A replica holds a group's prefix once it has admitted one of the
  // group's requests: the first one there computes its whole prompt. With no group, every
  // request finds its cached tokens on whichever replica serves it.
  std::uint64_t group = 0;
};

// The seed of a stream of draws of its own beside the traffic's (seeded with `seed`), `stream`
// naming it: the two mixed through splitmix64's output. XOR alone is not apart: splitmix64 adds
// 0x9e3779b97f4a7c15 to its state a draw, and seed ^ that is seed + that wherever seed & that is
// 0 (seeds 0, 2, 8, 10 …), the traffic's own stream one draw on.
[[nodiscard]] std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream);

// A gamma shape past which a draw is taken as its mean (serve/traffic.cpp).
inline constexpr double kDeterministicShape = 1e12;

// splitmix64 (Steele, Lea, Flood 2014): 64 bits a draw, and uniforms on (0, 1) from the top 53.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  double uniform();   // (0, 1), never 0: a logarithm of it is finite
  double normal();    // Box–Muller
  double gamma(double shape);  // Marsaglia & Tsang 2000, scale 1

 private:
  std::uint64_t state_;
};

// Token counts: a fixed number, log-normal with a given mean (sigma in log space: the median is
// mean·exp(−σ²/2)), uniform on [a, b], or empirical: one of `values` (a file's column), each as
// likely. Draws are rounded and at least 1.
struct LengthDistribution {
  enum class Kind { fixed, lognormal, uniform, empirical };
  // {kind, a, b}: an empirical one is made by empirical_lengths.
  LengthDistribution(Kind k = Kind::fixed, double a_ = 1, double b_ = 0) : kind(k), a(a_), b(b_) {}
  Kind kind = Kind::fixed;
  double a = 1, b = 0;  // fixed: a; lognormal: mean a, sigma b; uniform: a..b; empirical: a their mean
  std::shared_ptr<const std::vector<long>> values;  // empirical: the lengths drawn from, at least one
  std::string source;                               // empirical: where they came from, for people
  [[nodiscard]] long draw(Rng& rng) const;
  [[nodiscard]] double mean() const;
};
// An empirical distribution of these lengths (each at least 1); std::invalid_argument when empty.
[[nodiscard]] LengthDistribution empirical_lengths(std::vector<long> values, std::string source);

// Interarrival times: exponential (Poisson arrivals), or gamma with a coefficient of variation
// (CV 1 is Poisson; above 1, bursts), at `rate` requests a second.
struct ArrivalProcess {
  enum class Kind { poisson, gamma } kind = Kind::poisson;
  double cv = 1;
  [[nodiscard]] double gap(Rng& rng, double rate) const;
  // The time to the first arrival, as a window opening at a random moment of a running stream finds
  // it: bursty gaps (CV above 1) start from the stationary residual gap, uniform over a gap drawn
  // in proportion to its length (Gamma(k + 1) for Gamma(k)). From an arrival, a window of T holds
  // rate·T + (CV² − 1)/2 arrivals on average: 8000 at CV 100 where 3000 were asked. At CV 1 and
  // below a gap as any other (Poisson's residual is its gap; a regular stream's deficit is under
  // half a request).
  [[nodiscard]] double first_gap(Rng& rng, double rate) const;
};

// Arrivals in [0, duration) at `rate`, each with a prompt, an output and the prompt share a
// prefix cache holds (`prefix_hit`, rounded down to whole blocks of `block_tokens`, at least one
// token left to compute), the first after ArrivalProcess::first_gap. Bursty arrivals (a CV of 100)
// may draw many more than rate × duration: past `most` the draws stop, at most + 1 requests, and
// the caller refuses the run.
[[nodiscard]] std::vector<Request> generate(const ArrivalProcess& arrivals, double rate, double duration,
                                            const LengthDistribution& prompt, const LengthDistribution& gen,
                                            double prefix_hit, long block_tokens, std::uint64_t seed,
                                            std::size_t most = 100'000'000);

// Deals each request one of `groups` prefix groups (1 to groups), each as likely, from its own
// stream of `seed`: the arrivals and lengths are unchanged. groups 0: none.
void assign_groups(std::vector<Request>& requests, long groups, std::uint64_t seed);

// The cached part of a prompt under a hit share, in whole blocks, leaving at least one token.
[[nodiscard]] long cached_tokens(long prompt, double prefix_hit, long block_tokens);

}  // namespace roofline::serve
