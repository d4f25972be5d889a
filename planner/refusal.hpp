#pragma once
// A scenario the planner refuses: the user's to change, not a bug. The message names the flag
// (or field) as the user gave it, so the command prints it and exits 2 (cli/failure.cpp reads any
// std::invalid_argument so). A broken promise inside the planner is a ContractError, exit 1.
#include <stdexcept>

namespace roofline::planner {

struct Refusal : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

}  // namespace roofline::planner
