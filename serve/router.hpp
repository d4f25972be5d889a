#pragma once
// How a fleet's router picks a replica for each request as it arrives, from the request and the
// replicas' loads at that moment (requests waiting or running in each):
//   - round-robin: each in turn, whatever their loads;
//   - random: uniformly at random (seeded, so a run repeats);
//   - least-loaded: the fewest requests waiting and running, ties in turn (nginx's least_conn);
//   - prefix-affinity: a request of a prefix group (Request::group) to the replica its group
//     hashes to, so the group's prefix is cached on one replica only; a request of none as
//     least-loaded. The hash ignores load: a popular group's replica queues, as a pure
//     consistent-hashing router's does;
//   - kv-aware: NVIDIA Dynamo's KV router (--router-mode kv, its defaults): the least cost, a
//     replica's prefill blocks (the prompts routed there that have not yet made a first token,
//     and this request's less what that replica has cached of it) plus its decode blocks (the
//     prompts of every request routed there and not finished), ties in turn. Cost as
//     docs.nvidia.com/dynamo "Routing Concepts" gives it: prefill_load_scale 1, overlap credit 1;
//     the incoming request's own decode blocks are the same on every replica and left out.
// A new policy is one small class in router.cpp and its name here.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "serve/traffic.hpp"

namespace roofline::serve {

enum class Routing { round_robin, random, least_loaded, prefix_affinity, kv_aware };
inline constexpr std::array<std::string_view, 5> kRoutingNames = {"round-robin", "random", "least-loaded",
                                                                  "prefix-affinity", "kv-aware"};
[[nodiscard]] std::string_view name(Routing r);
[[nodiscard]] std::optional<Routing> routing_named(std::string_view name);

// What a router reads of each replica at an arrival: nothing, the requests it holds (waiting or
// running: Server::load), or the KV router's cost of this request there (Server::kv_cost).
enum class Load { none, requests, kv_blocks };

class Router {
 public:
  virtual ~Router() = default;
  [[nodiscard]] virtual Load reads() const = 0;
  // Whether pick() reads loads: a fleet advances every replica to the arrival first.
  [[nodiscard]] bool reads_load() const { return reads() != Load::none; }
  // The replica for `r`; `load` holds each replica's, as reads() says (empty when it reads none).
  [[nodiscard]] virtual std::size_t pick(const Request& r, std::span<const long> load) = 0;
};

// std::invalid_argument when `replicas` is 0.
[[nodiscard]] std::unique_ptr<Router> make_router(Routing policy, std::size_t replicas, std::uint64_t seed);

}  // namespace roofline::serve
