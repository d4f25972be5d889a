#include "hardware/collectives.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace roofline {

std::string_view name(Collective c) {
  switch (c) {
    case Collective::all_reduce: return "all-reduce";
    case Collective::all_gather: return "all-gather";
    case Collective::reduce_scatter: return "reduce-scatter";
    case Collective::all_to_all: return "all-to-all";
    case Collective::send: return "send";
  }
  return "";
}

BytesPerSecond group_bandwidth(const Interconnect& link, int ranks) {
  if (link.topology != Topology::mesh) return link.bandwidth;
  return link.bandwidth * static_cast<double>(std::clamp(ranks - 1, 1, link.links));
}

namespace {

// Inside one domain of k ranks: ring algorithms (Patarasuk & Yuan 2009) move (k − 1)/k of the
// buffer per pass over each GPU's links, an all-reduce two passes; an all-to-all sends the
// (k − 1)/k that is not its own at once.
CollectiveCost within(Collective c, double S, int k, const Interconnect& link) {
  const double b = group_bandwidth(link, k).value(), share = (k - 1.0) / k;
  const auto cost = [&](double seconds, double hops) {
    return CollectiveCost{Seconds(seconds), link.latency, hops, Seconds(seconds), Seconds(seconds)};
  };
  switch (c) {
    case Collective::all_reduce:
      if (link.topology == Topology::switched) {
        // A switch that reduces in the network (NVLink SHARP, NVSwitch 3 on) needs each GPU to
        // send only the (k − 1)/k of the buffer the others reduce and take back as much: half the
        // ring's traffic, the floor the bound takes for every switch (a looser bound on one that
        // cannot, A100's) (TensorRT-LLM's all-reduce of 1 GiB on 8
        // H100s, 4.0 ms, beats the ring's 4.2 ms). The expected time keeps the ring's two passes.
        const Seconds ring(2 * share * S / b);
        return {Seconds(share * S / b), link.latency, 2.0 * (k - 1), ring, ring};
      }
      return cost(2 * share * S / b, 2.0 * (k - 1));
    case Collective::all_gather:
    case Collective::reduce_scatter: return cost(share * S / b, k - 1.0);
    case Collective::all_to_all: return cost(share * S / b, 1);
    case Collective::send: return cost(S / link.bandwidth.value(), 1);
  }
  return {};
}

// Over n domains of d ranks: within each domain, then each GPU its 1/d share across the network
// with its peers of the same local rank (an all-reduce: reduce-scatter, all-reduce of S/d between
// domains, all-gather). An all-to-all sends (d − 1)/k of the buffer within the domain and
// (k − d)/k over the network at once: the slower of the two.
CollectiveCost across(Collective c, double S, int k, const Interconnect& link, const Network& net) {
  const int d = std::min(k, link.domain), n = k / d;
  const double b = group_bandwidth(link, d).value(), nb = net.bandwidth.value();
  const Seconds latency = std::max(link.latency, net.latency);
  const double in = (d - 1.0) / d, out = (n - 1.0) / n;
  // Two stages: the bound overlaps them, the expected time runs them one after the other.
  const auto staged = [&](double inside, double between, double hops) {
    const Seconds overlapped(std::max(inside, between));
    return CollectiveCost{overlapped, latency, hops, Seconds(inside + between), overlapped};
  };
  switch (c) {
    case Collective::all_reduce: {
      CollectiveCost cost = staged(2 * in * S / b, 2 * out * (S / d) / nb, 2.0 * (d - 1) + 2.0 * (n - 1));
      // The bound's stage within a switched domain at in-network reduction's floor, as within().
      if (link.topology == Topology::switched) cost.transfer = Seconds(std::max(in * S / b, 2 * out * (S / d) / nb));
      return cost;
    }
    case Collective::all_gather:
    case Collective::reduce_scatter: return staged(in * S / b, out * (S / d) / nb, (d - 1.0) + (n - 1.0));
    case Collective::all_to_all: {
      // Sent at once within and between domains: the slower, in both.
      const Seconds t(std::max((d - 1.0) / k * S / b, (k - d) * S / k / nb));
      return {t, latency, 2, t, t};
    }
    case Collective::send: return {Seconds(S / nb), net.latency, 1, Seconds(S / nb), Seconds(S / nb)};
  }
  return {};
}

}  // namespace

CollectiveCost collective_cost(Collective c, Bytes buffer, Group group, const Interconnect& link,
                               const std::optional<Network>& network) {
  const int k = group.ranks;
  if (k <= 1 && c != Collective::send) return {};
  const bool leaves = c == Collective::send ? group.across : k > link.domain;
  if (!leaves) {
    CollectiveCost cost = within(c, buffer.value(), k, link);
    cost.switched_domain = link.topology == Topology::switched;
    return cost;
  }
  if (!network) {
    throw std::invalid_argument("a " + std::string(name(c)) + " over " + std::to_string(k) + " GPUs leaves the " +
                                std::to_string(link.domain) + "-GPU domain, and the GPU has no `network`");
  }
  if (c != Collective::send && k % link.domain != 0) {
    throw std::invalid_argument("a group of " + std::to_string(k) + " GPUs does not fill whole " +
                                std::to_string(link.domain) + "-GPU domains");
  }
  return across(c, buffer.value(), k, link, *network);
}

}  // namespace roofline
