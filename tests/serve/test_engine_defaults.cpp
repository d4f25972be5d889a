// Each engine's scheduler defaults as serve/engine_defaults.cpp cites them (docs/engines.md): a
// changed value must change this table and the docs with it.
#include <catch2/catch.hpp>

#include "serve/engine_defaults.hpp"

using namespace roofline::serve;

TEST_CASE("engine defaults: vLLM 0.11 on an 80 GB GPU and below 70 GiB") {
  const EngineDefaults d = engine_defaults(Engine::vllm, 79.2);
  CHECK(d.label == "vLLM 0.11");
  CHECK(d.source == "https://docs.vllm.ai/en/v0.11.2/configuration/engine_args.html");
  CHECK(d.chunked_prefill);
  CHECK(d.max_batched_tokens == 8192);
  CHECK(d.max_batch == 1024);
  CHECK(d.block_tokens == 16);
  CHECK(d.preemption == Preemption::recompute);
  CHECK(d.queue_order == "fcfs");
  CHECK(d.prefix_cache);
  CHECK(d.unchunked == UnchunkedLimit::model_length);
  const EngineDefaults small = engine_defaults(Engine::vllm, 39.4);  // an A100 40GB
  CHECK(small.max_batched_tokens == 2048);
  CHECK(small.max_batch == 256);
  // An A100 of 80 GB keeps the small defaults: `"a100" not in device_name` (PR #17885).
  const EngineDefaults a100 = engine_defaults(Engine::vllm, 79.2, "NVIDIA A100 80GB SXM");
  CHECK(a100.max_batched_tokens == 2048);
  CHECK(a100.max_batch == 256);
  CHECK(engine_defaults(Engine::vllm, 79.2, "NVIDIA H100 SXM").max_batch == 1024);
}

TEST_CASE("engine defaults: SGLang 0.5, its chunk size by the GPU's memory") {
  const EngineDefaults d = engine_defaults(Engine::sglang, 79.2);
  CHECK(d.label == "SGLang 0.5");
  CHECK(d.source == "https://docs.sglang.io/advanced_features/server_arguments.html");
  CHECK(d.chunked_prefill);
  CHECK(d.max_batched_tokens == 8192);
  CHECK(d.max_batch == 2048);
  CHECK(d.block_tokens == 1);
  CHECK(d.preemption == Preemption::recompute);
  CHECK(d.queue_order == "fcfs");
  CHECK(d.prefix_cache);
  CHECK(d.unchunked == UnchunkedLimit::none);
  CHECK(engine_defaults(Engine::sglang, 22).max_batched_tokens == 2048);
  CHECK(engine_defaults(Engine::sglang, 44).max_batched_tokens == 4096);
  CHECK(engine_defaults(Engine::sglang, 132).max_batched_tokens == 8192);  // an H200
  CHECK(engine_defaults(Engine::sglang, 178).max_batched_tokens == 16384);  // B200
}

TEST_CASE("engine defaults: TensorRT-LLM 1.0 reserves at admission and prefills whole") {
  const EngineDefaults d = engine_defaults(Engine::trtllm, 79.2);
  CHECK(d.label == "TensorRT-LLM 1.0");
  CHECK(d.source == "https://nvidia.github.io/TensorRT-LLM/1.0.0/commands/trtllm-serve/trtllm-serve.html");
  CHECK_FALSE(d.chunked_prefill);
  CHECK(d.max_batched_tokens == 8192);
  CHECK(d.max_batch == 2048);
  CHECK(d.block_tokens == 32);
  CHECK(d.preemption == Preemption::none);
  CHECK(d.queue_order == "fcfs");
  CHECK(d.prefix_cache);
  CHECK(d.unchunked == UnchunkedLimit::prompt);
  CHECK(engine_defaults(Engine::trtllm, 20).max_batched_tokens == 8192);  // not by memory
}

TEST_CASE("engine defaults: each engine by its name, and no other") {
  for (const Engine e : {Engine::vllm, Engine::sglang, Engine::trtllm}) CHECK(engine_named(engine_name(e)) == e);
  CHECK(engine_name(Engine::trtllm) == "trtllm");
  CHECK_FALSE(engine_named("tgi").has_value());
  CHECK_FALSE(engine_named("").has_value());
}
