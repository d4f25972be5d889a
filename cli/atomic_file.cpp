#include "cli/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "io/input_error.hpp"
#include "report/write_error.hpp"

namespace roofline::cli {

namespace fs = std::filesystem;

namespace {

// A name no other run uses: the process id and a counter, created exclusively. Mode 0666 before
// the umask, as the target itself would have been created.
std::string reserve_beside(const fs::path& target, int& saved_errno) {
  static int counter = 0;
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path tmp = dir / fmt::format(".{}.{}-{}{}", target.filename().string(), getpid(), counter++,
                                           target.extension().string());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return tmp.string();
    }
    saved_errno = errno;
    if (errno != EEXIST) break;
  }
  return {};
}

}  // namespace

AtomicFile::AtomicFile(std::string path, std::string_view flag) : path_(std::move(path)), flag_(flag) {
  fs::path target(path_);
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw io::InputError(fmt::format("--{}: {} is a folder; name a file", flag_, path_));
    if (!S_ISREG(st.st_mode)) {
      in_place_ = true;  // a device or a pipe: nothing to replace, nothing to leave half-written
      temporary_ = target_ = path_;
      return;
    }
    // Through a symbolic link, the file it names is replaced, not the link.
    std::error_code ec;
    const fs::path real = fs::canonical(target, ec);
    if (!ec) target = real;
  }
  int saved_errno = 0;
  temporary_ = reserve_beside(target, saved_errno);
  if (temporary_.empty()) {
    throw io::InputError(fmt::format("--{}: cannot write {}: {}", flag_, path_, std::strerror(saved_errno)));
  }
  target_ = target.string();
}

AtomicFile::~AtomicFile() {
  if (committed_ || in_place_) return;
  if (stream_.is_open()) stream_.close();
  std::remove(temporary_.c_str());
}

std::ostream& AtomicFile::stream() {
  if (!stream_.is_open()) {
    errno = 0;
    stream_.open(temporary_, std::ios::binary | std::ios::trunc);
    if (!stream_) fail(errno);
  }
  return stream_;
}

void AtomicFile::commit() {
  if (stream_.is_open()) {
    // A write that already failed (a whole figure is written before commit) left its reason in
    // errno; only a stream still good gets a clean errno for its last flush.
    if (!stream_) fail(errno);
    errno = 0;
    stream_.flush();
    if (!stream_) fail(errno);
    stream_.close();
    if (!stream_) fail(errno);
  }
  if (!in_place_ && std::rename(temporary_.c_str(), target_.c_str()) != 0) fail(errno);
  committed_ = true;
}

void AtomicFile::fail(int saved_errno) const {
  throw report::WriteError(fmt::format("--{} {}", flag_, path_), report::write_failure_reason(saved_errno));
}

}  // namespace roofline::cli
