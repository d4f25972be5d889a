// The memory ledger and the largest batch that fits.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"

using namespace roofline;

TEST_CASE("Llama-2-7B on A100-80GB - 512 + 256 tokens: KV 768 × 0.5 MiB per sequence - max batch 134") {
  const ModelSpec m = io::load_model("llama-2-7b");
  const GpuSpec gpu = io::load_gpu("a100-80gb");
  const Report r = evaluate(m, gpu, test::default_workload(m));
  const MemoryLedger& l = r.memory;
  CHECK(l.weights.value() == 13'476'831'232.0);
  CHECK(l.kv_cache.value() == 768.0 * 524'288);
  // Prefill peak per sequence: 512 tokens × 2 B × (2·4096 residual + 2·11008 gate/up) + 32000 fp32 logits.
  CHECK(l.activations.value() == 512.0 * 2 * (2 * 4096 + 2 * 11008) + 32000 * 4);
  CHECK(l.reserve.value() == 8e9);
  CHECK(l.fits);
  // (80 GB − 8 GB − 13.48 GB) / (402.7 MB + 31.06 MB) = 134.9.
  REQUIRE(l.max_batch.has_value());
  CHECK(*l.max_batch == 134);
}

TEST_CASE("Llama-2-70B in fp16 does not fit on an L4: said clearly - not an error") {
  const auto r = test::run_cli({"--model", "llama-2-70b", "--gpu", "l4"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("does NOT fit"));
  CHECK_THAT(r.err, Catch::Contains("warning: does not fit"));
  const ModelSpec m = io::load_model("llama-2-70b");
  const GpuSpec gpu = io::load_gpu("l4");
  const Report report = evaluate(m, gpu, test::default_workload(m));
  CHECK_FALSE(report.memory.fits);
  CHECK(report.memory.max_batch == 0L);
}

TEST_CASE("a model known only by its size is not limited by modelled memory") {
  const ModelSpec m = io::load_model(test::example_file("7b.yaml"));
  const GpuSpec gpu = io::load_gpu(test::example_file("a100.yaml"));
  const Report r = evaluate(m, gpu, test::default_workload(m));
  CHECK_FALSE(r.memory.max_batch.has_value());
  CHECK(r.memory.kv_cache.value() == 0);
}
