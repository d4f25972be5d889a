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

TEST_CASE("engine defaults: each engine's memory rule - vLLM of the total, TensorRT-LLM of what is free, SGLang a static share") {
  // vLLM's --gpu-memory-utilization 0.9; trtllm-serve's --kv_cache_free_gpu_memory_fraction 0.9;
  // SGLang's --mem-fraction-static worked out from the GPU (sglang_static_share).
  CHECK(engine_defaults(Engine::vllm, 79.2).memory == MemoryRule::of_total);
  CHECK(engine_defaults(Engine::vllm, 79.2).memory_fraction == 0.9);
  CHECK(engine_defaults(Engine::trtllm, 79.2).memory == MemoryRule::of_free);
  CHECK(engine_defaults(Engine::trtllm, 79.2).memory_fraction == 0.9);
  CHECK(engine_defaults(Engine::sglang, 79.2).memory == MemoryRule::static_share);
}

TEST_CASE("engine defaults: SGLang 0.5's --cuda-graph-max-bs by the GPU's MiB and tp, as server_args.py sets it") {
  CHECK(sglang_cuda_graph_max_bs(15'000, 1) == 8);     // below 20 GiB
  CHECK(sglang_cuda_graph_max_bs(23'034, 1) == 24);    // an L4, below 35 GiB
  CHECK(sglang_cuda_graph_max_bs(23'034, 4) == 80);
  CHECK(sglang_cuda_graph_max_bs(40'960, 1) == 32);    // an A100 40GB, below 60 GiB
  CHECK(sglang_cuda_graph_max_bs(40'960, 8) == 160);
  CHECK(sglang_cuda_graph_max_bs(81'559, 1) == 256);   // an H100
  CHECK(sglang_cuda_graph_max_bs(81'559, 4) == 512);
  CHECK(sglang_cuda_graph_max_bs(143'771, 2) == 256);  // an H200, below 160 GiB
  CHECK(sglang_cuda_graph_max_bs(183'359, 1) == 512);  // a B200
}

TEST_CASE("engine defaults: SGLang 0.5's --mem-fraction-static, worked by hand from server_args.py") {
  // An H100 (81559 MiB) at tp 1, chunk 8192: 512 + 1.5 x 8192 + 2 x 256 + 1 x 1 / 8 x 1024 = 13440 MiB,
  // above the 10 GiB floor; (81559 - 13440) / 81559 = 0.83521, 0.835.
  SglangStatic h100 = sglang_static_share(81'559, 8192, 1, 1, false, SglangDraft::none);
  CHECK(h100.reserved_mib == 13'440);
  CHECK(h100.cuda_graph_max_bs == 256);
  CHECK(h100.fraction == Approx(0.835).margin(1e-12));
  // An H200 (143771 MiB): the same 13440 MiB, (143771 - 13440) / 143771 = 0.90652, 0.907.
  CHECK(sglang_static_share(143'771, 8192, 1, 1, false, SglangDraft::none).fraction == Approx(0.907).margin(1e-12));
  // A B200 (183359 MiB), chunk 16384 and 512 graphs: 512 + 24576 + 1024 + 128 = 26240; 0.85689, 0.857.
  const SglangStatic b200 = sglang_static_share(183'359, 16384, 1, 1, false, SglangDraft::none);
  CHECK(b200.reserved_mib == 26'240);
  CHECK(b200.fraction == Approx(0.857).margin(1e-12));
  // An L4 (23034 MiB, below 60 GiB: no 10 GiB floor), chunk 2048, 24 graphs: 512 + 3072 + 48 + 128 =
  // 3760; (23034 - 3760) / 23034 = 0.83676, 0.837.
  const SglangStatic l4 = sglang_static_share(23'034, 2048, 1, 1, false, SglangDraft::none);
  CHECK(l4.reserved_mib == 3'760);
  CHECK(l4.fraction == Approx(0.837).margin(1e-12));
  // Data-parallel attention over 8 H200s: 512 graphs at tp 8; 512 + 12288 + 1024 + 8 / 8 x 1024 = 14848,
  // + 512 x 8 x 3 = 12288, + 512 x 8 x 1.5 = 6144 (past 300): 33280; (143771 - 33280) / 143771 =
  // 0.76852, 0.769.
  const SglangStatic dp = sglang_static_share(143'771, 8192, 8, 1, true, SglangDraft::none);
  CHECK(dp.reserved_mib == 33'280);
  CHECK(dp.fraction == Approx(0.769).margin(1e-12));
  // Unchunked, --max-prefill-tokens' 16384: 512 + 24576 + 512 + 128 = 25728; 0.68455, 0.685.
  CHECK(sglang_static_share(81'559, 0, 1, 1, false, SglangDraft::none).fraction == Approx(0.685).margin(1e-12));
  // An EAGLE or MTP draft holds back 2 GiB more (15488: 0.81010, 0.810), a draft model 6 GiB (19584:
  // 0.75988, 0.760), n-gram lookup nothing.
  CHECK(sglang_static_share(81'559, 8192, 1, 1, false, SglangDraft::eagle).fraction == Approx(0.810).margin(1e-12));
  CHECK(sglang_static_share(81'559, 8192, 1, 1, false, SglangDraft::standalone).fraction ==
        Approx(0.760).margin(1e-12));
  CHECK(sglang_static_share(81'559, 8192, 1, 1, false, SglangDraft::ngram).fraction == h100.fraction);
  // A small GPU keeps its own reserve: 2 GiB of 4 GiB at chunk 2048 is 512 + 3072 + 16 + 128 = 3728.
  CHECK(sglang_static_share(4096, 2048, 1, 1, false, SglangDraft::none).reserved_mib == 3'728);
}
