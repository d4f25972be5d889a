// Sweeps: lists and ranges expand as written; one row per valid point.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"
#include "io/input_error.hpp"
#include "cli/value_lists.hpp"

using namespace roofline;
using cli::expand_counts;

namespace {
long lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }
}  // namespace

TEST_CASE("value lists: plain lists and arithmetic and geometric ranges") {
  CHECK(expand_counts({"1", "2", "4"}, "batch") == std::vector<long>{1, 2, 4});
  CHECK(expand_counts({"1..1024:x2"}, "batch") == std::vector<long>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024});
  CHECK(expand_counts({"128..512:+128"}, "prompt") == std::vector<long>{128, 256, 384, 512});
  CHECK(expand_counts({"1..3", "8"}, "tp") == std::vector<long>{1, 2, 3, 8});
  CHECK(expand_counts({"3..10:x3"}, "batch") == std::vector<long>{3, 9});  // 27 would pass the end
}

TEST_CASE("value lists: malformed items and endless ranges are refused naming the flag") {
  CHECK_THROWS_WITH(expand_counts({"4..1"}, "batch"), Catch::Contains("--batch") && Catch::Contains("is empty"));
  CHECK_THROWS_WITH(expand_counts({"1..8:x1"}, "batch"), Catch::Contains("never ends"));
  CHECK_THROWS_WITH(expand_counts({"0..8:x2"}, "batch"), Catch::Contains("never ends"));
  CHECK_THROWS_WITH(expand_counts({"1..8:*2"}, "batch"), Catch::Contains("+N (arithmetic) or xN"));
  CHECK_THROWS_WITH(expand_counts({"two"}, "prompt"), Catch::Contains("--prompt: \"two\" is not a whole number"));
}

TEST_CASE("sweep: 2 models × 2 GPUs × 6 batches give a header and 24 rows") {
  const auto r = test::run_cli({"sweep", "-m", "llama-2-7b,llama-3.1-8b", "-g", "a100-80gb,h100-sxm", "-b", "1..32:x2"});
  REQUIRE(r.code == 0);
  CHECK(lines(r.out) == 1 + 24);
  CHECK_THAT(r.out, Catch::StartsWith("model_name,model_params,"));
  // No progress bar when stderr is not a terminal; only the A100's unmeasured attention kernels,
  // on its 12 rows.
  CHECK(r.err ==
        "warning: 12 of the 24 rows written carry warnings (each kind once, in the words of its first row; -f jsonl gives "
        "every row's):\n  12 × the NVIDIA A100 80GB SXM's kernel tables did not measure decode_attention, "
        "prefill_attention: those kernels' expected times use coefficients fitted on other GPUs' tables, a transfer its "
        "own kernels may miss by far; the bound holds (docs/expected-performance.md)\n");
}

TEST_CASE("sweep: invalid points are skipped and counted on stderr, not written") {
  // Llama-2-13B has 40 heads: tp 3 does not divide them.
  const auto r = test::run_cli({"sweep", "-m", "llama-2-13b", "-g", "a100-80gb", "--tp", "1..4"});
  REQUIRE(r.code == 0);
  CHECK(lines(r.out) == 1 + 3);
  CHECK_THAT(r.err, Catch::Contains("skipped 1 of 4 points") && Catch::Contains("tp 3 does not divide the 40"));
}

TEST_CASE("sweep: no valid point is refused, and its --out left as it was") {
  // Exit 0 and a bare header in place of the file before; now exit 2, the file whole.
  const auto file = std::filesystem::temp_directory_path() / "rooflineplan-sweep-none-valid.csv";
  std::ofstream(file) << "ORIGINAL\n";
  const auto r = test::run_cli({"sweep", "-m", "llama-2-13b", "-g", "a100-80gb", "--tp", "3,6", "-o", file.string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("skipped 2 of 2 points") &&
                        Catch::Contains("error: sweep: none of its 2 points is valid (above); --out ") &&
                        Catch::Contains("is left as it was"));
  std::ifstream in(file);
  std::string first;
  std::getline(in, first);
  CHECK(first == "ORIGINAL");
  std::filesystem::remove(file);
  const auto json = test::run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "-b", "0", "-f", "json"});
  CHECK(json.code == 2);
  CHECK_THAT(json.err, Catch::Contains("--batch: must be at least 1, got 0"));
}

TEST_CASE("sweep: no valid point writes nothing to stdout, in every format") {
  // Refused with exit 2, it wrote a CSV header, a table's head or an empty JSON array to stdout
  // all the same: a pipe read a sweep of no rows. The error on stderr is all there is.
  for (const std::string format : {"csv", "jsonl", "json", "table", "markdown"}) {
    INFO(format);
    const auto r = test::run_cli({"sweep", "-m", "llama-2-13b", "-g", "a100-80gb", "--tp", "3,6", "-f", format});
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("skipped 2 of 2 points") &&
                          Catch::EndsWith("error: sweep: none of its 2 points is valid (above)\n"));
  }
}

TEST_CASE("sweep: JSON lines carry the report's sections, one object per line") {
  const auto r = test::run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "-b", "1,64", "-f", "jsonl"});
  REQUIRE(r.code == 0);
  CHECK(lines(r.out) == 2);
  CHECK_THAT(r.out, Catch::Contains("\"decode\":{") && Catch::Contains("\"batch\":64"));
}

TEST_CASE("sweep: rows equal the single-point command's CSV row") {
  const auto one = test::run_cli({"-m", "llama-3.1-8b", "-g", "h200", "-b", "8", "-f", "csv"});
  const auto swept = test::run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h200", "-b", "4,8"});
  const std::string row = one.out.substr(one.out.find("\r\n") + 2);
  CHECK(swept.out.ends_with(row));
}

TEST_CASE("sweep: bad values name their flag and exit 2") {
  const auto r = test::run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "--weights", "fp61"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--weights: unknown weight format \"fp61\", did you mean `fp16` or `fp6`? (one of fp32, "
                                    "fp16, bf16, fp8, fp8-channel, fp8-block, int8, int4, awq, gptq, fp4, mxfp4, nvfp4, fp6, mxfp6)"));
}

TEST_CASE("sweep: rows past the model's max_context are written but counted as warned") {
  const auto r = test::run_cli({"sweep", "-m", test::data_file("good/short-context.yaml"), "-g", "a100-80gb", "-p",
                                "512,2048"});
  REQUIRE(r.code == 0);
  CHECK(lines(r.out) == 1 + 2);
  CHECK_THAT(r.err, Catch::Contains("warning: 2 of the 2 rows written carry warnings") &&
                        Catch::Contains("  1 × 2304 tokens exceed the model's max_context of 1024") &&
                        Catch::Contains("  2 × the NVIDIA A100 80GB SXM's kernel tables did not measure"));
}

TEST_CASE("sweep: warnings of one kind in other words are each said - fp8 computes on an H100, weight-only on an A100") {
  // fp8 weights: W8A8 where the GPU has fp8 tensor cores, weight-only in bf16 on an A100, which
  // has none; the L4's row is also borrowed kernels. Told apart by their source and GPU.
  const auto r = test::run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm,a100-80gb,l4", "--weights", "fp8",
                                "-f", "csv"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("  2 × the linears compute in fp8: engines run fp8 weights W8A8") &&
                        Catch::Contains("  1 × the weights would compute in fp8, but the NVIDIA A100 80GB SXM gives no "
                                        "fp8 peak") &&
                        Catch::Contains("  1 × no kernel was measured on the NVIDIA L4"));
}

TEST_CASE("sweep: every kind of warning its rows carry is said, with how many rows carry it") {
  // All four rows on the MI300X borrow their kernel coefficients; the two 200000-token prompts
  // also pass Llama-3.1-8B's 131072. One row's first warning was all CSV said.
  const auto r = test::run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "mi300x", "-b", "1,2", "-p", "128,200000",
                                "-f", "csv"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::StartsWith("warning: 4 of the 4 rows written carry warnings (each kind once, in the words of "
                                      "its first row; -f jsonl gives every row's):\n") &&
                        Catch::Contains("\n  4 × no kernel was measured on the AMD Instinct MI300X") &&
                        Catch::Contains("\n  2 × 200256 tokens exceed the model's max_context of 131072\n"));
}

TEST_CASE("sweep: each model's operators without a kernel class are said apart, not the first model's for both") {
  // Nemotron-3-Nano's Mamba-2 layers and DeepSeek-V3.2's sparse latent attention have no fitted
  // class; the summary had grouped the two warnings by kind and shown the first's list twice.
  const auto r = test::run_cli({"sweep", "-m", "nemotron-3-nano-30b-a3b,deepseek-v3.2", "-g", "h200", "-b", "1", "-f", "csv"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("1 × no kernel class prices conv1d, ssd_scan:") &&
                        Catch::Contains("1 × no kernel class prices index_scores, attn_scores, attn_values:") &&
                        !Catch::Contains("2 × no kernel class"));
}

TEST_CASE("sweep: weights stored wider than the compute are said for each model's own classes") {
  // fp8 compute over bf16 weights: Llama's attention and dense FFN, Qwen3-30B-A3B's attention and
  // experts, gpt-oss-20b's attention alone (its experts are mxfp4). All three had been said in
  // Llama's words, "3 × ... the attention, dense_ffn weights".
  const auto r = test::run_cli({"sweep", "-m", "llama-3.1-8b,qwen3-30b-a3b,gpt-oss-20b", "-g", "h100-sxm", "--compute",
                                "fp8", "-f", "csv"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("\n  1 × the linears compute in fp8, each bound at the fp8 peak, but the attention, "
                                    "dense_ffn weights are stored in bf16:") &&
                        Catch::Contains("\n  1 × the linears compute in fp8, each bound at the fp8 peak, but the "
                                        "attention, experts weights are stored in bf16:") &&
                        Catch::Contains("\n  1 × the linears compute in fp8, each bound at the fp8 peak, but the "
                                        "attention weights are stored in bf16:") &&
                        !Catch::Contains("3 × the linears compute"));
}

TEST_CASE("sweep: an unused --group-size is said with each row's own weights format") {
  // "2 × --group-size 64 changes nothing: the weights are fp8" had been said of a bf16 row too.
  const auto r = test::run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--weights", "fp8,bf16",
                                "--group-size", "64", "-f", "csv"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("\n  1 × --group-size 64 changes nothing: the weights are fp8,") &&
                        Catch::Contains("\n  1 × --group-size 64 changes nothing: the weights are bf16,") &&
                        !Catch::Contains("2 × --group-size"));
}
