// Collectives by topology, worked by hand: an 8 MB all-reduce (a decode step's activations at a
// few hundred sequences) over NVLink's switch, MI300X's mesh and two 8-GPU nodes. The bound is
// bandwidth alone (no measured collective may beat it); the expected time's floor, floor(), adds
// a ring's traffic and a latency a call.
#include <catch2/catch.hpp>

#include "hardware/collectives.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::test;

namespace {

const Bytes kBuffer(8e6);

// H100/H200: NVLink 4 through NVSwitch, 450 GB/s a direction per GPU, 5 µs, 8 GPUs a node.
Interconnect nvlink() { return Interconnect{GBps(450), us(5), Topology::switched, 1, 8}; }
// MI300X: 7 Infinity Fabric links of 64 GB/s a direction, one to each peer.
Interconnect mi300x_mesh() { return Interconnect{GBps(64), us(5), Topology::mesh, 7, 8}; }
// 400 Gb/s InfiniBand, one NIC per GPU.
Network infiniband() { return Network{GBps(50), us(10)}; }

double micro(Seconds s) { return s.value() * 1e6; }

}  // namespace

TEST_CASE("collectives: an all-reduce on NVLink's switch: (k-1)/k of the buffer at 450 GB/s bounds it") {
  // The bound: in-network reduction's floor, each GPU sending and taking back (k − 1)/k of the
  // buffer, no latency. tp 2: 1/2 · 8e6 / 450e9 = 8.89 µs. The expected time's floor: a ring's two
  // passes and one latency, 2 · 1/2 · 8e6 / 450e9 + 5 = 22.78 µs; 2 hops.
  const CollectiveCost two = collective_cost(Collective::all_reduce, kBuffer, {2}, nvlink(), std::nullopt);
  CHECK(micro(two.bound()) == Approx(8.8889).epsilon(1e-4));
  CHECK(micro(two.floor()) == Approx(22.778).epsilon(1e-4));
  CHECK(two.hops == 2);
  // tp 4: 3/4 · 8e6 / 450e9 = 13.33 µs (ring + 5: 31.67); tp 8: 7/8 → 15.56 µs (36.11); 14 hops.
  const CollectiveCost four = collective_cost(Collective::all_reduce, kBuffer, {4}, nvlink(), std::nullopt);
  CHECK(micro(four.bound()) == Approx(13.333).epsilon(1e-4));
  CHECK(micro(four.floor()) == Approx(31.667).epsilon(1e-4));
  const CollectiveCost eight = collective_cost(Collective::all_reduce, kBuffer, {8}, nvlink(), std::nullopt);
  CHECK(micro(eight.bound()) == Approx(15.556).epsilon(1e-4));
  CHECK(micro(eight.floor()) == Approx(36.111).epsilon(1e-4));
  CHECK(eight.hops == 14);
}

TEST_CASE("collectives: MI300X's mesh gives a pair one 64 GB/s link and eight GPUs seven") {
  // No switch to reduce in the network: a ring's two passes bound it. tp 2: one link,
  // 2 · 1/2 · 8e6 / 64e9 = 125 µs: 5.5× the ring over NVLink's pair, where the aggregate 448 GB/s
  // would have made it 17.9 µs.
  CHECK(group_bandwidth(mi300x_mesh(), 2).value() == 64e9);
  const CollectiveCost two = collective_cost(Collective::all_reduce, kBuffer, {2}, mi300x_mesh(), std::nullopt);
  CHECK(micro(two.bound()) == Approx(125.0).epsilon(1e-6));
  CHECK(micro(two.floor()) == Approx(130.0).epsilon(1e-6));  // + 5 µs
  // tp 4: three links, 192 GB/s: 2 · 3/4 · 8e6 / 192e9 = 62.5 µs.
  CHECK(micro(collective_cost(Collective::all_reduce, kBuffer, {4}, mi300x_mesh(), std::nullopt).bound()) ==
        Approx(62.5).epsilon(1e-6));
  // tp 8: seven links, 448 GB/s: 2 · 7/8 · 8e6 / 448e9 = 31.25 µs, on a par with NVLink's ring.
  CHECK(micro(collective_cost(Collective::all_reduce, kBuffer, {8}, mi300x_mesh(), std::nullopt).bound()) ==
        Approx(31.25).epsilon(1e-6));
}

TEST_CASE("collectives: over two nodes an all-reduce is hierarchical and the network's share dominates") {
  // tp 16 on 8-GPU nodes: within each node a ring's 2 · 7/8 · 8e6 / 450e9 = 31.11 µs (the bound:
  // in-network reduction's 7/8 · 8e6 / 450e9 = 15.56); between them each GPU all-reduces its 1/8
  // (1 MB) with its peer: 2 · 1/2 · 1e6 / 50e9 = 20 µs; the network's latency 10 µs. The bound lets
  // the stages overlap (pipelined rings), the network's 20 µs; the expected time adds them.
  const CollectiveCost c = collective_cost(Collective::all_reduce, kBuffer, {16}, nvlink(), infiniband());
  CHECK(micro(c.bound()) == Approx(20.0).epsilon(1e-6));
  CHECK(micro(c.serial) == Approx(51.111).epsilon(1e-4));
  CHECK(micro(c.floor()) == Approx(41.111).epsilon(1e-4));  // the ring's stages overlapped + 10 µs
  CHECK(c.hops == 14 + 2);
  // Costed as if NVLink reached all 16 it would be 2 · 15/16 · 8e6 / 450e9 + 5 = 38.3 µs.
  CHECK_THROWS_WITH(collective_cost(Collective::all_reduce, kBuffer, {16}, nvlink(), std::nullopt),
                    Catch::Contains("leaves the 8-GPU domain"));
  CHECK_THROWS_WITH(collective_cost(Collective::all_reduce, kBuffer, {12}, nvlink(), infiniband()),
                    Catch::Contains("does not fill whole 8-GPU domains"));
}

TEST_CASE("collectives: all-gather, reduce-scatter, all-to-all and a send move what each must") {
  // All-gather over 8 on NVLink: 7/8 · 8e6 / 450e9 = 15.56 µs (the expected's floor + 5);
  // reduce-scatter the same.
  CHECK(micro(collective_cost(Collective::all_gather, kBuffer, {8}, nvlink(), std::nullopt).bound()) ==
        Approx(15.556).epsilon(1e-4));
  CHECK(collective_cost(Collective::reduce_scatter, kBuffer, {8}, nvlink(), std::nullopt).hops == 7);
  // All-to-all over 16 on two nodes: 7/16 of the buffer within (7.78 µs), 8/16 over the network
  // (80 µs) at once: the network's 80 µs.
  CHECK(micro(collective_cost(Collective::all_to_all, kBuffer, {16}, nvlink(), infiniband()).bound()) ==
        Approx(80.0).epsilon(1e-6));
  // A send: within a node 8e6 / 450e9 = 17.78 µs; across nodes 8e6 / 50e9 = 160 µs (+ 10 µs in
  // the expected time's floor).
  CHECK(micro(collective_cost(Collective::send, kBuffer, {2, false}, nvlink(), infiniband()).bound()) ==
        Approx(17.778).epsilon(1e-4));
  const CollectiveCost across = collective_cost(Collective::send, kBuffer, {2, true}, nvlink(), infiniband());
  CHECK(micro(across.bound()) == Approx(160.0).epsilon(1e-6));
  CHECK(micro(across.floor()) == Approx(170.0).epsilon(1e-6));
  // One rank: nothing to do.
  CHECK(collective_cost(Collective::all_reduce, kBuffer, {1}, nvlink(), std::nullopt).bound() == Seconds(0));
}
