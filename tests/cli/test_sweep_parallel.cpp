// Issue 24, a sweep on every core: chunks of points evaluated on all threads and written in the
// order one core writes them, and numbers written as fmt's "{}" writes them, only faster.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <atomic>
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

TEST_CASE("sweep: 2000 points written on every core are the serial rows in order") {
  // A sweep of at most 1024 points runs on one core; 2000 run in chunks on all of them. The two
  // halves of the outer axis (--prompt walks outside --batch), each written serially, are the
  // whole sweep's rows.
  auto csv = [](const std::string& prompts) {
    const auto r = test::run_cli({"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--prompt", prompts, "-b", "1,64"});
    REQUIRE(r.code == 0);
    return r.out;
  };
  const std::string whole = csv("1..1000");
  const std::string first = csv("1..500"), second = csv("501..1000");
  const std::string header = first.substr(0, first.find('\n') + 1);
  CHECK(whole == first + second.substr(header.size()));
}
