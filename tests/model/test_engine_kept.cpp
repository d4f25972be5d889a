// What evaluate() keeps from point to point on a thread (model/engine.cpp: the weights' pricing and
// placement, one sequence's step and footprint) must never answer for a point it was not worked
// out for. Each point below is evaluated after the one before it on this thread, and afresh on a
// thread of its own that keeps nothing. Most differ in one field the keys read; the batch alone
// (which none reads); and two models at one workload, whose descriptions described_layers keeps
// at the addresses the first model's had (only the serials tell them apart).
#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "specs.hpp"

using namespace roofline;
using namespace roofline::test;

namespace {

Report fresh(const ModelSpec& m, const GpuSpec& g, const Workload& w) {
  Report r;
  std::thread t([&] { r = evaluate(m, g, w); });
  t.join();
  return r;
}

// Everything the kept quantities feed: weights, the cache, the ledger and the critical batch.
void check_same(const Report& kept, const Report& alone) {
  CHECK(kept.model.weight_bytes == alone.model.weight_bytes);
  CHECK(kept.model.params == alone.model.params);
  CHECK(kept.model.kv_bytes_per_token == alone.model.kv_bytes_per_token);
  CHECK(kept.model.cache_bytes_per_sequence == alone.model.cache_bytes_per_sequence);
  CHECK(kept.memory.weights == alone.memory.weights);
  CHECK(kept.memory.kv_cache == alone.memory.kv_cache);
  CHECK(kept.memory.activations == alone.memory.activations);
  CHECK(kept.memory.fullest_gpu == alone.memory.fullest_gpu);
  CHECK(kept.memory.max_batch == alone.memory.max_batch);
  CHECK(kept.critical_batch.weights_only == alone.critical_batch.weights_only);
  CHECK(kept.critical_batch.at_context == alone.critical_batch.at_context);
  CHECK(kept.decode.step.time == alone.decode.step.time);
  CHECK(kept.prefill.expected.time == alone.prefill.expected.time);
}

}  // namespace

TEST_CASE("evaluate: what a thread keeps between points never answers for another point") {
  const ModelSpec llama = llama_3_1_8b(), mixtral = mixtral_8x7b(), qwen = qwen2_5_7b();
  const GpuSpec h100 = h100_sxm();
  const Workload base = default_workload(llama, 8);
  std::vector<std::pair<const ModelSpec*, Workload>> points;
  const auto then = [&](const ModelSpec& m, auto change) {
    Workload w = points.empty() ? base : points.back().second;
    change(w);
    points.emplace_back(&m, w);
  };
  then(llama, [](Workload&) {});
  then(llama, [](Workload& w) { w.batch = 32; });  // the batch alone: everything kept applies
  // Short enough that a sequence's step computes longer than it reads its cache: a crossover.
  then(llama, [](Workload& w) { w.context_tokens = 100; });
  then(llama, [](Workload& w) { w.context_tokens = 200; });
  then(llama, [](Workload& w) { w.precision.kv = DType::fp8; });
  then(llama, [](Workload& w) { w.precision.set(TensorClass::attention, WeightFormat::int4); });
  then(llama, [](Workload& w) { w.prompt_tokens = 4000; });
  then(llama, [](Workload& w) { w.gen_tokens = 1000; });
  then(llama, [](Workload& w) { w.attention = AttentionKernel::naive; });
  then(llama, [](Workload& w) { w.tp = 2; });
  then(llama, [](Workload& w) { w.pp = 2; });
  then(llama, [](Workload& w) { w.pp = 1; });
  then(mixtral, [&](Workload& w) { w = default_workload(mixtral, 8); });
  then(mixtral, [](Workload& w) { w.tp = 2; });
  then(mixtral, [](Workload& w) { w.ep = 2; });
  then(mixtral, [](Workload& w) { w.dp_attention = true; });  // the split described where ep 2's was
  then(llama, [&](Workload& w) { w = default_workload(llama, 8); });  // back to the first point
  then(llama, [](Workload& w) { w.tp = 2; });
  // Another model at the very same workload: its two descriptions take the addresses of Llama's.
  then(qwen, [](Workload&) {});
  for (std::size_t i = 0; i < points.size(); ++i) {
    INFO("point " << i);
    const auto& [m, w] = points[i];
    check_same(evaluate(*m, h100, w), fresh(*m, h100, w));
  }
  // Each change moved what it should have (so a stale answer could not have passed unseen).
  const auto kv = [&](std::size_t i) { return evaluate(*points[i].first, h100, points[i].second).model.kv_bytes_per_token; };
  CHECK(kv(4) == kv(3) / 2);  // fp8 K/V: a byte an element
  const auto weights = [&](std::size_t i) { return evaluate(*points[i].first, h100, points[i].second).model.weight_bytes; };
  CHECK(weights(5) < weights(4));
  const auto cache = [&](std::size_t i) {
    return evaluate(*points[i].first, h100, points[i].second).model.cache_bytes_per_sequence;
  };
  CHECK(cache(6) > cache(5));
  CHECK(cache(7) > cache(6));
  const auto at_context = [&](std::size_t i) {
    return evaluate(*points[i].first, h100, points[i].second).critical_batch.at_context;
  };
  CHECK(at_context(3).has_value());
  CHECK(at_context(3) != at_context(2));
  const auto fullest = [&](std::size_t i) { return evaluate(*points[i].first, h100, points[i].second).memory.fullest_gpu; };
  CHECK(fullest(9) < fullest(8));
  CHECK(fullest(10) < fullest(9));
  const auto held = [&](std::size_t i) { return evaluate(*points[i].first, h100, points[i].second).memory.weights; };
  CHECK(held(15) > held(14));  // Mixtral's attention held whole on each GPU, not split
  CHECK(weights(18) != weights(17));  // Qwen2.5-7B is not Llama-3.1-8B
}
