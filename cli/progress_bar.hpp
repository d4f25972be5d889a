#pragma once
// A progress bar on stderr, drawn only when stderr is a terminal, so that it never lands in a
// file or pipe the data goes to.
#include <algorithm>
#include <cstddef>
#include <ostream>

namespace roofline::cli {

class ProgressBar {
 public:
  // Silent unless `enabled` and the work is long enough to be worth watching: `total` at least
  // `worth_watching` units.
  ProgressBar(std::ostream& err, std::size_t total, bool enabled, std::size_t worth_watching = 10'000);
  void advance() {
    if (++done_ >= next_) draw();
  }
  void advance_to(std::size_t done) {
    done_ = std::min(done, total_);
    if (done_ >= next_) draw();
  }
  void finish();
  // A bar drawn and not finished (an exception left the work) ends its line, so that the error
  // after it starts on a line of its own.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

 private:
  void draw();
  std::ostream& err_;
  std::size_t total_, done_ = 0, next_;
  bool enabled_;
  bool drawn_ = false, finished_ = false;
};

// True when file descriptor 2 is a terminal.
[[nodiscard]] bool stderr_is_terminal();

}  // namespace roofline::cli
