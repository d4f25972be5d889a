#include "cli/progress_bar.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <limits>
#include <string>

namespace roofline::cli {

namespace {
constexpr int kWidth = 40;
}  // namespace

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

ProgressBar::ProgressBar(std::ostream& err, std::size_t total, bool enabled, std::size_t worth_watching)
    : err_(err), total_(total), next_(std::numeric_limits<std::size_t>::max()), enabled_(enabled && total >= worth_watching && total > 0) {
  if (enabled_) next_ = 0;
}

ProgressBar::~ProgressBar() {
  if (drawn_ && !finished_) err_ << "\n" << std::flush;
}

void ProgressBar::draw() {
  drawn_ = true;
  const int filled = static_cast<int>(kWidth * done_ / total_);
  err_ << fmt::format("\r[{}{}] {:3}% {}/{}", std::string(filled, '#'), std::string(kWidth - filled, ' '),
                      100 * done_ / total_, done_, total_)
       << std::flush;
  next_ = done_ + total_ / 100;  // redraw each percent
}

void ProgressBar::finish() {
  if (!enabled_ || finished_) return;
  finished_ = true;
  done_ = total_;
  draw();
  err_ << "\n";
}

}  // namespace roofline::cli
