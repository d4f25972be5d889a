// Issue 24, a sweep on every core: chunks of points evaluated on all threads and written in the
// order one core writes them, and numbers written as fmt's "{}" writes them, only faster.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "cli/ordered_parallel.hpp"
#include "cli/product.hpp"
#include "cli_runner.hpp"
#include "report/report_csv.hpp"

using namespace roofline;
using cli::ordered_parallel;

TEST_CASE("ordered parallel: 200 chunks on 4 threads come out in order") {
  std::vector<std::size_t> seen;
  ordered_parallel<std::size_t>(
      200, 4, 3,
      [](std::size_t k) {
        // Later chunks finish first as often as not.
        if (k % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        return k * k;
      },
      [&](std::size_t k, std::size_t&& r) {
        CHECK(r == k * k);
        seen.push_back(k);
      });
  REQUIRE(seen.size() == 200);
  for (std::size_t k = 0; k < seen.size(); ++k) CHECK(seen[k] == k);
}

TEST_CASE("ordered parallel: a chunk's exception comes at its turn, after the chunks before it") {
  std::vector<std::size_t> seen;
  auto run = [&] {
    ordered_parallel<std::size_t>(
        100, 4, 8,
        [](std::size_t k) -> std::size_t {
          if (k == 37) throw std::runtime_error("chunk 37");
          return k;
        },
        [&](std::size_t k, std::size_t&&) { seen.push_back(k); });
  };
  CHECK_THROWS_WITH(run(), "chunk 37");
  CHECK(seen.size() == 37);
  CHECK(seen.back() == 36);
}

TEST_CASE("ordered parallel: the consumer's exception stops the workers within the window") {
  std::atomic<std::size_t> produced = 0;
  auto run = [&] {
    ordered_parallel<std::size_t>(
        10'000, 4, 5,
        [&](std::size_t k) {
          ++produced;
          return k;
        },
        [](std::size_t k, std::size_t&&) {
          if (k == 3) throw std::runtime_error("disk full");
        });
  };
  CHECK_THROWS_WITH(run(), "disk full");
  // Chunks 0-3 consumed, at most a window (5) ahead of the consumer, plus one a thread in hand.
  CHECK(produced <= 4 + 5 + 4);
}

TEST_CASE("product: seek lands where as many next() calls land") {
  cli::Product walked({3, 1, 4, 2});
  for (std::size_t position = 0; position < walked.size(); ++position, walked.next()) {
    cli::Product jumped({3, 1, 4, 2});
    jumped.seek(position);
    CHECK(std::vector<std::size_t>(jumped.index().begin(), jumped.index().end()) ==
          std::vector<std::size_t>(walked.index().begin(), walked.index().end()));
  }
  CHECK_THROWS_AS(walked.seek(24), std::out_of_range);
}

TEST_CASE("csv numbers: the same text as fmt's {} for whole, fractional, huge and odd values") {
  for (const double v : {0.0, -0.0, 1.0, -1.0, 7.0, 1e9, 8030261248.0, 3350000000000.0, 999999999999999.0, 1e15,
                         -1e15, 1e16, 1.5e17, 0.5, 0.1, 1.0 / 3, 295.2238805970149, 1.5180456250758342e-05, 1e-300,
                         4.9e-324, 1.7976931348623157e308, -2.5, 1e21, 123456789.125}) {
    std::string out;
    report::append_csv_cell(out, report::Cell(v));
    CHECK(out == fmt::format("{}", v));
  }
  std::string out;
  report::append_csv_cell(out, report::Cell(-42L));
  CHECK(out == "-42");
}

TEST_CASE("sweep: 4000 points on 4 threads are one thread's rows, skips and warnings") {
  // Chunks of 1024 points: 4 threads write them out of turn unless the sink is fed in order. Half
  // the points are skipped (tp 3 does not divide 32 heads) and batch 600 at long prompts does not
  // fit, so the tallies merged from the chunks are checked too.
  auto run = [](const char* threads) {
    ::setenv("ROOFLINEPLAN_THREADS", threads, 1);
    const auto r = test::run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--prompt", "1..1000", "-b", "1,600",
                                  "--tp", "1,3"});
    ::unsetenv("ROOFLINEPLAN_THREADS");
    REQUIRE(r.code == 0);
    return r;
  };
  const auto one = run("1"), four = run("4");
  CHECK(std::count(one.out.begin(), one.out.end(), '\n') == 1 + 2000);
  CHECK(four.out == one.out);
  CHECK(four.err == one.err);
  CHECK_THAT(one.err, Catch::Contains("skipped 2000 of 4000 points") &&
                            Catch::Contains("\n  671 × does not fit: needs 85.6 GB of 85.5 GB at batch 600\n"));
  const auto jsonl_args = std::vector<std::string>{"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--prompt",
                                                   "1..1500", "-f", "jsonl"};
  ::setenv("ROOFLINEPLAN_THREADS", "1", 1);
  const auto jsonl_one = test::run_cli(jsonl_args);
  ::setenv("ROOFLINEPLAN_THREADS", "3", 1);
  const auto jsonl_three = test::run_cli(jsonl_args);
  ::unsetenv("ROOFLINEPLAN_THREADS");
  CHECK(jsonl_three.out == jsonl_one.out);
}

TEST_CASE("sweep: on 2 threads, 1500 points none valid write nothing, and a first chunk none valid holds back no row") {
  // Llama-2-13B's 40 heads: tp 3 divides none, tp 1 all. Batch varies fastest, so --tp 3,1 makes
  // the first 1500 points (chunk 0 whole, chunk 1 in part) invalid and the last 1500 valid.
  ::setenv("ROOFLINEPLAN_THREADS", "2", 1);
  const auto none = test::run_cli({"sweep", "-m", "llama-2-13b", "-g", "a100-80gb", "--tp", "3", "-b", "1..1500"});
  const auto later = test::run_cli({"sweep", "-m", "llama-2-13b", "-g", "a100-80gb", "--tp", "3,1", "-b", "1..1500"});
  ::setenv("ROOFLINEPLAN_THREADS", "1", 1);
  const auto later_one = test::run_cli({"sweep", "-m", "llama-2-13b", "-g", "a100-80gb", "--tp", "3,1", "-b", "1..1500"});
  ::unsetenv("ROOFLINEPLAN_THREADS");
  CHECK(none.code == 2);
  CHECK(none.out.empty());  // the header a chunk of no rows wrote
  CHECK_THAT(none.err, Catch::Contains("error: sweep: none of its 1500 points is valid (above)"));
  REQUIRE(later.code == 0);
  CHECK(std::count(later.out.begin(), later.out.end(), '\n') == 1 + 1500);
  CHECK_THAT(later.out, Catch::StartsWith("model_name,model_params,"));
  CHECK(later.out == later_one.out);
}

TEST_CASE("sweep: ROOFLINEPLAN_THREADS other than 1 to 256 is refused, naming it") {
  for (const char* bad : {"0", "257", "four", "2x", ""}) {
    ::setenv("ROOFLINEPLAN_THREADS", bad, 1);
    const auto r = test::run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1..2000"});
    ::unsetenv("ROOFLINEPLAN_THREADS");
    test::check_error(r, "ROOFLINEPLAN_THREADS", "a whole number from 1 to 256");
  }
}
