#include "serve/traffic.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <numbers>

namespace roofline::serve {

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream) {
  Rng mixed(seed ^ stream);
  return mixed.next();
}

double Rng::uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }

double Rng::normal() {
  const double u = uniform(), v = uniform();
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
}

double Rng::gamma(double shape) {
  // Past 10^12 the draw's relative spread (1/sqrt(shape)) is below 10^-6: the mean itself. The
  // sampler below would take d = infinity, and loop for ever on comparisons with NaN, from about
  // shape 10^308 (a CV of 10^-154).
  if (!(shape < kDeterministicShape)) return shape;
  // Below shape 1, draw at shape + 1 and scale by U^(1/shape) (Marsaglia & Tsang, section 6).
  if (shape < 1) return gamma(shape + 1) * std::pow(uniform(), 1 / shape);
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

long LengthDistribution::draw(Rng& rng) const {
  if (kind == Kind::empirical) {
    // uniform() < 1, so the index stays below the count.
    const auto i = static_cast<std::size_t>(rng.uniform() * static_cast<double>(values->size()));
    return (*values)[std::min(i, values->size() - 1)];
  }
  double x = a;
  if (kind == Kind::lognormal) x = std::exp(std::log(a) - b * b / 2 + b * rng.normal());
  if (kind == Kind::uniform) x = a + std::floor(rng.uniform() * (b - a + 1));
  // A draw past 10^9 tokens is a tail no request has; the server drops it as too long anyway.
  return static_cast<long>(std::clamp(std::round(x), 1.0, 1e9));
}

double LengthDistribution::mean() const { return kind == Kind::uniform ? (a + b) / 2 : a; }

LengthDistribution empirical_lengths(std::vector<long> values, std::string source) {
  if (values.empty()) throw std::invalid_argument("empirical_lengths: no lengths to draw from");
  double sum = 0;
  for (long v : values) sum += static_cast<double>(v);
  const double mean = sum / static_cast<double>(values.size());
  LengthDistribution d(LengthDistribution::Kind::empirical, mean);
  d.values = std::make_shared<const std::vector<long>>(std::move(values));
  d.source = std::move(source);
  return d;
}

double ArrivalProcess::gap(Rng& rng, double rate) const {
  if (kind == Kind::poisson) return -std::log(rng.uniform()) / rate;
  // Gamma with shape k = 1/CV² and mean 1/rate: scale 1/(rate·k). So regular (CV below 10^-6)
  // that every gap is the mean; 1/CV² may then overflow to infinity.
  const double k = 1 / (cv * cv);
  if (!(k < kDeterministicShape)) return 1 / rate;
  return rng.gamma(k) / (rate * k);
}

double ArrivalProcess::first_gap(Rng& rng, double rate) const {
  if (kind == Kind::poisson || !(cv > 1)) return gap(rng, rate);
  const double k = 1 / (cv * cv);
  return rng.gamma(k + 1) / (rate * k) * rng.uniform();
}

long cached_tokens(long prompt, double prefix_hit, long block_tokens) {
  const auto hit = static_cast<long>(std::floor(prefix_hit * static_cast<double>(prompt)));
  return std::min(hit / block_tokens * block_tokens, (prompt - 1) / block_tokens * block_tokens);
}

std::vector<Request> generate(const ArrivalProcess& arrivals, double rate, double duration,
                              const LengthDistribution& prompt, const LengthDistribution& gen, double prefix_hit,
                              long block_tokens, std::uint64_t seed, std::size_t most) {
  Rng rng(seed);
  std::vector<Request> out;
  out.reserve(static_cast<std::size_t>(std::min(rate * duration * 1.1 + 16, static_cast<double>(most) + 1)));
  for (double t = arrivals.first_gap(rng, rate); t < duration && out.size() <= most; t += arrivals.gap(rng, rate)) {
    Request r{t, prompt.draw(rng), gen.draw(rng), 0};
    r.cached = cached_tokens(r.prompt, prefix_hit, block_tokens);
    out.push_back(r);
  }
  return out;
}

void assign_groups(std::vector<Request>& requests, long groups, std::uint64_t seed) {
  if (groups <= 0) return;
  // A stream of its own, so that the traffic's draws are the same with groups or without.
  Rng rng(seed ^ 0x5bd1e9955bd1e995ULL);
  for (Request& r : requests) {
    r.group = 1 + std::min(static_cast<std::uint64_t>(groups - 1),
                           static_cast<std::uint64_t>(rng.uniform() * static_cast<double>(groups)));
  }
}

}  // namespace roofline::serve
