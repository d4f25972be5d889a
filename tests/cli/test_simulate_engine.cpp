// Issue 25, simulate --engine: a replica's scheduler from vLLM's, SGLang's or TensorRT-LLM's
// defaults (serve/engine_defaults.cpp), the flags given overriding them and said so, what an
// engine refuses refused by flag, and a run without --engine as it was.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "cli_runner.hpp"
#include "serve/engine_defaults.hpp"

using namespace roofline;
using test::check_error;
using test::data_file;
using test::run_cli;

namespace {

std::vector<std::string> sim(std::vector<std::string> extra) {
  std::vector<std::string> args{"simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--rate", "5",
                                "--prompt", "500",   "--gen",         "50",    "--duration", "20s"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

nlohmann::json json_of(const test::CliResult& r) {
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("simulate --engine vllm: the server runs vLLM's defaults, and the document says whose") {
  const auto j = json_of(run_cli(sim({"--engine", "vllm", "--format", "json"})));
  // An H100 SXM reports over 70 GiB: vLLM's larger budget and batch.
  CHECK(j["server"]["max_batch"] == 1024);
  CHECK(j["server"]["max_batched_tokens"] == 8192);
  CHECK(j["server"]["chunked_prefill"] == true);
  CHECK(j["server"]["block_tokens"] == 16);
  CHECK(j["server"]["admission"] == "grow");
  CHECK(j["engine"]["name"] == "vllm");
  CHECK(j["engine"]["version"] == "vLLM 0.11");
  CHECK(j["engine"]["defaults"]["queue_order"] == "fcfs");
  CHECK(j["engine"]["overrides"].empty());
  const auto table = run_cli(sim({"--engine", "vllm"}));
  CHECK_THAT(table.out, Catch::Contains("server: max batch 1024, 8192 tokens a step, chunked prefills"));
  CHECK_THAT(table.out, Catch::Contains("engine: vLLM 0.11 defaults (https://docs.vllm.ai/en/v0.11.2/"));
  // The engine's prefix cache drives nothing of its own: its hits are the flags' (said).
  CHECK_THAT(table.out, Catch::Contains("prefix cache on (its hits as --prefix-hit and --prefix-groups give them)"));
  CHECK_THAT(table.out, Catch::Contains("no flag overrides them"));
}

TEST_CASE("simulate --engine trtllm: whole prefills, blocks of 32, whole lengths reserved at admission") {
  const auto j = json_of(run_cli(sim({"--engine", "trtllm", "--format", "json"})));
  CHECK(j["server"]["max_batch"] == 2048);
  CHECK(j["server"]["max_batched_tokens"] == 8192);
  CHECK(j["server"]["chunked_prefill"] == false);
  CHECK(j["server"]["block_tokens"] == 32);
  CHECK(j["server"]["admission"] == "reserve");
  CHECK(j["preemptions"] == 0);
  const auto sglang = json_of(run_cli(sim({"--engine", "sglang", "--format", "json"})));
  CHECK(sglang["server"]["block_tokens"] == 1);
  CHECK(sglang["server"]["max_batch"] == 2048);
}

TEST_CASE("simulate --engine sglang: the request pool is sized from the cache, as SGLang's model runner sizes it") {
  // Llama-3.1-8B on an H200 (143771 MiB = 150,754,820,096 B): SGLang's static share 0.907 (13440 MiB
  // held back) less the 16,060,522,496 B of weights is 120,674,099,331 B, 920,670 tokens of 131,072 B;
  // 920,670 / 131,072 × 512 = 3596, between 2048 and 4096, and under half the tokens. A --max-batch
  // given overrides it.
  const auto h200 = [](std::vector<std::string> extra) {
    std::vector<std::string> a{"simulate", "-m", "llama-3.1-8b", "-g", "h200", "--engine", "sglang", "--rate", "5",
                               "--prompt", "512", "--gen", "128", "--duration", "5s", "--format", "json"};
    a.insert(a.end(), extra.begin(), extra.end());
    return json_of(run_cli(a));
  };
  const auto j = h200({});
  REQUIRE(j["server"]["kv_blocks"] == 920670);
  CHECK(j["server"]["max_batch"] == 3596);
  CHECK(h200({"--max-batch", "100"})["server"]["max_batch"] == 100);
}

TEST_CASE("simulate --engine sglang --dp-attention: SGLang's chunk divided over the attention ranks, each rank its own pool") {
  // SGLang divides --chunked-prefill-size by --dp-size: on an H200 (under 160 GB) 8192 / 8 a rank.
  // Its request pool is each rank's scheduler's own, sized from the rank's cache:
  // min(max(495,476 tokens / 163,840 × 512, 2048), 4096) = 2048. The preset's values are reported.
  const auto j = json_of(run_cli({"simulate", "--model", "deepseek-v3", "--gpu", "h200", "--tp", "8", "--ep", "8",
                                  "--dp-attention", "--rate", "2", "--prompt", "500", "--gen", "20", "--duration", "5s",
                                  "--engine", "sglang", "--format", "json"}));
  CHECK(j["server"]["max_batch"] == 2048);
  CHECK(j["server"]["max_batched_tokens"] == 1024);
  CHECK(j["engine"]["defaults"]["max_batch"] == 2048);
  CHECK(j["engine"]["defaults"]["max_batched_tokens"] == 8192);
}

TEST_CASE("simulate --engine: each engine's own memory rule sizes the cache where --reserve is not given") {
  // Llama-3.1-70B in fp8 with an fp8 cache on one H100 (C = 81559 MiB = 85,520,809,984 B): weights W
  // = 80 layers × 855,654,400 fp8 weights + the embedding and head's 2 × 128256 × 8192 in bf16 =
  // 72,655,060,992 B; one step of 8192 tokens A = 8192 × 147,456 B (2 × 8192 + 2 × 28672 values in 2
  // bytes) + 513,024 B of logits = 1,208,472,576 B. Every engine was given 0.9 C - W - A = 3.10 GB.
  const auto run = [](const std::string& engine, std::vector<std::string> extra = {}) {
    std::vector<std::string> a{"simulate", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--weights", "fp8", "--kv", "fp8",
                               "--engine", engine, "--rate", "1", "--prompt", "1000", "--gen", "100", "--duration",
                               "20s"};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_cli(a);
  };
  constexpr double C = 85'520'809'984.0, W = 72'655'060'992.0, A = 1'208'472'576.0;
  // vLLM's gpu_memory_utilization 0.9 is that: 0.9 C - W - A = 3,105,195,418 B.
  const auto vllm = json_of(run("vllm", {"-f", "json"}));
  CHECK(vllm["server"]["kv_bytes"].get<double>() == Approx(0.9 * C - W - A).epsilon(0.001));
  CHECK(vllm["engine"]["memory"]["reserve"] == 0.1);
  CHECK(vllm["engine"]["memory"]["reserve_given"] == false);
  // TensorRT-LLM's kv_cache_free_gpu_memory_fraction 0.9 of what W and A leave: 0.9 (C - W - A) =
  // 10,491,548,774 B, 2001 blocks of 32 tokens at 163,840 B a token.
  const auto trt = json_of(run("trtllm", {"-f", "json"}));
  CHECK(trt["server"]["kv_bytes"].get<double>() == Approx(0.9 * (C - W - A)).epsilon(0.001));
  CHECK_THAT(trt["engine"]["memory"]["rule"].get<std::string>(),
             Catch::StartsWith("TensorRT-LLM 1.0's kv_cache_free_gpu_memory_fraction 0.9"));
  const auto table = run("trtllm");
  CHECK_THAT(table.out, Catch::Contains("memory: TensorRT-LLM 1.0's kv_cache_free_gpu_memory_fraction 0.9: the cache "
                                        "takes 0.9 of the 11.7 GB the weights (72.7 GB) and one step's activations "
                                        "(1.21 GB) leave of the 85.5 GB, 10.5 GB"));
  // SGLang's static share: round((81559 - 13440) / 81559, 3) = 0.835 of C, 71.41 GB, for weights
  // and cache, under the 72.66 GB of weights: SGLang does not start, and neither does the run.
  check_error(run("sglang"), "--engine sglang",
              "default --mem-fraction-static 0.835 gives the weights and the KV cache 71.4 GB a GPU, and the weights "
              "take 72.7 GB");
  CHECK(run("sglang").code == 2);
  // A --reserve given wins, and says so: SGLang at --reserve 0.1 is vLLM's 3.10 GB.
  const auto given = json_of(run("sglang", {"--reserve", "0.1", "-f", "json"}));
  CHECK(given["server"]["kv_bytes"].get<double>() == Approx(0.9 * C - W - A).epsilon(0.001));
  CHECK(given["engine"]["memory"]["reserve_given"] == true);
  CHECK_THAT(given["engine"]["memory"]["rule"].get<std::string>(),
             Catch::StartsWith("--reserve 0.1 given: 0.9 of the memory") && Catch::EndsWith("in place of SGLang 0.5's own rule"));
}

TEST_CASE("simulate --engine sglang: Llama-3.1-8B on an H100 gets SGLang's 55.3 GB, not the 60.3 GB of --reserve 0.1") {
  // 0.835 × 85,520,809,984 - 16,060,522,496 = 55,349,353,841 B: 422,282 tokens of 131,072 B. At
  // --reserve 0.1: 0.9 C - W - A (604,492,800 B at 8192 tokens) = 60,303,713,690 B, 460,080 tokens.
  const auto own = json_of(run_cli(sim({"--engine", "sglang", "--format", "json"})));
  CHECK(own["server"]["kv_blocks"] == 422282);
  CHECK_THAT(own["engine"]["memory"]["rule"].get<std::string>(),
             Catch::Contains("mem_fraction_static 0.835, its GPU's 81559 MiB less the 13440 MiB it holds back"));
  const auto given = json_of(run_cli(sim({"--engine", "sglang", "--reserve", "0.1", "--format", "json"})));
  CHECK(given["server"]["kv_blocks"] == 460080);
  // Without --engine nothing changes, and the document holds no engine.
  CHECK(json_of(run_cli(sim({"--format", "json"})))["server"]["kv_bytes"].get<double>() ==
        Approx(60'303'713'689.6).epsilon(1e-9));
}

TEST_CASE("simulate --engine: an engine on hardware it does not run on is refused by --engine, with the reason") {
  const auto on = [](const std::string& gpu, const std::string& engine) {
    return run_cli({"simulate", "-m", "llama-3.1-8b", "-g", gpu, "--engine", engine, "--rate", "1", "--prompt", "500",
                    "--gen", "50", "--duration", "5s"});
  };
  // TensorRT-LLM is NVIDIA's alone.
  check_error(on("mi300x", "trtllm"), "--engine trtllm",
              "--gpu: TensorRT-LLM runs on NVIDIA GPUs only, and AMD Instinct MI300X is an AMD GPU");
  check_error(on("gaudi3", "trtllm"), "--engine trtllm", "is an Intel accelerator");
  check_error(on("tpu-v6e", "trtllm"), "--engine trtllm", "is a Google TPU");
  check_error(on("m4-max", "trtllm"), "--engine trtllm", "is an Apple GPU");
  // vLLM's TPU back end has defaults of its own (1024 tokens a step on a v6e, not CUDA's 2048);
  // it has none for Apple GPUs; SGLang 0.5 runs on neither.
  check_error(on("tpu-v6e", "vllm"), "--engine vllm", "through its TPU back end");
  check_error(on("m4-max", "vllm"), "--engine vllm", "no back end for Apple GPUs");
  check_error(on("tpu-v6e", "sglang"), "--engine sglang", "not on Google Cloud TPU v6e");
  check_error(on("m4-max", "sglang"), "--engine sglang", "Apple silicon support began in 2026");
  // vLLM and SGLang run on AMD's GPUs (ROCm), TensorRT-LLM on NVIDIA's, and nothing is refused without --engine.
  CHECK(on("mi300x", "vllm").code == 0);
  CHECK(on("mi300x", "sglang").code == 0);
  CHECK(on("h100-sxm", "trtllm").code == 0);
  CHECK(run_cli({"simulate", "-m", "llama-3.1-8b", "-g", "tpu-v6e", "--rate", "1", "--prompt", "500", "--gen", "50",
                 "--duration", "5s"})
            .code == 0);
}

TEST_CASE("simulate --engine with flags: the flags given win, and the output names each override") {
  const auto j = json_of(run_cli(sim({"--engine", "vllm", "--max-batch", "64", "--admission", "reserve", "--format",
                                      "json"})));
  CHECK(j["server"]["max_batch"] == 64);
  CHECK(j["server"]["admission"] == "reserve");
  CHECK(j["server"]["max_batched_tokens"] == 8192);  // not given: vLLM's
  CHECK(j["engine"]["defaults"]["max_batch"] == 1024);
  CHECK(j["engine"]["overrides"] == nlohmann::json::array({"--max-batch 64", "--admission reserve"}));
  // A flag given at its own default is still an override: vLLM's batch is not 256.
  const auto same = json_of(run_cli(sim({"--engine", "vllm", "--max-batch", "256", "--format", "json"})));
  CHECK(same["server"]["max_batch"] == 256);
  const auto table = run_cli(sim({"--engine", "trtllm", "--chunked-prefill", "--block-tokens", "16"}));
  INFO(table.err);
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("overridden by --chunked-prefill, --block-tokens 16"));
  CHECK_THAT(table.out, Catch::Contains("8192 tokens a step, chunked prefills; KV cache"));
}

TEST_CASE("simulate --engine: what the engine refuses is refused by flag with exit 2") {
  // vLLM without chunked prefill refuses an explicit token budget below max_model_len (131072 for
  // Llama-3.1-8B); one left at its default it raises to max_model_len, and says so.
  check_error(run_cli(sim({"--engine", "vllm", "--no-chunked-prefill", "--max-batched-tokens", "8192"})),
              "--max-batched-tokens",
              "vLLM 0.11 refuses a token budget (8192) below the longest sequence it serves (max_model_len 131072");
  const auto raised = run_cli(sim({"--engine", "vllm", "--no-chunked-prefill", "--format", "json"}));
  INFO(raised.err);
  REQUIRE(raised.code == 0);
  CHECK(json_of(raised)["server"]["max_batched_tokens"] == 131072);
  CHECK(raised.out.find("max_num_batched_tokens raised to max_model_len 131072, as vLLM 0.11 does without chunked "
                        "prefill") != std::string::npos);
  const auto enough = run_cli(sim({"--engine", "vllm", "--no-chunked-prefill", "--max-batched-tokens", "131072"}));
  INFO(enough.err);
  CHECK(enough.code == 0);
  // TensorRT-LLM unchunked rejects a prompt past max_num_tokens: 20000 over 8192.
  const auto long_prompt = [](std::vector<std::string> extra) {
    std::vector<std::string> a{"simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--rate", "1",
                               "--prompt", "20000",   "--gen",         "10",    "--duration", "20s", "--engine", "trtllm"};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_cli(a);
  };
  check_error(long_prompt({}), "--max-batched-tokens", "TensorRT-LLM 1.0 rejects a prompt longer than its token budget");
  CHECK(long_prompt({}).code == 2);
  CHECK(long_prompt({"--chunked-prefill"}).code == 0);
  CHECK(run_cli(sim({"--engine", "tgi"})).code == 2);
}

TEST_CASE("simulate --engine refuses what plan --emit refuses for that engine: an int4 cache, naive attention, fp8 on an A100 under TensorRT-LLM") {
  check_error(run_cli(sim({"--engine", "vllm", "--kv", "int4"})), "--engine vllm",
              "--kv: vLLM keeps the KV cache in 16 bits or fp8, not int4");
  check_error(run_cli(sim({"--engine", "sglang", "--attention", "naive"})), "--engine sglang",
              "the engines run a flash attention kernel");
  auto a100 = sim({"--engine", "trtllm", "--weights", "fp8"});
  a100[4] = "a100-80gb";  // --gpu
  check_error(run_cli(a100), "--engine trtllm", "TensorRT-LLM runs fp8 only on GPUs with fp8 tensor cores");
  // vLLM runs fp8 weights on an A100 weight-only (Marlin), and without --engine nothing is refused.
  auto vllm = a100;
  vllm[vllm.size() - 3] = "vllm";  // --engine's value
  CHECK(run_cli(vllm).code == 0);
  CHECK(run_cli(sim({"--kv", "int4"})).code == 0);
}

TEST_CASE("simulate without --engine: no engine in the output, and --no-chunked-prefill is the default") {
  const auto plain = run_cli(sim({"--format", "json"}));
  const auto j = json_of(plain);
  CHECK_FALSE(j.contains("engine"));
  CHECK(j["server"]["max_batch"] == 256);
  CHECK(j["server"]["chunked_prefill"] == false);
  // (The table: the JSON echoes the arguments given.)
  CHECK(run_cli(sim({"--no-chunked-prefill"})).out == run_cli(sim({})).out);
  // Unchunked prompts past the budget still run alone without an engine to refuse them.
  CHECK(run_cli(sim({"--max-batched-tokens", "100"})).code == 0);
  CHECK(run_cli(sim({})).out.find("engine:") == std::string::npos);
}

TEST_CASE("simulate --engine: each preset's version is the one plan --emit writes scripts for") {
  for (const auto e : {serve::Engine::vllm, serve::Engine::sglang, serve::Engine::trtllm}) {
    const serve::EngineDefaults d = serve::engine_defaults(e, 80);
    const std::string text = test::read_text(data_file("launch/" + std::string(serve::engine_name(e)) + "-qwen3-235b-a22b-dp-attention.sh"));
    CHECK_THAT(text, Catch::Contains(fmt::format("for {}, with the flags documented at {}", d.label, d.source)));
  }
}

TEST_CASE("plan --percentile --engine trtllm: the checks run its scheduler, and the title says which") {
  const std::vector<std::string> base{"plan",  "--model", "llama-3.1-8b", "--gpu",  "a100-80gb", "--rate",
                                      "100",   "--prompt", "512",         "--gen",  "128",       "--ttft",
                                      "500ms", "--tpot",   "50ms",        "--percentile", "99"};
  std::vector<std::string> with = base;
  with.insert(with.end(), {"--engine", "trtllm"});
  const auto r = run_cli(with);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("--engine trtllm: TensorRT-LLM 1.0's scheduler defaults"));
  CHECK_THAT(r.out, Catch::Contains("(expected step times, whole prefills;"));
  CHECK_THAT(r.out, Catch::Contains("KV blocks of 32 tokens, whole lengths reserved at admission"));
  CHECK(run_cli(base).out.find("--engine") == std::string::npos);
  check_error(run_cli({"plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--rate", "10", "--engine", "vllm"}),
              "--engine", "only with --percentile");
}

TEST_CASE("plan --percentile --engine vllm: checked at the token budget --emit writes, prompt + batch, not 8192") {
  // Llama-3.1-8B on an H100, 20 req/s of 512 + 256 tokens: batch 221, so --emit vllm writes
  // --max-num-batched-tokens 733. The check's P99 TTFT is simulate's at 733 (71.9 ms), not at
  // 8192 (58.7 ms: several prompts a step), over the same 5000 arrivals (254 s).
  const auto plan = json_of(run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "20", "--ttft", "500ms",
                                     "--tpot", "30ms", "--percentile", "99", "--duration", "60s", "--engine", "vllm",
                                     "-f", "json"}));
  const auto& row = plan.at("rows").at(0);
  REQUIRE(row.at("batch") == 221);
  const double checked = row.at("ttft_percentile_s").get<double>();
  const auto at = [](const std::string& budget) {
    return json_of(run_cli({"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "20", "--prompt", "512",
                            "--gen", "256", "--max-batch", "221", "--max-batched-tokens", budget, "--engine", "vllm",
                            "--duration", "254s", "-f", "json"}))
        .at("ttft")
        .at("p99")
        .get<double>();
  };
  CHECK(checked == Approx(at("733")).epsilon(0.01));
  CHECK(checked > 1.1 * at("8192"));
}

TEST_CASE("simulate --engine sglang unchunked: the memory rule's cache is the cache that runs, beside the longest prompt's step") {
  // Llama-3.1-8B on an H100, prompts up to 60,000 tokens whole: SGLang's share 0.685 of
  // 85,520,809,984 B less the 16,060,522,496 B of weights is a 42,521,232,343 B cache, 324,411
  // tokens of 131,072 B (pages of one token). The rule had been worked beside a step of the token
  // budget while the cache was sized beside the longest prompt's: 295,343 blocks, 38.7 GB.
  const auto r = test::run_cli({"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--engine", "sglang",
                                "--no-chunked-prefill", "--rate", "1", "--duration", "20s", "--prompt",
                                "uniform:1000:60000", "--gen", "100", "-f", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK_THAT(j["engine"]["memory"]["rule"].get<std::string>(), Catch::EndsWith("a 42.5 GB cache"));
  CHECK(j["server"]["kv_blocks"] == 324411);
  CHECK(j["server"]["cache_step_tokens"].get<long>() > 8192);
}

TEST_CASE("simulate --engine vllm: a preempted request keeps its cached blocks, and a thrashing cache is warned of") {
  // Llama-3.1-70B in fp8 on one H100: 1184 blocks of 16 tokens hold one 9000 + 900 request (619
  // blocks) and most of a second. Without a prefix cache (no --engine) each preemption recomputed
  // its sequence whole: 9091 preemptions, 74538540 tokens, 124 times the 67 prompts' 603000, and
  // the run says so. vLLM's prefix cache keeps the preempted sequence's full blocks until the
  // other takes them, so it recomputes the evicted tail only: no thrash, no warning.
  auto run = [](std::vector<std::string> extra) {
    std::vector<std::string> args{"simulate", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--weights", "fp8", "--kv",
                                  "fp8", "--rate", "0.5", "--duration", "120s", "--prompt", "9000", "--gen", "900",
                                  "-f", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return json_of(run_cli(args));
  };
  const auto plain = run({"--chunked-prefill"});
  CHECK(plain["preemptions"] == 9091);
  CHECK(plain["warnings"].dump().find("the cache thrashed: 9091 preemptions recomputed 74.5 M tokens, 124× the "
                                      "prompts' 603 k") != std::string::npos);
  const auto vllm = run({"--engine", "vllm"});
  CHECK(vllm["served"] == 67);
  CHECK(vllm["recomputed_tokens"].get<double>() < 0.05 * 67 * 9000);
  CHECK(vllm["warnings"].dump().find("the cache thrashed") == std::string::npos);
}
