#pragma once
// A write that failed: the disk is full, the pipe closed, the file system refused. Not the
// input's fault, so commands exit 1 for it, not 2 (cli/app.cpp).
#include <stdexcept>
#include <string>

namespace roofline::report {

class WriteError : public std::runtime_error {
 public:
  // `target` is what was written ("standard output", "--out sweep.csv"); empty when the writer
  // does not know, for the caller to name; `reason` is strerror's or the stream's.
  WriteError(std::string target, std::string reason)
      : std::runtime_error(target.empty() ? reason : "writing " + target + ": " + reason),
        target_(std::move(target)),
        reason_(std::move(reason)) {}
  [[nodiscard]] const std::string& target() const { return target_; }
  [[nodiscard]] const std::string& reason() const { return reason_; }

 private:
  std::string target_, reason_;
};

// The reason for the last failed write: errno's words when the write set it, else a plain one.
[[nodiscard]] std::string write_failure_reason(int saved_errno);

}  // namespace roofline::report
