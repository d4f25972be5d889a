// The memory ledger and the largest batch that fits.
#include <catch2/catch.hpp>

#include "model/engine.hpp"
#include "specs.hpp"

using namespace roofline;

TEST_CASE("Llama-2-7B on A100-80GB - 512 + 256 tokens: KV 768 × 0.5 MiB per sequence - max batch 147") {
  const ModelSpec m = test::llama_2_7b();
  const GpuSpec gpu = test::a100_80gb();
  const Report r = evaluate(m, gpu, test::default_workload(m));
  const MemoryLedger& l = r.memory;
  CHECK(l.weights.value() == 13'476'831'232.0);
  CHECK(l.kv_cache.value() == 768.0 * 524'288);
  // Prefill peak per sequence: 512 tokens × 2 B × (2·4096 residual + 2·11008 gate/up) + 32000 fp32 logits.
  CHECK(l.activations.value() == 512.0 * 2 * (2 * 4096 + 2 * 11008) + 32000 * 4);
  // 10% of 81920 MiB (80 GiB, as nvidia-smi reports it) = 8 GiB.
  CHECK(l.reserve.value() == 8'589'934'592.0);
  CHECK(l.fits);
  // (85.90 GB − 8.59 GB − 13.48 GB) / (402.7 MB + 31.06 MB) = 63.83 GB / 433.7 MB = 147.2.
  REQUIRE(l.max_batch.has_value());
  CHECK(*l.max_batch == 147);
}

TEST_CASE("a decode step at a context past prompt + gen holds that context: the ledger sizes the cache on it") {
  // Llama-2-7B keeps 0.5 MiB a token. The step at --context 4096 reads 4096 tokens a sequence, so
  // each sequence holds them, not the 512 + 256 it was asked to generate (the ledger sized 768
  // and said 32 sequences of 4096 fit where they need 64 GiB of cache beside the weights).
  const ModelSpec m = test::llama_2_7b();
  const GpuSpec gpu = test::a100_80gb();
  Workload w = test::default_workload(m);
  w.batch = 32;
  w.context_tokens = 4096;
  const Report r = evaluate(m, gpu, w);
  CHECK(r.memory.kv_cache.value() == 32 * 4096.0 * 524'288);
  CHECK(r.model.cache_bytes_per_sequence.value() == 4096.0 * 524'288);
  // 13.48 GB of weights + 68.72 GB of cache + 8.59 GB reserve > 85.90 GB.
  CHECK_FALSE(r.memory.fits);
  // (85.90 − 8.59 − 13.48) GB / (2.147 GB + 31.06 MB) = 63.83 / 2.178 = 29.3.
  CHECK(r.memory.max_batch == 29L);
  // A context within prompt + gen (the default's 640) leaves the whole sequence's 768.
  w.context_tokens = 700;
  CHECK(evaluate(m, gpu, w).memory.kv_cache.value() == 32 * 768.0 * 524'288);
}

TEST_CASE("Llama-2-70B in fp16 on an L4: 2 B × 68976648192 = 138 GB of weights in 24.15 GB - no batch fits") {
  const ModelSpec m = test::llama_2_70b();
  const GpuSpec gpu = test::l4();
  const Report report = evaluate(m, gpu, test::default_workload(m));
  CHECK(report.memory.weights.value() == 2 * 68'976'648'192.0);  // the HF count of Llama-2-70b-hf
  CHECK_FALSE(report.memory.fits);
  CHECK(report.memory.max_batch == 0L);
}

TEST_CASE("a model known only by its size is not limited by modelled memory") {
  const ModelSpec m = test::teaching_7b();
  const GpuSpec gpu = test::a100_teaching();
  const Report r = evaluate(m, gpu, test::default_workload(m));
  CHECK_FALSE(r.memory.max_batch.has_value());
  CHECK(r.memory.kv_cache.value() == 0);
}
