// Issue 27, flags: a value the command line cannot hold is refused naming its flag, never read
// as 0, clamped, or shown rounded; and the messages say what was given, in the order given.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"

using namespace roofline;
using test::check_error;
using test::data_file;
using test::run_cli;

namespace {

const std::vector<std::string> kPoint = {"-m", "llama-2-7b", "-g", "a100-80gb"};

std::vector<std::string> point(std::vector<std::string> more) {
  std::vector<std::string> args = kPoint;
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// A CLI11 refusal: exit 2, nothing on stdout, the flag and the reason on stderr.
// Said as every refused input is (docs/usage.md), CLI11's refusals too: `error: <flag>: <why>`.
void check_refused(const test::CliResult& r, const std::string& flag_and_reason) {
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("error: " + flag_and_reason));
}

}  // namespace

TEST_CASE("an empty number is refused by its flag, not read as 0 - --reserve, --tp, --rate") {
  check_refused(run_cli(point({"--reserve", ""})), "--reserve: empty; give a number");
  check_refused(run_cli(point({"--tp", ""})), "--tp: empty; give a value, or leave the flag out");
  check_refused(run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", ""}), "--rate: empty; give a number");
}

TEST_CASE("an empty value of any flag is refused by its name, not read as the flag's default") {
  // Each of these ran as if the flag were not there: --weights '' priced the checkpoint's own
  // format, simulate --ttft '' judged no TTFT, plan --emit '' wrote nothing and said nothing.
  check_refused(run_cli(point({"--weights", ""})), "--weights: empty; give a value, or leave the flag out");
  check_refused(run_cli(point({"--kv", ""})), "--kv: empty; give a value, or leave the flag out");
  check_refused(run_cli({"-m", "", "-g", "a100-80gb"}), "--model: empty; give a value, or leave the flag out");
  check_refused(run_cli({"simulate", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", "1", "--prompt", "10", "--gen", "10",
                         "--ttft", ""}),
                "--ttft: empty; give a value, or leave the flag out");
  check_refused(run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--emit", ""}),
                "--emit: empty; give a value, or leave the flag out");
  check_refused(run_cli({"calibrate", "--base", ""}), "--base: empty; give a value, or leave the flag out");
}

TEST_CASE("latency targets lie between 1 us and a day, and repetitions at most 1000") {
  // --ttft 1e300s was taken and printed 300 digits; --repetitions 1000000000 ran for days.
  check_refused(run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--ttft", "1e300s"}),
                "--ttft: \"1e300s\" is outside 1 us to a day (86400 s)");
  check_refused(run_cli({"simulate", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", "1", "--prompt", "10", "--gen", "10",
                         "--tpot", "0.5 ns"}),
                "--tpot: \"0.5 ns\" is outside 1 us to a day (86400 s)");
  CHECK(run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--ttft", "86400s", "--tpot", "1μs"}).code == 0);
  check_refused(run_cli({"calibrate", "--repetitions", "1001"}), "--repetitions: at most 1000, got 1001");
  check_refused(run_cli({"validate", "-m", "llama-2-7b", "-g", "a100-80gb", "--repetitions", "1000000000"}),
                "--repetitions: at most 1000, got 1000000000");
}

TEST_CASE("a number past its type or not finite is refused, not clamped - a seed of 2^64, nan, 1e999") {
  check_refused(run_cli({"simulate", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", "1", "--prompt", "10", "--gen",
                         "10", "--seed", "18446744073709551616"}),
                "--seed: out of range (-9223372036854775808 to 9223372036854775807)");
  check_refused(run_cli(point({"--reserve", "nan"})), "--reserve: `nan` is not finite");
  check_refused(run_cli(point({"--reserve", "1e999"})), "--reserve: `1e999` is out of a double's range");
  // A whole number stays one: 2.5 repetitions are not 2.
  check_refused(run_cli({"calibrate", "--repetitions", "2.5"}), "--repetitions: `2.5` is not a whole number");
}

TEST_CASE("a whole number is read in decimal: --seed 010 is seed 10, not octal 8 as CLI11's strtoll read it") {
  const auto r = run_cli({"simulate", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", "1", "--prompt", "10", "--gen",
                          "10", "--duration", "5s", "--seed", "010", "-f", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains(", seed 10\""));
  CHECK(run_cli({"simulate", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", "1", "--prompt", "10", "--gen", "10",
                 "--duration", "5s", "--max-batch", "08"})
            .code == 0);
}

TEST_CASE("microbatches: empty or 0 is refused like 1 without --pp, and more than the batch is refused, not 1") {
  check_refused(run_cli(point({"--pp", "2", "--microbatches", ""})), "--microbatches: empty; give a number");
  check_error(run_cli(point({"--pp", "2", "--microbatches", "0"})), "--microbatches", "must be 1");
  check_error(run_cli(point({"--microbatches", "1"})), "--microbatches", "with --pp > 1");
  check_error(run_cli(point({"--pp", "32", "--microbatches", "10000000"})), "--microbatches",
              "10000000 micro-batches of a batch of 1: each holds a sequence at least");
  // Given, within the batch, it is used; not given, the default still applies.
  CHECK(run_cli(point({"--pp", "2", "--microbatches", "4", "--batch", "8"})).code == 0);
  CHECK(run_cli(point({"--pp", "2", "--batch", "1"})).code == 0);
}

TEST_CASE("plan --percentile 0 or empty is refused, not the steady plan, and 99.500001 is labelled as given") {
  const std::vector<std::string> plan = {"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", "1"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = plan;
    args.insert(args.end(), more.begin(), more.end());
    return run_cli(args);
  };
  check_error(with({"--percentile", "0"}), "--percentile", "must be 50 to below 100, got 0");
  check_refused(with({"--percentile", ""}), "--percentile: empty; give a number");
  // The label keeps every digit: {:g} printed P100 for 99.99999, and prints P99.5 for 99.500001.
  const auto r = with({"--percentile", "99.500001", "--duration", "60s"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("P99.500001 TTFT") && !Catch::Contains("P99.5 TTFT"));
  // 99.99999 needs 10 requests above it, 10^8 in all, past what a check may take: refused, its
  // digits kept in the refusal.
  check_error(with({"--percentile", "99.99999"}), "--percentile", "a P99.99999 check needs at least 100000000 requests");
}

TEST_CASE("plan skips a --tp x --ep pair the model cannot take and says so, as sweep does, and all skipped is refused") {
  const auto r = run_cli({"plan", "-m", "mixtral-8x7b", "-g", "h100-sxm", "--tp", "1,2", "--ep", "2", "-f", "csv"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("warning: skipped NVIDIA H100 SXM with tp 1 ep 2: --ep: ep 2 does not divide tp 1"));
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 2);  // the header and tp 2 ep 2
  check_error(run_cli({"plan", "-m", "mixtral-8x7b", "-g", "h100-sxm", "--tp", "1", "--ep", "2"}), "--ep",
              "ep 2 does not divide tp 1");
}

TEST_CASE("speculative 4:0.5: with nothing after the colon names the flag, not ': no such file'") {
  check_error(run_cli({"simulate", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", "1", "--prompt", "10", "--gen", "10",
                       "--speculative", "4:0.5:"}),
              "--speculative", "`4:0.5:` ends in a colon with no draft after it");
}

TEST_CASE("a fit row's extra_flags that the row cannot take are quoted in the order written") {
  const auto dir = std::filesystem::temp_directory_path() / "rooflineplan-fit-extra";
  std::filesystem::create_directories(dir);
  std::filesystem::copy(data_file("measurements/gpus"), dir / "gpus", std::filesystem::copy_options::overwrite_existing |
                                                                          std::filesystem::copy_options::recursive);
  std::ofstream(dir / "runs.csv")
      << "id,source,model,gpu,weights,kv,tp,batch,prompt,gen,extra_flags,metric,measured,note\n"
         "A,me,llama-2-7b,gpus/a100-80gb-sxm.yaml,bf16,bf16,1,1,5,200,--batch 4,decode_tok_s_per_seq,80,\n";
  check_error(run_cli({"fit", (dir / "runs.csv").string()}), (dir / "runs.csv").string() + ":2: extra_flags",
              "not a flag this line takes: --batch 4");
}

TEST_CASE("a mistyped flag is named with the command's nearest flag, and what follows it in the order typed") {
  const auto r = run_cli(point({"--weigths", "int4"}));
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("error: --weigths: not a flag of `rooflineplan`, did you mean `--weights`?\n"
                                      "not expected by `rooflineplan`: int4\n"));
  const auto sweep = run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "--bach", "1", "extra"});
  CHECK(sweep.code == 2);
  CHECK_THAT(sweep.err, Catch::Contains("--bach: not a flag of `rooflineplan sweep`, did you mean `--batch`?") &&
                            Catch::Contains("not expected by `rooflineplan sweep`: 1 extra"));
}

TEST_CASE("a near-miss preset suggests every candidate of its stem: h100 is h100-pcie or h100-sxm, not h200") {
  check_error(run_cli({"-m", "llama-2-7b", "-g", "h100"}), "--gpu: h100: no such file, and no GPU preset of that name",
              "did you mean `h100-pcie` or `h100-sxm`?");
  // Ties at the least edit distance are all named: llama-3-8b is two edits from both.
  check_error(run_cli({"-m", "llama-3-8b", "-g", "h100-sxm"}), "--model: llama-3-8b: no such file",
              "did you mean `llama-2-7b` or `llama-3.1-8b`?");
}

TEST_CASE("a list with an empty item is refused, not read without it - -b 1,,2, --tp 1, and --reserve 0.1,") {
  // CLI11 2.1 dropped empty items: "-b 1,,2" swept batches 1 and 2, "-b 1,2," the same.
  const std::vector<std::string> sweep = {"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "-f", "csv"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = sweep;
    args.insert(args.end(), more.begin(), more.end());
    return run_cli(args);
  };
  check_refused(with({"-b", "1,,2"}), "--batch: \"1,,2\" has an empty item");
  check_refused(with({"-b", "1,2,"}), "--batch: \"1,2,\" has an empty item");
  check_refused(with({"--tp", ",2"}), "--tp: \",2\" has an empty item");
  check_refused(with({"--reserve", "0.1,"}), "--reserve: \"0.1,\" has an empty item");
  // Each item still meets its flag's check: a number, one of a set.
  check_refused(with({"--reserve", "0.1,x"}), "--reserve: `x` is not a number");
  check_refused(with({"--attention", "flash,slow"}), "--attention: slow not in {flash,naive}");
  // Lists as written are read whole: two batches, two kernels, two reserves (8 rows and a header).
  const auto r = with({"-b", "1,2", "--attention", "flash,naive", "--reserve", "0.1,0.2"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 9);
}
