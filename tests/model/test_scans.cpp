// A point's neighbours (model/scans.hpp) and what a report holds: reports along batch and context,
// the explanation's variations, and typed warnings, on the teaching example worked by hand
// (7e9 fp16 parameters, 2 TB/s, 312 TFLOP/s: a step reads 14 GB in 7 ms, B* = 156).
#include <catch2/catch.hpp>

#include <algorithm>

#include "model/engine.hpp"
#include "model/scans.hpp"
#include "specs.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

TEST_CASE("a report is a value: it outlives the specs it was evaluated from") {
  const Report r = evaluate(test::teaching_7b(), test::a100_teaching(), test::default_workload(test::teaching_7b()));
  CHECK(r.model.spec.name == "7B");
  CHECK(r.gpu.spec.memory_bandwidth.value() == 2e12);
  CHECK_THAT(r.decode.step.time.value(), WithinRel(7e-3, 1e-12));
  // 14 GB of weights at 2 TB/s: the floor no batch lowers.
  CHECK_THAT(r.decode.weight_read_time.value(), WithinRel(7e-3, 1e-12));
  // One request: the 512-token prefill (2·7e9·512 FLOPs at 312 TFLOP/s), which makes the first of
  // its 256 tokens, and 255 steps of 7 ms: 22.97 ms + 1785 ms.
  CHECK_THAT(r.request_time().value(), WithinRel(2 * 7e9 * 512 / 312e12 + 255 * 7e-3, 1e-12));
}

TEST_CASE("scan_batch: geometric batches 1..1000, the step flat at 7 ms until B* and 2·7e9·B/312e12 after") {
  const ModelSpec m = test::teaching_7b();
  const std::vector<Report> scan = scan_batch(m, test::a100_teaching(), test::default_workload(m), 1000, 60);
  REQUIRE(scan.front().workload.batch == 1);
  REQUIRE(scan.back().workload.batch == 1000);
  CHECK(std::is_sorted(scan.begin(), scan.end(),
                       [](const Report& a, const Report& b) { return a.workload.batch <= b.workload.batch; }));
  CHECK(std::adjacent_find(scan.begin(), scan.end(), [](const Report& a, const Report& b) {
          return a.workload.batch == b.workload.batch;
        }) == scan.end());
  for (const Report& r : scan) {
    const double b = static_cast<double>(r.workload.batch);
    CHECK_THAT(r.decode.step.time.value(), WithinRel(std::max(7e-3, 2 * 7e9 * b / 312e12), 1e-12));
  }
}

TEST_CASE("scan_context: 65 contexts 0..32768 step by 512, the workload's prompt kept where the context holds it") {
  const ModelSpec m = test::llama_2_7b();
  const Workload w = test::default_workload(m);
  const std::vector<Report> scan = scan_context(m, test::a100_80gb(), w, 32768, 64);
  REQUIRE(scan.size() == 65);
  CHECK(scan[0].workload.context_tokens == 1);  // at least one token
  CHECK(scan[1].workload.context_tokens == 512);
  CHECK(scan[1].workload.prompt_tokens == 512 - 256);  // below 512 + 256 the prompt gives way
  CHECK(scan[2].workload.prompt_tokens == 512);        // the workload's own from 768 on
  CHECK(scan[64].workload.prompt_tokens == 512);
  CHECK(scan[64].workload.context_tokens == 32768);
  for (std::size_t i = 1; i < scan.size(); ++i) {
    // Each 512 more tokens read 512 × 0.5 MiB more KV cache; the weights stay the same.
    CHECK(scan[i].decode.step.time > scan[i - 1].decode.step.time);
    CHECK(scan[i].decode.weight_read_time == scan[0].decode.weight_read_time);
  }
}

TEST_CASE("memory's limits, exact: Llama-2-7B on an A100-80GB holds 147 sequences of 768 tokens, not 148") {
  const ModelSpec m = test::llama_2_7b();
  const Workload w = test::default_workload(m);
  const Report base = evaluate(m, test::a100_80gb(), w);
  REQUIRE(base.memory.max_batch == 147);
  CHECK(first_batch_past_memory(base, 1000) == 148);
  CHECK_FALSE(first_batch_past_memory(base, 147));  // every batch up to 147 fits
  // At batch 32, along scan_context's line (the 512-token prompt kept): (85.90 − 8.59 reserve −
  // 13.48 weights − activations) GB over 32 sequences of 0.5 MiB a token holds some 3,700 tokens;
  // the bisection finds the first context that does not fit, and the one before it does.
  Workload at32 = w;
  at32.batch = 32;
  const std::optional<long> full = first_context_past_memory(m, test::a100_80gb(), at32, 32768);
  REQUIRE(full);
  const auto fits = [&](long t) {
    Workload x = at32;
    x.context_tokens = t;
    return evaluate(m, test::a100_80gb(), x).memory.fits;
  };
  CHECK_FALSE(fits(*full));
  CHECK(fits(*full - 1));
  CHECK(*full > 3000);
  CHECK(*full < 4000);
  CHECK_FALSE(first_context_past_memory(m, test::a100_80gb(), at32, *full - 1));
  // Llama-2-70B's weights alone fill an L4: not even one token fits.
  const ModelSpec big = test::llama_2_70b();
  CHECK(first_context_past_memory(big, test::l4(), test::default_workload(big), 4096) == 1);
}

TEST_CASE("variations: batch 64 still 7 ms, 2·B* = 312 takes 14 ms, int4 reads 7e9 × 0.515625 B") {
  const ModelSpec m = test::teaching_7b();
  const Variations v = variations(m, test::a100_teaching(), test::default_workload(m));
  CHECK_THAT(v.base.critical_batch.weights_only, WithinRel(156.0, 1e-12));
  CHECK_THAT(v.batch64.decode.step.time.value(), WithinRel(7e-3, 1e-12));
  CHECK(v.twice_critical.workload.batch == 312);
  CHECK_THAT(v.twice_critical.decode.step.time.value(), WithinRel(14e-3, 1e-12));
  CHECK_THAT(v.int4.decode.step.time.value(), WithinRel(7e9 * 0.515625 / 2e12, 1e-12));
  CHECK(v.speculative.workload.batch == 5);  // the 4 drafts and the token before them, a sequence
  CHECK(v.naive.workload.attention == AttentionKernel::naive);
  CHECK(v.kv8.workload.precision.kv == DType::fp8);
}

TEST_CASE("warnings are typed, with their numbers: a size-only model, a long context, a batch that does not fit") {
  const Report teaching = evaluate(test::teaching_7b(), test::a100_teaching(), test::default_workload(test::teaching_7b()));
  // Known by its size only; and its GPU file has no expected block, so the shipped kernel classes
  // (every measured GPU's together) price it, which it says.
  REQUIRE(teaching.warnings.size() == 2);
  CHECK(std::holds_alternative<ArchitectureUnknown>(teaching.warnings[0]));
  const auto* borrowed = std::get_if<ExpectedBorrowed>(&teaching.warnings[1]);
  REQUIRE(borrowed != nullptr);
  CHECK(borrowed->gpu == test::a100_teaching().name);

  const ModelSpec m = test::llama_2_7b();  // max_context 4096
  Workload w = test::default_workload(m);
  w.prompt_tokens = 4000;
  w.gen_tokens = 200;
  w.context_tokens = 4100;
  const Report long_context = evaluate(m, test::a100_80gb(), w);
  // The test's A100 carries no expected block (the shipped kernel classes: ExpectedBorrowed first).
  REQUIRE(long_context.warnings.size() == 2);
  CHECK(std::holds_alternative<ExpectedBorrowed>(long_context.warnings[0]));
  const auto* beyond = std::get_if<BeyondMaxContext>(&long_context.warnings[1]);
  REQUIRE(beyond != nullptr);
  CHECK(beyond->tokens == 4200);
  CHECK(beyond->max_context == 4096);

  const ModelSpec big = test::llama_2_70b();
  const Report on_l4 = evaluate(big, test::l4(), test::default_workload(big));
  const auto* no_fit = std::get_if<DoesNotFit>(&on_l4.warnings.back());
  REQUIRE(no_fit != nullptr);
  CHECK(no_fit->capacity.value() == 23034.0 * 1024 * 1024);  // 23034 MiB, as nvidia-smi reports an L4
  CHECK(no_fit->needed == on_l4.memory.total);
  CHECK(no_fit->batch == 1);
}
