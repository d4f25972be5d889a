// The memory ledger and the largest batch that fits.
#include <catch2/catch.hpp>

#include "model/engine.hpp"
#include "specs.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

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

TEST_CASE("tp 2: each GPU holds the gathered logits of the whole vocabulary, not its head's half - Llama-2-7B") {
  // A GPU's prefill peak: 512 tokens × 2 B × (2·4096 residual + 2·5504 gate/up, its halves) and
  // the last token's fp32 logits, all 32,000 of them once gathered (gather_logits) = 19,788,800 B;
  // the ledger sums the two GPUs. The head's own 16,000 columns (64,000 B) were counted.
  const ModelSpec m = test::llama_2_7b();
  Workload w = test::default_workload(m);
  w.tp = 2;
  const Report r = evaluate(m, test::a100_80gb(), w);
  CHECK(r.memory.activations.value() == 2 * (512.0 * 2 * (2 * 4096 + 2 * 5504) + 32000 * 4));
  CHECK(r.memory.activations.value() == 2 * 19'788'800.0);
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

TEST_CASE("Nemotron-3-Nano at pp 4 on H100: the fullest stage is the last's 6 MoE, 6 Mamba-2 and 1 attention layers and the head - 16.79 GB, not 22.08") {
  // 52 layers, 13 a stage (vLLM's get_pp_indices): MEMEM*EMEMEM* | EMEMEM*EMEMEM | *EMEMEM*EMEME |
  // MEM*EMEMEMEME. In bf16, a layer of each kind:
  //   MoE    norm 2688 + router 2688 × 128 + 128 experts × 2 × 2688 × 1856 + shared 2 × 2688 × 3712
  //          = 1,297,468,032 weights, 2,594,936,064 B
  //   Mamba-2 norm 2688 + in_proj 2688 × (2·4096 + 2·8·128 + 64) + conv (4096 + 2048) × (4 + 1)
  //          + A, D, Δ bias 3 × 64 + gated norm 4096 + out_proj 4096 × 2688 = 38,744,896, 77,489,792 B
  //   attention norm 2688 + Q, O 2 × 2688 × 4096 + K, V 2 × 2688 × 256 = 23,399,040, 46,798,080 B
  //   head   final norm 2688 + 131,072 × 2688 = 352,324,224, 704,648,448 B (the embedding 704,643,072)
  // The last stage: 6 MoE + 6 Mamba-2 + 1 attention + the head = 16,786,001,664 B. Counted as
  // ⌈29 mixers / 4⌉ = 8 of the heaviest mixer and 8 MoE layers beside the head, it was 22.08 GB.
  const ModelSpec m = test::nemotron_3_nano();
  const GpuSpec gpu = test::h100_sxm();
  Workload w = test::default_workload(m, 1);
  w.pp = 4;
  const MemoryLedger l = evaluate(m, gpu, w).memory;
  const double last_weights = 6 * 2'594'936'064.0 + 6 * 77'489'792.0 + 46'798'080.0 + 704'648'448.0;
  CHECK(last_weights == 16'786'001'664.0);
  CHECK(l.weights.value() == 63'155'874'688.0);  // the four stages: 14.24 + 16.08 + 16.05 + 16.79 GB
  // A sequence of 768 tokens holds, a layer: K and V 2 × 256 × 768 × 2 B = 786,432 B; a Mamba-2
  // state 4096 × 128 × 4 B (fp32) and the convolution's last 3 inputs 6144 × 3 × 2 B: 2,134,016 B.
  // The last stage: 786,432 + 6 × 2,134,016 = 13,590,528 B.
  const double last_cache = 786'432.0 + 6 * 2'134'016.0;
  CHECK(l.kv_cache.value() == 6 * 786'432.0 + 23 * 2'134'016.0);
  // A prefill of 512 tokens: the residual stream and its normed copy and the widest intermediate,
  // the routed experts' 6 × 1856 rows a token, 512 × 2 B × (2 × 2688 + 11,136) = 16,908,288 B on
  // every stage, and the last stage's fp32 logits 131,072 × 4 B: 17,432,576 B.
  const double prefill = 512 * 2.0 * (2 * 2688 + 6 * 1856), last_prefill = prefill + 131'072 * 4.0;
  CHECK(l.activations.value() == 3 * prefill + last_prefill);
  // 85.52 GB (81,559 MiB) with a 10% reserve: 16.786 + 0.0136 + 0.0174 + 8.552 = 25.37 GB.
  const double reserve = 81'559 * 1048576.0 * 0.1;
  CHECK_THAT(l.fullest_gpu.value(), WithinRel(last_weights + last_cache + last_prefill + reserve, 1e-12));
  CHECK_THAT((l.fixed_fullest.value() - reserve), WithinRel(last_weights, 1e-12));
  CHECK(l.cache_per_sequence_fullest.value() == last_cache);
  // At most 4 micro-batches, a stage holds a quarter of each sequence's prefill: the last stage has
  // room for (76.97 − 16.79) GB / (13.59 + 4.36) MB = 3353.05 sequences; the first (2 attention
  // layers' cache, 14.24 GB) for 3371, the second 3417, the third 3698.
  CHECK((85'520'809'984.0 - reserve - last_weights) / (last_cache + last_prefill / 4) == Approx(3353.05).epsilon(1e-5));
  // But its micro-batches hold whole sequences: 3353 in 4 leave 839 in the largest, 16.786 GB +
  // 3353 × 13.59 MB + 839 × 17.43 MB = 76.981 GB of the 76.969 free; 3352 leave 838: 76.950 GB.
  CHECK(last_weights + 3353 * last_cache + 839 * last_prefill > 85'520'809'984.0 - reserve);
  CHECK(last_weights + 3352 * last_cache + 838 * last_prefill <= 85'520'809'984.0 - reserve);
  CHECK(l.max_batch == 3352L);
}

TEST_CASE("a table tied to the head at pp 2: the last stage holds it again as its head - Llama-2-7B tied, 13.48 GB in all") {
  // vLLM builds embed_tokens on the last rank too when tie_word_embeddings, for its head. Tied
  // Llama-2-7B in fp16: 32 layers of 202,383,360 weights (404,766,720 B), 16 a stage; the table
  // 32,000 × 4096 × 2 B = 262,144,000 B on both stages, the final norm 8,192 B on the last:
  // stages of 6,738,411,520 and 6,738,419,712 B, 13,476,831,232 B in all (the untied model's
  // bytes), where one table (13,214,687,232 B) was counted before.
  ModelSpec m = test::llama_2_7b();
  m.architecture->tied_embeddings = true;
  Workload w = test::default_workload(m, 1);
  w.pp = 2;
  const Report r = evaluate(m, test::a100_80gb(), w);
  CHECK(r.model.weight_bytes.value() == 13'214'687'232.0);
  CHECK(r.memory.weights.value() == 13'476'831'232.0);
  const double reserve = 81'920 * 1048576.0 * 0.1;
  CHECK_THAT(r.memory.fixed_fullest.value() - reserve, WithinRel(6'738'419'712.0, 1e-12));
}

TEST_CASE("a homogeneous model at pp 4 is weighed as before but for the final norm on the last stage - Llama-2-70B") {
  // 80 layers, 20 a stage, of 855,654,400 fp16 weights (1,711,308,800 B); the last stage holds
  // the head 32,000 × 8192 × 2 B = 524,288,000 B and the final norm 16,384 B: 34,750,480,384 B.
  // A sequence of 768 tokens caches 20 × 768 × 2 × 1024 × 2 B = 62,914,560 B on it; its prefill
  // 512 × 2 B × (2 · 8192 + 2 · 28,672) + 32,000 × 4 B of logits = 75,625,472 B.
  const ModelSpec m = test::llama_2_70b();
  Workload w = test::default_workload(m, 1);
  w.pp = 4;
  const MemoryLedger l = evaluate(m, test::h100_sxm(), w).memory;
  const double reserve = 81'559 * 1048576.0 * 0.1, weights = 20 * 1'711'308'800.0 + 524'288'000.0 + 16'384.0;
  CHECK_THAT(l.fullest_gpu.value(), WithinRel(weights + 62'914'560.0 + 75'625'472.0 + reserve, 1e-12));
  // Four micro-batches at most: (76.97 − 34.75) GB / (62.9 + 18.9) MB = 515.98, as before.
  CHECK(l.max_batch == 515L);
  // The first three stages compute no logits: 4 × 75,625,472 − 3 × 128,000 B of prefill.
  CHECK(l.activations.value() == 4 * 75'625'472.0 - 3 * 128'000.0);
}

TEST_CASE("a pipeline's max batch fits: below the micro-batch count each stage holds a whole sequence's activations") {
  // Llama-3.1-8B at pp 2 on H100 with a 500,000-token prompt: the last stage holds 16 layers and
  // the head (8.03 GB), each sequence's cache there 16 × 2 × 1024 × 2 B × 500,001 tokens =
  // 32.77 GB, and one prefill's peak activations 36.86 GB, beside the 8.55 GB reserve: 86.2 GB of
  // 85.5 GB, so not one sequence fits. Counted as if two micro-batches halved the activations, the
  // room had been (85.52 − 8.55 − 8.03) / (32.77 + 18.43) = 1.35 sequences: max batch 1 beside
  // "does not fit" at batch 1.
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::h100_sxm();
  Workload w = test::default_workload(m, 1);
  w.pp = 2;
  w.prompt_tokens = 500'000;
  w.gen_tokens = 1;
  w.context_tokens = 500'001;
  const Report r = evaluate(m, g, w);
  CHECK_FALSE(r.memory.fits);
  REQUIRE(r.memory.max_batch);
  CHECK(*r.memory.max_batch == 0);
  // Wherever the max batch is, it fits and one more does not, at pp 2 and 4 over prompts that
  // leave room for fewer sequences than micro-batches, and more.
  for (const int pp : {2, 4}) {
    for (const long prompt : {60'000L, 120'000L, 200'000L, 300'000L}) {
      w.pp = pp;
      w.prompt_tokens = prompt;
      w.context_tokens = prompt + 1;
      w.batch = 1;
      const auto most = evaluate(m, g, w).memory.max_batch;
      REQUIRE(most);
      INFO("pp " << pp << ", prompt " << prompt << ", max batch " << *most);
      if (*most > 0) {
        w.batch = *most;
        CHECK(evaluate(m, g, w).memory.fits);
      }
      w.batch = *most + 1;
      CHECK_FALSE(evaluate(m, g, w).memory.fits);
    }
  }
  // The same under data-parallel attention, each of 2 ranks holding its own sequences: Mixtral at
  // tp 2, ep 2 and pp 2 in 4 micro-batches. A micro-batch of fewer sequences than ranks still
  // leaves one on a rank, so a batch of 2 holds no less than one (the footprint had been
  // (cache + act/m) × ⌈B/d⌉: 1 sequence the same as 2, and the max batch searched on it
  // contradicted `fits`).
  const ModelSpec moe = test::mixtral_8x7b();
  Workload dp = test::default_workload(moe, 1);
  dp.tp = dp.ep = 2;
  dp.dp_attention = true;
  dp.pp = 2;
  dp.microbatches = 4;
  dp.gen_tokens = 1;
  for (const long prompt : {100'000L, 200'000L, 400'000L, 800'000L}) {
    for (const double reserve : {0.1, 0.4}) {
      dp.prompt_tokens = prompt;
      dp.context_tokens = prompt + 1;
      dp.reserve_fraction = reserve;
      dp.batch = 1;
      const auto most = evaluate(moe, g, dp).memory.max_batch;
      REQUIRE(most);
      INFO("prompt " << prompt << ", reserve " << reserve << ", max batch " << *most);
      for (long b = 1; b <= *most + 2; ++b) {
        dp.batch = b;  // in min(4, b) micro-batches
        CHECK(evaluate(moe, g, dp).memory.fits == (b <= *most));
      }
    }
  }
}

TEST_CASE("data-parallel attention: a GPU's experts hold the intermediates of every rank's picks - Mixtral-8x7B at tp 8, ep 8, 1073.9 MB a sequence, max batch 224") {
  // Each of the 8 GPUs runs attention on its own sequences, but its one expert takes the picks of
  // all 8 GPUs' tokens: B · 8192 · 2/8 rows, 2 rows a token of its own sequences. A prefill of 8192
  // tokens holds, a sequence: 8192 × 2 B × (2 · 4096 residual + 2 rows × 2 · 14,336 gate/up) +
  // 32,000 × 4 B of logits = 1,073,869,824 B, as on one GPU holding every expert (a quarter row a
  // token, 251.8 MB, had been counted: the rows of its own tokens alone).
  const ModelSpec m = test::mixtral_8x7b();
  const GpuSpec gpu = test::h100_sxm();
  Workload w = test::expert_parallel_8(m, true, 8);
  w.prompt_tokens = 8192;
  w.gen_tokens = 256;
  w.context_tokens = 8192 + 128;
  const MemoryLedger l = evaluate(m, gpu, w).memory;
  const double activations = 8192 * 2.0 * (2 * 4096 + 2 * 2 * 14336) + 32000 * 4.0;
  CHECK(activations == 1'073'869'824.0);
  CHECK(l.activations.value() == 8 * activations);
  CHECK(l.activations_per_sequence_fullest.value() == activations);
  // A GPU holds attention, norms, routers, embedding and head whole and one expert: 32 layers ×
  // (41,943,040 + 8,192 + 32,768 + 3 × 4096 × 14,336) + 2 × 32,000 × 4096 + 4096 = 7,242,780,672
  // weights, 14,485,561,344 B. Free: 85,520,809,984 − 8,552,080,998.4 reserve − 14,485,561,344 =
  // 62.48 GB, for (1107.3 MB of cache (8448 tokens × 32 × 2 × 1024 × 2 B) + 1073.9 MB) a sequence:
  // 28.65, so 28 a GPU, 224 over the 8 (360 before).
  CHECK(l.cache_per_sequence_fullest.value() == 8448 * 32 * 2 * 1024 * 2.0);
  CHECK_THAT(l.fixed_fullest.value(), WithinRel(14'485'561'344.0 + 8'552'080'998.4, 1e-12));
  CHECK(l.max_batch == 224L);
  // The busiest GPU at --expert-imbalance 2 runs twice the mean's rows, 4 a token of its own:
  // 8192 × 2 B × (8192 + 4 × 28,672) + 128,000 B.
  w.expert_imbalance = 2;
  CHECK(evaluate(m, gpu, w).memory.activations_per_sequence_fullest.value() ==
        8192 * 2.0 * (2 * 4096 + 4 * 2 * 14336) + 32000 * 4.0);
}
