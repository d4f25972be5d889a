#pragma once
// What a collective costs over a group of GPUs, by the topology that joins them: the bandwidth
// term each algorithm moves over the slowest link it uses (the bound: bandwidth only), a link's
// latency, and the sequential steps (hops) the expected time charges a latency each.
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
  Seconds transfer;  // the bound's: the fewest bytes over the links each GPU uses, at their bandwidth
  Seconds latency;   // one link latency a call (the network's when it leaves the domain); not in the bound
  double hops = 0;   // sequential steps (a ring all-reduce: 2(k − 1)); the expected time pays each
  // The transfer as the expected time prices it: a hierarchical collective's stages one after the
  // other (the bound lets them overlap, the slower stage, as NCCL's pipelined rings can), and an
  // all-reduce through a switch as a ring's two passes (the bound takes in-network reduction's one).
  Seconds serial;
  // The transfer as the expected time floors it: a ring's (not in-network reduction's), stages
  // overlapped.
  Seconds overlapped;
  // A roofline charges bandwidth only: a latency a call would sit above the fastest all-reduce
  // measured (TensorRT-LLM's, 2.6 µs on 2 to 8 H100s for small messages, against the presets' 5 µs).
  [[nodiscard]] Seconds bound() const { return transfer; }
  // Never faster than a ring's transfer and one latency a call: the expected time's floor.
  [[nodiscard]] Seconds floor() const { return overlapped + latency; }
  // Within one switched domain (NVLink through NVSwitch): where an engine runs its own all-reduce
  // kernel, the one the kernel classes measured; across nodes or over PCIe, NCCL's rings.
  bool switched_domain = false;
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
