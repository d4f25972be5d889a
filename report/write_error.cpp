#include "report/write_error.hpp"

#include <cstring>

namespace roofline::report {

std::string write_failure_reason(int saved_errno) {
  return saved_errno != 0 ? std::strerror(saved_errno) : "the output stream refused the write";
}

}  // namespace roofline::report
