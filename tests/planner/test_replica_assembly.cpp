// The one assembly of a replica's server (planner/replica.hpp): the settings as given, an engine's
// preset where a setting was not given, and the refusals by type (exit 2, not a contract break).
#include <catch2/catch.hpp>

#include "planner/refusal.hpp"
#include "planner/replica.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::test;

TEST_CASE("assemble_replica: without an engine the settings as given, with trtllm its preset where not given") {
  const ModelSpec m = llama_3_1_8b();
  const GpuSpec g = h100_sxm();
  const Workload w = default_workload(m);
  planner::ServerSettings s;
  s.max_batch = 64;
  s.max_batched_tokens = 4096;
  s.chunked_prefill = true;
  const planner::AssembledReplica own = planner::assemble_replica(m, g, w, s);
  CHECK(own.config.max_batch == 64);
  CHECK(own.config.max_batched_tokens == 4096);
  CHECK(own.config.chunked_prefill);
  CHECK_FALSE(own.config.reserve_whole);
  CHECK(own.config.block_tokens == 16);
  CHECK(own.config.kv_blocks == own.cache.blocks);
  CHECK(own.cache.blocks > 0);
  CHECK(own.config.max_context == m.max_context.value_or(0));
  CHECK_FALSE(own.engine);

  // TensorRT-LLM: whole prefills, whole lengths reserved at admission, its block size; the batch
  // given overrides its max_batch_size, and is listed as an override.
  s.engine = serve::Engine::trtllm;
  s.given.max_batch = true;
  const serve::EngineDefaults d = serve::engine_defaults(serve::Engine::trtllm, g.memory_capacity.value() / 0x1p30, g.name);
  const planner::AssembledReplica trt = planner::assemble_replica(m, g, w, s);
  CHECK(trt.config.max_batch == 64);
  CHECK(trt.config.max_batched_tokens == d.max_batched_tokens);
  CHECK(trt.config.chunked_prefill == d.chunked_prefill);
  CHECK(trt.config.reserve_whole);
  CHECK(trt.config.block_tokens == d.block_tokens);
  REQUIRE(trt.engine);
  CHECK(trt.engine->overrides == std::vector<std::string>{"--max-batch 64"});
}

TEST_CASE("assemble_replica: no room for a cache is a Refusal naming --model, read as bad input") {
  // Llama-2-70B's 138 GB of 16-bit weights on one 80 GB GPU leave nothing for a cache.
  const ModelSpec m = llama_2_70b();
  const GpuSpec g = a100_80gb();
  try {
    (void)planner::assemble_replica(m, g, default_workload(m), {});
    FAIL("no refusal");
  } catch (const planner::Refusal& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("--model: the weights"));
    // A Refusal is an std::invalid_argument: cli::exit_for maps it to exit 2, not 1.
    CHECK(dynamic_cast<const std::invalid_argument*>(&e) != nullptr);
  }
}

TEST_CASE("engine_memory: each engine's own rule as the --reserve that leaves its cache, worked by hand") {
  // Llama-3.1-8B in bf16 on one H100: C = 81559 MiB = 85,520,809,984 B; weights W = 8,030,261,248 x 2
  // = 16,060,522,496 B; one step of 8192 tokens holds A = 8192 x 73,728 B (the residual and its
  // normed copy, 2 x 4096, and gate beside up, 2 x 14336, in 2 bytes) + the last token's fp32
  // logits, 128256 x 4 = 513,024 B: 604,492,800 B. What they leave: F = C - W - A = 68,855,794,688 B.
  const ModelSpec m = llama_3_1_8b();
  const GpuSpec g = h100_sxm();
  const Workload w = default_workload(m);
  constexpr double C = 85'520'809'984.0, A = 604'492'800.0, F = C - 16'060'522'496.0 - A;
  const auto memory = [&](serve::Engine e) {
    planner::ServerSettings s;
    s.engine = e;
    const planner::AssembledReplica r = planner::assemble_replica(m, g, w, s);
    REQUIRE(r.engine);
    return planner::engine_memory(r.engine->defaults, m, g, w, r.config, r.draft);
  };
  // vLLM: 0.9 of C for weights, activations and cache, the simulator's own 0.1 held back.
  const planner::EngineMemory vllm = memory(serve::Engine::vllm);
  CHECK(vllm.reserve_fraction == 0.1);
  CHECK_THAT(vllm.rule, Catch::Contains("gpu_memory_utilization 0.9"));
  // TensorRT-LLM: 0.9 of F, 61,970,215,219 B; the reserve 0.1 F / C = 0.080513 leaves it.
  const planner::EngineMemory trt = memory(serve::Engine::trtllm);
  CHECK(trt.reserve_fraction == Approx(0.1 * F / C).epsilon(1e-9));
  CHECK(trt.reserve_fraction == Approx(0.080513).epsilon(1e-4));
  CHECK_THAT(trt.rule, Catch::Contains("kv_cache_free_gpu_memory_fraction 0.9") && Catch::Contains("62 GB"));
  // SGLang: mem_fraction_static 0.835 holds the weights and cache, A outside it: the reserve is
  // 1 - 0.835 - A / C = 0.157932, and the cache 0.835 C - W = 55,349,353,841 B.
  const planner::EngineMemory sglang = memory(serve::Engine::sglang);
  CHECK(sglang.reserve_fraction == Approx(0.165 - A / C).epsilon(1e-9));
  CHECK_THAT(sglang.rule, Catch::Contains("mem_fraction_static 0.835") && Catch::Contains("13440 MiB") &&
                              Catch::Contains("a 55.3 GB cache"));
  // At those reserves the simulator's cache is the engine's: C (1 - r) - W - A.
  Workload at = w;
  at.reserve_fraction = sglang.reserve_fraction;
  planner::ServerSettings s;
  s.engine = serve::Engine::sglang;
  CHECK(planner::assemble_replica(m, g, at, s).cache.free.value() == Approx(0.835 * C - 16'060'522'496.0));
}

TEST_CASE("engine_memory: a layout SGLang's static share cannot hold is a Refusal naming --engine") {
  // Llama-3.1-8B (16.06 GB of bf16 weights) on an L4 (23034 MiB, chunk 2048, 24 graphs: 3760 MiB held
  // back, share 0.837): 0.837 x 24.15 GB = 20.2 GB beside the weights, a cache of 4.16 GB. On a card
  // of 16 GiB (16384 MiB, 8 graphs): 512 + 3072 + 16 + 128 = 3728 MiB, a share of round(12656 / 16384,
  // 3) = 0.772 of 17.18 GB = 13.26 GB, below the weights: SGLang would not start.
  const ModelSpec m = llama_3_1_8b();
  GpuSpec g = l4();
  planner::ServerSettings s;
  s.engine = serve::Engine::sglang;
  const planner::AssembledReplica fits = planner::assemble_replica(m, g, default_workload(m), s);
  CHECK_NOTHROW(planner::engine_memory(fits.engine->defaults, m, g, default_workload(m), fits.config, fits.draft));
  g.memory_capacity = MiB(16384);
  Workload bare = default_workload(m);
  bare.reserve_fraction = 0;  // the first assembly holds nothing back; the engine's rule then refuses
  const planner::AssembledReplica small = planner::assemble_replica(m, g, bare, s);
  try {
    (void)planner::engine_memory(small.engine->defaults, m, g, bare, small.config, small.draft);
    FAIL("no refusal");
  } catch (const planner::Refusal& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("--engine sglang: SGLang 0.5's default --mem-fraction-static 0.772") &&
                             Catch::Contains("Not enough memory"));
  }
}
