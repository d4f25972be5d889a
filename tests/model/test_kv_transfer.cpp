// The KV cache a disaggregated request sends between pools, worked by hand.
#include <catch2/catch.hpp>

#include "model/capacity_plan.hpp"
#include "model/kv_transfer.hpp"
#include "specs.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

TEST_CASE("kv transfer: Llama-3.1-8B's 512-token prompt is 67108864 bytes, 154.13 us over an H100's NVLink, 79.57 us at tp 2") {
  // 2 (K, V) · 32 layers · 8 KV heads · 128 · 2 bytes = 131072 bytes a token; each GPU of the group
  // sends its share over its own 450 GB/s link, plus one 5 us latency.
  const ModelSpec m = test::llama_3_1_8b();
  Workload w = test::default_workload(m);
  const KvTransfer one = kv_transfer(m, test::h100_sxm(), w);
  CHECK(one.bytes->value() == 67108864.0);
  CHECK_THAT(one.time->value(), WithinRel(67108864.0 / 450e9 + 5e-6, 1e-12));
  w.tp = 2;
  const KvTransfer two = kv_transfer(m, test::h100_sxm(), w);
  CHECK(two.bytes->value() == 67108864.0);
  CHECK_THAT(two.time->value(), WithinRel(33554432.0 / 450e9 + 5e-6, 1e-12));
  // A GPU without an interconnect leaves the time unpriced, never zero.
  GpuSpec lone = test::h100_sxm();
  lone.interconnect.reset();
  CHECK_FALSE(kv_transfer(m, lone, w).time.has_value());
  // A model known only by its size has no cache to send: neither is priced.
  CHECK_FALSE(kv_transfer(test::teaching_7b(), test::h100_sxm(), w).bytes.has_value());
}

TEST_CASE("plan: disaggregated, the first token is the prefill's and the cache's transfer delays the second: TPOT = step + transfer / 255") {
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::h100_sxm();
  const Workload w = test::default_workload(m);
  const LoadTarget t{.requests_per_s = 10, .ttft = Seconds(1), .tpot = Seconds(0.05), .disaggregate = true};
  const CapacityPlan p = plan_capacity(m, g, w, t);
  REQUIRE(p.kv_transfer.has_value());
  CHECK_THAT(p.ttft.value(), WithinRel(p.prefill.value(), 1e-12));
  // 256 output tokens: 255 gaps, the first of which also waits for the cache.
  CHECK_THAT(p.tpot.value(), WithinRel((p.decode_step + *p.kv_transfer / 255.0).value(), 1e-12));
  CHECK(p.kv_transfer_bytes->value() == 67108864.0);
  // Colocated, nothing crosses.
  LoadTarget colocated = t;
  colocated.disaggregate = false;
  CHECK_FALSE(plan_capacity(m, g, w, colocated).kv_transfer.has_value());
}

TEST_CASE("kv transfer: DeepSeek-V3 under dp-attention sends one rank's whole 288 MB cache, 5.767 ms over one NIC") {
  // 4096 tokens · (512 latent + 64 rope) · 61 layers · 2 bytes = 287,834,112 bytes, all of it on
  // the one rank whose sequence it is (docs/layouts.md): that rank sends it over its own 50 GB/s
  // NIC (a prefill and a decode replica of 8 GPUs each leave the 8-GPU domain), 5.757 ms, then
  // the NIC's 10 us. Not a tp-th of it (720 us): the other ranks hold none of this sequence.
  const ModelSpec m = test::deepseek_v3();
  Workload w = test::expert_parallel_8(m, true);
  w.prompt_tokens = 4096;
  const KvTransfer t = kv_transfer(m, test::h200_141gb(), w);
  CHECK(t.bytes->value() == 287834112.0);
  CHECK(t.network);
  CHECK_THAT(t.time->value(), WithinRel(287834112.0 / 50e9 + 10e-6, 1e-12));
  CHECK(t.links == 8);  // the replica's eight ranks send eight such caches at once
  // Without it each of the 8 GPUs holds the latent (8 copies, 2.30 GB) and sends its own: the same time.
  w.dp_attention = false;
  const KvTransfer tp = kv_transfer(m, test::h200_141gb(), w);
  CHECK(tp.bytes->value() == 8 * 287834112.0);
  CHECK_THAT(tp.time->value(), WithinRel(287834112.0 / 50e9 + 10e-6, 1e-12));
  CHECK(tp.links == 1);
}

TEST_CASE("kv transfer: two tp-8 replicas of a GPU with no network leave its domain, refused naming network") {
  // L4: PCIe, an 8-GPU domain, no `network:`. Llama-3.1-8B at tp 4: a pair of 8 fits, each GPU's
  // quarter of 67,108,864 bytes over 32 GB/s, 524 us + 10 us. At tp 8 a pair of 16 would cross
  // between domains over a network the description does not name: not priced, and said why.
  const ModelSpec m = test::llama_3_1_8b();
  Workload w = test::default_workload(m);
  w.tp = 4;
  const KvTransfer four = kv_transfer(m, test::l4(), w);
  CHECK_FALSE(four.refused.has_value());
  CHECK_THAT(four.time->value(), WithinRel(67108864.0 / 4 / 32e9 + 10e-6, 1e-12));
  w.tp = 8;
  const KvTransfer eight = kv_transfer(m, test::l4(), w);
  CHECK_FALSE(eight.time.has_value());
  REQUIRE(eight.refused.has_value());
  CHECK_THAT(*eight.refused, Catch::Matchers::Contains("`network: {bandwidth, latency}`") &&
                                 Catch::Matchers::Contains("16 GPUs"));
}
