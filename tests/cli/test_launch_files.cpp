// Issue 24, plan --emit: each ranked row that meets the targets as the script that runs it on
// vLLM, SGLang or TensorRT-LLM. The fixtures in tests/data/launch/ are each engine's file for
// Qwen3-235B-A22B on 8 H100s with data-parallel attention, fp8 weights and an fp8 cache; after a
// deliberate change they are rewritten by `rooflineplan plan -m qwen3-235b-a22b -g h100-sxm --rate 5
// --tp 8 --ep 8 --dp-attention --kv fp8 --weights fp8 --tpot 45ms --emit ENGINE --emit-dir D`, D/01-*.sh becoming
// ENGINE-qwen3-235b-a22b-dp-attention.sh.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "launch/share_format.hpp"

using namespace roofline;
using test::check_error;
using test::data_file;
using test::run_cli;

namespace fs = std::filesystem;

namespace {

// A folder of the test's own: ctest runs the cases side by side.
struct Folder {
  fs::path path;
  explicit Folder(const std::string& name) : path(fs::temp_directory_path() / ("rooflineplan-launch-" + name)) {
    fs::remove_all(path);
  }
  ~Folder() { fs::remove_all(path); }
  [[nodiscard]] std::vector<fs::path> files() const {
    std::vector<fs::path> out;
    if (!fs::exists(path)) return out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::vector<std::string> qwen_dp_attention(const std::string& engine, const Folder& f) {
  return {"plan", "-m", "qwen3-235b-a22b", "-g", "h100-sxm", "--rate", "5", "--tp", "8", "--ep", "8", "--dp-attention",
          "--kv", "fp8", "--weights", "fp8", "--tpot", "45ms", "--emit", engine, "--emit-dir", f.path.string()};
}

}  // namespace

TEST_CASE("a memory share is written rounded up to three decimals, unless that passes what it leaves room for") {
  CHECK(launch::share_up(0.89010) == "0.891");  // to the nearest, 0.89: 11454.2 of 11455 sequences
  CHECK(launch::share_up(0.9) == "0.9");
  CHECK(launch::share_up(0.85) == "0.85");
  // --reserve 0 beside one step's activations of 0.0005: 0.9991 up is 1, past the 0.9995 it leaves
  // room for, so to the nearest; with room for all of it, up.
  CHECK(launch::share_up(0.9991, 0.9995) == "0.999");
  CHECK(launch::share_up(0.9991) == "1");
}

TEST_CASE("emit trtllm under a pipeline: the cache's share of free memory is of a stage's own weights, not the replica's average") {
  // Llama-3.1-8B at pp 3: 32 layers as 11, 11 and 10, each 436.2 MB in bf16; the first stage adds
  // the 1.05 GB embedding (the last the head): 11 × 0.4362 + 1.0507 = 5.85 GB, 0.068 of an H100's
  // 85.5 GB, against the replica's average of 16.06 / 3 = 5.35 GB (0.063), which left that stage
  // under the reserve. (1 − 0.1 − 0.0684 − 0.001) / (1 − 0.0684 − 0.001) = 0.8925, written 0.893.
  const Folder f("pipeline-trtllm");
  const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--pp", "3", "--rate", "1", "--emit",
                          "trtllm", "--emit-dir", f.path.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto files = f.files();
  REQUIRE(files.size() == 1);
  CHECK_THAT(test::read_text(files[0]), Catch::Contains("stage 1 of 3 keeps the least free (weights 0.068,") &&
                                 Catch::Contains("free_gpu_memory_fraction: 0.893"));
}

namespace {

// Llama-3.1-8B in bf16 at pp 5 on an H100 (81559 MiB = 85,520,809,984 B), worked by hand. vLLM's
// get_pp_indices deals its 32 layers as 6, 6, 7, 7, 6 (the 2 left over to the second- and
// third-to-last). A layer: Q and O 4096², K and V 4096 × 1024, gate, up and down 3 × 4096 × 14336,
// two norms of 4096: 218,112,000 weights, 436,224,000 B. The embedding and the untied head are
// 128256 × 4096 × 2 = 1,050,673,152 B each, the final norm 8192 B. One step's activations on a GPU
// (a prompt of 512 beside a token for each of B sequences: n = 512 + B tokens) are n × 2 B × (the
// residual and its normed copy, 2 × 4096, and gate beside up, 2 × 14336) = n × 73,728 B, and the
// last stage adds the last token's fp32 logits, 128256 × 4 = 513,024 B. A sequence of 512 + 256
// tokens caches 4096 B a layer and token (K and V of 8 heads of 128 in bf16).
constexpr double kH100 = 85'520'809'984.0;
constexpr double kLayer = 436'224'000.0, kTable = 1'050'673'152.0;
// Stages 1 and 5 weigh alike but for the last's norm: 6 layers and a table, 0.04289 of the GPU;
// stages 3 and 4 hold 7 layers, 0.03571, and cache 7/6 of what stages 1, 2 and 5 do.
constexpr double kLastWeights = (6 * kLayer + kTable + 8192) / kH100;  // 0.042891
constexpr double kSevenLayers = 7 * kLayer / kH100;                   // 0.035706
double step_activations(long batch, bool last) { return ((512.0 + batch) * 73'728 + (last ? 513'024 : 0)) / kH100; }
constexpr double kSevenLayerSequence = 7 * 4096.0 * 768 / kH100;  // 0.00025748

std::vector<std::string> llama_pp5(std::vector<std::string> extra) {
  std::vector<std::string> args = {"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--pp", "5", "--rate", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

long planned_batch(const std::vector<std::string>& plan) {
  auto json = plan;
  json.insert(json.end(), {"-f", "json"});
  const auto r = run_cli(json);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out).at("rows").at(0).at("batch").get<long>();
}

}  // namespace

TEST_CASE("emit trtllm under a pipeline: one fraction for every stage, the heaviest stage's, not the one that fills first") {
  // TensorRT-LLM gives every rank the one fraction of what its own weights and activations leave
  // free, (1 − r − w − a) / (1 − w − a) = 1 − r / (1 − w − a): the stage whose w + a is largest
  // keeps --reserve only under the smallest, which keeps it on every stage. At pp 5 that is the
  // last (6 layers, the head, the final norm and the logits); the stage that fills first as the
  // batch grows is the third (7 layers' cache beside 0.0357 of weights), whose 0.0357 wrote 0.897:
  // (0.9 − 0.0357 − 0.0020) / (1 − 0.0357 − 0.0020) = 0.8961, which left the last stage
  // (1 − 0.897) × (1 − 0.0449) = 0.0984 of its GPU free, under the reserve.
  const auto plan = llama_pp5({});
  const long batch = planned_batch(plan);
  const double held = kLastWeights + step_activations(batch, true);  // 0.0429 + 0.0020 at batch 1844
  const double fraction = (0.9 - held) / (1 - held);                  // 0.8953
  const Folder f("pipeline-trtllm-heaviest");
  auto emit = plan;
  emit.insert(emit.end(), {"--emit", "trtllm", "--emit-dir", f.path.string()});
  const auto r = run_cli(emit);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string text = test::read_text(f.files().at(0));
  CHECK(text.find("  free_gpu_memory_fraction: " + launch::share_up(fraction) + "\n") != std::string::npos);
  CHECK(launch::share_up(fraction) == "0.896");
  CHECK(text.find("stage 5 of 5 keeps the least free (weights 0.043,") != std::string::npos);
  // Below the batch memory allows, every stage's cache holds it.
  CHECK(text.find("WARNING: free_gpu_memory_fraction") == std::string::npos);
}

TEST_CASE("emit under a pipeline: a batch that fills a lighter stage is more than one share for every rank holds there") {
  // --reserve 0.3 and targets memory alone limits: the third stage fills first, at the largest B
  // with 0.035706 + (512 + B) × 73,728 / 85.52e9 + B × 0.00025748 ≤ 0.7, B = 2569.
  const auto plan = llama_pp5({"--reserve", "0.3", "--tpot", "1s", "--ttft", "30s"});
  const long batch = planned_batch(plan);
  CHECK(batch == 2569);
  // TensorRT-LLM: the last stage's fraction, (0.7 − 0.042891 − 0.002662) / (1 − 0.045553) = 0.68568,
  // written 0.686, gives the third stage 0.686 × (1 − 0.035706 − 0.002656) = 0.65968 of its GPU:
  // 2562 sequences of 0.00025748, 7 short of the plan's; a fraction that held them all would leave
  // the last stage under its reserve.
  const double last = kLastWeights + step_activations(batch, true);
  const double fraction = std::ceil((0.7 - last) / (1 - last) * 1000) / 1000;
  CHECK(fraction == Approx(0.686));
  const double third = fraction * (1 - kSevenLayers - step_activations(batch, false));
  const auto held = static_cast<long>(third / kSevenLayerSequence);
  CHECK(held == 2562);
  const Folder f("pipeline-trtllm-short");
  auto trtllm = plan;
  trtllm.insert(trtllm.end(), {"--emit", "trtllm", "--emit-dir", f.path.string()});
  const auto r = run_cli(trtllm);
  REQUIRE(r.code == 0);
  const std::string said = fmt::format("free_gpu_memory_fraction 0.686: stage 3 of 5's cache holds {} of the plan's "
                                       "{} sequences",
                                       held, batch);
  CHECK(test::read_text(f.files().at(0)).find("# WARNING: " + said) != std::string::npos);
  CHECK(r.err.find(said) != std::string::npos);
  // SGLang gives every rank the pool the least free GPU has room for (the last stage's, beside its
  // 0.042891 of weights): --mem-fraction-static 0.7 − 0.002662 = 0.69734, written 0.698, less
  // 0.042891 is 0.65511 of a GPU, 2544 of the third stage's sequences.
  const Folder g("pipeline-sglang-short");
  auto sglang = plan;
  sglang.insert(sglang.end(), {"--emit", "sglang", "--emit-dir", g.path.string()});
  REQUIRE(run_cli(sglang).code == 0);
  const auto pool = static_cast<long>((0.698 - kLastWeights) / kSevenLayerSequence);
  CHECK(pool == 2544);
  CHECK(test::read_text(g.files().at(0)).find(fmt::format("# WARNING: --mem-fraction-static 0.698: stage 3 of 5's KV pool holds "
                                               "{} of the plan's {} sequences",
                                               pool, batch)) != std::string::npos);
  // vLLM gives every rank its own --gpu-memory-utilization of its memory: each stage its own room.
  const Folder v("pipeline-vllm-short");
  auto vllm = plan;
  vllm.insert(vllm.end(), {"--emit", "vllm", "--emit-dir", v.path.string()});
  REQUIRE(run_cli(vllm).code == 0);
  CHECK(test::read_text(v.files().at(0)).find("WARNING: --gpu-memory-utilization") == std::string::npos);
}

TEST_CASE("emit sglang under a pipeline: the activations left outside --mem-fraction-static are the stage's that holds the most") {
  // Every rank gets the one static share, and its activations run beside it: the share must leave
  // room for the most any stage holds, not the replica's average. Two dense layers with a 65536-wide
  // gated FFN on the first stage, two MoE layers of 512 on the second: one step of n = 512 + B tokens
  // holds n × 2 B × (2 × 1024 + 2 × 65536) = n × 266,240 B on a GPU of the first, and n × 2 B ×
  // (2 × 1024 + 3072, Q, K and V) + the logits' 4096 B on the second, some 26 times less.
  const Folder f("sglang-activations");
  fs::create_directories(f.path);
  const fs::path model = f.path / "dense-then-moe.yaml";
  std::ofstream(model) << "name: Dense then MoE\nlayers: 4\nhidden: 1024\nheads: 8\nkv_heads: 8\nffn: 65536\n"
                          "ffn_type: gated\nvocab: 1024\ndtype: bf16\n"
                          "moe: {experts: 4, top_k: 1, ffn: 512, dense_layers: 2}\n";
  const std::vector<std::string> plan = {"plan", "-m", model.string(), "-g", "h100-sxm", "--pp", "2", "--rate", "1"};
  const long batch = planned_batch(plan);
  const double n = 512.0 + static_cast<double>(batch);
  const double first = n * 266'240 / kH100, second = (n * 10'240 + 4096) / kH100;
  REQUIRE(first > second + 0.002);  // 0.0203 against 0.0008 at the batch of 6019
  const std::string expected = launch::share_up(0.9 - first, 1 - first);  // 0.88; the average's 0.89
  REQUIRE(expected != launch::share_up(0.9 - (first + second) / 2, 1 - (first + second) / 2));
  const Folder out("sglang-activations-out");
  auto emit = plan;
  emit.insert(emit.end(), {"--emit", "sglang", "--emit-dir", out.path.string()});
  REQUIRE(run_cli(emit).code == 0);
  const std::string text = test::read_text(out.files().at(0));
  CHECK(text.find("  --mem-fraction-static " + expected + " \\\n") != std::string::npos);
  CHECK(text.find(fmt::format("one step's activations ({} of a GPU, the most a stage holds)", launch::share(first))) !=
        std::string::npos);
}

TEST_CASE("emit: a row the engine refuses beside one it runs is warned of after --emit ENGINE, and the other written") {
  // The A100 has no fp8 tensor cores, which TensorRT-LLM's fp8 needs; the H100 has them.
  const Folder f("partly-refused");
  const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm,a100-80gb", "--weights", "fp8", "--rate", "5",
                          "--emit", "trtllm", "--emit-dir", f.path.string()});
  REQUIRE(r.code == 0);
  CHECK(r.err.find("warning: --emit trtllm: no launch file for row 2 (NVIDIA A100 80GB SXM with tp 1): --weights or "
                   "--kv: fp8 weights or cache") != std::string::npos);
  const auto files = f.files();
  REQUIRE(files.size() == 1);
  CHECK(files[0].filename() == "01-trtllm-nvidia-h100-sxm-tp1.sh");
}

TEST_CASE("emit: each engine's launch file is its fixture") {
  for (const std::string engine : {"vllm", "sglang", "trtllm"}) {
    const Folder f("fixture-" + engine);
    const auto r = run_cli(qwen_dp_attention(engine, f));
    REQUIRE(r.code == 0);
    const auto files = f.files();
    REQUIRE(files.size() == 1);
    CHECK(files[0].filename() == "01-" + engine + "-nvidia-h100-sxm-tp8-ep8-dpattn.sh");
    CHECK(test::read_text(files[0]) == test::read_text(data_file("launch/" + engine + "-qwen3-235b-a22b-dp-attention.sh")));
    // A script to run: executable, and bash reads it.
    CHECK((fs::status(files[0]).permissions() & fs::perms::owner_exec) != fs::perms::none);
    CHECK(std::system(("bash -n '" + files[0].string() + "'").c_str()) == 0);
    CHECK(r.err.find("wrote 1 launch file for " + engine) != std::string::npos);
  }
}

TEST_CASE("emit: the planned batch of 130 over 8 attention ranks, worked by hand") {
  // The plan's batch is 130 sequences (its CSV says so; fp8 weights computed in fp8, as the engines
  // run them); each of the 8 ranks runs ceil(130/8) = 17.
  const Folder f("by-hand");
  const auto plan = run_cli({"plan", "-m", "qwen3-235b-a22b", "-g", "h100-sxm", "--rate", "5", "--tp", "8", "--ep", "8",
                             "--dp-attention", "--kv", "fp8", "--weights", "fp8", "--tpot", "45ms", "-f", "csv"});
  REQUIRE(plan.code == 0);
  REQUIRE(plan.out.find(",130,") != std::string::npos);
  REQUIRE(run_cli(qwen_dp_attention("vllm", f)).code == 0);
  const std::string vllm = test::read_text(f.files().at(0));
  CHECK(vllm.find("--data-parallel-size 8 \\\n  --tensor-parallel-size 1 \\\n  --enable-expert-parallel") !=
        std::string::npos);
  CHECK(vllm.find("--max-num-seqs 17 \\") != std::string::npos);
  // A whole 512-token prompt beside one token for each of the rank's 17 sequences.
  CHECK(vllm.find("--max-num-batched-tokens 529 \\") != std::string::npos);
  CHECK(vllm.find("--max-model-len 768 \\") != std::string::npos);  // 512 + 256
  CHECK(vllm.find("--kv-cache-dtype fp8 \\") != std::string::npos);
  CHECK(vllm.find("--quantization fp8 \\") != std::string::npos);  // the bf16 checkpoint, quantized as it loads
  CHECK(vllm.find("--gpu-memory-utilization 0.9 \\") != std::string::npos);  // 1 - --reserve 0.1
  const Folder g("by-hand-sglang");
  REQUIRE(run_cli(qwen_dp_attention("sglang", g)).code == 0);
  const std::string sglang = test::read_text(g.files().at(0));
  // SGLang divides both by --dp-size itself (with a floor): 8 × 17 = 136 runs the 17 a rank the
  // other engines get (the batch of 130 would have run 16), and 8 × 512 a whole prompt a rank.
  // Under data-parallel attention no mixed chunks: SGLang 0.5 fails at the first (PR #24241), and
  // the plan prices a rank's prefill as a step of its own.
  CHECK(sglang.find("--max-running-requests 136 \\") != std::string::npos);
  CHECK(sglang.find("--enable-mixed-chunk \\") == std::string::npos);
  CHECK(sglang.find("# no --enable-mixed-chunk: SGLang 0.5 fails") != std::string::npos);
  CHECK(sglang.find("--chunked-prefill-size 4096 \\") != std::string::npos);
  CHECK(sglang.find("--kv-cache-dtype fp8_e4m3 \\") != std::string::npos);
}

TEST_CASE("emit: SGLang mixes a prefill with the running decodes where the plan does, without data-parallel attention") {
  // Llama-3.1-8B on an H100 at 20 req/s: the plan's batch B (its CSV), a token budget of a whole
  // 512-token prompt beside one token for each of the B running sequences, in mixed chunks.
  const Folder f("sglang-mixed");
  const std::vector<std::string> plan = {"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "20"};
  const auto csv = run_cli([&] { auto a = plan; a.insert(a.end(), {"-f", "json"}); return a; }());
  REQUIRE(csv.code == 0);
  const long batch = nlohmann::json::parse(csv.out)["rows"][0]["batch"].get<long>();
  auto emit = plan;
  emit.insert(emit.end(), {"--emit", "sglang", "--emit-dir", f.path.string(), "--top", "1"});
  REQUIRE(run_cli(emit).code == 0);
  const std::string sglang = test::read_text(f.files().at(0));
  CHECK(sglang.find("--enable-mixed-chunk \\") != std::string::npos);
  CHECK(sglang.find(fmt::format("--chunked-prefill-size {} \\", 512 + batch)) != std::string::npos);
}

TEST_CASE("emit sglang under a pipeline: no mixed chunks, which SGLang refuses to start with there") {
  // SGLang 0.5's ServerArgs.check_server_args asserts `not self.enable_mixed_chunk` when pp_size > 1
  // ("Pipeline parallelism is not compatible with overlap schedule, speculative decoding, mixed
  // chunked prefill."): a script with both fails at launch. Its pipeline loop runs a micro-batch's
  // admitted prompts as a step of their own, so the chunk is a whole prompt, no decodes in it.
  // Qwen3-30B-A3B on an H100 at 20 req/s, 512-token prompts.
  const auto emit = [](std::vector<std::string> layout, const Folder& f) {
    std::vector<std::string> a = {"plan", "-m", "qwen3-30b-a3b", "-g", "h100-sxm", "--rate", "20"};
    a.insert(a.end(), layout.begin(), layout.end());
    a.insert(a.end(), {"--emit", "sglang", "--emit-dir", f.path.string()});
    const auto r = run_cli(a);
    INFO(r.err);
    REQUIRE(r.code == 0);
    REQUIRE(f.files().size() == 1);
    return test::read_text(f.files()[0]);
  };
  // tp 1 pp 2 (a batch of 324): --chunked-prefill-size 512, one prompt; it was 512 + 324 = 836 with
  // --enable-mixed-chunk, what SGLang refuses.
  const Folder a("sglang-pp2-unmixed");
  const std::string pp2 = emit({"--tp", "1", "--pp", "2"}, a);
  CHECK_THAT(pp2, Catch::Contains("  --pp-size 2 \\"));
  CHECK_THAT(pp2, !Catch::Contains("--enable-mixed-chunk \\"));
  CHECK_THAT(pp2, Catch::Contains("  --chunked-prefill-size 512 \\"));
  CHECK_THAT(pp2, Catch::Contains("# no --enable-mixed-chunk: SGLang 0.5 refuses to start with it under --pp-size"));
  CHECK_THAT(pp2, Catch::Contains("SGLang runs prefill steps apart from decodes"));
  CHECK_THAT(pp2, Catch::Contains("# --chunked-prefill-size 512: a whole 512-token prompt, as the plan prefills"));
  // tp 2 pp 2 ep 2 with data-parallel attention: both reasons said, and a whole prompt for each of
  // the 2 ranks, 2 × 512 = 1024 (SGLang divides it by --dp-size).
  const Folder b("sglang-pp2-dp-unmixed");
  const std::string dp = emit({"--tp", "2", "--pp", "2", "--ep", "2", "--dp-attention"}, b);
  CHECK_THAT(dp, !Catch::Contains("--enable-mixed-chunk \\"));
  CHECK_THAT(dp, Catch::Contains("  --chunked-prefill-size 1024 \\"));
  CHECK_THAT(dp, Catch::Contains("under --pp-size"));
  CHECK_THAT(dp, Catch::Contains("under --enable-dp-attention (sgl-project/sglang PR #24241)"));
  // Without a pipeline the same model mixes, as before: tp 1's chunk is 512 + its batch.
  const Folder c("sglang-pp1-mixed");
  const std::string tp1 = emit({"--tp", "1"}, c);
  CHECK_THAT(tp1, Catch::Contains("  --enable-mixed-chunk \\"));
  CHECK_THAT(tp1, !Catch::Contains("--chunked-prefill-size 512 \\"));
  // A batch pp divides (324 at pp 2) loses no sequence; one it does not runs fewer, said.
  CHECK_THAT(pp2, !Catch::Contains("sequences at most, against the plan's"));
}

TEST_CASE("emit sglang under a pipeline: a batch pp does not divide runs pp × (batch // pp) at once, said") {
  // Llama-3.1-8B on an H100 at 20 req/s, tp 1 pp 4: the planned batch of 1451 becomes micro-batches
  // of at most 1451 // 4 = 362 (pp_max_micro_batch_size), 4 × 362 = 1448 sequences at once.
  const Folder f("sglang-pp4-shortfall");
  const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "20", "--tp", "1", "--pp", "4",
                          "--emit", "sglang", "--emit-dir", f.path.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(f.files().size() == 1);
  const std::string script = test::read_text(f.files()[0]);
  CHECK_THAT(script, Catch::Contains("  --max-running-requests 1451 \\"));
  CHECK_THAT(script, Catch::Contains("# --pp-size 4: SGLang runs 4 micro-batches of at most 1451 // 4 = 362: 1448 "
                                     "sequences at most, against the plan's 1451"));
}

TEST_CASE("emit: TensorRT-LLM keeps pp micro-batches of --max_batch_size in flight, so a pipeline's is the batch over pp") {
  // Its PyTorch executor admits pp × max_batch_size requests (model_engine.py, get_max_num_sequences):
  // the planned batch as max_batch_size ran up to twice it through 2 stages.
  const Folder f("trtllm-pp");
  const std::vector<std::string> plan = {"plan", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--rate", "5", "--tp", "2",
                                         "--pp", "2"};
  const auto json = run_cli([&] { auto a = plan; a.insert(a.end(), {"-f", "json"}); return a; }());
  REQUIRE(json.code == 0);
  const long batch = nlohmann::json::parse(json.out)["rows"][0]["batch"].get<long>();
  REQUIRE(batch > 2);
  auto emit = plan;
  emit.insert(emit.end(), {"--emit", "trtllm", "--emit-dir", f.path.string(), "--top", "1"});
  REQUIRE(run_cli(emit).code == 0);
  const std::string trtllm = test::read_text(f.files().at(0));
  CHECK(trtllm.find(fmt::format("--max_batch_size {} \\", batch / 2)) != std::string::npos);
  CHECK(trtllm.find(fmt::format("{} sequences at most", batch / 2 * 2)) != std::string::npos);
}

TEST_CASE("emit: TensorRT-LLM refuses fp8 on a GPU without fp8 tensor cores, which vLLM runs weight-only") {
  const Folder f("trtllm-a100");
  const std::vector<std::string> plan = {"plan", "-m", "llama-3.1-8b", "-g", "a100-80gb", "--rate", "5", "--weights",
                                         "fp8", "--emit-dir", f.path.string(), "--emit"};
  auto trtllm = plan;
  trtllm.push_back("trtllm");
  // Said after the flag that asked for the engine, as simulate says it after --engine's: the plan
  // itself priced fp8 on the A100 (weight-only) and exits 0 without --emit.
  const std::string refusal = "--emit trtllm: --weights or --kv: fp8 weights or cache";
  check_error(run_cli(trtllm), refusal, "TensorRT-LLM runs fp8 only on GPUs with fp8 tensor cores");
  CHECK(f.files().empty());
  auto vllm = plan;
  vllm.push_back("vllm");
  CHECK(run_cli(vllm).code == 0);
  // The cache alone in fp8.
  check_error(run_cli({"plan", "-m", "llama-3.1-8b", "-g", "a100-80gb", "--rate", "5", "--kv", "fp8", "--emit-dir",
                       f.path.string(), "--emit", "trtllm"}),
              refusal, "or for vLLM");
}

TEST_CASE("emit: --reserve 0.2 is a memory share of 0.8, and two replicas are said") {
  const Folder f("reserve");
  const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "40", "--reserve", "0.2",
                          "--emit", "vllm", "--emit-dir", f.path.string(), "-f", "json"});
  REQUIRE(r.code == 0);
  REQUIRE(r.out.find("\"replicas\": 2") != std::string::npos);
  const std::string text = test::read_text(f.files().at(0));
  CHECK(text.find("--gpu-memory-utilization 0.8 \\") != std::string::npos);
  CHECK(text.find("The plan runs 2 replicas of 1 GPU each") != std::string::npos);
  CHECK(text.find("REPLICA=0 to 1") != std::string::npos);
  CHECK(text.find("--kv-cache-dtype auto \\") != std::string::npos);  // a 16-bit cache: the model's dtype
  CHECK(text.find("--quantization") == std::string::npos);            // the checkpoint as it is
}

TEST_CASE("emit: TensorRT-LLM's cache share is of the memory left after weights and activations") {
  // free_gpu_memory_fraction = (1 - reserve - w - a) / (1 - w - a), w and a the weights' and one
  // step's activations' shares of one GPU: the step the plan runs, a 512-token prompt beside a token
  // for each of the batch's other sequences, as one sequence of that many tokens holds them.
  const Folder f("trtllm-share");
  const auto plan = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "5", "--emit", "trtllm",
                             "--emit-dir", f.path.string(), "-f", "json"});
  REQUIRE(plan.code == 0);
  const long batch = nlohmann::json::parse(plan.out).at("rows").at(0).at("batch").get<long>();
  const auto point = nlohmann::json::parse(run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1", "-p",
                                                   std::to_string(512 + batch - 1), "--gen", "1", "-f", "json"})
                                              .out);
  const auto& memory = point.at("memory");
  const double capacity = memory.at("capacity").get<double>();
  const double w = memory.at("weights").get<double>() / capacity, a = memory.at("activations").get<double>() / capacity;
  // Llama-3.1-8B's 16.06 GB of bf16 weights on the H100's 85.5 GB.
  CHECK(w == Approx(16.06e9 / 85.52e9).epsilon(0.001));
  const std::string text = test::read_text(f.files().at(0));
  std::string expected = fmt::format("{:.3f}", (0.9 - w - a) / (1 - w - a));
  while (expected.back() == '0') expected.pop_back();  // the file's 0.85, not 0.850
  CHECK(text.find("free_gpu_memory_fraction: " + expected + "\n") != std::string::npos);
}

TEST_CASE("emit: a cache format no engine holds is refused and nothing is written") {
  for (const std::string engine : {"vllm", "sglang", "trtllm"}) {
    const Folder f("kv-" + engine);
    const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "5", "--kv", "int8", "--emit",
                            engine, "--emit-dir", f.path.string()});
    check_error(r, "--emit " + engine + ": --kv", "not int8");
    CHECK(f.files().empty());
  }
}

TEST_CASE("emit: vLLM cannot shard the experts over 2 of 8 GPUs") {
  const Folder f("vllm-ep");
  const auto r = run_cli({"plan", "-m", "qwen3-235b-a22b", "-g", "h100-sxm", "--rate", "5", "--tp", "8", "--ep", "2",
                          "--emit", "vllm", "--emit-dir", f.path.string()});
  check_error(r, "--emit vllm: --ep", "--ep 1 or --ep 8");
  CHECK(f.files().empty());
  // SGLang takes an expert-parallel size.
  REQUIRE(run_cli({"plan", "-m", "qwen3-235b-a22b", "-g", "h100-sxm", "--rate", "5", "--tp", "8", "--ep", "2", "--emit",
                   "sglang", "--emit-dir", f.path.string()})
              .code == 0);
  CHECK(test::read_text(f.files().at(0)).find("--ep-size 2 \\") != std::string::npos);
}

TEST_CASE("emit: the flags that do not go with it are refused") {
  const std::vector<std::string> base = {"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "5"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  check_error(with({"--emit", "ollama"}), "--emit", "vllm, sglang or trtllm, not 'ollama'");
  check_error(with({"--emit-dir", "x"}), "--emit-dir", "only with --emit");
  // Even naming the default folder: the flag is there, --emit is not.
  check_error(with({"--emit-dir", "rooflineplan-launch"}), "--emit-dir", "only with --emit");
  check_error(with({"--emit", "vllm", "--attention", "naive", "--emit-dir", "unused"}), "--emit vllm: --attention",
              "flash attention kernel");
  check_error(with({"--emit", "vllm", "--disaggregate"}), "--emit", "disaggregated");
  check_error(with({"--emit", "vllm", "--percentile", "99"}), "--emit", "--percentile");
}

TEST_CASE("emit: a model given as a file and weights its checkpoint lacks are warned of, in the file too") {
  const Folder f("warnings");
  const auto r = run_cli({"plan", "-m", data_file("good/tiny.yaml"), "-g", "a100-80gb", "--rate", "2",
                          "--weights", "int4", "--kv", "fp16", "--emit", "vllm", "--emit-dir", f.path.string()});
  REQUIRE(r.code == 0);
  const std::string text = test::read_text(f.files().at(0));
  CHECK(text.find("# WARNING: the model was given as") != std::string::npos);
  CHECK(text.find("# WARNING: the plan stores the weights as int4") != std::string::npos);
  CHECK(r.err.find("not a Hugging Face id") != std::string::npos);
  CHECK(r.err.find("stores the weights as int4") != std::string::npos);
}

TEST_CASE("emit: 16-bit weights over an fp8 checkpoint ask for a checkpoint that stores them so, not one quantized to bf16") {
  const Folder f("sixteen");
  const auto r = run_cli({"plan", "-m", "qwen3-32b-fp8", "-g", "h100-sxm", "--rate", "2", "--weights", "bf16", "--emit",
                          "vllm", "--emit-dir", f.path.string()});
  REQUIRE(r.code == 0);
  CHECK(r.err.find("MODEL must be a checkpoint that stores them as bf16") != std::string::npos);
  CHECK(r.err.find("quantized to bf16") == std::string::npos);
}

TEST_CASE("emit: flags the plan priced that no engine flag sets are warned of in the script") {
  const Folder f("plan-only");
  const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "5", "--compute", "fp8",
                          "--activations", "fp8", "--emit", "trtllm", "--emit-dir", f.path.string()});
  REQUIRE(r.code == 0);
  const std::string text = test::read_text(f.files().at(0));
  CHECK(text.find("# WARNING: --compute fp8: the plan priced the matrix units in fp8") != std::string::npos);
  CHECK(text.find("# WARNING: --activations fp8:") != std::string::npos);
  CHECK(r.err.find("--compute fp8") != std::string::npos);
}

TEST_CASE("emit: an earlier plan's scripts for the engine leave the folder, others stay") {
  const Folder f("earlier");
  // Three rows, then one: the earlier 02 and 03 would otherwise be started beside the new 01.
  REQUIRE(run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm,a100-80gb,l40s", "--rate", "5", "--emit", "vllm",
                   "--emit-dir", f.path.string()})
              .code == 0);
  REQUIRE(f.files().size() == 3);
  std::ofstream(f.path / "notes.txt") << "mine\n";
  const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "5", "--emit", "vllm",
                          "--emit-dir", f.path.string()});
  REQUIRE(r.code == 0);
  CHECK(r.err.find("removed 3 launch files of an earlier plan for vllm") != std::string::npos);
  const auto files = f.files();
  REQUIRE(files.size() == 2);
  CHECK(files[0].filename() == "01-vllm-nvidia-h100-sxm-tp1.sh");
  CHECK(files[1].filename() == "notes.txt");
}

TEST_CASE("emit: a model file named like a launch file in --emit-dir is refused, and nothing there is removed") {
  // Llama-2-7B's preset copied in under the name of the script this plan writes, and given as
  // --model: the removal of an earlier plan's scripts went by the name alone and deleted it.
  const Folder f("input");
  REQUIRE(run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "5", "--emit", "vllm", "--emit-dir",
                   f.path.string()})
              .code == 0);
  const fs::path model = f.path / "01-vllm-nvidia-a100-80gb-sxm-tp1.sh";
  fs::copy_file(test::example_file("../presets/models/llama-2-7b.yaml"), model);
  const std::string before = test::read_text(model);
  const auto r = run_cli({"plan", "-m", model.string(), "-g", "a100-80gb", "--emit", "vllm", "--emit-dir",
                          f.path.string()});
  check_error(r, "--emit-dir " + f.path.string() + ": 01-vllm-nvidia-a100-80gb-sxm-tp1.sh",
              "is one of this command's inputs");
  CHECK(test::read_text(model) == before);
  // Every match judged before any goes: the earlier plan's own script is still there.
  const auto files = f.files();
  REQUIRE(files.size() == 2);
  CHECK(files[0].filename() == "01-vllm-nvidia-a100-80gb-sxm-tp1.sh");
  CHECK(files[1].filename() == "01-vllm-nvidia-h100-sxm-tp1.sh");
}

TEST_CASE("emit: a file named like a launch file that rooflineplan did not write stays, and is said to") {
  const Folder f("own");
  REQUIRE(run_cli({"plan", "-m", "llama-2-7b", "-g", "h100-sxm", "--emit", "vllm", "--emit-dir", f.path.string()})
              .code == 0);
  // What marks a file as rooflineplan's is how every one it writes begins.
  CHECK_THAT(test::read_text(f.path / "01-vllm-nvidia-h100-sxm-tp1.sh"),
             Catch::StartsWith("#!/usr/bin/env bash\n# rooflineplan plan, row 1: "));
  std::ofstream(f.path / "00-vllm-env.sh") << "#!/bin/sh\n# my own\n";
  const auto r = run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--emit", "vllm", "--emit-dir",
                          f.path.string()});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("removed 1 launch file of an earlier plan for vllm"));
  CHECK_THAT(r.err, Catch::Contains("note: --emit-dir " + f.path.string() +
                                    ": left 00-vllm-env.sh in place: named like a launch file for vllm, but not one "
                                    "rooflineplan wrote"));
  const auto files = f.files();
  REQUIRE(files.size() == 2);
  CHECK(files[0].filename() == "00-vllm-env.sh");
  CHECK(test::read_text(files[0]) == "#!/bin/sh\n# my own\n");
  CHECK(files[1].filename() == "01-vllm-nvidia-a100-80gb-sxm-tp1.sh");
  // One under the very name this plan writes would be replaced, not left: refused, nothing removed.
  std::ofstream(f.path / "01-vllm-nvidia-a100-80gb-sxm-tp1.sh") << "#!/bin/sh\n# mine too\n";
  check_error(run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--emit", "vllm", "--emit-dir",
                       f.path.string()}),
              "--emit-dir " + f.path.string() + ": 01-vllm-nvidia-a100-80gb-sxm-tp1.sh",
              "is not a launch file rooflineplan wrote");
  CHECK(test::read_text(f.path / "01-vllm-nvidia-a100-80gb-sxm-tp1.sh") == "#!/bin/sh\n# mine too\n");
  CHECK(f.files().size() == 2);
}

TEST_CASE("emit: a replica is placed on a host's GPUs - GB200's 4 a tray, not its 72-GPU NVLink domain") {
  // tp 8 on GB200 stays inside NVLink but spans two trays: the script says so, and each host
  // has 4 GPUs to number (CUDA_VISIBLE_DEVICES 4 to 7 do not exist on one tray).
  const Folder f("gb200");
  REQUIRE(run_cli({"plan", "-m", "llama-3.1-70b", "-g", "gb200", "--rate", "5", "--tp", "8", "--emit", "vllm",
                   "--emit-dir", f.path.string(), "--top", "1"})
              .code == 0);
  const std::string gb200 = test::read_text(f.files().at(0));
  CHECK(gb200.find("GPUS_PER_NODE=${GPUS_PER_NODE:-4}") != std::string::npos);
  CHECK(gb200.find("one replica spans 8 GPUs, more than a 4-GPU node") != std::string::npos);
  // A description of such a rack without `host` is taken as one host, and warned of.
  const Folder g("no-host");
  fs::create_directories(g.path);
  const fs::path gpu = g.path / "rack.yaml";
  std::ofstream(gpu) << "name: rack\nmemory: {capacity: 189471 MiB, bandwidth: 8 TB/s}\n"
                        "compute: {peak: {bf16: 2500 TFLOPS}}\n"
                        "interconnect: {bandwidth: 900 GB/s, latency: 5 us, domain: 72}\n";
  const Folder out("no-host-out");
  REQUIRE(run_cli({"plan", "-m", "llama-3.1-70b", "-g", gpu.string(), "--rate", "5", "--tp", "8", "--emit", "vllm",
                   "--emit-dir", out.path.string(), "--top", "1"})
              .code == 0);
  const std::string rack = test::read_text(out.files().at(0));
  CHECK(rack.find("GPUS_PER_NODE=${GPUS_PER_NODE:-72}") != std::string::npos);
  CHECK(rack.find("gives no interconnect.host, so its 72-GPU domain is taken as one host") != std::string::npos);
}

TEST_CASE("emit trtllm: a GPU that is not NVIDIA's is refused naming --emit and --gpu, nothing written") {
  const Folder f("trtllm-amd");
  const std::vector<std::string> plan = {"plan", "-m", "llama-3.1-8b", "-g", "mi300x", "--rate", "5", "--prompt",
                                         "1000", "--gen", "200", "--emit-dir", f.path.string(), "--emit"};
  auto trtllm = plan;
  trtllm.push_back("trtllm");
  check_error(run_cli(trtllm), "--emit trtllm: --gpu",
              "TensorRT-LLM runs on NVIDIA GPUs only, and AMD Instinct MI300X is an AMD GPU; price it for vLLM or "
              "SGLang");
  CHECK(f.files().empty());
  auto vllm = plan;
  vllm.push_back("vllm");
  CHECK(run_cli(vllm).code == 0);
  // Beside an H100 the MI300X row is warned of, and the H100's written.
  const Folder both("trtllm-amd-h100");
  const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm,mi300x", "--rate", "5", "--emit", "trtllm",
                          "--emit-dir", both.path.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("AMD Instinct MI300X with tp 1): --gpu: TensorRT-LLM runs on NVIDIA GPUs only"));
  REQUIRE(both.files().size() == 1);
  CHECK(both.files()[0].filename().string().find("nvidia-h100-sxm") != std::string::npos);
  // A GPU file whose name says no maker is not taken for NVIDIA's.
  const Folder g("trtllm-unnamed");
  fs::create_directories(g.path);
  const fs::path gpu = g.path / "card.yaml";
  std::ofstream(gpu) << "name: card\nmemory: {capacity: 81559 MiB, bandwidth: 3 TB/s}\n"
                        "compute: {peak: {bf16: 900 TFLOPS}}\n";
  check_error(run_cli({"plan", "-m", "llama-3.1-8b", "-g", gpu.string(), "--rate", "5", "--emit", "trtllm",
                       "--emit-dir", g.path.string() + "/out"}),
              "--emit trtllm: --gpu", "the GPU's name `card` does not say NVIDIA");
  // vLLM on a TPU and every engine on an Apple GPU are refused alike.
  check_error(run_cli({"plan", "-m", "llama-3.1-8b", "-g", "tpu-v6e", "--rate", "1", "--emit", "vllm", "--emit-dir",
                       f.path.string()}),
              "--emit vllm: --gpu", "through its TPU back end");
  check_error(run_cli({"plan", "-m", "llama-3.1-8b", "-g", "m4-max", "--rate", "0.1", "--tpot", "1s", "--emit",
                       "sglang", "--emit-dir", f.path.string()}),
              "--emit sglang: --gpu", "Apple silicon");
}

TEST_CASE("emit: each engine's CUDA graphs reach the planned batch, where its defaults stop short") {
  // Llama-3.1-8B on an H100 at 100 req/s of 200 + 100 tokens and TPOT 80 ms: a batch of 571 (the
  // hand figures below for 571; worked from the batch the plan gives).
  const auto emit = [](const std::string& engine, const Folder& f) {
    const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "100", "--prompt", "200", "--gen",
                            "100", "--tpot", "80ms", "--emit", engine, "--emit-dir", f.path.string()});
    INFO(r.err);
    REQUIRE(r.code == 0);
    REQUIRE(f.files().size() == 1);
    return test::read_text(f.files()[0]);
  };
  const long batch = planned_batch({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "100", "--prompt", "200",
                                    "--gen", "100", "--tpot", "80ms"});
  REQUIRE(batch > 528);  // past vLLM's 512 and SGLang's 256, and not on SGLang's ladder below 544
  REQUIRE(batch < 1000);
  // TensorRT-LLM 1.0 captures 1 to 32, 64 and 128 unpadded: padded up to the planned 571.
  const Folder t("graphs-trtllm");
  CHECK_THAT(emit("trtllm", t),
             Catch::Contains(fmt::format("cuda_graph_config:\n  enable_padding: true\n  max_batch_size: {}\n", batch)));
  // SGLang's default on an H100 at tp 1 is 256; its ladder by 32 from 512 puts 571 under 576.
  const long rung = 512 + (batch - 512 + 31) / 32 * 32;
  const Folder s("graphs-sglang");
  const std::string sglang = emit("sglang", s);
  CHECK_THAT(sglang, Catch::Contains(fmt::format("  --cuda-graph-max-bs {} \\", rung)));
  CHECK_THAT(sglang, Catch::Contains("SGLang 0.5's default on this GPU at tp 1 is 256"));
  // vLLM stops at min(2 x 571, 512) = 512: its ladder given whole to 571, which ends it.
  const Folder v("graphs-vllm");
  const std::string vllm = emit("vllm", v);
  CHECK_THAT(vllm, Catch::Contains("--compilation-config '{\"cudagraph_capture_sizes\": [1, 2, 4, 8, 16, 24,"));
  CHECK_THAT(vllm, Catch::Contains(fmt::format("240, 248, 256, 272, 288,")));
  CHECK_THAT(vllm, Catch::Contains(fmt::format(", {}]}}'", batch)));
  // A batch of 185 (2000 + 500 tokens at 10 req/s): TensorRT-LLM pads to it, SGLang's 256 and vLLM's
  // 370 cover it, so neither gets a flag.
  const auto at185 = [](const std::string& engine, const Folder& f) {
    const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "10", "--prompt", "2000",
                            "--gen", "500", "--emit", engine, "--emit-dir", f.path.string()});
    REQUIRE(r.code == 0);
    return test::read_text(f.files().at(0));
  };
  const long mid = planned_batch({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "10", "--prompt", "2000",
                                  "--gen", "500"});
  REQUIRE(mid > 32);
  REQUIRE(mid <= 256);
  const Folder t2("graphs-trtllm-185"), s2("graphs-sglang-185"), v2("graphs-vllm-185");
  CHECK_THAT(at185("trtllm", t2), Catch::Contains(fmt::format("max_batch_size: {}\n", mid)));
  CHECK_THAT(at185("sglang", s2), !Catch::Contains("--cuda-graph-max-bs"));
  CHECK_THAT(at185("vllm", v2), !Catch::Contains("--compilation-config"));
}

TEST_CASE("emit sglang under a pipeline: CUDA graphs reach a micro-batch, what one forward pass decodes") {
  // SGLang's scheduler decodes pp micro-batches of at most pp_max_micro_batch_size =
  // max(max_running_requests // pp_size, 1) (scheduler.py), so its graphs need reach that, not the
  // whole batch. Qwen3-30B-A3B on an H100 at 20 req/s; SGLang's default at tp 1 and 2 is 256.
  const auto emit = [](const std::string& tp, const Folder& f) {
    const auto r = run_cli({"plan", "-m", "qwen3-30b-a3b", "-g", "h100-sxm", "--rate", "20", "--tp", tp, "--pp", "2",
                            "--emit", "sglang", "--emit-dir", f.path.string()});
    INFO(r.err);
    REQUIRE(r.code == 0);
    REQUIRE(f.files().size() == 1);
    return test::read_text(f.files()[0]);
  };
  // tp 1 pp 2: a batch of 324 (past 256), decoded as micro-batches of 324 // 2 = 162, which the
  // default 256 covers: no flag (it was 336, the whole batch's rung).
  const long small = planned_batch({"plan", "-m", "qwen3-30b-a3b", "-g", "h100-sxm", "--rate", "20", "--tp", "1", "--pp",
                                    "2"});
  REQUIRE(small > 256);
  REQUIRE(small / 2 <= 256);
  const Folder a("graphs-sglang-pp2-tp1");
  const std::string one = emit("1", a);
  CHECK_THAT(one, Catch::Contains(fmt::format("  --max-running-requests {} \\", small)));
  CHECK_THAT(one, !Catch::Contains("--cuda-graph-max-bs"));
  // tp 2 pp 2: a batch of 696, micro-batches of 696 // 2 = 348 (past 256), on SGLang's ladder by 16
  // from 272: 272 + ceil((348 - 272) / 16) x 16 = 272 + 5 x 16 = 352 (it was 704, the whole
  // batch's).
  const long big = planned_batch({"plan", "-m", "qwen3-30b-a3b", "-g", "h100-sxm", "--rate", "20", "--tp", "2", "--pp",
                                  "2"});
  REQUIRE(big / 2 > 272);
  REQUIRE(big / 2 <= 496);
  const long rung = 272 + (big / 2 - 272 + 15) / 16 * 16;
  const Folder b("graphs-sglang-pp2-tp2");
  const std::string two = emit("2", b);
  CHECK_THAT(two, Catch::Contains(fmt::format("  --max-running-requests {} \\", big)));
  CHECK_THAT(two, Catch::Contains(fmt::format("  --cuda-graph-max-bs {} \\", rung)));
  CHECK_THAT(two, Catch::Contains(fmt::format("# --cuda-graph-max-bs {}: CUDA graphs up to a micro-batch of {}", rung,
                                              big / 2)));
  CHECK_THAT(two, Catch::Contains(fmt::format("as 2 micro-batches of at most {} // 2 = {}", big, big / 2)));
  if (big == 696) CHECK(rung == 352);
}

TEST_CASE("emit: stderr says the scripts set the memory share from --reserve, which simulate --engine takes when given it") {
  const Folder f("reserve-note");
  const auto r = run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "5", "--emit", "sglang",
                          "--emit-dir", f.path.string()});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("note: the launch files set sglang's memory share from the plan's --reserve 0.1: "
                                    "`simulate --engine sglang --reserve 0.1` runs the KV cache they set"));
}
