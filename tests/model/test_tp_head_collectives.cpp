// The two collectives a tensor-parallel group runs at the ends of the stack: the all-reduce that
// sums the vocab-parallel embedding's rows (vLLM's VocabParallelEmbedding.forward), and the gather
// of the vocab-parallel head's logits to one GPU (vLLM's LogitsProcessor._gather_logits), worked
// by hand on Llama-3.1-8B over H100s (450 GB/s NVLink through NVSwitch, 5 us a call).
#include <catch2/catch.hpp>

#include <algorithm>
#include <span>
#include <string_view>
#include <vector>

#include "model/engine.hpp"
#include "model/layers.hpp"
#include "model/pipeline.hpp"
#include "priced_ops.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::test;

namespace {

const OpResult* find(const PhaseResult& p, std::string_view name) {
  const auto it = std::find_if(p.ops.begin(), p.ops.end(), [&](const OpResult& o) { return o.cost.name == name; });
  return it == p.ops.end() ? nullptr : &*it;
}

const OpResult& op(const PhaseResult& p, std::string_view name) {
  const OpResult* o = find(p, name);
  REQUIRE(o != nullptr);
  return *o;
}

// Where `name` sits among a phase's operators.
std::ptrdiff_t index_of(const PhaseResult& p, std::string_view name) {
  return std::find_if(p.ops.begin(), p.ops.end(), [&](const OpResult& o) { return o.cost.name == name; }) - p.ops.begin();
}

bool holds_step(const Block& b, std::string_view name) {
  return std::any_of(b.steps.begin(), b.steps.end(), [&](const PhasedStep& s) {
    const auto* c = std::get_if<CollectiveStep>(&s.step);
    return c != nullptr && c->name == name;
  });
}

}  // namespace

TEST_CASE("tp head collectives: Llama-3.1-8B at tp 8, batch 256 gathers 65.7 MB of logits and all-reduces its embedding") {
  const ModelSpec m = llama_3_1_8b();
  Workload w = default_workload(m, 256);
  w.tp = 8;
  const Report r = evaluate(m, h100_sxm(), w);
  const PhaseResult& step = r.decode.step;
  // The embedding's rows, 256 × 4096 × 2 B = 2,097,152 B, all-reduced right after the gather from
  // the table: bounded by in-network reduction's floor, 7/8 of it at 450 GB/s = 4.0778 us.
  const OpResult& embedding = op(step, "allreduce_embedding");
  CHECK(index_of(step, "allreduce_embedding") == index_of(step, "embedding") + 1);
  CHECK(embedding.cost.collective == Collective::all_reduce);
  CHECK(embedding.cost.group == 8);
  CHECK(embedding.cost.comm_bytes.value() == 256 * 4096 * 2.0);
  CHECK(embedding.time.value() == Approx(7.0 / 8 * 2'097'152 / 450e9).epsilon(1e-12));
  // The logits, 256 × 128,256 × 2 B = 65,667,072 B, gathered after the head, its last operator:
  // each GPU ends with them all, receiving 7/8 of them, 57,458,688 B at 450 GB/s = 127.689 us.
  const OpResult& logits = op(step, "gather_logits");
  CHECK(index_of(step, "gather_logits") == index_of(step, "lm_head") + 1);
  CHECK(index_of(step, "gather_logits") == static_cast<std::ptrdiff_t>(step.ops.size()) - 1);
  CHECK(logits.cost.collective == Collective::all_gather);
  CHECK(logits.cost.group == 8);
  CHECK(logits.cost.comm_bytes.value() == 256 * 128256 * 2.0);
  CHECK(logits.time.value() == Approx(7.0 / 8 * 65'667'072 / 450e9).epsilon(1e-12));
  // Timed on the link: no FLOPs, no memory traffic.
  for (const OpResult* o : {&embedding, &logits}) {
    CHECK(o->bound == Bound::interconnect);
    CHECK(o->cost.flops.value() == 0);
    CHECK(o->cost.bytes.value() == 0);
  }
  // The step's collectives: 2 × 32 layers' all-reduces and the embedding's, 65 × 4.0778 us =
  // 265.06 us, and the gather's 127.689 us: 392.745 us (261 us before these two).
  CHECK(step.comm_time.value() == Approx(65 * (7.0 / 8 * 2'097'152 / 450e9) + 7.0 / 8 * 65'667'072 / 450e9).epsilon(1e-9));

  // Prefill: every prompt token's embedding (256 × 512 × 4096 × 2 B = 1 GiB), but the logits of
  // each sequence's last token only, as the head computes: the same 65,667,072 B.
  CHECK(op(r.prefill, "allreduce_embedding").cost.comm_bytes.value() == 256 * 512 * 4096 * 2.0);
  CHECK(op(r.prefill, "gather_logits").cost.comm_bytes.value() == 256 * 128256 * 2.0);
}

TEST_CASE("tp head collectives: one GPU runs neither, nor does data-parallel attention's whole head and table") {
  const ModelSpec llama = llama_3_1_8b();
  const Report one = evaluate(llama, h100_sxm(), default_workload(llama, 8));
  CHECK(find(one.decode.step, "allreduce_embedding") == nullptr);
  CHECK(find(one.decode.step, "gather_logits") == nullptr);

  // DeepSeek-V3 on 8 H200s at ep 8: tensor-parallel ends split the table and the head over the 8
  // GPUs (129,280 logits × 2 B a sequence gathered: 32 × 258,560 B at batch 32); under
  // data-parallel attention each GPU holds them whole and runs its own sequences through them.
  const ModelSpec ds = deepseek_v3();
  const Report tp = evaluate(ds, h200_141gb(), expert_parallel_8(ds, false, 32));
  CHECK(op(tp.decode.step, "allreduce_embedding").cost.comm_bytes.value() == 32 * 7168 * 2.0);
  CHECK(op(tp.decode.step, "gather_logits").cost.comm_bytes.value() == 32 * 129280 * 2.0);
  const Report dp = evaluate(ds, h200_141gb(), expert_parallel_8(ds, true, 32));
  CHECK(find(dp.decode.step, "allreduce_embedding") == nullptr);
  CHECK(find(dp.decode.step, "gather_logits") == nullptr);
  CHECK(find(dp.prefill, "gather_logits") == nullptr);
}

TEST_CASE("tp head collectives: a pipeline deals the embedding's all-reduce to its first stage, the gather to its last") {
  const Architecture a = *llama_3_1_8b().architecture;
  const LayerStack stack = describe_layers(a, Sharding{.tp = 2});
  int embedding = 0, logits = 0;
  deal_stages(a, stack, 4, [&](const Block& b, std::span<const int> held) {
    if (holds_step(b, "allreduce_embedding")) {
      ++embedding;
      CHECK(std::vector<int>(held.begin(), held.end()) == std::vector<int>{1, 0, 0, 0});
    }
    if (holds_step(b, "gather_logits")) {
      ++logits;
      CHECK(std::vector<int>(held.begin(), held.end()) == std::vector<int>{0, 0, 0, 1});
    }
  });
  CHECK(embedding == 1);
  CHECK(logits == 1);
}

TEST_CASE("tp head collectives: the gather of the logits is no all-reduce, priced end to end, not by that class") {
  // Llama-3.1-8B at tp 2, batch 1, on H100s with the all-reduce class at 3 us and half the bus.
  const ModelSpec m = llama_3_1_8b();
  ExpectedModel em = with_kernel_classes();
  em.kernels->all_reduce = {3e-6, 0.5};
  Workload w = default_workload(m, 1);
  w.tp = 2;
  const ClassPriced run = price_by_classes(m, h100_sxm(), w, em);
  const Priced decode = run.decode();
  // The embedding's all-reduce of 8192 B is the class's: 3 us + 8192 B / (0.5 × 450 GB/s).
  CHECK(decode.seconds("allreduce_embedding") == Approx(3e-6 + 8192.0 / (0.5 * 450e9)).epsilon(1e-9));
  // The 128,256 × 2 = 256,512 B of logits, gathered over 2 GPUs: 1/2 of them at 450 GB/s =
  // 285.01 ns; one hop of 1.5 us and that, or the floor of a 5 us call and that: 5.2850 us (the
  // all-reduce class would have said 3 + 1.1400 = 4.1400 us).
  const double transfer = 0.5 * 256512 / 450e9;
  CHECK(decode.seconds("gather_logits") == Approx(std::max(5e-6, em.hop_latency.value()) + transfer).epsilon(1e-9));
  CHECK(decode.seconds("gather_logits") == Approx(5.28501e-6).epsilon(1e-5));
}
