#pragma once
// How a command's exception ends: one message on stderr and the exit code. Kept apart from the
// parser so that a test can hand it each kind of failure, a bug included, without planting one.
#include <exception>
#include <ostream>

namespace roofline::cli {

// - Refused input, io::InputError or std::invalid_argument (a spec, flag, file or value the tool
//   cannot model): `error: <where>: <what>`, exit 2.
// - A contract break, ContractError or any other std::logic_error (a bug of ours):
//   `internal error: <what>; ... please report`, exit 1.
// - Any other failure (a write, a measurement, memory): `error: <what>`, exit 1.
int exit_for(std::exception_ptr failure, std::ostream& err);

}  // namespace roofline::cli
