#pragma once
// How a fleet's router picks a replica for each request as it arrives, from the request and the
// replicas' loads at that moment (requests waiting or running in each):
//   - round-robin: each in turn, whatever their loads;
//   - random: uniformly at random (seeded, so a run repeats);
//   - least-loaded: the fewest requests waiting and running, ties in turn (nginx's least_conn);
//   - prefix-affinity: a request of a prefix group (Request::group) to the replica its group
//     hashes to, so the group's prefix is cached on one replica only; a request of none as
//     least-loaded. The hash ignores load: a popular group's replica queues, as a pure
//     consistent-hashing router's does.
// A new policy is one small class in router.cpp and its name here.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "serve/traffic.hpp"

namespace roofline::serve {

enum class Routing { round_robin, random, least_loaded, prefix_affinity };
inline constexpr std::array<std::string_view, 4> kRoutingNames = {"round-robin", "random", "least-loaded",
                                                                  "prefix-affinity"};
[[nodiscard]] std::string_view name(Routing r);
[[nodiscard]] std::optional<Routing> routing_named(std::string_view name);

class Router {
 public:
  virtual ~Router() = default;
  // Whether pick() reads the loads: a fleet advances every replica to the arrival first.
  [[nodiscard]] virtual bool reads_load() const = 0;
  // The replica for `r`; `load` holds each replica's (empty when !reads_load()).
  [[nodiscard]] virtual std::size_t pick(const Request& r, std::span<const long> load) = 0;
};

// std::invalid_argument when `replicas` is 0.
[[nodiscard]] std::unique_ptr<Router> make_router(Routing policy, std::size_t replicas, std::uint64_t seed);

}  // namespace roofline::serve
