// explain tells the engine's numbers, in both languages, without drift between story and math.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

#include "cli_runner.hpp"
#include "model/capacity_plan.hpp"
#include "model/scans.hpp"
#include "report/explain_phrases.hpp"
#include "report/human_units.hpp"
#include "text/utf8.hpp"

using namespace roofline;

namespace {

// RFC 3629: lead bytes, continuation bytes, no overlong two-byte forms, nothing past U+10FFFF.
bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (extra < 0 || c == 0xC0 || c == 0xC1 || c > 0xF4 || i + extra >= s.size() + (extra == 0 ? 1 : 0)) return false;
    for (int k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += extra + 1;
  }
  return true;
}

std::vector<std::string> engine_numbers(const ModelSpec& m, const GpuSpec& g) {
  const Report r = evaluate(m, g, test::default_workload(m));
  Workload int4 = test::default_workload(m);
  for (TensorClass c : kBlockClasses) int4.precision.set(c, WeightFormat::int4);
  const Report q = evaluate(m, g, int4);
  return {report::human(r.decode.step.time), report::three_digits(r.decode.tokens_per_s),
          report::three_digits(r.critical_batch.weights_only), report::human(r.prefill.time),
          report::three_digits(r.gpu.ridge_point().value()), report::human(q.decode.step.time)};
}

// The workload explain evaluates at these lengths: the command line's defaults, its decode step
// at context prompt + gen/2.
Workload at_lengths(const ModelSpec& m, long batch, long prompt, long gen) {
  Workload w = test::default_workload(m, batch);
  w.prompt_tokens = prompt;
  w.gen_tokens = gen;
  w.context_tokens = prompt + gen / 2;
  return w;
}

}  // namespace

TEST_CASE("explain: the seed story - ridge 156, 7.00 ms, 143 tokens/s, B* 156, int4 1.80 ms") {
  const auto r = test::run_cli({"explain", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml")});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("= 156 FLOP/byte") && Catch::Contains("T_decode ≈ bytes / bandwidth = 7.00 ms") &&
                        Catch::Contains("at most 143 tokens/s") && Catch::Contains("B* = 156") &&
                        Catch::Contains("(the bound 7.00 ms → 1.80 ms)") && Catch::Contains("Q3."));
}

TEST_CASE("explain: English and Chinese carry the engine's numbers, and Chinese is valid UTF-8") {
  const ModelSpec m = io::load_model("llama-3.1-8b");
  const GpuSpec g = io::load_gpu("h100-sxm");
  const auto en = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm"});
  const auto zh = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--lang", "zh"});
  REQUIRE(en.code == 0);
  REQUIRE(zh.code == 0);
  for (const std::string& number : engine_numbers(m, g)) {
    INFO(number);
    CHECK_THAT(en.out, Catch::Contains(number));
    CHECK_THAT(zh.out, Catch::Contains(number));
  }
  CHECK(valid_utf8(zh.out));
  CHECK_THAT(zh.out, Catch::Contains("预填充") && Catch::Contains("解码") && Catch::Contains("自测题"));
  CHECK_FALSE(valid_utf8(std::string("\xC3(", 2)));  // the checker itself refuses a broken sequence
}

TEST_CASE("explain --scenario: summarize is prefill-heavy and chat decode-heavy, optimisations ranked") {
  const auto sum = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--scenario", "summarize"});
  const auto chat = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--scenario", "chat"});
  REQUIRE(sum.code == 0);
  REQUIRE(chat.code == 0);
  CHECK_THAT(sum.out, Catch::Contains("Scenario summarize (8192 in, 200 out)") && Catch::Contains("1. "));
  CHECK_THAT(chat.out, Catch::Contains("Scenario chat (50 in, 800 out)") && Catch::Contains("decode 100%"));
  // The prompt's share: 8k tokens of prefill weigh far more than 50.
  const ModelSpec m = io::load_model("llama-3.1-8b");
  const GpuSpec g = io::load_gpu("h100-sxm");
  Workload w = test::default_workload(m);
  w.prompt_tokens = 8192;
  w.gen_tokens = 200;
  w.context_tokens = default_context(8192, 200);
  const Report r = evaluate(m, g, w);
  // The first of the 200 tokens comes out of prefill: 199 decode steps, as simulate runs them.
  CHECK_THAT(sum.out, Catch::Contains("prefill " + report::human(r.prefill.time) + " + 199 steps × " +
                                      report::human(r.decode.step.time)));
}

TEST_CASE("explain --scenario keeps the --prompt and --gen given: a chat of 2000-token answers") {
  const auto chat = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--scenario", "chat", "--gen", "2000"});
  const auto both = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--scenario", "summarize", "-p",
                                   "5", "--gen", "3"});
  REQUIRE(chat.code == 0);
  REQUIRE(both.code == 0);
  CHECK_THAT(chat.out, Catch::Contains("Scenario chat (50 in, 2000 out)") && Catch::Contains("1999 steps"));
  CHECK_THAT(both.out, Catch::Contains("Scenario summarize (5 in, 3 out)"));
}

TEST_CASE("explain: a mixture of experts is not told that batching is free below B*") {
  const auto r = test::run_cli({"explain", "-m", "mixtral-8x7b", "-g", "h100-sxm"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("each token reads only the experts it picks"));
  // Nor that each weight serves all 512 prompt tokens: each token goes to 2 of 8 experts.
  CHECK_THAT(r.out, Catch::Contains("sends each token to 2 of its 8 experts") &&
                        !Catch::Contains("each weight read from memory is used 512 times"));
  CHECK_THAT(r.out, !Catch::Contains("the step barely grows"));
}

TEST_CASE("explain: decode names the format each class of weights is stored in") {
  const auto seed =
      test::run_cli({"explain", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml")});
  REQUIRE(seed.code == 0);
  CHECK_THAT(seed.out, Catch::Contains("re-reads 14.0 GB of weights (fp16) and"));
  const std::string oss = test::data_file("good/gpt-oss-like.yaml");
  const auto en = test::run_cli({"explain", "-m", oss, "-g", "h100-sxm"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("of weights (bf16: attention, lm_head, embedding; mxfp4: experts) and"));
  const auto zh = test::run_cli({"explain", "-m", oss, "-g", "h100-sxm", "--lang", "zh"});
  REQUIRE(zh.code == 0);
  CHECK_THAT(zh.out, Catch::Contains("权重（bf16: attention, lm_head, embedding; mxfp4: experts）和"));
}

TEST_CASE("explain --lang zh words the engine's warnings in Chinese, with the numbers - the English says the same") {
  const test::CliResult zh = test::run_cli({"explain", "-m", test::example_file("7b.yaml"), "-g",
                                            test::example_file("a100.yaml"), "--lang", "zh"});
  REQUIRE(zh.code == 0);
  CHECK_THAT(zh.out, Catch::StartsWith("注意：架构未知（只给了 `params`）"));
  const test::CliResult en = test::run_cli({"explain", "-m", "llama-2-70b", "-g", "l4"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("warning: does not fit: needs 1"));
  CHECK_THAT(en.out, Catch::Contains("GB of 24.2 GB at batch 1"));  // 23034 MiB
  const test::CliResult zh_fit = test::run_cli({"explain", "-m", "llama-2-70b", "-g", "l4", "--lang", "zh"});
  CHECK_THAT(zh_fit.out, Catch::Contains("放不下：批大小 1 需要 1") && Catch::Contains("GB，容量只有 24.2 GB"));
}

TEST_CASE("explain: a model whose layers keep different spans says how many keep a window and how many a state") {
  // 8 layers: 2 Mamba-2, 1 full, 1 sliding over 512, 4 FFN-only. At 512 + 256 tokens one sequence
  // holds K/V 2 × 2 × 128 × 2 B × (768 + 512) = 1,310,720 B, plus a state of 2 layers ×
  // (2,048 × 128 + (2,048 + 2·4·128) × 3) × 2 B = 1,089,536 B: 2.40 MB.
  const std::string path = test::data_file("good/hybrid-mamba2.yaml");
  const auto en = test::run_cli({"explain", "-m", path, "-g", "h100-sxm"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("of the 8 layers, 1 keep at most 512 tokens (a sliding window or a chunk) and 2 "
                                     "are recurrent") &&
                         Catch::Contains("At 768 tokens one sequence holds 2.40 MB of cache"));
  const auto zh = test::run_cli({"explain", "-m", path, "-g", "h100-sxm", "--lang", "zh"});
  REQUIRE(zh.code == 0);
  CHECK_THAT(zh.out, Catch::Contains("8 层中，1 层最多保留 512 个词元") && Catch::Contains("2.40 MB 缓存"));
  // A model whose every layer keeps every token hears nothing of it.
  const auto dense = test::run_cli({"explain", "-m", "llama-2-7b", "-g", "h100-sxm"});
  CHECK_THAT(dense.out, !Catch::Contains("Not every layer"));
}

TEST_CASE("explain: why real runs miss the bound - Llama-2-7B's step expected at 9.73 ms of which 1.78 ms fixed costs") {
  // The A100 80GB preset's kernel classes (fit --kernels on its tables): weights stream at 83.6%
  // of 2,039 GB/s. 259 kernels: 32 layers of norm, Q/K/V (one GEMM), attention (one kernel), O,
  // norm, gate/up (one GEMM), activation, down; the embedding, the final norm and the head.
  const auto en = test::run_cli({"explain", "-m", "llama-2-7b", "-g", "a100-80gb"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("a decode step is expected to take 9.73 ms (7.87 ms to 12.0 ms for 8 runs in 10), "
                                     "against the bound's 6.65 ms") &&
                         Catch::Contains("7.89 ms is memory traffic, moving at 84% of the bandwidth on average;") &&
                         Catch::Contains("1.78 ms is fixed costs: 259 kernels at 6.76 us each on average, and 26.7 us a "
                                         "step of the serving engine's own"));
  const auto zh = test::run_cli({"explain", "-m", "llama-2-7b", "-g", "a100-80gb", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("一个解码步预计需要 9.73 ms") && Catch::Contains("259 个核函数"));
  // Weight-only int4 and tensor parallelism add their parts.
  const auto tp = test::run_cli({"explain", "-m", "llama-2-70b", "-g", "h100-sxm", "--tp", "4", "--weights", "int4"});
  // 80 layers × 2 all-reduces and the embedding's one, × 2·(4 − 1) hops = 966, and the gather of
  // the logits' 4 − 1 = 3: 969.
  CHECK_THAT(tp.out, Catch::Contains("of it unpacking int4 weights") && Catch::Contains("(969 hops a step"));
}

TEST_CASE("explain -b 64: one stream's rate and the batch's total each named, batch 1 and 64 at the same context") {
  const auto r = test::run_cli({"explain", "-m", "llama-2-7b", "-g", "a100-80gb", "-b", "64"});
  REQUIRE(r.code == 0);
  const ModelSpec m = io::load_model("llama-2-7b");
  const GpuSpec g = io::load_gpu("a100-80gb");
  const Report at64 = evaluate(m, g, test::default_workload(m, 64));
  const Report at1 = evaluate(m, g, test::default_workload(m, 1));
  REQUIRE(at1.workload.context_tokens == at64.workload.context_tokens);
  const std::string step64 = report::human(at64.decode.step.time), step1 = report::human(at1.decode.step.time);
  // 17.3 ms a step at batch 64, all of it bytes at bandwidth: a stream gets 1 / 17.3 ms = 57.7
  // tokens/s at this batch, the batch 64 times it.
  REQUIRE(report::human(at64.decode.step.memory_time) == step64);
  // The expected rate beside the ceiling: 1 / the expected step.
  CHECK_THAT(r.out, Catch::Contains("= " + step64 + ", so each stream gets at most " +
                                    report::three_digits(1 / at64.decode.step.time.value()) + " tokens/s at this batch, " +
                                    report::three_digits(1 / at64.decode.step.expected.time.value()) +
                                    " expected (the batch of 64 makes at most " +
                                    report::three_digits(at64.decode.tokens_per_s) + " tokens/s in all)"));
  // Batch 1 is batch 1 (6.65 ms), not the story's batch again; the cache (22.1 GB) passes the
  // weights (13.2 GB) at batch 64, so the step is not said to barely grow.
  CHECK(step1 != step64);
  CHECK_THAT(r.out, Catch::Contains("batch 1 takes at least " + step1 + " (at most " +
                                    report::three_digits(at1.decode.tokens_per_s) + " tokens/s), batch 64 at least " + step64));
  CHECK_THAT(r.out, Catch::Contains("here the cache dominates: at context 640, batch 64 reads " +
                                    report::human(at64.decode.step.bytes - at64.decode.step.weight_bytes)) &&
                        !Catch::Contains("barely grows"));
  // The single-stream ceiling is batch 1's.
  CHECK_THAT(r.out, Catch::Contains(report::three_digits(at1.decode.tokens_per_s) + " tokens/s at batch 1: one step at "
                                    "context 640 cannot take less than " + step1));
}

TEST_CASE("explain: where the weights dominate at batch 64 the step barely grows, and zh calls it 单步耗时") {
  const auto r = test::run_cli({"explain", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml")});
  REQUIRE(r.code == 0);
  // The teaching model has no KV cache: 7.00 ms at batch 1 and at 64.
  CHECK_THAT(r.out, Catch::Contains("the step barely grows with it: at context 640, batch 1 takes at least 7.00 ms (at most 143 "
                                    "tokens/s), batch 64 at least 7.00 ms (at most 9143 tokens/s in all, 143 a stream)"));
  const auto zh = test::run_cli({"explain", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml"),
                                 "--lang", "zh"});
  REQUIRE(zh.code == 0);
  CHECK_THAT(zh.out, Catch::Contains("单步耗时") && !Catch::Contains("步长"));
}

TEST_CASE("explain: a step that grows by more than a fifth to batch 64 is not said to barely grow - Llama-3.1-8B on H100") {
  const auto r = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm"});
  REQUIRE(r.code == 0);
  const ModelSpec m = io::load_model("llama-3.1-8b");
  const GpuSpec g = io::load_gpu("h100-sxm");
  const Report at1 = evaluate(m, g, test::default_workload(m, 1));
  const Report at64 = evaluate(m, g, test::default_workload(m, 64));
  REQUIRE(at64.decode.step.time > 1.2 * at1.decode.step.time);
  // The cache (6.07 GB at batch 64) is below the weights (15.0 GB): grows, but does not dominate.
  REQUIRE(at64.decode.step.bytes - at64.decode.step.weight_bytes < at64.decode.step.weight_bytes);
  CHECK_THAT(r.out, Catch::Contains("batch 64 reads " +
                                    report::human(at64.decode.step.bytes - at64.decode.step.weight_bytes) +
                                    " of cache and activations beside " + report::human(at64.decode.step.weight_bytes) +
                                    " of weights, so the step grows with the batch: batch 1 takes at least " +
                                    report::human(at1.decode.step.time)) &&
                        !Catch::Contains("barely grows") && !Catch::Contains("the cache dominates"));
}

TEST_CASE("explain: 2·B* past what memory holds is said - Llama-3.1-8B on H100 holds 438 of the 590 prefilled together, 604 a step at a time") {
  const ModelSpec m = io::load_model("llama-3.1-8b");
  const GpuSpec g = io::load_gpu("h100-sxm");
  const Report at590 = evaluate(m, g, test::default_workload(m, 590));
  REQUIRE_FALSE(at590.memory.fits);
  REQUIRE(at590.memory.max_batch == 438);
  const auto en = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm"});
  // 438 prefilled together (the point's ledger holds each one's prompt activations); 604 as a plan
  // holds them, beside one step's activations.
  // Both at the sequences' full length, 512 + 256 = 768 tokens, not the step's context of 640.
  CHECK_THAT(en.out, Catch::Contains("at 2·B* = 590 the step takes at least 24.7 ms (memory-bound), though memory holds 438 "
                                     "sequences at their full 768 tokens prefilled together, 604 as continuous "
                                     "batching holds them (one prompt a step)."));
  const auto plan = test::run_cli({"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-f", "json"});
  CHECK(nlohmann::json::parse(plan.out).at("rows").at(0).at("max_batch") == 604);
  const auto zh = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("（受内存带宽限制），但序列长到 768 个词元时，一起预填充显存只放得下 438 个序列，连续批处理（每步一个提示）时为 604 个。"));
  // The seed's 2·B* = 312 sequences of 640 tokens fit (it has no cache): nothing is added.
  const auto seed = test::run_cli({"explain", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml")});
  CHECK_THAT(seed.out, Catch::Contains("at 2·B* = 312 the step takes at least 14.0 ms (compute-bound).") &&
                           !Catch::Contains("memory holds only"));
}

TEST_CASE("explain: batching is not said to cost little latency past what memory holds - Llama-2-7B at 4000-token prompts on A100") {
  // Batch 1 takes 7.53 ms and batch 64 takes 73.4 ms; a continuous batch holds 29 sequences of
  // 4096 tokens, and batching stops there.
  const std::vector<std::string> args = {"explain", "-m", "llama-2-7b", "-g", "a100-80gb", "-p", "4000", "--gen", "96"};
  const auto r = test::run_cli(args);
  REQUIRE(r.code == 0);
  const ModelSpec m = io::load_model("llama-2-7b");
  const GpuSpec g = io::load_gpu("a100-80gb");
  Workload w = at_lengths(m, 1, 4000, 96);
  const Report one = evaluate(m, g, w);
  const std::optional<long> held = steady_max_batch(m, g, w, one.memory, true);
  REQUIRE(held == 29);
  w.batch = 29;
  const Report at = evaluate(m, g, w);
  CHECK_THAT(r.out, Catch::Contains("batching raises throughput only as far as memory holds sequences: 29 at their "
                                    "full 4096 tokens as continuous batching holds them, at most " +
                                    report::three_digits(at.decode.tokens_per_s) + " tokens/s, each step at least " +
                                    report::human(at.decode.step.time)) &&
                        !Catch::Contains("for little latency"));
  // What memory holds is said once, at batch 64 (26 prefilled together, 29 a step at a time).
  CHECK_THAT(r.out, Catch::Contains("(at most 872 tokens/s in all, 13.6 a stream), though memory holds 26 sequences"));
  const std::string said = "memory holds 26 sequences";
  CHECK(r.out.find(said) == r.out.rfind(said));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  CHECK_THAT(z.out, Catch::Contains("批处理只能做到显存放得下的序列数：序列长到 4096 个词元时连续批处理可放 29 个") &&
                        !Catch::Contains("延迟几乎不变"));
}

TEST_CASE("explain: batching that fits but slows the step says by how much, and a model that does not fit is told so") {
  // Llama-3.1-8B on H100 at 512 + 256: 4.51 ms at batch 1, 6.29 ms at 64, 604 held.
  const auto r = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("batching to 64 raises throughput to at most") &&
                        Catch::Contains(", but each step takes at least 6.29 ms against 4.51 ms"));
  // Mixtral-8x7B's 93 GB of weights on one 80 GB H100: no batch runs.
  const auto mixtral = test::run_cli({"explain", "-m", "mixtral-8x7b", "-g", "h100-sxm"});
  REQUIRE(mixtral.code == 0);
  CHECK_THAT(mixtral.out, Catch::Contains("batching needs memory first: not even one sequence fits here") &&
                              Catch::Contains(", though memory does not hold even one sequence here."));
}

TEST_CASE("explain: B* is not said to bound where the step barely grows - Llama-3.1-70B at tp 4, 10.4 ms to 18.9 ms at 295") {
  // The JSON at -b 590: decode.step_time 0.035671 s (35.7 ms): 35.403 ms before the embedding's
  // all-reduce (590 × 8192 × 2 B × 3/4 at 450 GB/s = 16.1 us) and the gather of the logits
  // (590 × 128,256 × 2 B × 3/4 = 252.2 us) were priced; at -b 295, 18.754 + 0.134 = 18.889 ms.
  const auto r = test::run_cli({"explain", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "4"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("so the step barely grows with it: at context 640, batch 1 takes at least 10.4 ms") &&
                        Catch::Contains("B* = 295 is where the weights' arithmetic catches up with their reading; at "
                                        "2·B* = 590 the step takes at least 35.7 ms") &&
                        !Catch::Contains("up to B*"));
}

TEST_CASE("explain: a pipeline's kernels and hops are counted over its stages, not halved - Llama-3.1-70B at tp 4, pp 2") {
  // 80 layers of 8 kernels (two norms, QKV, attention, O, gate/up, the activation, down) and the
  // embedding, the final norm and the head: 643, whether the layers lie on one stage or two.
  const auto tp = test::run_cli({"explain", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "4"});
  const auto pp = test::run_cli({"explain", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "4", "--pp", "2"});
  REQUIRE(tp.code == 0);
  REQUIRE(pp.code == 0);
  CHECK_THAT(tp.out, Catch::Contains("643 kernels at 5.68 us each"));
  CHECK_THAT(pp.out, Catch::Contains("643 kernels at 5.68 us each") && !Catch::Contains(".5 kernels"));
  // 80 all-reduces of 2·(4 − 1) hops each, twice a layer, and the embedding's: 966; the gather of
  // the logits' 4 − 1: 969; the pipeline adds its send.
  CHECK_THAT(tp.out, Catch::Contains("(969 hops a step"));
  CHECK_THAT(pp.out, Catch::Contains("(970 hops a step"));
}

TEST_CASE("explain: only the layer kinds a model has are named - Nemotron 3 Nano's 23 recurrent layers, no window") {
  const auto r = test::run_cli({"explain", "-m", test::data_file("hf-configs/nemotron-3-nano-30b-a3b.json"), "-g", "h200"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("of the 52 layers, 23 are recurrent, with a fixed state per sequence. At") &&
                        !Catch::Contains("keep at most 0 tokens"));
}

TEST_CASE("explain: FlashAttention's saving is against naive whichever runs, and a cache already past fp8 is not sent to fp8") {
  const auto r = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "32", "--scenario", "summarize",
                                "--attention", "naive", "--kv", "fp4"});
  REQUIRE(r.code == 0);
  const ModelSpec m = io::load_model("llama-3.1-8b");
  const GpuSpec g = io::load_gpu("h100-sxm");
  Workload w = at_lengths(m, 32, 8192, 200);
  w.precision.kv = DType::fp4;
  w.attention = AttentionKernel::naive;
  const Report naive = evaluate(m, g, w);
  w.attention = AttentionKernel::flash;
  const Report flash = evaluate(m, g, w);
  REQUIRE(naive.prefill.time > 1.5 * flash.prefill.time);  // 9.38 s against 4.66 s
  CHECK_THAT(r.out, Catch::Contains("(the bound " + report::human(naive.prefill.time) + " with naive attention → " +
                                    report::human(flash.prefill.time) + ")"));
  CHECK_THAT(r.out, Catch::Contains("1. FlashAttention (against naive attention): saves " +
                                    report::human(naive.request_time() - flash.request_time())));
  // An fp8 cache is twice the fp4 one: neither offered nor ranked.
  CHECK_THAT(r.out, !Catch::Contains("fp8 KV cache") && !Catch::Contains("saves -"));
}

TEST_CASE("explain -b 590: memory-bound decode is bytes / bandwidth = 70.95 GB / 3.35 TB/s = 21.2 ms, its compute-bound GEMMs make the step 24.7 ms") {
  // The point's JSON: decode bytes 70,951,742,464 at 3.35e12 B/s = 21.18 ms (memory_time); the
  // step, Σ per-operator max(compute, memory), 24.68 ms: the GEMMs at 590 rows are compute-bound.
  const auto en = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "590"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("It is memory-bound: T_decode ≈ bytes / bandwidth = 21.2 ms; its compute-bound "
                                     "operators make the step at least 24.7 ms, so each stream gets at most 40.5 tokens/s at "
                                     "this batch"));
  const auto zh = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "590", "--lang", "zh"});
  REQUIRE(zh.code == 0);
  CHECK_THAT(zh.out, Catch::Contains("T_decode ≈ 字节数 / 带宽 = 21.2 ms；其中受算力限制的算子使单步耗时至少为 24.7 ms，"
                                     "此批大小下每路至多 40.5 词元/秒"));
}

TEST_CASE("explain -b 1000: verifying 4 drafted tokens reads each cache once - 209.2 ms less 4 × 25.0 ms of cache = 109 ms, not 5 × 41.8 ms") {
  // The JSON of Llama-3.1-8B on H100: batch 1000 at context 640 reads 109.83 GB (32.78 ms at
  // 3.35 TB/s), at a one-token context 26.07 GB (7.78 ms): its cache is 25.00 ms of traffic. The
  // verify runs 5 rows a sequence (the 4 drafts and the token before them): batch 5000 takes
  // 209.18 ms reading every cache 5 times; 4 of those reads off: 109.2 ms, at least the base step's
  // 41.8 ms and well below the 5 × 41.8 ms = 209 ms that the 5 tokens it yields take a step at a time.
  const auto r = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1000"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("speculative decoding verifies 4 drafted tokens a sequence, 5 rows with the token "
                                    "before them, in at least 109 ms, reading the weights and each sequence's cache once, "
                                    "instead of at least 5 × 41.8 ms for the 5 tokens it yields when all are accepted"));
  const ModelSpec m = io::load_model("llama-3.1-8b");
  const Variations v = variations(m, io::load_gpu("h100-sxm"), test::default_workload(m, 1000));
  CHECK(v.speculative.workload.batch == 5000);
  CHECK_THAT(v.verify_step.value(), Catch::WithinRel(0.20918 - 4 * (0.032784 - 0.0077826), 1e-3));
  CHECK(v.verify_step >= v.base.decode.step.time);
  // The teaching model has no cache: verification is the batch-5 step, 7.00 ms as at batch 1.
  test::TeachingExample t;
  const Variations seed = variations(t.model, t.gpu, test::default_workload(t.model));
  CHECK_THAT(seed.verify_step.value(), Catch::WithinRel(7e-3, 1e-9));
}

TEST_CASE("explain: verifying 4 drafted tokens prices 5 rows a sequence, as simulate does - Llama-2-7B at batch 48 on A100, 11.96 ms, not 9.80") {
  // simulate's verify is K + 1 queries a sequence (serve/speculative.cpp), the drafts and the token
  // before them. The JSON of Llama-2-7B on A100-80GB at 64 + 64 tokens (context 96): batch 240
  // (5 × 48) takes 16.652 ms; batch 48 reads 16,103,571,456 B, at a one-token context
  // 13,712,818,176 B: its cache is 2,390,753,280 B (48 × 95 tokens × 524,288 B) at 2039 GB/s,
  // 1.1725 ms. 16.652 − 4 × 1.1725 = 11.962 ms. Four rows a sequence had priced 9.80 ms, one short.
  const std::vector<std::string> point = {"explain", "-m", "llama-2-7b", "-g", "a100-80gb", "-b", "48", "-p", "64",
                                          "--gen", "64", "--scenario", "chat"};
  const auto r = test::run_cli(point);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("speculative decoding verifies 4 drafted tokens a sequence, 5 rows with the token "
                                    "before them, in at least 12.0 ms, reading the weights and each sequence's cache once, "
                                    "instead of at least 5 × 7.90 ms for the 5 tokens it yields when all are accepted"));
  const ModelSpec m = io::load_model("llama-2-7b");
  const Variations v = variations(m, io::load_gpu("a100-80gb"), at_lengths(m, 48, 64, 64));
  CHECK(v.speculative.workload.batch == 240);
  CHECK_THAT(v.verify_step.value(), Catch::WithinRel(0.016652 - 4 * (16'103'571'456.0 - 13'712'818'176.0) / 2039e9, 1e-4));
  // 4 drafts all accepted yield 5 tokens a verify. Of the 64 tokens the first comes out of
  // prefill, so the 63 decode steps' tokens take ⌈63 / 5⌉ = 13 verifies: 63 × 7.898 ms − 13 ×
  // 11.962 ms = 497.57 − 155.51 = 342 ms saved (as 4 a verify, 16 × 9.80 ms: 341).
  const Seconds saved = v.base.decode.step.time * 63.0 - v.verify_step * 13.0;
  CHECK(saved.value() == Approx(0.34207).epsilon(1e-3));
  CHECK_THAT(r.out, Catch::Contains("speculative decoding, 5 tokens per step (4 drafts all accepted: an upper bound): "
                                    "saves " + report::human(saved)) &&
                        !Catch::Contains("4 tokens per step"));
  auto zh = point;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  REQUIRE(z.code == 0);
  CHECK_THAT(z.out, Catch::Contains("投机解码每步验证每个序列的 4 个草稿词元（连同其前一个词元共 5 行），权重和各序列的缓存都只读一次，"
                                    "耗时至少 12.0 ms，而草稿全部被接受时得到的 5 个词元逐步解码至少需 5 × 7.90 ms") &&
                        Catch::Contains("投机解码，每步 5 个词元（4 个草稿全部接受：上限）：节省 " + report::human(saved)));
}

TEST_CASE("explain: a batch of 64 or more is not sent to batch 64 - 1000 sequences, of which memory holds 438") {
  // The JSON of batch 1000: memory.fits false, memory.max_batch 438 (at 512 + 256 = 768 tokens).
  const auto big = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1000"});
  REQUIRE(big.code == 0);
  CHECK_THAT(big.out, !Catch::Contains("batching to 64") &&
                          Catch::Contains("memory holds only 438 of these 1000 sequences at their full 768 tokens"));
  const auto zh = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1000", "--lang", "zh"});
  CHECK_THAT(zh.out, !Catch::Contains("批处理到 64") && Catch::Contains("这 1000 个序列长到 768 个词元时，一起预填充显存只放得下 438 个"));
  // Batch 128 fits (438 held): nothing is said of batching.
  const auto fits = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "128"});
  REQUIRE(fits.code == 0);
  CHECK_THAT(fits.out, !Catch::Contains("batching to 64") && !Catch::Contains("memory holds only"));
}

TEST_CASE("explain: what memory holds is named at the sequences' full length - Gemma-3-27B holds 10 of 8192 + 1024 = 9216 tokens") {
  // The JSON at batch 64, prompt 8192, gen 1024: max_batch 10, sized at 9216 tokens; the step's
  // context is 8704 (8192 + 1024 / 2), which the batching sentence names as its own.
  const auto en = test::run_cli({"explain", "-m", "gemma-3-27b", "-g", "h100-sxm", "-b", "8", "-p", "8192", "--gen", "1024"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("at context 8704,") &&
                         Catch::Contains("though memory holds 10 sequences at their full 9216 tokens prefilled together") &&
                         !Catch::Contains("at this context"));
  const auto zh = test::run_cli(
      {"explain", "-m", "gemma-3-27b", "-g", "h100-sxm", "-b", "8", "-p", "8192", "--gen", "1024", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("但序列长到 9216 个词元时，一起预填充显存只放得下 10 个序列") &&
                         !Catch::Contains("这个上下文长度下"));
}

TEST_CASE("explain -b 32: the memory traffic's share of the bandwidth adds up - 18.04 GB / 3.35 TB/s = 5.39 ms of 6.37 ms, 85% on average") {
  // The JSON: decode bytes 18,043,985,920, memory_time 5.386 ms; the expected step gives its
  // traffic 6.37 ms: 5.386 / 6.37 = 84.5%, not the GEMM class's own 82%.
  const auto r = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "32"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("6.37 ms is memory traffic, moving at 85% of the bandwidth on average;"));
  const auto zh = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "32", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("6.37 ms 是内存读写，平均达到带宽的 85%"));
  // Mixtral-8x7B on an L4 at batch 512: its GEMMs compute-bound, the expected step gives the
  // traffic less time than its bytes take at full bandwidth, which no share above 100% says.
  const auto mixtral = test::run_cli({"explain", "-m", "mixtral-8x7b", "-g", "l4", "-b", "512", "-p", "128", "--gen", "16"});
  REQUIRE(mixtral.code == 0);
  CHECK_THAT(mixtral.out, Catch::Contains("is memory traffic, less than its bytes alone take at full bandwidth") &&
                              !Catch::Matches(R"([\s\S]*moving at 1[0-9][0-9]% of the bandwidth[\s\S]*)"));
}

TEST_CASE("explain: FlashAttention is not offered where the point has it or it saves nothing, and 1 kernel is singular") {
  // The teaching model has no attention to fuse: 23.0 ms either way; Llama-3.1-8B runs flash already.
  const auto seed = test::run_cli({"explain", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml")});
  REQUIRE(seed.code == 0);
  CHECK_THAT(seed.out, !Catch::Contains("FlashAttention keeps") &&
                           Catch::Contains("  - prefill: chunked prefill splits long prompts") &&
                           Catch::Contains("fixed costs: 1 kernel at") && !Catch::Contains("1 kernels"));
  const auto naive = test::run_cli({"explain", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml"),
                                    "--attention", "naive"});
  CHECK_THAT(naive.out, !Catch::Contains("FlashAttention keeps"));
  const auto flash = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm"});
  CHECK_THAT(flash.out, !Catch::Contains("FlashAttention keeps"));
  const auto zh = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("  - 预填充：分块预填充") && !Catch::Contains("片上"));
}

TEST_CASE("explain -b 32: each stream's ceiling at this batch, 1 / 5.39 ms = 186 tokens/s, is not called the most one stream gets") {
  // At most 186 at this batch (the bound), but not the single-stream ceiling: batch 1's is 222.
  const auto r = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "32"});
  REQUIRE(r.code == 0);
  // Beside it the expected rate, 1 / 8.53 ms = 117 (the point's decode expected step_time).
  CHECK_THAT(r.out, Catch::Contains("so each stream gets at most 186 tokens/s at this batch, 117 expected (the batch of 32 "
                                    "makes at most") &&
                        !Catch::Contains("one stream gets at most 186"));
  const auto zh = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "32", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("此批大小下每路至多 186 词元/秒，预计 117 词元/秒") && !Catch::Contains("单路生成至多 186"));
}

TEST_CASE("explain: the text chart's subtitle wraps at its ' · ' within 80 columns, tp 8 kept - DeepSeek-V3 at tp 8") {
  // 83 columns in English (79 + " · tp 8" in Chinese): cut to fit, it lost the layout
  // ("… · fp8-block weights · t…"). Each line of the chart stays within 80 columns.
  const std::map<std::string, std::string> first{
      {"en", "DeepSeek-V3 on NVIDIA H200 SXM · batch 64 · context 640 · fp8-block weights"},
      {"zh", "DeepSeek-V3 在 NVIDIA H200 SXM 上 · 批大小 64 · 上下文长度 640 · fp8-block 权重"}};
  for (const auto& [lang, subtitle] : first) {
    const auto r = test::run_cli({"explain", "-m", "deepseek-v3", "-g", "h200", "--tp", "8", "-b", "64", "--lang", lang});
    REQUIRE(r.code == 0);
    INFO(r.out);
    // The chart: from the blank line after the story to the self-test.
    const std::size_t from = r.out.find("\n\n"), to = r.out.find(lang == "en" ? "Self-test:" : "自测题：");
    REQUIRE(to != std::string::npos);
    std::istringstream lines(r.out.substr(from, to - from));
    std::vector<std::string> trimmed;
    for (std::string line; std::getline(lines, line);) {
      CHECK(text::display_width(line) <= 80);
      line.erase(0, line.find_first_not_of(' '));
      trimmed.push_back(line);
    }
    const auto at = std::find(trimmed.begin(), trimmed.end(), subtitle);
    REQUIRE(at != trimmed.end());
    CHECK(*(at + 1) == "tp 8");
    CHECK_THAT(r.out, !Catch::Contains("…"));
  }
}

TEST_CASE("explain: the wrong-medicine sentence only where prefill is compute-bound and decode memory-bound, else what holds") {
  // The JSON of each point (`rooflineplan <flags> -f json`): prefill.bound and decode.bound.
  // Llama-3.1-8B on H100 at the defaults: compute and memory, the classic split.
  const auto classic = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm"});
  REQUIRE(classic.code == 0);
  CHECK_THAT(classic.out, Catch::Contains("Giving prefill's medicine to decode (more FLOPS) or decode's to prefill") &&
                              !Catch::Contains("Both phases are"));
  // Qwen3-30B-A3B on an L40S at int4: memory and memory (prefill intensity 126 below the ridge's 419).
  const std::vector<std::string> both_memory = {"explain", "-m", "qwen3-30b-a3b", "-g", "l40s", "--weights", "int4"};
  const auto mem = test::run_cli(both_memory);
  REQUIRE(mem.code == 0);
  CHECK_THAT(mem.out, Catch::Contains("Both phases are memory-bound here, so one medicine serves both: more bandwidth.") &&
                          !Catch::Contains("Giving prefill's medicine") && !Catch::Contains("each phase waits on the other"));
  auto zh_args = both_memory;
  zh_args.insert(zh_args.end(), {"--lang", "zh"});
  const auto zh = test::run_cli(zh_args);
  CHECK_THAT(zh.out, Catch::Contains("这里两个阶段都受内存带宽限制，同一味药对两者都有效：更多内存带宽。") &&
                         !Catch::Contains("两个阶段在等不同的资源"));
  // Llama-3.1-8B on H100 at batch 2048, 8 + 16 tokens: compute and compute (decode I = 738, 2.50× above).
  const auto compute = test::run_cli(
      {"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "2048", "-p", "8", "--gen", "16", "--context", "16"});
  REQUIRE(compute.code == 0);
  CHECK_THAT(compute.out, Catch::Contains("Both phases are compute-bound here, so one medicine serves both: more FLOPS.") &&
                              !Catch::Contains("Giving prefill's medicine"));
  // Llama-3.1-8B on L40S at tp 8, batch 512: interconnect and interconnect.
  const auto link = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "l40s", "--tp", "8", "-b", "512"});
  REQUIRE(link.code == 0);
  CHECK_THAT(link.out, Catch::Contains("Both phases are interconnect-bound here, so one medicine serves both: more "
                                       "interconnect bandwidth.") &&
                           !Catch::Contains("Giving prefill's medicine"));
}

TEST_CASE("explain: batching to 64 is weighed against the point's own step - gpt-oss-120b at batch 8, 5.10 ms to 17.5 ms") {
  // The JSON at -b 8: decode.step_time 0.005099 s (5.10 ms); at -b 64: 0.017492 s (17.5 ms) and
  // 3658.9 tokens/s. Batch 1's 1.50 ms is not the point's step.
  const auto en = test::run_cli({"explain", "-m", "gpt-oss-120b", "-g", "h100-sxm", "-b", "8"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("batching to 64 raises throughput to at most 3659 tokens/s, but each step takes at "
                                     "least 17.5 ms against 5.10 ms now") &&
                         !Catch::Contains("against 1.50 ms"));
  const auto zh = test::run_cli({"explain", "-m", "gpt-oss-120b", "-g", "h100-sxm", "-b", "8", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("但每步下界从现在的 5.10 ms 增至 17.5 ms") && !Catch::Contains("从 1.50 ms"));
  // Llama-3.1-70B at tp 4, batch 32: step_time 0.011298 s (11.3 ms); at -b 64 0.012221 s (12.2 ms),
  // 5237 tokens/s: within a fifth, little latency, from the point's 11.3 ms (not batch 1's 10.4 ms).
  // At 64 the embedding's all-reduce (64 × 8192 × 2 B × 3/4 at 450 GB/s = 1.75 us) and the gather
  // of the logits (64 × 128,256 × 2 B × 3/4 = 27.4 us) add 29.1 us to 12.192 ms: 64 / 12.221 ms.
  const auto little = test::run_cli({"explain", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "4", "-b", "32"});
  REQUIRE(little.code == 0);
  CHECK_THAT(little.out, Catch::Contains("batching to 64 raises throughput to at most 5237 tokens/s for little latency (the "
                                         "bound 11.3 ms → 12.2 ms a step)"));
}

TEST_CASE("explain: a point past memory below batch 64 hears what memory holds, not batching to fewer - Llama-3.1-8B at 100000 tokens on A100") {
  // The JSON at -b 8 --context 100000: memory.fits false, memory.max_batch 4 (kv_cache 104.86 GB
  // for 8 sequences: 13.1 GB, 100000 tokens of 131072 B, each); decode.tokens_per_s 136. Batch 4
  // gives 121 tokens/s, less than the point: not offered as batching.
  const std::vector<std::string> args = {"explain", "-m", "llama-3.1-8b", "-g", "a100-80gb", "-b", "8", "--context", "100000"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("memory holds only 4 of these 8 sequences at their full 100000 tokens, prefilled together") &&
                         !Catch::Contains("batching raises throughput only as far") && !Catch::Contains("121 tokens/s"));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  CHECK_THAT(z.out, Catch::Contains("这 8 个序列长到 100000 个词元时，一起预填充显存只放得下 4 个") &&
                        !Catch::Contains("批处理只能做到显存放得下的序列数"));
}

TEST_CASE("explain: a pipeline's bubble is named as what lengthens the step - Llama-3.1-70B at tp 2, pp 2, batch 1") {
  // The JSON: decode.memory_time 0.010395 s (10.4 ms), step_time 0.020793 s (20.8 ms), bubble
  // 0.4925 (49.2%: the busiest stage's idle share; the first, without the head, idles longer), comm_time
  // 1.6 us; workload.microbatches 1, pp 2. The decode ops' times sum to
  // 10.396 ms (the collectives add 1.6 us to the memory time: 10.4 ms either way), so the stages'
  // idle time, step_time − that sum = 10.396 ms, passes the memory waits (Σ time − compute_time
  // over the memory-bound ops: 10.359 ms) and the collectives' 1.6 us goes unnamed (under 1%).
  const std::vector<std::string> args = {"explain", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "2", "--pp", "2", "-b", "1"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("T_decode ≈ bytes / bandwidth = 10.4 ms; the pipeline's busiest stage stands idle "
                                     "49.2% of the step, the others longer (1 micro-batch(es) through 2 stages: its bubble), "
                                     "which makes the step at least 20.8 ms") &&
                         !Catch::Contains("interconnect-bound operators make the step"));
  CHECK_THAT(en.out, Catch::Contains("(35.6 us of the bound's 20.8 ms); the rest is waiting on the pipeline's other stages and memory."));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  CHECK_THAT(z.out, Catch::Contains("；流水线最忙的阶段也有 49.2% 的时间空等，其余阶段更多（1 个微批次流经 2 个阶段：流水线气泡），使单步耗时至少为 20.8 ms") &&
                        !Catch::Contains("受互联带宽限制的算子"));
  // Batch 16 in the default 2 micro-batches: decode.bubble 0.0, memory_time 0.021085 s (21.1 ms),
  // the decode ops' times summing to 0.021111 s (21.1 ms), step_time 0.021427 s (21.4 ms): no
  // bubble and no operator makes the difference; the stage that holds the model's ends paces it.
  const auto paced = test::run_cli({"explain", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "2", "--pp", "2", "-b", "16"});
  REQUIRE(paced.code == 0);
  CHECK_THAT(paced.out, Catch::Contains("= 21.1 ms; the pipeline's busiest stage, with more than an even share of the "
                                        "work, makes the step at least 21.4 ms") &&
                            !Catch::Contains("operators make the step") && !Catch::Contains("its bubble"));
}

TEST_CASE("explain: an interconnect-bound decode is answered with its collectives - Llama-3.1-8B on L40S at tp 8, batch 512") {
  // The JSON: decode.bound "interconnect", comm_time 0.018501 s (18.5 ms), memory_time 0.011260 s
  // (11.3 ms), compute_time 0.0027158 s (2.72 ms), step_time 0.029770 s (29.8 ms): the collectives
  // are 18.5 ms of the 27.1 ms that is not compute, memory waits the other 8.55 ms. Over PCIe's
  // 32 GB/s ring: 65 all-reduces of 512 × 4096 × 2 B, 2 × 7/8 of it each, 229.4 us a call, and the
  // gather of the logits, 512 × 128,256 × 2 B × 7/8 = 3.591 ms: 14.909 + 3.591 = 18.501 ms.
  const std::vector<std::string> args = {"explain", "-m", "llama-3.1-8b", "-g", "l40s", "--tp", "8", "-b", "512"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("Its collectives take at least 18.5 ms a step on the links between the GPUs, longer than its "
                                     "11.3 ms of memory traffic at full bandwidth and its 2.72 ms of compute at the peak.") &&
                         !Catch::Contains("decode stays memory-bound") &&
                         Catch::Contains("there is no crossover: its compute never catches up with its memory traffic, "
                                         "and at this batch the interconnect bounds the step.") &&
                         Catch::Contains("(2.72 ms of the bound's 29.8 ms); the rest is waiting on the collectives between the GPUs "
                                         "and memory."));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  CHECK_THAT(z.out, Catch::Contains("它的集合通信每步在 GPU 之间的链路上至少耗时 18.5 ms，长于满带宽下 11.3 ms 的内存读写和峰值算力下 2.72 ms 的计算。") &&
                        !Catch::Contains("解码始终受内存限制") && Catch::Contains("其余时间都在等多卡之间的集合通信和内存。"));
}

TEST_CASE("explain: a compute-bound decode is not told its compute hides under memory reads - Llama-3.1-8B at batch 2048") {
  // The JSON: decode.bound "compute", compute_time 0.031106 s (31.1 ms) of step_time 0.035679 s
  // (35.7 ms): 87.2%; the rest, 4.57 ms, is memory-bound operators (no collectives at tp 1).
  const std::vector<std::string> args = {"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "2048", "-p", "8",
                                         "--gen", "16", "--context", "16"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("at batch 2048 decode is compute-bound: its compute units do useful work for 87.2% "
                                     "of it (31.1 ms of the bound's 35.7 ms); the rest is waiting on memory.") &&
                         !Catch::Contains("GPU utilisation misleads") &&
                         Catch::Contains("is compute, which the bound overlaps with the memory reads") &&
                         !Catch::Contains("hides under the memory reads") &&
                         Catch::Contains("each weight read serves 2048 token(s), enough arithmetic to outlast the reading") &&
                         !Catch::Contains("serves only 2048"));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  CHECK_THAT(z.out, Catch::Contains("批 2048 时解码受算力限制：计算单元有 87.2% 的时间在做有用功（下界 35.7 ms 中的 31.1 ms），其余时间都在等内存。") &&
                        !Catch::Contains("下界把它藏在内存读取之下"));
}

TEST_CASE("explain: each micro-batch reads its stage's weights again - Llama-3.1-70B at tp 2, pp 2, batch 16") {
  // The JSON's prefill intensity and workload.microbatches: 659 at 8 micro-batches (16 / 8 = 2
  // sequences of 512 tokens, 1024 a weight read), 1288 at the default 2 (4096), 1531 at 1 (8192).
  const std::vector<std::string> base = {"explain", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "2", "--pp", "2", "-b", "16"};
  auto eight = base;
  eight.insert(eight.end(), {"--microbatches", "8"});
  const auto mb8 = test::run_cli(eight);
  REQUIRE(mb8.code == 0);
  CHECK_THAT(mb8.out, Catch::Contains("Prefill: 8192 prompt tokens pass through the pipeline in 8 micro-batches of 1024 "
                                      "tokens, each reading its stage's weights again, so each weight read from memory is "
                                      "used 1024 times: intensity 659 FLOP/byte") &&
                          !Catch::Contains("used 8192 times"));
  // Decode the same: 2 sequences a weight read.
  CHECK_THAT(mb8.out, Catch::Contains("each weight read serves only 2 token(s) (one of 8 micro-batches, each reading its "
                                      "stage's weights again)."));
  const auto mb2 = test::run_cli(base);
  CHECK_THAT(mb2.out, Catch::Contains("in 2 micro-batches of 4096 tokens") && Catch::Contains("used 4096 times: intensity 1288"));
  auto one = base;
  one.insert(one.end(), {"--microbatches", "1"});
  const auto mb1 = test::run_cli(one);
  CHECK_THAT(mb1.out, Catch::Contains("so each weight read from memory is used 8192 times: intensity 1531"));
  auto zh = eight;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  CHECK_THAT(z.out, Catch::Contains("8192 个提示词元分成 8 个微批次（每个 1024 个词元）通过流水线") &&
                        Catch::Contains("被使用 1024 次：算术强度 659 FLOP/字节"));
  // 5 sequences in 2 micro-batches (3 and 2; the JSON: workload.microbatches 2, batch 5): at most 1536.
  const auto uneven = test::run_cli(
      {"explain", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "2", "--pp", "2", "-b", "5", "--microbatches", "2"});
  CHECK_THAT(uneven.out, Catch::Contains("in 2 micro-batches of at most 1536 tokens") &&
                             Catch::Contains("used at most 1536 times: intensity 758"));
}

TEST_CASE("explain --lang zh: mixed quantized formats are named in Chinese - gpt-oss-120b's unpacking") {
  // The JSON of gpt-oss-120b on H100 at batch 8: weight_formats mixed (mxfp4 experts, bf16 the rest).
  const auto zh = test::run_cli({"explain", "-m", "gpt-oss-120b", "-g", "h100-sxm", "-b", "8", "--lang", "zh"});
  REQUIRE(zh.code == 0);
  CHECK_THAT(zh.out, Catch::Contains("用于解包量化权重") && !Catch::Contains("quantized"));
  const auto en = test::run_cli({"explain", "-m", "gpt-oss-120b", "-g", "h100-sxm", "-b", "8"});
  CHECK_THAT(en.out, Catch::Contains("of it unpacking quantized weights"));
}

TEST_CASE("explain names the device: a TPU's utilisation is the TPU's, Gaudi 3 an accelerator's, NVIDIA's and Apple's the GPU's") {
  // Llama-3.1-8B at batch 1: 77.9 us of compute in an 18.4 ms step on a TPU v5e (0.4%).
  const auto tpu = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "tpu-v5e"});
  REQUIRE(tpu.code == 0);
  CHECK_THAT(tpu.out, Catch::Contains("TPU utilisation misleads in decode: the TPU is busy for the whole step, yet at batch 1 "
                                      "its compute units do useful work for only 0.4% of it (77.9 us of the bound's 18.4 ms)") &&
                          !Catch::Contains("GPU utilisation") && !Catch::Contains("the GPU is"));
  const auto tpu_zh = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "tpu-v5e", "--lang", "zh"});
  CHECK_THAT(tpu_zh.out, Catch::Contains("解码阶段的 TPU 利用率具有误导性：整个单步耗时内 TPU 都显示忙碌") &&
                             !Catch::Contains("GPU 利用率"));
  // Llama-3.1-70B on 8 Gaudi 3 at batch 512: the collectives run between accelerators.
  const auto gaudi = test::run_cli({"explain", "-m", "llama-3.1-70b", "-g", "gaudi3", "--tp", "8", "-b", "512"});
  REQUIRE(gaudi.code == 0);
  CHECK_THAT(gaudi.out, Catch::Contains("is communication between the accelerators, each collective") &&
                            Catch::Contains(" × ring all-reduce over 8 accelerators, 2·(8 − 1) = 14 hops each") &&
                            Catch::Contains("Accelerator utilisation misleads in decode: the accelerator is busy") &&
                            Catch::Contains("the rest is waiting on memory and the collectives between the accelerators.") &&
                            !Catch::Contains("GPU utilisation") && !Catch::Contains("between the GPUs"));
  const auto gaudi_zh = test::run_cli({"explain", "-m", "llama-3.1-70b", "-g", "gaudi3", "--tp", "8", "-b", "512", "--lang", "zh"});
  CHECK_THAT(gaudi_zh.out, Catch::Contains("是加速器之间的通信") && Catch::Contains(" 次 8 个加速器上的环形全归约，每次 2·(8 − 1) = 14 跳") &&
                               Catch::Contains("解码阶段的加速器利用率具有误导性：整个单步耗时内加速器都显示忙碌") &&
                               Catch::Contains("其余时间都在等内存和多个加速器之间的集合通信。"));
  // Apple's presets price the chip's GPU, and say so in their names.
  const auto apple = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "m4-max"});
  CHECK_THAT(apple.out, Catch::Contains("GPU utilisation misleads in decode: the GPU is busy"));
}

TEST_CASE("explain's device word is read from the device's name, and a name that says none is an accelerator") {
  using report::DeviceKind;
  CHECK(report::device_kind("Google Cloud TPU v6e (Trillium)") == DeviceKind::tpu);
  CHECK(report::device_kind("Apple M3 Ultra (80-core GPU, 512 GB)") == DeviceKind::gpu);
  CHECK(report::device_kind("NVIDIA H100 SXM") == DeviceKind::gpu);
  CHECK(report::device_kind("AMD Instinct MI300X") == DeviceKind::gpu);
  CHECK(report::device_kind("cuda: NVIDIA H100 80GB HBM3, 132 SMs, sm_90") == DeviceKind::gpu);  // calibrate's names
  CHECK(report::device_kind("cpu: AMD EPYC 9654, 2 threads") == DeviceKind::cpu);
  CHECK(report::device_kind("Intel Gaudi 3 (HL-325L OAM)") == DeviceKind::accelerator);
  CHECK(report::device_kind("x") == DeviceKind::accelerator);
  CHECK(report::device_kind("NVIDIAN 9000") == DeviceKind::accelerator);  // whole words only
  CHECK(report::device_words(DeviceKind::accelerator, "en").capital == "Accelerator");
  CHECK(report::device_words(DeviceKind::gpu, "zh").many == "多卡");
}

TEST_CASE("explain: compute is hidden under the memory reads only where no operator is compute-bound - Llama-3.1-8B at batch 10^6") {
  // Memory-bound (its bytes at bandwidth 28.3 s), but its linears, 10^6 rows each, are
  // compute-bound and make the step 41.8 s: the bound does not hide their compute under the reads,
  // it overlaps each operator's two. It had said "21.5 s is compute that the bound hides under the
  // memory reads but a GEMM of only 1000000 row(s) cannot".
  const std::vector<std::string> args = {"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1000000"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("T_decode ≈ bytes / bandwidth = 28.3 s; its compute-bound operators make the step at least 41.8 s") &&
                         Catch::Contains("21.5 s is compute, which the bound overlaps with the memory reads (each operator "
                                         "taking the longer of the two)") &&
                         !Catch::Contains("hides under the memory reads") && !Catch::Contains("1000000 row(s)"));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  REQUIRE(z.code == 0);
  CHECK_THAT(z.out, Catch::Contains("21.5 s 是计算时间：下界让它与内存读取重叠") && !Catch::Contains("下界把它藏在内存读取之下"));
  // At batch 1 every operator is memory-bound (a GEMM of 1 row): hidden, and said so.
  const auto one = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm"});
  CHECK_THAT(one.out, Catch::Contains("is compute that the bound hides under the memory reads but a GEMM of only 1 row(s) "
                                      "cannot"));
}

TEST_CASE("explain: a share of the step just short of all of it is not 100.0% beside a rest - batch 10^7 on a tiny GPU") {
  // Llama-3.1-8B at batch 10^7 on 1 GB/s and 1 GFLOP/s: 153,517,629.44 s of compute in a step of
  // 153,530,368 s; the rest, 12,738.56 s, is the norms, the embedding and the activation function,
  // memory-bound (10485.76 − 6553.6 for each of the two norms, 27525.12 − 22937.6, 327.68 − 204.8,
  // 163.84). 99.9917%: it had read "100.0% of it ...; the rest is waiting on memory".
  test::write_temp("tiny.yaml", "name: Tiny\nmemory: { capacity: \"1 MiB\", bandwidth: \"1 GB/s\" }\n"
                                "compute:\n  peak: { fp16: \"1 GFLOPS\", bf16: \"1 GFLOPS\" }\n");
  const std::vector<std::string> args = {"explain", "-m", "llama-3.1-8b", "-g", test::temp_file("tiny.yaml"), "-b",
                                         "10000000"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("decode is compute-bound: its compute units do useful work for 99.99% of it") &&
                         Catch::Contains("the rest is waiting on memory.") && !Catch::Contains("100.0% of it"));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  CHECK_THAT(z.out, Catch::Contains("计算单元有 99.99% 的时间在做有用功") && !Catch::Contains("100.0% 的时间"));
}

TEST_CASE("explain: a mixture of experts' answer says an expert's weights serve fewer tokens than the batch") {
  // Qwen3-30B-A3B at batch 16: attention's weights serve 16 tokens a read, but each token reaches 8
  // of the 128 experts, so the ~82 experts a step reads serve 16 · 8 / 82.4 ≈ 1.6 each.
  const std::vector<std::string> args = {"explain", "-m", "qwen3-30b-a3b", "-g", "h100-sxm", "-b", "16"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("each weight read serves only 16 token(s); an expert's weights serve fewer, each "
                                     "token reaching 8 of the 128 experts."));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  CHECK_THAT(test::run_cli(zh).out, Catch::Contains("服务 16 个词元；专家权重服务的更少：每个词元只到达 128 个专家中的 8 个。"));
  // A dense model's answer has no such clause.
  CHECK_THAT(test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "16"}).out,
             Catch::Contains("each weight read serves only 16 token(s).") && !Catch::Contains("an expert's weights"));
}

TEST_CASE("explain: verifying 4 drafted tokens reads a recurrent state once and writes it 5 times - Qwen3.5-4B at batch 32, 8.44 ms, not 10.45") {
  // The JSON of Qwen3.5-4B on H100 at context 8192: batch 160 (5 rows × 32: the 4 drafts and the
  // token before them) takes 20.706 ms; its cache is 6.150 − 3.586 ms of batch 32's traffic
  // (one-token context). A Gated DeltaNet layer keeps, a sequence, a state of 32 heads × 128 × 128
  // × 4 B = 2,097,152 B and kept inputs of (2·16·128 + 4,096) × 3 × 2 B = 49,152 B. Batch 160
  // reads and writes both 5 times a sequence; vLLM reads the state once and writes it at each of
  // the 5 positions, and reads and writes the kept inputs once: 4 × 2,097,152 + 8 × 49,152 =
  // 8,781,824 B less a sequence and layer, × 32 × 24 = 6.744 GB at 3.35 TB/s = 2.013 ms.
  // 20.706 − 4 × 2.564 − 2.013 = 8.437 ms. Taking off the KV cache's reads alone left 10.45 ms, the
  // state read 5 times.
  const auto r = test::run_cli({"explain", "-m", "qwen3.5-4b", "-g", "h100-sxm", "-b", "32", "-p", "4096", "--context", "8192"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("speculative decoding verifies 4 drafted tokens a sequence, 5 rows with the token "
                                    "before them, in at least 8.44 ms, reading the weights and each sequence's cache once (a "
                                    "recurrent layer's state read once and written at each of the 5 rows, as vLLM "
                                    "keeps it), instead of at least 5 × 6.15 ms for the 5 tokens it yields when all are accepted"));
  const ModelSpec m = io::load_model("qwen3.5-4b");
  Workload w = test::default_workload(m, 32);
  w.prompt_tokens = 4096;
  w.context_tokens = 8192;
  const Variations v = variations(m, io::load_gpu("h100-sxm"), w);
  const double state = 32.0 * 24 * (4 * 2'097'152 + 8 * 49'152) / 3.35e12;
  CHECK_THAT(v.verify_step.value(), Catch::WithinRel(0.0207055 - 4 * (0.0061498 - 0.0035860) - state, 1e-4));
  const auto zh = test::run_cli({"explain", "-m", "qwen3.5-4b", "-g", "h100-sxm", "-b", "32", "-p", "4096", "--context",
                                 "8192", "--lang", "zh"});
  REQUIRE(zh.code == 0);
  CHECK_THAT(zh.out, Catch::Contains("（循环层的状态读一次、5 行各写一次，与 vLLM 一致），耗时至少 8.44 ms"));
}

TEST_CASE("explain: an fp8 KV cache leaves a recurrent state as it is - Mamba-130m is offered no fp8 cache") {
  // Every layer is recurrent: an fp8 KV cache changes no byte of the step (vLLM keeps the state in
  // the model's dtype whatever --kv-cache-dtype), so it is neither offered nor ranked.
  const auto r = test::run_cli({"explain", "-m", test::data_file("hf-configs/mamba-130m-subset.json"), "-g", "h100-sxm",
                                "-b", "64", "--scenario", "chat"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, !Catch::Contains("fp8 KV cache"));
}

TEST_CASE("explain Q3 - a memory-bound step across GPUs is not told it stays memory-bound, Llama-3.1-8B on L40S tp 8") {
  // At batch 1 the collectives carry one token: 65 all-reduces of 4096 × 2 B, 2 × 7/8 of it each,
  // and the logits' gather of 128256 × 2 B × 7/8, over PCIe's 32 GB/s: 36.1 us beside 2.2 ms of
  // memory, so memory bounds this step. At 2·B* = 838 they carry 838 tokens, 838 × 36.1 us =
  // 30.3 ms, and the step is interconnect-bound (48.0 ms): "stays memory-bound" was false.
  const std::vector<std::string> args = {"explain", "-m", "llama-3.1-8b", "-g", "l40s", "--tp", "8", "-b", "1"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("at 2·B* = 838 the step takes at least 48.0 ms (interconnect-bound)") &&
                         !Catch::Contains("decode stays memory-bound") &&
                         Catch::Contains("B* = 419, counting the weights only. With the KV cache at 640 tokens there is "
                                         "no crossover: its compute never catches up with its memory traffic, and at "
                                         "this batch memory bounds the step."));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  CHECK_THAT(z.out, !Catch::Contains("解码始终受内存限制") &&
                        Catch::Contains("计入 640 个词元的 KV 缓存时没有交点：计算始终追不上内存读写，而在此批大小下单步受内存带宽限制。"));
  // One GPU has no link to bind: there it does stay memory-bound.
  const auto one = test::run_cli({"explain", "-m", "llama-2-7b", "-g", "a100-80gb"});
  CHECK_THAT(one.out, Catch::Contains("there is no crossover: decode stays memory-bound."));
}

TEST_CASE("explain - a mixture of experts in a pipeline's micro-batches, Qwen3-30B-A3B at pp 4, batch 16 of 4096") {
  // 16 × 4096 = 65536 prompt tokens in 4 micro-batches of 4 sequences, 16384 tokens each reading
  // its stage's weights again; each token reaches 8 of the 128 experts, so an expert's read serves
  // 16384 × 8 / 128 = 1024 of them on average (the table's verdict says so). Not "at once".
  const std::vector<std::string> args = {"explain", "-m", "qwen3-30b-a3b", "-g", "h100-sxm", "-b", "16", "--pp", "4",
                                         "-p", "4096"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, !Catch::Contains("at once") &&
                         Catch::Contains("Prefill: 65536 prompt tokens pass through the pipeline in 4 micro-batches of "
                                         "16384 tokens, each reading its stage's weights again, and a mixture of experts "
                                         "sends each token to 8 of its 128 experts, so each expert's weights serve only "
                                         "the tokens of a micro-batch routed to it: intensity 412 FLOP/byte"));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  CHECK_THAT(z.out, !Catch::Contains("一次性通过模型") &&
                        Catch::Contains("预填充（Prefill）：65536 个提示词元分成 4 个微批次（每个 16384 个词元）通过流水线，"
                                        "每个微批次都要重新读出所在阶段的权重；混合专家模型又把每个词元只送往 128 个专家中的 8 个"));
  // Without a pipeline the batch does pass at once.
  const auto flat = test::run_cli({"explain", "-m", "qwen3-30b-a3b", "-g", "h100-sxm", "-b", "16", "-p", "4096"});
  CHECK_THAT(flat.out, Catch::Contains("Prefill: 65536 prompt tokens pass through the model at once, but a mixture of experts"));
}

TEST_CASE("explain --scenario - FlashAttention, which the point runs, is said to be in use, Llama-3.1-8B on A100 at batch 8") {
  // The default kernel is flash: its 1.78 s is what it already saves against naive attention
  // (the request at the bound is 5.87 s with it; 1.78 / 5.87 = 30%), not a saving still to be had.
  const std::vector<std::string> args = {"explain", "--scenario", "summarize", "-m", "llama-3.1-8b", "-g", "a100-80gb",
                                         "-b", "8"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  const ModelSpec m = io::load_model("llama-3.1-8b");
  const GpuSpec g = io::load_gpu("a100-80gb");
  Workload w = at_lengths(m, 8, 8192, 200);
  const Report flash = evaluate(m, g, w);
  w.attention = AttentionKernel::naive;
  const Report naive = evaluate(m, g, w);
  const std::string saving = report::human(naive.request_time() - flash.request_time());
  CHECK(saving == "1.78 s");
  // Not numbered among the savings still to be had: said after them.
  CHECK_THAT(en.out, !Catch::Contains("FlashAttention (against naive attention)") &&
                         Catch::Contains("\n  Already in use: FlashAttention, which saves 1.78 s (30%) against naive attention"));
  // The three still to be had (speculation, int4 weights, an fp8 cache) numbered 1 to 3 before it.
  const std::string ranked = en.out.substr(en.out.find("Optimisations ranked"));
  CHECK(ranked.find("  3. ") < ranked.find("Already in use"));
  CHECK_THAT(ranked, !Catch::Contains(". FlashAttention") && !Catch::Contains("  4. "));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  CHECK_THAT(test::run_cli(zh).out, Catch::Contains("已在使用：FlashAttention，相对朴素注意力节省 1.78 s（30%）"));
}
