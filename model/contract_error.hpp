#pragma once
// A contract broken inside rooflineplan: a state the code promised cannot happen. It is a bug,
// never the input's fault, so the command exits 1 asking for a report rather than telling the
// user to change what they typed (a refused input is io::InputError, exit 2).
//
// Any other std::logic_error but std::invalid_argument is read the same way (the standard
// library's out_of_range at a bad index is a bug of ours too); this type says it on purpose.
#include <stdexcept>

namespace roofline {

struct ContractError : std::logic_error {
  using std::logic_error::logic_error;
};

}  // namespace roofline
