// The memory ledger as the command tells it; the arithmetic is tested in
// tests/model/test_memory_ledger.cpp.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "report/report_view.hpp"

using namespace roofline;

TEST_CASE("Llama-2-70B in fp16 does not fit on an L4: said clearly - not an error") {
  const auto r = test::run_cli({"--model", "llama-2-70b", "--gpu", "l4"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("does NOT fit"));
  CHECK_THAT(r.err, Catch::Contains("warning: does not fit"));
}

TEST_CASE("memory verdict: a pipeline that just misses is said of its fullest GPU, over by 0.03% - not 340 GB of 342 GB, nor 100.0%") {
  // Llama-3.1-8B over 4 H100s (81559 MiB = 85,520,809,984 B each) in a pipeline, batch 332 of 4096
  // + 256 tokens, 4 micro-batches of 83. Fits is decided on the fullest GPU, the last stage:
  //   weights: 8 layers of 218,112,000 params, the head's 128256 × 4096 and the final norm's 4096,
  //            in bf16: 4,540,473,344 B
  //   cache:   332 sequences × 4352 tokens × 8 layers × 2 × 1024 × 2 B = 47,345,303,552 B
  //   activations: 83 sequences × (4096 × (2 × 14336 + 2 × 4096) × 2 B + 128256 × 4 B of the last
  //            token's logits) = 25,107,741,696 B
  //   reserve: 10% of 85,520,809,984 = 8,552,080,998.4 B
  // 85,545,599,590.4 B in all, 1.00029× its capacity: 100.03%. The replica's total, 340 GB, is
  // below its 4 GPUs' 342 GB, which the verdict had compared; the table had said "85.5 GB  100.0%
  // of its 85.5 GB".
  const std::vector<std::string> args = {"-m", "llama-3.1-8b", "-g", "h100-sxm", "--pp", "4", "-p", "4096", "-b", "332"};
  auto json_args = args;
  json_args.insert(json_args.end(), {"-f", "json"});
  const auto j = nlohmann::json::parse(test::run_cli(json_args).out);
  CHECK(j["memory"]["fullest_gpu"].get<double>() == Approx(85545599590.4));
  CHECK(j["gpu"]["memory_capacity"].get<double>() == 85520809984.0);
  CHECK_FALSE(j["memory"]["fits"].get<bool>());
  CHECK(j["memory"]["max_batch"] == 331);

  const auto table = test::run_cli(args);
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("memory: does NOT fit: at batch 332 the fullest of the 4 GPUs needs 85.55 GB but holds "
                                        "85.52 GB") &&
                            Catch::Contains("85.55 GB  100.03% of its 85.52 GB") && !Catch::Contains("100.0% of its") &&
                            !Catch::Contains("GPUs hold 342 GB"));
  CHECK_THAT(table.err, Catch::Contains("warning: does not fit: needs 85.55 GB of 85.52 GB at batch 332"));
  auto md = args;
  md.insert(md.end(), {"-f", "markdown"});
  const auto markdown = test::run_cli(md);
  CHECK_THAT(markdown.out, Catch::Contains("| fullest GPU | 85.55 GB | 100.03% of its 85.52 GB |") &&
                               Catch::Contains("- memory: does NOT fit: at batch 332 the fullest of the 4 GPUs needs "
                                               "85.55 GB but holds 85.52 GB"));
  // At 331 it fits: 331 sequences hold 331 / 332 of the cache.
  const auto fits = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "--pp", "4", "-p", "4096", "-b", "331"});
  CHECK_THAT(fits.out, !Catch::Contains("does NOT fit"));
}

TEST_CASE("one GPU that does not fit: its need against its capacity - Llama-2-70B on an L4") {
  // 68,976,648,192 fp16 params are 137.95 GB of weights alone; with 0.25 GB of cache (768 tokens ×
  // 327,680 B), 0.08 GB of activations and the reserve, 10% of the L4's 24.15 GB: 140.7 GB.
  const auto r = test::run_cli({"--model", "llama-2-70b", "--gpu", "l4"});
  CHECK_THAT(r.out, Catch::Contains("memory: does NOT fit: batch 1 needs 141 GB but the GPU holds 24.2 GB"));
}

TEST_CASE("percent_of: one decimal, more where one would read 100.0 of a part that is not the whole") {
  using report::percent_of;
  CHECK(percent_of(52.5, 100) == "52.5");
  CHECK(percent_of(1, 1) == "100.0");
  CHECK(percent_of(85545599590.4, 85520809984) == "100.03");  // 1.00028987
  CHECK(percent_of(99.96, 100) == "99.96");                   // under: not "100.0"
  CHECK(percent_of(153517629.44, 153530368.0) == "99.99");    // 0.0083% short
  CHECK(percent_of(100 + 1e-10, 100) == ">100");              // past 9 decimals
  CHECK(percent_of(100 - 1e-10, 100) == "<100");
  CHECK(percent_of(153.2, 100) == "153.2");
}

TEST_CASE("memory under data-parallel attention: each sequence's expert intermediates count every rank's picks - Mixtral-8x7B 224, gpt-oss-120b 656") {
  // tests/model/test_memory_ledger.cpp works Mixtral's by hand: 1073.9 MB a sequence of 8192
  // tokens (251.8 MB had been counted, the picks of a GPU's own tokens alone), 28 sequences a GPU.
  // gpt-oss-120b, 4 of 128 experts of 2880, whole on one GPU: 8192 × 2 B × (2 · 2880 + 4 rows ×
  // 2 · 2880) + 201,088 × 4 B of logits = 472,663,552 B (179.1 MB had been counted), 82 a GPU.
  const auto at = [](const char* model) {
    return nlohmann::json::parse(test::run_cli({"-m", model, "-g", "h100-sxm", "--tp", "8", "--ep", "8", "--dp-attention",
                                                "-b", "8", "-p", "8192", "-f", "json"})
                                     .out)["memory"];
  };
  const auto mixtral = at("mixtral-8x7b");
  CHECK(mixtral["activations"].get<double>() == 8 * 1'073'869'824.0);
  CHECK(mixtral["max_batch"] == 224);
  const auto gpt_oss = at("gpt-oss-120b");
  CHECK(gpt_oss["activations"].get<double>() == 8 * 472'663'552.0);
  CHECK(gpt_oss["max_batch"] == 656);
}

TEST_CASE("memory: under data-parallel attention an odd batch's warning is said of the fullest GPU, not of totals") {
  // Mixtral tp 2, ep 2, data-parallel attention, batch 7 of 28,000 tokens: one GPU holds 4
  // sequences, the other 3. Whether it fits is decided on the fullest GPU (over its 85.5 GB); the
  // warning had compared the two GPUs' totals with their 171 GB, and said "needs 165 GB of 171 GB".
  const std::vector<std::string> args = {"-m", "mixtral-8x7b", "-g", "h100-sxm", "--tp", "2", "--ep", "2",
                                         "--dp-attention", "-b", "7", "-p", "28000", "--gen", "100"};
  auto json_args = args;
  json_args.insert(json_args.end(), {"-f", "json"});
  const auto r = test::run_cli(json_args);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE_FALSE(j["memory"]["fits"].get<bool>());
  CHECK(j["memory"]["fullest_gpu"].get<double>() > 85'520'809'984.0);
  bool said = false;
  for (const auto& w : j["warnings"]) {
    const std::string s = w.get<std::string>();
    if (s.rfind("does not fit", 0) != 0) continue;
    said = true;
    CHECK_THAT(s, Catch::EndsWith("of 85.5 GB at batch 7") && !Catch::Contains("171 GB"));
  }
  CHECK(said);
}

TEST_CASE("memory ledger: the reserve's label is the --reserve given, not rounded to a whole percent") {
  // Llama-3.1-8B on an H100 (85,520,809,984 B): --reserve 0.004 holds back 342 MB, 0.4%; the label
  // had said "reserve (0%)" beside it, 0.995 "(100%)" beside 99.5%, 0.125 "(12%)" beside 12.5%.
  const auto at = [](const std::string& reserve) {
    const auto r = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "--reserve", reserve});
    REQUIRE(r.code == 0);
    return r.out;
  };
  CHECK_THAT(at("0.004"), Catch::Contains("reserve (0.4%)") && Catch::Contains("342 MB"));
  CHECK_THAT(at("0.995"), Catch::Contains("reserve (99.5%)") && Catch::Contains("85.1 GB"));
  CHECK_THAT(at("0.125"), Catch::Contains("reserve (12.5%)"));
  CHECK_THAT(at("0.1"), Catch::Contains("reserve (10%)"));
}

TEST_CASE("simulate --engine vllm on 8 H200s: the memory rule's 1206 GB as 1.21 TB, never 1.21e+03 GB") {
  // DeepSeek-V3 at tp 8: 8 x 150,754,820,096 B = 1,206,038,560,768 B, three digits 1.21 TB; the
  // rule had written "{:.3g} GB" of 1206, "1.21e+03 GB". Below 1000 GB it stays in GB (807 GB).
  const auto r = test::run_cli({"simulate", "-m", "deepseek-v3", "-g", "h200", "--tp", "8", "--ep", "8",
                                "--dp-attention", "--kv", "fp8", "--engine", "vllm", "--prompt", "100", "--gen", "10",
                                "--rate", "1", "--duration", "5s", "-f", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string rule = nlohmann::json::parse(r.out)["engine"]["memory"]["rule"].get<std::string>();
  CHECK_THAT(rule, Catch::EndsWith("share 0.9 of the 1.21 TB") && Catch::Contains("the weights (807 GB)") &&
                       !Catch::Contains("e+"));
}
