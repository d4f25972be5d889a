// Bad input: each gives a message naming file:line:column and the field, exit code 2, no crash.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_runner.hpp"

using namespace roofline;
using test::data_file;
using test::run_cli;
using test::with_model;
using test::with_gpu;
using test::check_error;

TEST_CASE("bad input: a missing file names the path") {
  check_error(with_model("no/such/model.yaml"), "--model: no/such/model.yaml", "cannot open: No such file");
}

TEST_CASE("bad input: a file that is not there is said with the flag that gave it, on every command") {
  // Each said `<path>: cannot open: No such file or directory`, not which of a command's files it
  // was (calibrate --base, a draft in --speculative, an --arrivals trace). An error inside a file
  // keeps its file:line:column first (bad input: malformed YAML, below).
  const std::string yaml = "/no/such/dir/x.yaml", csv = "/no/such/dir/x.csv";
  const std::vector<std::string> simulate = {"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm"};
  const auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  struct Case {
    std::vector<std::string> args;
    std::string flag, file;
  };
  const std::vector<Case> cases = {
      {{"-m", yaml, "-g", "h100-sxm"}, "--model", yaml},
      {{"-m", "llama-3.1-8b", "-g", yaml}, "--gpu", yaml},
      {{"sweep", "-m", "llama-3.1-8b," + yaml, "-g", "h100-sxm"}, "--model", yaml},
      {{"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm," + yaml}, "--gpu", yaml},
      {{"plan", "-m", yaml, "-g", "h100-sxm"}, "--model", yaml},
      {{"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm," + yaml}, "--gpu", yaml},
      {{"plot", "-m", yaml, "-g", "h100-sxm"}, "--model", yaml},
      {{"validate", "-m", "llama-3.1-8b", "-g", yaml}, "--gpu", yaml},
      {{"explain", "-m", yaml, "-g", "h100-sxm"}, "--model", yaml},
      {{"calibrate", "--base", yaml}, "--base", yaml},
      {{"convert", yaml}, "model", yaml},
      {{"fit", csv}, "measurements", csv},
      {{"fit", "--kernels", csv}, "--kernels", csv},
      {{"fit", "--kernels", data_file("gpu-kernels/h100_sxm_gemm.csv"), "--gpu", yaml}, "--gpu", yaml},
      {with(simulate, {"--rate", "1", "--prompt", "100", "--gen", "10", "--speculative", "2:0.7:" + yaml}),
       "--speculative", yaml},
      {with(simulate, {"--arrivals", csv}), "--arrivals", csv},
      {with(simulate, {"--rate", "1", "--prompt", "empirical:" + csv, "--gen", "10"}), "--prompt", csv},
      {with(simulate, {"--rate", "1", "--prompt", "100", "--gen", "empirical:" + csv}), "--gen", csv},
      {{"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--percentile", "99", "--arrivals", csv}, "--arrivals", csv},
      {{"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--percentile", "99", "--prompt", "empirical:" + csv},
       "--prompt", csv},
  };
  for (const Case& c : cases) {
    INFO(fmt::format("{}", fmt::join(c.args, " ")));
    check_error(run_cli(c.args), c.flag + ": " + c.file + ": cannot open: No such file or directory", "");
  }
  // A name that is neither a file nor a preset, and a preset of the other kind, are the flag's too.
  check_error(with_model("llama-2-7"), "--model: llama-2-7: no such file, and no model preset", "did you mean `llama-2-7b`?");
  check_error(run_cli({"-m", "llama-3.1-8b", "-g", "llama-2-7b"}), "--gpu: llama-2-7b: is a model preset; pass it as --model", "");
}

TEST_CASE("bad input: malformed YAML points at the line") {
  check_error(with_model(data_file("bad/malformed.yaml")), data_file("bad/malformed.yaml") + ":3:", "malformed YAML");
}

TEST_CASE("bad input: an unknown key suggests the nearest valid one") {
  check_error(with_model(data_file("bad/unknown_key.yaml")), data_file("bad/unknown_key.yaml") + ":5:1:",
              "unknown key `kv_head`, did you mean `kv_heads`?");
}

TEST_CASE("bad input: a missing field is named") {
  check_error(with_model(data_file("bad/missing_field.yaml")), data_file("bad/missing_field.yaml") + ":1:1:",
              "missing field `vocab`");
}

TEST_CASE("bad input: a bare number where a unit is needed") {
  check_error(with_gpu(data_file("bad/bare_number.yaml")), data_file("bad/bare_number.yaml") + ":2:41:",
              "memory.bandwidth: \"2039\" has no unit");
}

TEST_CASE("bad input: a size where a bandwidth is needed") {
  check_error(with_gpu(data_file("bad/wrong_unit.yaml")), data_file("bad/wrong_unit.yaml") + ":4:14:",
              "\"80 GB\" is a size, but a bandwidth is needed");
}

TEST_CASE("bad input: zero and negative sizes") {
  check_error(with_model(data_file("bad/zero_hidden.yaml")), data_file("bad/zero_hidden.yaml") + ":3:9:",
              "hidden: must be positive, got 0");
  check_error(with_gpu(data_file("bad/negative_capacity.yaml")), data_file("bad/negative_capacity.yaml") + ":2:21:",
              "memory.capacity: must be positive");
}

TEST_CASE("bad input: heads that do not divide hidden - kv_heads that do not divide heads") {
  check_error(with_model(data_file("bad/heads_not_dividing_hidden.yaml")),
              data_file("bad/heads_not_dividing_hidden.yaml") + ":4:8:", "heads 30 does not divide hidden 4096");
  check_error(with_model(data_file("bad/kv_heads_not_dividing_heads.yaml")),
              data_file("bad/kv_heads_not_dividing_heads.yaml") + ":5:11:", "kv_heads 5 does not divide heads 32");
}

TEST_CASE("bad input: a rule inside a nested mapping points into it") {
  check_error(with_model(data_file("bad/moe_top_k.yaml")), data_file("bad/moe_top_k.yaml") + ":11:10:",
              "moe.top_k: top_k 9 exceeds the 8 experts");
}

TEST_CASE("bad input: dtype typos suggest the nearest dtype - in files and flags") {
  check_error(with_model(data_file("bad/unknown_dtype.yaml")), data_file("bad/unknown_dtype.yaml") + ":3:8:",
              "unknown dtype \"fp61\", did you mean `fp16` or `fp6`?");
  check_error(with_gpu(data_file("bad/peak_dtype_typo.yaml")), data_file("bad/peak_dtype_typo.yaml") + ":6:",
              "compute.peak.bf61: unknown dtype \"bf61\", did you mean `bf16`?");
  check_error(run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--weights", "in4"}), "--weights",
              "did you mean `int4`?");
}

TEST_CASE("bad input: weight format typos list the formats - in files and flags - tied or shapeless formats refused") {
  // "mxfp5" sits at line 5, column 12 of the file.
  check_error(with_model(data_file("bad/unknown_weight_format.yaml")),
              data_file("bad/unknown_weight_format.yaml") + ":5:12:",
              "quantization.experts: unknown weight format \"mxfp5\", did you mean `mxfp4` or `mxfp6`? (one of fp32, fp16, bf16, "
              "fp8, fp8-channel, fp8-block, int8, int4, awq, gptq, fp4, mxfp4, nvfp4, fp6, mxfp6)");
  check_error(run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--lm-head", "nvfp5"}), "--lm-head",
              "unknown weight format \"nvfp5\", did you mean `nvfp4`? (one of fp32, fp16, bf16, fp8, fp8-channel, "
              "fp8-block, int8, int4, awq, gptq, fp4, mxfp4, nvfp4, fp6, mxfp6)");
  check_error(run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "--weights", "mxfp4,fp8-blok"}), "--weights",
              "did you mean `fp8-block`?");
  check_error(with_model(data_file("bad/tied_embedding_format.yaml")),
              data_file("bad/tied_embedding_format.yaml") + ":14:14:",
              "quantization.embedding: the embeddings are tied to the LM head, one tensor");
  check_error(with_model(data_file("bad/quantized_by_size.yaml")), data_file("bad/quantized_by_size.yaml") + ":4:",
              "quantization.dense_ffn: a model known only by its size has no tensor classes");
  check_error(with_model(data_file("bad/wide_checkpoint_compute.yaml")),
              data_file("bad/wide_checkpoint_compute.yaml") + ":13:12:",
              "quantization.compute: bf16 is not a format a checkpoint quantizes activations to");
}

TEST_CASE("bad input: duplicate keys - a list for a document - an empty file") {
  check_error(with_model(data_file("bad/duplicate_key.yaml")), data_file("bad/duplicate_key.yaml") + ":3:1:",
              "duplicate key `params`");
  check_error(with_model(data_file("bad/not_a_mapping.yaml")), data_file("bad/not_a_mapping.yaml") + ":1:1:",
              "must be a mapping");
  // Empty, the file as a whole is refused, said after the flag that gave it: no line to point at.
  check_error(with_model(data_file("bad/empty.yaml")), "--model: " + data_file("bad/empty.yaml"), "must be a mapping");
}

TEST_CASE("bad input: batch 0 and other out-of-range flags name the flag") {
  check_error(run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--batch", "0"}), "--batch", "must be at least 1, got 0");
  check_error(run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--tp", "3"}), "--tp",
              "tp 3 does not divide the 32 attention heads");
  check_error(run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--compute", "fp8"}), "--compute",
              "gives no peak for fp8");
}

TEST_CASE("bad input: unknown presets and flags") {
  check_error(with_model("llama-2-7"), "--model: llama-2-7: no such file, and no model preset", "did you mean `llama-2-7b`?");
  const auto r = run_cli({"--modle", "x"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--modle"));
  check_error(run_cli({}), "--model and --gpu are required", "presets");
}

TEST_CASE("a context above max_context is a warning - not an error") {
  const auto r = run_cli({"--model", data_file("good/short-context.yaml"), "--gpu", "a100-80gb", "--prompt", "2000"});
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("warning: 2256 tokens exceed the model's max_context of 1024"));
}

TEST_CASE("bad input: billion laughs and deep nesting are refused at once, with the line") {
  // Nine levels of nine aliases each: 9^9 = 387 million values if expanded.
  std::string laughs = "name: x\nsource: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (char level = 'b', previous = 'a'; level <= 'i'; previous = level++) {
    laughs += fmt::format("{}: &{} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n", level, level, fmt::arg("p", previous));
  }
  CHECK_THROWS_WITH(io::parse_yaml(laughs, "laughs.yaml"), Catch::Contains("laughs.yaml:") && Catch::Contains("more than 100000 values"));
  // yaml-cpp's own guard stops a flow sequence 2000 deep; a block one is stopped at 33 levels.
  CHECK_THROWS_WITH(io::parse_yaml("name: " + std::string(100000, '['), "flow.yaml"),
                    Catch::StartsWith("flow.yaml:1:") && Catch::Contains("levels deep"));
  std::string block = "name:\n";
  for (int i = 0; i < 40; ++i) block += std::string(static_cast<std::size_t>(2 * i), ' ') + "-\n";
  CHECK_THROWS_WITH(io::parse_yaml(block, "block.yaml"), Catch::Contains("block.yaml:") && Catch::Contains("nested more than 32 levels deep"));
}
