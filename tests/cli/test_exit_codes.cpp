// Issue 25: a refused input and a bug end differently. What the tool cannot model is refused with
// exit 2 and where it is; a contract broken inside the tool is a bug, exit 1, and says so.
#include <catch2/catch.hpp>

#include <new>
#include <sstream>
#include <stdexcept>

#include "cli/failure.hpp"
#include "cli_runner.hpp"
#include "io/input_error.hpp"
#include "model/contract_error.hpp"
#include "report/write_error.hpp"

using namespace roofline;
using test::data_file;

namespace {

struct Ended {
  int code;
  std::string err;
};

template <class E>
Ended ended(const E& e) {
  std::ostringstream err;
  const int code = cli::exit_for(std::make_exception_ptr(e), err);
  return {code, err.str()};
}

}  // namespace

TEST_CASE("exit codes: a refused spec exits 2 with error: where: what, and no word of a bug") {
  const std::string file = data_file("bad/kv_heads_not_dividing_heads.yaml");
  const auto r = test::with_model(file);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.starts_with("error: " + file + ":"));
  CHECK_THAT(r.err, !Catch::Contains("internal error"));
}

TEST_CASE("exit codes: refused input, InputError or invalid_argument, maps to 2 as error: the message") {
  const Ended input = ended(io::InputError("--rate: must be positive, got -1"));
  CHECK(input.code == 2);
  CHECK(input.err == "error: --rate: must be positive, got -1\n");
  const Ended value = ended(std::invalid_argument("unknown format \"xml\""));
  CHECK(value.code == 2);
  CHECK(value.err.starts_with("error: unknown format"));
}

TEST_CASE("exit codes: a contract break maps to 1 and says it is a bug to report") {
  for (const Ended& e : {ended(ContractError("request 3 was neither served nor dropped")),
                         ended(std::out_of_range("vector::_M_range_check")), ended(std::logic_error("x"))}) {
    INFO(e.err);
    CHECK(e.code == 1);
    CHECK(e.err.starts_with("internal error: "));
    CHECK_THAT(e.err, Catch::Contains("bug") && Catch::Contains("please report"));
  }
  const Ended contract = ended(ContractError("request 3 was neither served nor dropped"));
  CHECK_THAT(contract.err, Catch::Contains("request 3 was neither served nor dropped"));
  // Something thrown that is no standard exception is ours as well.
  std::ostringstream err;
  CHECK(cli::exit_for(std::make_exception_ptr(42), err) == 1);
  CHECK(err.str().starts_with("internal error: "));
}

TEST_CASE("exit codes: other failures (a write, memory, a measurement) map to 1 without blaming a bug") {
  for (const Ended& e : {ended(report::WriteError("--out f.csv", "No space left on device")), ended(std::bad_alloc()),
                         ended(std::runtime_error("the CUDA device did not answer"))}) {
    INFO(e.err);
    CHECK(e.code == 1);
    CHECK(e.err.starts_with("error: "));
    CHECK_THAT(e.err, !Catch::Contains("internal error"));
  }
}
