#include "serve/router.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace roofline::serve {

namespace {

class RoundRobin final : public Router {
 public:
  explicit RoundRobin(std::size_t n) : n_(n) {}
  [[nodiscard]] Load reads() const override { return Load::none; }
  std::size_t pick(const Request&, std::span<const long>) override { return next_++ % n_; }

 private:
  std::size_t n_, next_ = 0;
};

class Random final : public Router {
 public:
  // A stream of its own: seeded as the traffic is (--seed), request k's replica was floor(u_k·n)
  // of the u_k that drew its gap, so the last replica took every request that came right after
  // another (a P99 wait 22% over M/D/1's on 4 replicas).
  Random(std::size_t n, std::uint64_t seed) : n_(n), rng_(stream_seed(seed, 0x2545f4914f6cdd1dULL)) {}
  [[nodiscard]] Load reads() const override { return Load::none; }
  std::size_t pick(const Request&, std::span<const long>) override {
    // A uniform on (0, 1) scaled: no modulo bias.
    return std::min(n_ - 1, static_cast<std::size_t>(rng_.uniform() * static_cast<double>(n_)));
  }

 private:
  std::size_t n_;
  Rng rng_;
};

// The fewest requests; ties in turn, from the replica after the last one picked: round robin
// among the tied, as nginx's least_conn tries "several such servers in turn" (by their weights,
// equal here; nginx.org/en/docs/http/ngx_http_upstream_module.html#least_conn). Ties to the first
// replica sent every arrival at an idle fleet to replica 0. On the Azure trace over 32 replicas
// it moved p50/p99 TTFT only from 41.2/235 to 40.5/233 ms (docs/capacity-planning.md): round
// robin still wins the median, for a replica just handed a long prompt counts one request.
class LeastInTurn {
 public:
  std::size_t pick(std::span<const long> load) {
    const std::size_t n = load.size();
    std::size_t best = next_ % n;
    for (std::size_t j = 1; j < n; ++j) {
      const std::size_t i = (next_ + j) % n;
      if (load[i] < load[best]) best = i;
    }
    next_ = best + 1;
    return best;
  }

 private:
  std::size_t next_ = 0;
};

// The least of what the fleet reads, ties in turn: least-loaded reads requests, kv-aware the KV
// router's cost in blocks (Load::kv_blocks).
class Least final : public Router {
 public:
  explicit Least(Load reads) : reads_(reads) {}
  [[nodiscard]] Load reads() const override { return reads_; }
  std::size_t pick(const Request&, std::span<const long> load) override { return least_.pick(load); }

 private:
  Load reads_;
  LeastInTurn least_;
};

class PrefixAffinity final : public Router {
 public:
  explicit PrefixAffinity(std::size_t n) : n_(n) {}
  [[nodiscard]] Load reads() const override { return Load::requests; }
  std::size_t pick(const Request& r, std::span<const long> load) override {
    if (r.group == 0) return least_.pick(load);
    // splitmix64 of the group: consecutive groups land on unrelated replicas.
    return static_cast<std::size_t>(Rng(r.group).next() % n_);
  }

 private:
  std::size_t n_;
  LeastInTurn least_;
};

}  // namespace

std::string_view name(Routing r) { return kRoutingNames.at(static_cast<std::size_t>(r)); }

std::optional<Routing> routing_named(std::string_view name) {
  const auto* at = std::find(kRoutingNames.begin(), kRoutingNames.end(), name);
  if (at == kRoutingNames.end()) return std::nullopt;
  return static_cast<Routing>(at - kRoutingNames.begin());
}

std::unique_ptr<Router> make_router(Routing policy, std::size_t replicas, std::uint64_t seed) {
  if (replicas == 0) throw std::invalid_argument("a router needs a replica");
  switch (policy) {
    case Routing::round_robin: return std::make_unique<RoundRobin>(replicas);
    case Routing::random: return std::make_unique<Random>(replicas, seed);
    case Routing::least_loaded: return std::make_unique<Least>(Load::requests);
    case Routing::prefix_affinity: return std::make_unique<PrefixAffinity>(replicas);
    case Routing::kv_aware: return std::make_unique<Least>(Load::kv_blocks);
  }
  throw std::logic_error("make_router: a policy without a router");
}

}  // namespace roofline::serve
