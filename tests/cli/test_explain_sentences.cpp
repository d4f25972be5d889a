// explain's sentences say what the engine's operators show, a bound as a bound, and one GPU's
// figures as one GPU's: each case a sentence that had misled, with the figures worked by hand.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>

#include "cli_runner.hpp"
#include "report/human_units.hpp"
#include "report/report_view.hpp"

using namespace roofline;

namespace {

Report point(const std::string& model, const std::string& gpu, long batch) {
  const ModelSpec m = io::load_model(model);
  return evaluate(m, io::load_gpu(gpu), test::default_workload(m, batch));
}

// The decode step's operators of these names, their times summed.
Seconds time_of(const Report& r, std::initializer_list<std::string_view> names) {
  Seconds t{0};
  for (const OpResult& o : r.decode.step.ops) {
    if (std::find(names.begin(), names.end(), o.cost.name) != names.end()) t += o.time;
  }
  return t;
}

}  // namespace

TEST_CASE("explain: past the weights' crossover Q1 names the KV cache, not weight reuse - Llama-3.1-8B at batch 400") {
  // The JSON of -b 400 (B* = 295): the FFN GEMMs' intensity is 355, past the ridge's 295, and
  // compute-bound; the step is memory-bound for its attention over the KV cache: attn_scores and
  // attn_values, 16.9 GB each at 3.35 TB/s = 5.04 ms each, 10.1 ms of the 16.8 ms step. It had
  // answered "each weight read serves only 400 token(s)".
  const Report r = point("llama-3.1-8b", "h100-sxm", 400);
  REQUIRE(r.decode.step.bound == Bound::memory);
  const Seconds cache = time_of(r, {"attn_scores", "attn_values"});
  CHECK(report::human(cache) == "10.1 ms");
  const std::string of = report::human(cache) + " of the bound's " + report::human(r.decode.step.time) + " step";
  const auto en = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "400"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("(295 FLOP/byte), though each weight read serves 400 token(s): enough arithmetic for "
                                     "most of its weight GEMMs to outlast their reading. What keeps the step "
                                     "memory-bound is the KV cache each sequence reads for itself (the operators "
                                     "reading it take " + of + ").") &&
                         !Catch::Contains("serves only 400"));
  const auto zh = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "400", "--lang", "zh"});
  REQUIRE(zh.code == 0);
  CHECK_THAT(zh.out, Catch::Contains("尽管每次读出的权重服务 400 个词元，计算量已足以让大多数权重矩阵乘法的计算耗时长于读取耗时。"
                                     "让这一步仍受内存带宽限制的是每个序列各自读取的 KV 缓存（读取它的算子耗时 " +
                                     report::human(cache) + "，单步下界共 " + report::human(r.decode.step.time) + "）。") &&
                         !Catch::Contains("只服务 400"));
  // At batch 300 the GEMMs' activations keep them below the ridge (the FFN's intensity 274): every
  // product is memory-bound, and the weights' reads are still the answer.
  const auto below = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "300"});
  CHECK_THAT(below.out, Catch::Contains("each weight read serves only 300 token(s).") && !Catch::Contains("What keeps"));
}

TEST_CASE("explain: a mixture of experts past its dense weights' crossover is told its experts and cache bind - gpt-oss-120b at batch 1000") {
  // The JSON of -b 1000: attention's and the head's GEMMs are compute-bound (intensity 628, 740);
  // the routed experts' (109: each token reaches 4 of the 128) take 3 × 6.56 ms and their
  // activation 743 us, 20.4 ms, and the attention over the cache 2 × (3.57 ms + 748 us) = 8.63 ms,
  // of the 32.7 ms step. It had answered "each weight read serves only 1000 token(s)".
  const Report r = point("gpt-oss-120b", "h100-sxm", 1000);
  const Seconds experts = time_of(r, {"expert_gate", "expert_up", "expert_act", "expert_down"});
  const Seconds cache = time_of(r, {"attn_scores", "attn_values"});
  const std::string step = report::human(r.decode.step.time);
  const auto en = test::run_cli({"explain", "-m", "gpt-oss-120b", "-g", "h100-sxm", "-b", "1000"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("enough arithmetic for most of its GEMMs outside the routed experts to outlast their "
                                     "reading. What keeps the step memory-bound is the routed experts, whose weights "
                                     "serve only the tokens routed to them, each token reaching 4 of the 128 experts "
                                     "(their operators take " + report::human(experts) + " of the bound's " + step +
                                     " step) and the KV cache each sequence reads for itself (the operators reading it "
                                     "take " + report::human(cache) + " of the bound's " + step + " step).") &&
                         !Catch::Contains("serves only 1000"));
}

TEST_CASE("explain: prefill's time is the bound on the TTFT, its expected time beside it - Llama-3.1-8B on H100") {
  // The JSON: prefill.time 8.39 ms (its FLOPs at the peak), prefill.expected.time 15.4 ms. It had
  // said "takes 8.39 ms (the time to first token)".
  const Report r = point("llama-3.1-8b", "h100-sxm", 1);
  REQUIRE(r.prefill.expected.time > r.prefill.time);
  const auto en = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("It is compute-bound and takes at least " + report::human(r.prefill.time) +
                                     ", the roofline's bound on the time to first token (expected " +
                                     report::human(r.prefill.expected.time) + ").") &&
                         !Catch::Contains("(the time to first token)"));
  const auto zh = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("它受算力限制，耗时至少 " + report::human(r.prefill.time) + "（屋顶线给出的首词元时间 TTFT 下界；预计 " +
                                     report::human(r.prefill.expected.time) + "）。"));
}

TEST_CASE("explain --scenario: a request's time is a bound of prefill and gen - 1 steps, its expected time beside it") {
  // summarize: 8192 in, 200 out. The first token comes out of prefill: 199 decode steps, as
  // simulate runs a request (--gen 3: 2 steps). 146 ms + 199 × 4.81 ms = 1.10 s at the bound;
  // expected 213 ms + 199 × 7.42 ms = 1.69 s. It had said "146 ms + 200 steps × 4.81 ms = 1.11 s".
  const ModelSpec m = io::load_model("llama-3.1-8b");
  const GpuSpec g = io::load_gpu("h100-sxm");
  Workload w = test::default_workload(m);
  w.prompt_tokens = 8192;
  w.gen_tokens = 200;
  w.context_tokens = default_context(8192, 200);
  const Report r = evaluate(m, g, w);
  const Seconds bound = r.prefill.time + 199.0 * r.decode.step.time;
  CHECK(r.request_time().value() == Approx(bound.value()).epsilon(1e-12));
  const Seconds expected = r.prefill.expected.time + 199.0 * r.decode.step.expected.time;
  const auto en = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--scenario", "summarize"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("Scenario summarize (8192 in, 200 out): a request takes at least prefill " +
                                     report::human(r.prefill.time) + " + 199 steps × " + report::human(r.decode.step.time) +
                                     " = " + report::human(bound) + " at the roofline bound (the first token comes out "
                                     "of prefill; expected " + report::human(expected) + ")"));
  const auto zh = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--scenario", "summarize", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("按屋顶线下界，一个请求至少需要预填充 " + report::human(r.prefill.time) + " + 199 步 × " +
                                     report::human(r.decode.step.time) + " = " + report::human(bound)) &&
                         Catch::Contains("预计 " + report::human(expected) + "）"));
  // One token is prefill's alone (it had said "+ 1 steps × 4.49 ms = 9.13 ms"); two run one step.
  const auto one = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--scenario", "chat", "--gen", "1"});
  REQUIRE(one.code == 0);
  CHECK_THAT(one.out, Catch::Contains(" + 0 steps × ") && Catch::Contains("decode 0%") && !Catch::Contains("1 steps"));
  const auto two = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--scenario", "chat", "--gen", "2"});
  CHECK_THAT(two.out, Catch::Contains(" + 1 step × ") && !Catch::Contains("1 steps"));
}

TEST_CASE("explain --dp-attention: the hops are the MoE all-to-alls', and a read of the non-expert weights serves a GPU's own sequences") {
  // DeepSeek-V3 at tp 8, ep 8, data-parallel attention, batch 8: every GPU runs its own ⌈8 / 8⌉ = 1
  // sequence through attention, the dense and shared FFNs and the head (docs/layouts.md); its only
  // collectives are moe_dispatch and moe_combine, one hop each. It had said "(116 hops a step: a
  // ring all-reduce over tp GPUs takes 2·(tp − 1))" and "each weight read serves only 8 token(s)".
  const ModelSpec m = io::load_model("deepseek-v3");
  Workload w = test::default_workload(m, 8);
  w.tp = 8;
  w.ep = 8;
  w.dp_attention = true;
  const Report r = evaluate(m, io::load_gpu("h200"), w);
  const report::PerRead per = report::per_read(r, r.decode_pipeline);
  CHECK(per.sequences == 8);
  CHECK(per.own == 1);
  CHECK(per.ranks == 8);
  double calls = 0;
  for (const OpResult& o : r.decode.step.ops) {
    if (!(o.comm.hops > 0)) continue;
    CHECK(o.cost.collective == Collective::all_to_all);
    CHECK(o.comm.hops == 1);
    calls += o.cost.comm_calls;
  }
  REQUIRE(calls > 0);
  const std::string n = fmt::format("{}", calls);
  const std::vector<std::string> args = {"explain", "-m", "deepseek-v3", "-g", "h200", "--tp", "8", "--ep", "8",
                                         "--dp-attention", "-b", "8"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("(" + n + " hops a step: " + n + " × all-to-all over 8 GPUs, 1 hop each)") &&
                         !Catch::Contains("ring all-reduce"));
  CHECK_THAT(en.out, Catch::Contains("each read of the weights other than the routed experts' serves only 1 token(s) "
                                     "(under data-parallel attention each GPU runs only its own 1 of the 8 sequences); "
                                     "the routed experts' weights serve the tokens that every GPU's sequences route to "
                                     "them, each token reaching 8 of the 256 experts.") &&
                         !Catch::Contains("serves only 8 token(s)"));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  CHECK_THAT(z.out, Catch::Contains("（每步共 " + n + " 跳：" + n + " 次 8 个 GPU 上的全交换，每次 1 跳）") &&
                        Catch::Contains("除路由专家外，每次读出的权重只服务 1 个词元（数据并行注意力下每个 GPU 只运行 8 个序列中自己的 1 个）") &&
                        !Catch::Contains("环形全归约"));
  // 12 sequences over 8 GPUs: ⌈12 / 8⌉ = 2 on the busiest, 1 on others.
  auto twelve = args;
  twelve.back() = "12";
  CHECK_THAT(test::run_cli(twelve).out,
             Catch::Contains("serves at most 2 token(s) (under data-parallel attention each GPU runs only its own at "
                             "most 2 of the 12 sequences)"));
  // Without it, tensor parallelism's ring all-reduces over the 8 GPUs, 2·(8 − 1) hops each.
  const auto tp = test::run_cli({"explain", "-m", "deepseek-v3", "-g", "h200", "--tp", "8", "-b", "8"});
  CHECK_THAT(tp.out, Catch::Contains(" × ring all-reduce over 8 GPUs, 2·(8 − 1) = 14 hops each") &&
                         Catch::Contains("each weight read serves only 8 token(s)"));
}

TEST_CASE("explain: a replica over several GPUs says each GPU re-reads its share - Llama-3.1-70B at tp 2") {
  // The model's weights are 141 GB; at tp 2 a GPU holds and reads 69.5 GB of them a step. It had
  // said "re-reads 69.5 GB of weights", read as the model's.
  const ModelSpec m = io::load_model("llama-3.1-70b");
  Workload w = test::default_workload(m);
  w.tp = 2;
  const Report r = evaluate(m, io::load_gpu("h100-sxm"), w);
  CHECK(report::human(r.model.weight_bytes) == "141 GB");
  const std::string each = report::human(r.decode.step.weight_bytes);
  CHECK(each == "69.5 GB");
  const auto en = test::run_cli({"explain", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "2"});
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("but each GPU re-reads " + each + " of weights (bf16)"));
  const auto zh = test::run_cli({"explain", "-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "2", "--lang", "zh"});
  CHECK_THAT(zh.out, Catch::Contains("却要在每个 GPU 上重新读出 " + each + " 权重"));
  // One GPU: as before (the seed, 14.0 GB of fp16 weights).
  const auto seed = test::run_cli({"explain", "-m", test::example_file("7b.yaml"), "-g", test::example_file("a100.yaml")});
  CHECK_THAT(seed.out, Catch::Contains("but re-reads 14.0 GB of weights (fp16) and") && !Catch::Contains("each GPU"));
}

TEST_CASE("explain: decode's rates are ceilings and its step times the bound's, as prefill's - Llama-3.1-8B on H100 at batch 64") {
  // The JSON at -b 64: decode bytes 21,078,122,496 at 3.35 TB/s = 6.292 ms (step_time), so a
  // stream gets at most 1 / 6.292 ms = 158.9 tokens/s and the batch 64 / 6.292 ms = 10172; the
  // expected step is 9.58 ms, 1 / 9.58 ms = 104 tokens/s a stream. At -b 1: 15,104,666,112 B = 4.509 ms, 1 / 4.509 ms = 221.8; at
  // 2·B* = 590, 24.7 ms; with an fp8 cache 18,389,573,632 B = 5.489 ms. It had said "so each
  // stream gets 159 tokens/s", "batch 1 takes 4.51 ms (222 tokens/s)", "an fp8 KV cache gives
  // 5.49 ms", and in Chinese called the 6.29 ms step "上界", an upper bound, where a time's bound is
  // a lower one.
  const std::vector<std::string> args = {"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "64"};
  const auto en = test::run_cli(args);
  REQUIRE(en.code == 0);
  CHECK_THAT(en.out, Catch::Contains("T_decode ≈ bytes / bandwidth = 6.29 ms, so each stream gets at most 159 tokens/s at "
                                     "this batch, 104 expected (the batch of 64 makes at most 10172 tokens/s in all).") &&
                         Catch::Contains("batch 1 takes at least 4.51 ms (at most 222 tokens/s), batch 64 at least 6.29 ms "
                                         "(at most 10172 tokens/s in all, 159 a stream)") &&
                         Catch::Contains("at 2·B* = 590 the step takes at least 24.7 ms (memory-bound)") &&
                         Catch::Contains("(993 us of the bound's 6.29 ms)") &&
                         Catch::Contains("int4 weights cut the bytes of a step (the bound 6.29 ms → 3.20 ms); an fp8 KV "
                                         "cache brings the bound to 5.49 ms; speculative decoding verifies 4 drafted "
                                         "tokens a sequence, 5 rows with the token before them, in at least 7.14 ms") &&
                         Catch::Contains("instead of at least 5 × 6.29 ms") &&
                         !Catch::Contains("each stream gets 159") && !Catch::Contains("batch 1 takes 4.51 ms") &&
                         !Catch::Contains("cache gives 5.49 ms"));
  auto zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto z = test::run_cli(zh);
  REQUIRE(z.code == 0);
  CHECK_THAT(z.out, Catch::Contains("T_decode ≈ 字节数 / 带宽 = 6.29 ms，此批大小下每路至多 159 词元/秒，预计 104 词元/秒（批 64 合计至多 10172 词元/秒）。") &&
                        Catch::Contains("批 1 每步至少 4.51 ms（至多 222 词元/秒），批 64 至少 6.29 ms（合计至多 10172 词元/秒，每路 159）") &&
                        Catch::Contains("到 2·B* = 590 时至少 24.7 ms（受内存带宽限制）") &&
                        Catch::Contains("实际运行达不到屋顶线的下界：一个解码步预计需要 ") &&
                        Catch::Contains("而下界是 6.29 ms。") && Catch::Contains("（下界 6.29 ms 中的 993 us）") &&
                        Catch::Contains("int4 权重减少每步读取的字节（下界 6.29 ms → 3.20 ms）；fp8 KV 缓存使下界降至 5.49 ms") &&
                        Catch::Contains("耗时至少 7.14 ms，而草稿全部被接受时得到的 5 个词元逐步解码至少需 5 × 6.29 ms") &&
                        !Catch::Contains("上界是") && !Catch::Contains("每路 159 词元/秒"));
  // Batch 1: the single-stream ceiling, and batching to 64 weighed at the bound.
  const auto one = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--lang", "zh"});
  CHECK_THAT(one.out, Catch::Contains("单路生成至多 222 词元/秒") &&
                          Catch::Contains("批处理到 64 时吞吐上界升至 10172 词元/秒，但每步下界从现在的 4.51 ms 增至 6.29 ms"));
  // --scenario ranks the savings of the request's bound.
  const auto chat = test::run_cli({"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--scenario", "chat"});
  CHECK_THAT(chat.out, Catch::Contains("Optimisations ranked by the time they save per request at the roofline bound:"));
}
