// Every bundled preset loads, says where its figures come from, and is listed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>

#include "cli_runner.hpp"
#include "io/presets.hpp"
#include "model/parameters.hpp"
#include "model/precision.hpp"

using namespace roofline;

TEST_CASE("presets: the issue's models and GPUs are all bundled - each with a source") {
  std::vector<std::string> models, gpus;
  for (const auto& p : io::list_presets(io::PresetKind::model)) {
    models.push_back(p.id);
    CHECK_FALSE(io::load_model(p.id).source.empty());
  }
  for (const auto& p : io::list_presets(io::PresetKind::gpu)) {
    gpus.push_back(p.id);
    CHECK_FALSE(io::load_gpu(p.id).source.empty());
  }
  for (const char* id : {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "mistral-7b",
                         "mixtral-8x7b", "qwen2.5-7b", "qwen2.5-72b", "deepseek-v3", "kimi-k2"}) {
    CHECK(std::find(models.begin(), models.end(), id) != models.end());
  }
  for (const char* id : {"a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200", "l4", "l40s", "rtx-4090", "mi300x",
                         "b200", "h20", "b300", "gb200", "mi325x", "mi355x", "rtx-5090", "rtx-4090-fp16acc",
                         "rtx-5090-fp16acc", "gaudi3", "m3-ultra", "m4-max", "tpu-v5e", "tpu-v6e"}) {
    CHECK(std::find(gpus.begin(), gpus.end(), id) != gpus.end());
  }
}

TEST_CASE("presets: A100-80GB is 2039 GB/s and 312 TFLOP/s fp16 dense - ridge 153 FLOP/B") {
  const GpuSpec g = io::load_gpu("a100-80gb");
  CHECK(g.memory_bandwidth.value() == 2039e9);
  CHECK(g.datasheet_peak(DType::fp16)->value() == 312e12);
  // 81920 MiB as nvidia-smi reports it: 80 × 2^30 = 85,899,345,920 B, not the decimal 80e9.
  CHECK(g.memory_capacity.value() == 85'899'345'920.0);
  CHECK(g.power->value() == 400);
}

TEST_CASE("presets: capacities as the devices report them - H100 81559 MiB, H200 143771 MiB, MI300X 192 GiB") {
  // 81559 × 2^20 = 85,520,809,984 B: 6.9% more than the datasheet's "80 GB" read as 80e9.
  CHECK(io::load_gpu("h100-sxm").memory_capacity.value() == 85'520'809'984.0);
  CHECK(io::load_gpu("h100-pcie").memory_capacity.value() == 85'520'809'984.0);
  // 143771 × 2^20 = 150,754,820,096 B, where "141 GB" was 141e9.
  CHECK(io::load_gpu("h200").memory_capacity.value() == 150'754'820'096.0);
  // 8 stacks × 24 GiB = 206,158,430,208 B.
  CHECK(io::load_gpu("mi300x").memory_capacity.value() == 206'158'430'208.0);
}

TEST_CASE("presets: GeForce peaks by accumulation - RTX 4090 fp16 165.2 TFLOP/s with fp32 accumulate, 330.3 with fp16") {
  const GpuSpec fp32acc = io::load_gpu("rtx-4090"), fp16acc = io::load_gpu("rtx-4090-fp16acc");
  CHECK(fp32acc.datasheet_peak(DType::fp16)->value() == 165.2e12);
  CHECK(fp16acc.datasheet_peak(DType::fp16)->value() == 330.3e12);
  // bf16 has no fp16 accumulate: the same in both.
  CHECK(fp16acc.datasheet_peak(DType::bf16)->value() == 165.2e12);
  CHECK(io::load_gpu("rtx-5090").datasheet_peak(DType::fp16)->value() == 209.5e12);
  CHECK(io::load_gpu("rtx-5090-fp16acc").datasheet_peak(DType::fp16)->value() == 419e12);
}

TEST_CASE("presets: fp6 peaks where the vendor gives them - MI355X at the fp4 rate, B200 at the fp8 rate") {
  const GpuSpec mi355x = io::load_gpu("mi355x"), b200 = io::load_gpu("b200");
  CHECK(mi355x.datasheet_peak(DType::fp6)->value() == 10066.3e12);
  CHECK(mi355x.datasheet_peak(DType::fp6) == mi355x.datasheet_peak(DType::fp4));
  CHECK(b200.datasheet_peak(DType::fp6) == b200.datasheet_peak(DType::fp8));
  CHECK_FALSE(io::load_gpu("h200").datasheet_peak(DType::fp6).has_value());
}

TEST_CASE("presets: every GPU but Apple's and Google's TPUs states its power - H100 SXM 700 W") {
  for (const auto& p : io::list_presets(io::PresetKind::gpu)) {
    const GpuSpec g = io::load_gpu(p.id);
    const bool unpublished = p.id.starts_with("m3-") || p.id.starts_with("m4-") || p.id.starts_with("tpu-");
    INFO(p.id);
    CHECK(g.power.has_value() != unpublished);
  }
  CHECK(io::load_gpu("h100-sxm").power->value() == 700);
}

TEST_CASE("presets: `rooflineplan presets` lists models with counts and GPUs with figures") {
  const auto r = test::run_cli({"presets"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("llama-2-7b") && Catch::Contains("6.74 B") && Catch::Contains("46.7 B") &&
                        Catch::Contains("12.9 B") && Catch::Contains("h200") && Catch::Contains("4.80 TB/s") &&
                        Catch::Contains("700 W"));
}

TEST_CASE("presets: DeepSeek-V3 and Kimi-K2 are their published configs - 671.03 B / 37.55 B, 1.026 T / 32.86 B, fp8 blocks") {
  // The counts are worked by hand in test_hf_published.cpp from the configs the presets were
  // converted from (`rooflineplan convert tests/data/hf-configs/<model>.json`).
  for (const auto& [preset, config, total, active] :
       {std::tuple{"deepseek-v3", "deepseek-v3", 671'026'404'352.0, 37'552'282'624.0},
        std::tuple{"kimi-k2", "kimi-k2", 1'026'408'209'408.0, 32'861'477'888.0}}) {
    INFO(preset);
    const ModelSpec m = io::load_model(preset);
    const ModelSpec hf = io::load_model(test::data_file(std::string("hf-configs/") + config + ".json"));
    CHECK(count_parameters(m).total() == total);
    CHECK(count_parameters(m).active() == active);
    CHECK(count_parameters(hf).total() == total);
    REQUIRE(m.quantization);
    CHECK(m.quantization->of(TensorClass::experts) == WeightFormat::fp8_block);
    // Stored as published: fp8 blocks with an fp32 scale per 128 × 128, 16-bit tables.
    CHECK(weight_bytes(m, resolve_precision(m)).total().value() ==
          weight_bytes(hf, resolve_precision(hf)).total().value());
  }
}

TEST_CASE("presets: how GPUs are joined - MI300X a mesh of 7 × 64 GB/s, GB200 72 in one NVLink domain, 400 Gb/s NICs") {
  const GpuSpec mi300x = io::load_gpu("mi300x"), gb200 = io::load_gpu("gb200"), h200 = io::load_gpu("h200");
  // A pair of MI300X shares one 64 GB/s link; the sum 448 GB/s is reached only by all 8.
  CHECK(mi300x.interconnect->topology == Topology::mesh);
  CHECK(mi300x.interconnect->links == 7);
  CHECK(mi300x.interconnect->bandwidth.value() == 64e9);
  CHECK(gb200.interconnect->topology == Topology::switched);
  CHECK(gb200.interconnect->domain == 72);
  CHECK(gb200.interconnect->host == 4);  // 18 trays of two GB200 superchips
  CHECK(h200.interconnect->domain == 8);
  CHECK_FALSE(h200.interconnect->host.has_value());  // the domain is the host
  CHECK(h200.interconnect->bandwidth.value() == 450e9);
  // 400 Gb/s = 50 GB/s a GPU between nodes.
  CHECK(h200.network->bandwidth.value() == 50e9);
  const GpuSpec l4 = io::load_gpu("l4");
  CHECK(l4.interconnect->topology == Topology::pcie);
  CHECK_FALSE(l4.network.has_value());
}

TEST_CASE("presets: the 2025-26 models are their configs converted, each stating its checkpoint's format") {
  // The counts are worked by hand in test_hf_published.cpp and test_hf_2026.cpp from these configs.
  for (const auto& [preset, config] :
       {std::pair{"qwen3-8b", "qwen3-8b"}, std::pair{"qwen3-32b-fp8", "qwen3-32b-fp8"},
        std::pair{"qwen3-30b-a3b", "qwen3-30b-a3b"}, std::pair{"qwen3.5-397b-a17b", "qwen3.5-397b"},
        std::pair{"qwen3-coder-480b-a35b", "qwen3-coder-480b-a35b"}, std::pair{"gpt-oss-20b", "gpt-oss-20b"},
        std::pair{"llama-4-scout", "llama-4-scout"}, std::pair{"deepseek-v3.2", "deepseek-v3.2"},
        std::pair{"glm-5", "glm-5-fp8-aic"}, std::pair{"gemma-3-27b", "gemma-3-27b-it"},
        std::pair{"gemma-4-26b-a4b", "gemma-4-26b-a4b"}, std::pair{"minimax-m2.5", "minimax-m2.5"},
        std::pair{"nemotron-3-nano-30b-a3b", "nemotron-3-nano-30b-a3b"},
        std::pair{"qwen3-235b-a22b", "qwen3-235b-a22b"}, std::pair{"gpt-oss-120b", "gpt-oss-120b"},
        std::pair{"qwen3.5-4b", "qwen3.5-4b"}, std::pair{"llama-4-maverick", "llama-4-maverick-partial"},
        std::pair{"glm-4.7", "glm-4.7-partial"}, std::pair{"gemma-4-31b", "gemma-4-31b"}}) {
    INFO(preset);
    const ModelSpec m = io::load_model(preset);
    const ModelSpec hf = io::load_model(test::data_file(std::string("hf-configs/") + config + ".json"));
    CHECK(count_parameters(m).total() == count_parameters(hf).total());
    CHECK(count_parameters(m).active() == count_parameters(hf).active());
    CHECK(weight_bytes(m, resolve_precision(m)).total().value() ==
          weight_bytes(hf, resolve_precision(hf)).total().value());
    CHECK(cache_bytes_per_sequence(m, resolve_precision(m), 32'768).value() ==
          cache_bytes_per_sequence(hf, resolve_precision(hf), 32'768).value());
    // What the config's reader left out (a vision tower, MTP layers) the preset says too: each is a
    // warning in every output. Llama 4's presets had dropped it. A config without torch_dtype is
    // assumed bf16; a preset states its format (its source, below).
    std::vector<Assumption> left_out = hf.assumptions;
    std::erase(left_out, Assumption::dtype_bf16);
    CHECK(m.assumptions == left_out);
    CHECK_THAT(m.source, Catch::StartsWith("HF ") &&
                             (Catch::Contains("bf16") || Catch::Contains("fp8") || Catch::Contains("MXFP4")));
  }
  // Kimi-K2-Thinking: Kimi-K2's layers, its routed experts in int4 groups of 32, the shared ones
  // in bf16, as its config's compressed-tensors scheme says (test_hf_quantization.cpp).
  const ModelSpec thinking = io::load_model("kimi-k2-thinking");
  const ModelSpec config = io::load_model(test::data_file("hf-configs/kimi-k2-thinking.json"));
  CHECK(count_parameters(thinking).total() == 1'026'408'209'408.0);
  REQUIRE(thinking.quantization);
  CHECK(thinking.quantization->of(TensorClass::experts) == WeightFormat::int4);
  CHECK(thinking.quantization->of(TensorClass::shared_experts) == WeightFormat::bf16);
  CHECK(thinking.quantization->group_size == 32);
  CHECK(weight_bytes(thinking, resolve_precision(thinking)).total().value() ==
        weight_bytes(config, resolve_precision(config)).total().value());
}

TEST_CASE("presets: a Hugging Face id names the preset converted from its config, in any case") {
  const std::string qwen = io::resolve_preset(io::PresetKind::model, "qwen3-8b");
  CHECK(io::resolve_preset(io::PresetKind::model, "Qwen/Qwen3-8B") == qwen);
  CHECK(io::resolve_preset(io::PresetKind::model, "qwen/qwen3-8b") == qwen);
  CHECK(io::load_model("meta-llama/Llama-3.1-8B").name == "Llama-3.1-8B");
  // An id no preset was converted from stays a path, and is refused as one.
  CHECK_THROWS_WITH(io::load_model("acme/unknown-7b"), Catch::Contains("acme/unknown-7b"));
  CHECK(io::resolve_preset(io::PresetKind::model, "Qwen/Qwen3-8") == "Qwen/Qwen3-8");  // a prefix is not an id
}

TEST_CASE("presets: a preset's Hugging Face id is its source's first word after 'HF'") {
  const auto preset = [](const std::string& id, io::PresetKind kind = io::PresetKind::model) {
    for (const io::Preset& p : io::list_presets(kind)) {
      if (p.id == id) return p;
    }
    FAIL("no preset " << id);
    return io::Preset{};
  };
  // source: HF Qwen/Qwen3-8B config.json, bf16 as published (8.2 B)
  CHECK(io::hf_id(preset("qwen3-8b")) == "Qwen/Qwen3-8B");
  // source: HF Qwen/Qwen3-32B-FP8 config.json, fp8 128x128 block linears as published, …
  CHECK(io::hf_id(preset("qwen3-32b-fp8")) == "Qwen/Qwen3-32B-FP8");
  // A datasheet is not a Hugging Face id.
  CHECK_FALSE(io::hf_id(preset("h100-sxm", io::PresetKind::gpu)).has_value());
}

TEST_CASE("presets: a GPU no kernel table measured says its expected times are borrowed, in every output, and a measured one does not") {
  const std::string borrowed = "no kernel was measured on the ";
  std::vector<std::string> own;
  for (const auto& p : io::list_presets(io::PresetKind::gpu)) {
    const GpuSpec g = io::load_gpu(p.id);
    if (!g.expected || !g.expected->kernels) continue;
    if (g.expected->kernels->own_tables) own.push_back(p.id);
    // The point's table (stderr) and JSON say so exactly where the preset borrows.
    INFO(p.id);
    const auto r = test::run_cli({"-m", "llama-3.1-8b", "-g", p.id, "-f", "json"});
    REQUIRE(r.code == 0);
    CHECK((r.out.find(borrowed + g.name) != std::string::npos) == !g.expected->kernels->own_tables);
  }
  std::sort(own.begin(), own.end());
  CHECK(own == std::vector<std::string>{"a100-80gb", "h100-sxm", "h200"});  // the GPUs ../shared/gpu-kernels/ measured
  // A plan row and simulate's run carry it too.
  const auto plan = test::run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm,mi300x", "--rate", "10", "--tpot", "50ms",
                                   "--ttft", "1s", "-f", "csv"});
  REQUIRE(plan.code == 0);
  CHECK(plan.out.find(borrowed + "AMD Instinct MI300X") != std::string::npos);
  CHECK(plan.out.find(borrowed + "NVIDIA H100") == std::string::npos);
  const auto sim = test::run_cli({"simulate", "-m", "llama-3.1-8b", "-g", "b200", "--rate", "2", "--duration", "5s",
                                  "--prompt", "128", "--gen", "16", "-f", "json"});
  REQUIRE(sim.code == 0);
  CHECK(sim.out.find(borrowed + "NVIDIA B200") != std::string::npos);
}
