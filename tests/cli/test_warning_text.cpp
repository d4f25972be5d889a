// The engine's typed warnings in words: each kind in English and Chinese, with its numbers.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "report/warning_text.hpp"

using namespace roofline;
using report::warning_text;

TEST_CASE("warning text: a size-only model, in English and Chinese") {
  CHECK(warning_text(ArchitectureUnknown{}) ==
        "architecture unknown (only `params` given): KV cache, attention and activations are not modelled; decode "
        "reads the weights only");
  CHECK(warning_text(ArchitectureUnknown{}, "zh") == "架构未知（只给了 `params`）：KV 缓存、注意力和激活均未建模；解码只读取权重");
}

TEST_CASE("warning text: 4200 tokens past a max_context of 4096") {
  CHECK(warning_text(BeyondMaxContext{4200, 4096}) == "4200 tokens exceed the model's max_context of 4096");
  CHECK(warning_text(BeyondMaxContext{4200, 4096}, "zh") == "4200 个词元超过了模型的 max_context（4096）");
}

TEST_CASE("warning text: 143.2 GB needed of 24 GB at batch 1, in human units: 1 MB is not 0.0 GB, 1.13 TB not 1126.6 GB") {
  const DoesNotFit w{Bytes(143.2e9), Bytes(24e9), 1};
  CHECK(warning_text(w) == "does not fit: needs 143 GB of 24.0 GB at batch 1");
  CHECK(warning_text(w, "zh") == "放不下：批大小 1 需要 143 GB，容量只有 24.0 GB");
  CHECK(warning_text(DoesNotFit{Bytes(1126.6e9), Bytes(1e6), 64}) == "does not fit: needs 1.13 TB of 1.00 MB at batch 64");
  // Just past the capacity, both said to the digit that tells them apart.
  CHECK(warning_text(DoesNotFit{Bytes(1207.3e9), Bytes(1206.0e9), 229}) ==
        "does not fit: needs 1.207 TB of 1.206 TB at batch 229");
  CHECK(report::warning_label() == "warning: ");
  CHECK(report::warning_label("zh") == "注意：");
}

TEST_CASE("warning text: a group size no weights take") {
  CHECK(warning_text(GroupSizeUnused{64, {WeightFormat::fp8}}) ==
        "--group-size 64 changes nothing: the weights are fp8, and only int4, awq, gptq, fp4 and fp6 weights take a "
        "group size (--weights chooses them)");
  CHECK_THAT(warning_text(GroupSizeUnused{64, {WeightFormat::fp8}}, "zh"), Catch::StartsWith("--group-size 64 不起作用：权重为 fp8"));
  // gpt-oss-20b: bf16 attention beside mxfp4 experts, most of the model. Its attention's format
  // alone had said "the weights are bf16".
  const auto oss = test::run_cli({"-m", "gpt-oss-20b", "-g", "b200", "--group-size", "64", "-f", "json"});
  REQUIRE(oss.code == 0);
  CHECK_THAT(oss.out, Catch::Contains("the weights are bf16, mxfp4, and only"));
}

TEST_CASE("infeasible text: each refusal of a plan, with its numbers, in both languages") {
  using report::infeasible_text;
  CHECK(infeasible_text(TpotUnreachable{Seconds(0.005), Seconds(0.0070897)}) ==
        "no batch size meets TPOT 5 ms: batch 1 already takes 7.09 ms per token");
  CHECK(infeasible_text(TtftUnreachable{Seconds(0.010), Seconds(0.030)}) ==
        "no batch size meets TTFT 10 ms: at batch 1 the first token takes 30 ms");
  CHECK(infeasible_text(BeyondContext{8202, 4096}) ==
        "the planned request's 8202 tokens (prompt and generation, their means under a distribution) exceed the model's "
        "max_context of 4096: engines refuse it, as simulate does");
  CHECK_THAT(infeasible_text(BeyondContext{8202, 4096}, "zh"), Catch::StartsWith("所规划请求的 8202 个词元"));
  CHECK(infeasible_text(WeightsDoNotFit{Bytes(138e9), Bytes(24e9), Bytes(2.4e9)}) ==
        "does not fit: the weights and one sequence need 138 GB beside the 2.40 GB --reserve holds back of 24.0 GB");
  CHECK(infeasible_text(WeightsDoNotFit{Bytes(138e9), Bytes(24e9), Bytes(2.4e9)}, "zh") ==
        "放不下：权重加一个序列需要 138 GB，另有 --reserve 预留 2.40 GB，容量只有 24.0 GB");
  CHECK(infeasible_text(TooManyReplicas{1e12}) == "the load needs more than 1e+12 replicas");
  CHECK(infeasible_text(TpotUnreachable{Seconds(0.005), Seconds(0.0070897)}, "zh") ==
        "没有批大小能满足 TPOT 5 ms：批大小 1 每个词元已需 7.09 ms");
  CHECK(infeasible_text(TooManyReplicas{1e12}, "zh") == "负载需要超过 1e+12 个副本");
}

TEST_CASE("warning text: what a model's reader assumed, each in English and Chinese") {
  CHECK(warning_text(Assumed{Assumption::dtype_bf16}) ==
        "the config gives no torch_dtype: the weights it does not quantize are priced in bf16, as serving engines "
        "load them");
  CHECK(warning_text(Assumed{Assumption::dtype_bf16}, "zh") == "配置未给出 torch_dtype：未量化的权重按 bf16 计价（与推理引擎的加载方式一致）");
  CHECK(warning_text(Assumed{Assumption::vision_not_modelled}) ==
        "multimodal model: only the text decoder is priced; the vision tower and its projector (weights, memory, image "
        "tokens) are not modelled");
  CHECK(warning_text(Assumed{Assumption::vision_not_modelled}, "zh") ==
        "多模态模型：只计价文本解码器；视觉塔及其投影层（权重、显存、图像词元）均未建模");
  CHECK(warning_text(Assumed{Assumption::mtp_not_modelled}) ==
        "the model's multi-token-prediction layers are not priced (nor is speculative decoding with them)");
  CHECK(warning_text(Assumed{Assumption::mtp_not_modelled}, "zh") == "模型附带的多词元预测（MTP）层未计价（用它们做的投机解码也未建模）");
  CHECK(warning_text(Assumed{Assumption::towers_in_memory}) ==
        "multimodal model: the vision and audio towers' weights are held in memory (estimated from their configs' "
        "dimensions) but never run: their compute, and image or audio tokens in a prompt, are not priced");
  CHECK(warning_text(Assumed{Assumption::quantization_beside}) ==
        "the weight formats are read from hf_quant_config.json beside config.json (an NVIDIA ModelOpt checkpoint)");
  CHECK(warning_text(Assumed{Assumption::dtype_fp32_as_bf16}) ==
        "the config gives torch_dtype float32: serving engines load it in 16 bits (vLLM's --dtype auto: bf16), so the "
        "weights it does not quantize, the KV cache and the matrix products are priced in bf16 (--weights fp32 "
        "--activations fp32 prices it in fp32)");
  CHECK(warning_text(Assumed{Assumption::dtype_fp32_as_bf16}, "zh") ==
        "配置给出的 torch_dtype 为 float32：推理引擎以 16 位加载它（vLLM 的 --dtype auto 为 bf16），所以未量化的权重、KV "
        "缓存和矩阵乘法按 bf16 计价（--weights fp32 --activations fp32 按 fp32 计价）");
}

TEST_CASE("warning text: the compute format a checkpoint chose, and where the GPU cannot run it") {
  CHECK(warning_text(ComputeFromCheckpoint{ComputeSource::checkpoint, DType::fp8, DType::fp8, "NVIDIA H200 SXM"}) ==
        "the linears compute in fp8: the checkpoint quantizes their inputs to fp8 as it runs (W8A8 and the like), so "
        "every operator's arithmetic is bound at the fp8 peak (--compute prices them otherwise)");
  CHECK(warning_text(ComputeFromCheckpoint{ComputeSource::fp8_weights, DType::fp8, DType::fp8, "NVIDIA H100 SXM",
                                           DType::fp16}) ==
        "the linears compute in fp8: engines run fp8 weights W8A8 on fp8 tensor cores, each token's activations scaled "
        "as it runs, so every operator's arithmetic is bound at the fp8 peak (--compute fp16 prices them weight-only)");
  CHECK(warning_text(ComputeFromCheckpoint{ComputeSource::no_peak, DType::bf16, DType::fp8, "NVIDIA A100 80GB SXM"}) ==
        "the weights would compute in fp8, but the NVIDIA A100 80GB SXM gives no fp8 peak: priced weight-only in bf16, "
        "the weights unpacked, as vLLM runs them there (--compute to choose)");
  CHECK_THAT(warning_text(ComputeFromCheckpoint{ComputeSource::no_peak, DType::bf16, DType::fp8, "NVIDIA A100 80GB SXM"}, "zh"),
             Catch::StartsWith("权重本应以 fp8 计算，但 NVIDIA A100 80GB SXM 没有 fp8 峰值"));
}

TEST_CASE("warning text: a GPU whose expected-time coefficients were fitted on other GPUs' kernels") {
  CHECK(warning_text(ExpectedBorrowed{"AMD Instinct MI300X", {}}) ==
        "no kernel was measured on the AMD Instinct MI300X: its expected times use kernel coefficients fitted on other "
        "GPUs' tables, a transfer that its own kernels and engine may miss by far; the bound holds "
        "(docs/expected-performance.md)");
  CHECK_THAT(warning_text(ExpectedBorrowed{"AMD Instinct MI300X", {}}, "zh"),
             Catch::StartsWith("AMD Instinct MI300X 上没有实测过内核"));
  // Some classes: English by their keys in the GPU file, Chinese by the kernel's name, the key beside it.
  const ExpectedBorrowed some{"NVIDIA A100 80GB SXM", {KernelClass::all_reduce, KernelClass::latent_decode}};
  CHECK_THAT(warning_text(some), Catch::StartsWith("the NVIDIA A100 80GB SXM's kernel tables did not measure "
                                                   "all_reduce, latent_decode: "));
  CHECK_THAT(warning_text(some, "zh"), Catch::StartsWith("NVIDIA A100 80GB SXM 的内核表没有测量 全归约（all_reduce）、"
                                                         "潜在注意力解码（latent_decode）："));
}

TEST_CASE("warning text: arithmetic narrower than the weights stored, in both languages") {
  const ComputeNarrowerThanWeights w{DType::fp4, WeightFormat::bf16, {"attention", "experts"}};
  CHECK(warning_text(w) == "the linears compute in fp4, each bound at the fp4 peak, but the attention, experts weights "
                           "are stored in bf16: an engine runs those GEMMs at bf16 or quantizes the weights first "
                           "(--weights fp4, fewer bytes), so their bound here is below what they take");
  CHECK_THAT(warning_text(w, "zh"), Catch::StartsWith("线性层以 fp4 计算，每个的计算上界都按 fp4 峰值算，但 attention, experts 的权重以 bf16 存储"));
}

TEST_CASE("plan: weights and one sequence that fit beside no reserve are not said to need the reserve's bytes") {
  // Llama-3.1-8B on an H100 (85,520,809,984 B) with --reserve 0.999999: the weights,
  // 16,060,522,496 B, one sequence's cache, 768 tokens × 131,072 B = 100,663,296 B, and its
  // activations, 38,261,760 B, are 16.2 GB; the reserve holds back 85,520,724,463 B. 101.7 GB in
  // all, which the row had said "the weights and one sequence need".
  const auto r = test::run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "1", "--ttft", "1s", "--tpot",
                                "50ms", "--reserve", "0.999999", "-f", "jsonl"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"reason\":\"does not fit: the weights and one sequence need 16.2 GB beside the "
                                    "85.5 GB --reserve holds back of 85.5 GB\"") &&
                        !Catch::Contains("one sequence need 102 GB"));
}

TEST_CASE("warning text: the operators no kernel class prices, named in both languages") {
  const ExpectedUnclassed w{{"index_scores", "attn_scores", "attn_values"}};
  CHECK(warning_text(w) == "no kernel class prices index_scores, attn_scores, attn_values: no kernel table measured "
                           "them, so their expected times use the end-to-end coefficients, fitted to whole models' runs, "
                           "not their own kernels'; the bound holds (docs/expected-performance.md)");
  CHECK_THAT(warning_text(w, "zh"), Catch::StartsWith("没有内核类为 index_scores、attn_scores、attn_values 计价："));
}

TEST_CASE("every output says which operators no kernel class prices - Nemotron 3 Nano's Mamba-2, DeepSeek-V3.2's sparse attention") {
  // Nemotron-3-Nano's Mamba-2 convolution and scan and DeepSeek-V3.2's indexer and top-2048 latent
  // attention have no fitted class (docs/expected-performance.md: no Mamba-2 or DSA table is read).
  const std::string nemotron = "no kernel class prices conv1d, ssd_scan: ";
  const auto text = test::run_cli({"-m", "nemotron-3-nano-30b-a3b", "-g", "h100-sxm"});
  REQUIRE(text.code == 0);
  CHECK_THAT(text.err + text.out, Catch::Contains("warning: " + nemotron));
  const auto json = test::run_cli({"-m", "nemotron-3-nano-30b-a3b", "-g", "h100-sxm", "-f", "json"});
  REQUIRE(json.code == 0);
  CHECK_THAT(nlohmann::json::parse(json.out).at("warnings").dump(), Catch::Contains(nemotron));
  const auto csv = test::run_cli({"-m", "nemotron-3-nano-30b-a3b", "-g", "h100-sxm", "-f", "csv"});
  REQUIRE(csv.code == 0);
  CHECK_THAT(csv.err, Catch::Contains(nemotron));
  const auto sweep = test::run_cli({"sweep", "-m", "nemotron-3-nano-30b-a3b", "-g", "h100-sxm", "-b", "1,8"});
  REQUIRE(sweep.code == 0);
  CHECK_THAT(sweep.err, Catch::Contains(nemotron));
  const auto zh = test::run_cli({"explain", "-m", "deepseek-v3.2", "-g", "h100-sxm", "--tp", "8", "--lang", "zh"});
  REQUIRE(zh.code == 0);
  CHECK_THAT(zh.out, Catch::Contains("注意：没有内核类为 index_scores、attn_scores、attn_values 计价"));
  // Llama's every operator has a class; Qwen3.5's Gated DeltaNet runs at the measured shapes.
  for (const char* model : {"llama-3.1-8b", "qwen3.5-4b"}) {
    const auto measured = test::run_cli({"-m", model, "-g", "h100-sxm"});
    CHECK_THAT(measured.err + measured.out, !Catch::Contains("no kernel class prices"));
  }
}

TEST_CASE("warning text zh: a time bound is a 下界 and a token a 词元, as explain's Chinese says them") {
  // The roofline's time is a floor (explain: 耗时至少 …，…下界): its 上界 (ceiling) had been said of it,
  // "所以这里它们的上界低于实际耗时" of an fp8 GEMM priced at the fp8 peak beside bf16 weights.
  const ComputeNarrowerThanWeights narrower{DType::fp8, WeightFormat::bf16, {"attention", "dense_ffn"}};
  CHECK_THAT(warning_text(narrower, "zh"), Catch::EndsWith("所以这里它们的下界低于实际耗时"));
  // The borrowed coefficients move the expected times, not the bound: 屋顶线下界不受影响, as explain's
  // 屋顶线下界.
  for (const Warning& w : std::vector<Warning>{ExpectedBorrowed{"AMD Instinct MI300X", {}},
                                               ExpectedBorrowed{"NVIDIA A100 80GB SXM", {KernelClass::all_reduce}},
                                               ExpectedUnclassed{{"router"}}}) {
    const std::string zh = warning_text(w, "zh");
    INFO(zh);
    CHECK_THAT(zh, Catch::Contains("屋顶线下界不受影响") && !Catch::Contains("上界"));
  }
  // Every Chinese warning with a token in it says 词元, as explain does (首词元, 草稿词元).
  CHECK(warning_text(BeyondMaxContext{4200, 4096}, "zh") == "4200 个词元超过了模型的 max_context（4096）");
  CHECK(report::infeasible_text(TtftUnreachable{Seconds(0.010), Seconds(0.030)}, "zh") ==
        "没有批大小能满足 TTFT 10 ms：批大小 1 的首个词元已需 30 ms");
  std::vector<Warning> all{BeyondMaxContext{4200, 4096},
                           ComputeFromCheckpoint{ComputeSource::fp8_weights, DType::fp8, DType::fp8, "NVIDIA H100 SXM",
                                                 DType::fp16}};
  for (std::size_t a = 0; a < kAssumptionCount; ++a) all.emplace_back(Assumed{static_cast<Assumption>(a)});
  for (const Warning& w : all) {
    const std::string zh = warning_text(w, "zh");
    INFO(zh);
    CHECK_THAT(zh, !Catch::Contains(" token") && !Catch::Contains("token "));
  }
  for (const Infeasible& why : std::vector<Infeasible>{TpotUnreachable{Seconds(0.005), Seconds(0.0070897)},
                                                       TtftUnreachable{Seconds(0.010), Seconds(0.030)},
                                                       BeyondContext{8202, 4096}}) {
    const std::string zh = report::infeasible_text(why, "zh");
    INFO(zh);
    CHECK_THAT(zh, !Catch::Contains("token"));
  }
  // The command the defect was seen in.
  const auto r = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--compute", "fp8", "--lang", "zh"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("所以这里它们的下界低于实际耗时") && !Catch::Contains("它们的上界"));
}
