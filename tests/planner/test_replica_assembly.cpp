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
