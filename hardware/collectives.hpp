#pragma once
// What a collective costs over a group of GPUs, by the topology that joins them: the bandwidth
// term each algorithm moves over the slowest link it uses, the latency the bound charges once a
// call, and the sequential steps (hops) the expected time charges a latency each.
//
// A group of k GPUs sits on consecutive GPUs of as few domains as it can (k ≤ domain: one; else
// k / domain whole domains, which the caller checks). Within a domain each GPU moves data at
// b(k): its switch bandwidth, or (mesh) k − 1 links at once. Across domains collectives are
// hierarchical (NCCL's): within each domain, and between them over the network, where each GPU
// sends its own share; the bound lets the two stages overlap, the expected time adds them.
#include <optional>
#include <string_view>

#include "hardware/gpu_spec.hpp"
#include "hardware/quantity.hpp"

namespace roofline {

// buffer, for each: all_reduce: what each GPU holds and gets back summed; all_gather: what each
// GPU ends with; reduce_scatter: what each GPU starts with; all_to_all: what each GPU holds and
// spreads evenly over the group, its own share included; send: what one GPU sends another.
enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, send };
[[nodiscard]] std::string_view name(Collective c);

struct CollectiveCost {
  Seconds transfer;  // the bytes over the links each GPU uses, at their bandwidth
  Seconds latency;   // the bound's: one link latency a call (the network's when it leaves the domain)
  double hops = 0;   // sequential steps (a ring all-reduce: 2(k − 1)); the expected time pays each
  // The transfer with a hierarchical collective's stages one after the other, as the expected
  // time prices them; the bound's `transfer` lets them overlap (the slower stage), as NCCL's
  // pipelined rings can. Equal within a domain.
  Seconds serial;
  [[nodiscard]] Seconds bound() const { return transfer + latency; }
};

// Where a group sits: `ranks` GPUs; a send crosses domains when `across` is set (a pipeline
// boundary at a node's edge); other collectives cross them when ranks > domain.
struct Group {
  int ranks = 1;
  bool across = false;
};

// One call. Groups of one rank cost nothing. std::invalid_argument when a group leaves the
// domain and there is no network, or does not fill whole domains (validate(Workload) says it first).
[[nodiscard]] CollectiveCost collective_cost(Collective c, Bytes buffer, Group group, const Interconnect& link,
                                             const std::optional<Network>& network);

// A GPU's own bandwidth inside a group of k ranks of one domain: the switch's, or k − 1 mesh links.
[[nodiscard]] BytesPerSecond group_bandwidth(const Interconnect& link, int ranks);

}  // namespace roofline
