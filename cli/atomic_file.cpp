#include "cli/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "io/input_error.hpp"
#include "io/text_file.hpp"
#include "report/write_error.hpp"

namespace roofline::cli {

namespace fs = std::filesystem;

namespace {

// The temporaries being written, for a SIGINT or SIGTERM to remove: a fixed table of paths, so
// that the handler touches nothing but it and unlink(2), both safe in a signal handler. The
// handlers are installed while a temporary is pending and the ones they replaced put back after.
struct Pending {
  volatile std::sig_atomic_t used = 0;
  std::array<char, 4096> path{};
};
std::array<Pending, 8> g_pending;
int g_pending_count = 0;
constexpr std::array kSignals = {SIGINT, SIGTERM};
std::array<struct sigaction, kSignals.size()> g_previous{};

void remove_pending(int signal) {
  for (Pending& p : g_pending) {
    if (p.used) ::unlink(p.path.data());
  }
  // The handler that was there before (the default: end the process) gets the signal next.
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    if (kSignals[i] == signal) ::sigaction(signal, &g_previous[i], nullptr);
  }
  ::raise(signal);
}

int hold_for_signals(const std::string& path) {
  if (path.size() >= Pending{}.path.size()) return -1;  // too long to hold: a signal leaves it
  for (std::size_t i = 0; i < g_pending.size(); ++i) {
    Pending& p = g_pending[i];
    if (p.used) continue;
    std::memcpy(p.path.data(), path.c_str(), path.size() + 1);
    std::atomic_signal_fence(std::memory_order_release);  // the path is whole before it is used
    p.used = 1;
    if (g_pending_count++ == 0) {
      struct sigaction act {};
      act.sa_handler = remove_pending;
      sigemptyset(&act.sa_mask);
      for (std::size_t k = 0; k < kSignals.size(); ++k) {
        ::sigaction(kSignals[k], nullptr, &g_previous[k]);
        // A signal the process ignores (SIGINT in a shell's background job) stays ignored.
        if (g_previous[k].sa_handler != SIG_IGN) ::sigaction(kSignals[k], &act, nullptr);
      }
    }
    return static_cast<int>(i);
  }
  return -1;
}

void release_for_signals(int slot) {
  if (slot < 0) return;
  g_pending[static_cast<std::size_t>(slot)].used = 0;
  if (--g_pending_count == 0) {
    for (std::size_t k = 0; k < kSignals.size(); ++k) ::sigaction(kSignals[k], &g_previous[k], nullptr);
  }
}

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

AtomicFile::AtomicFile(std::string path, std::string_view flag, std::ostream* notes)
    : path_(std::move(path)), flag_(flag), note_to_(notes) {
  fs::path target(path_);
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw io::InputError(fmt::format("--{}: {} is a folder; name a file", flag_, path_));
    if (!S_ISREG(st.st_mode)) {
      in_place_ = true;  // a device or a pipe: nothing to replace, nothing to leave half-written
      temporary_ = target_ = path_;
      return;
    }
    // Refused as the user's shell would refuse `> file`: a file without write permission (root
    // may write anyway, but a file made read-only was made so on purpose).
    if ((st.st_mode & 0222) == 0) {
      throw io::InputError(fmt::format("--{}: {} is read-only (mode {:04o}); make it writable or name another file",
                                       flag_, path_, st.st_mode & 07777));
    }
    if (::access(target.c_str(), W_OK) != 0) {
      throw io::InputError(fmt::format("--{}: {} is not writable by you (mode {:04o}, owner {}); name another file",
                                       flag_, path_, st.st_mode & 07777, st.st_uid));
    }
    existed_ = true;
    mode_ = st.st_mode & 07777;
    // Through a symbolic link, the file it names is replaced, not the link.
    std::error_code ec;
    const fs::path real = fs::canonical(target, ec);
    if (!ec) {
      if (fs::is_symlink(fs::symlink_status(target, ec))) {
        notes_.push_back(fmt::format("--{} {}: a symbolic link; the file it names, {}, was replaced", flag_, path_,
                                     real.string()));
      }
      target = real;
    }
    if (st.st_nlink > 1) {
      notes_.push_back(fmt::format("--{} {}: had {} hard links; this name now holds the new file, the others "
                                   "the old one",
                                   flag_, path_, st.st_nlink));
    }
  }
  // SIGINT and SIGTERM wait while the temporary is created and entered in the handler's table:
  // between the two, one would leave it behind.
  sigset_t stop{}, before{};
  sigemptyset(&stop);
  for (int s : kSignals) sigaddset(&stop, s);
  ::sigprocmask(SIG_BLOCK, &stop, &before);
  int saved_errno = 0;
  temporary_ = reserve_beside(target, saved_errno);
  if (!temporary_.empty()) slot_ = hold_for_signals(temporary_);
  ::sigprocmask(SIG_SETMASK, &before, nullptr);
  if (temporary_.empty()) {
    throw io::InputError(fmt::format("--{}: cannot write {}: {}", flag_, path_, std::strerror(saved_errno)));
  }
  target_ = target.string();
  // While it is written, the temporary is as private as the file it replaces (a 0600 file's
  // contents are not readable by others halfway); the owner writes it.
  if (existed_) ::chmod(temporary_.c_str(), mode_ | S_IWUSR);
  // The temporary's owner as created (a setgid folder gives it the folder's group), against the
  // old file's.
  struct stat made {};
  const bool same_owner = ::stat(temporary_.c_str(), &made) == 0 && made.st_uid == st.st_uid && made.st_gid == st.st_gid;
  if (existed_ && !same_owner && ::chown(temporary_.c_str(), st.st_uid, st.st_gid) != 0) {
    const int reason = errno;
    std::remove(temporary_.c_str());
    release_for_signals(slot_);
    throw io::InputError(fmt::format("--{}: {} belongs to user {} and group {}; the new file could not be given "
                                     "them ({}): write it as its owner, or remove it first",
                                     flag_, path_, st.st_uid, st.st_gid, std::strerror(reason)));
  }
}

AtomicFile::~AtomicFile() {
  if (committed_ || in_place_) return;
  if (stream_.is_open()) stream_.close();
  std::remove(temporary_.c_str());
  release_for_signals(slot_);
}

std::ostream& AtomicFile::stream() {
  if (!stream_.is_open()) {
    errno = 0;
    stream_.open(temporary_, std::ios::binary | std::ios::trunc);
    if (!stream_) fail(errno);
  }
  return stream_;
}

void AtomicFile::refuse_an_input() const {
  if (in_place_) return;
  if (const auto input = io::read_as(target_)) {
    throw io::InputError(fmt::format("--{}: {} is one of this command's inputs (read as {}); name another file", flag_,
                                     path_, *input));
  }
}

void AtomicFile::commit() {
  refuse_an_input();
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
  if (!in_place_) {
    if (existed_ && ::chmod(temporary_.c_str(), mode_) != 0) fail(errno);
    if (std::rename(temporary_.c_str(), target_.c_str()) != 0) fail(errno);
    release_for_signals(slot_);
  }
  committed_ = true;
  if (note_to_) {
    for (const std::string& n : notes_) *note_to_ << "note: " << n << "\n";
  }
}

void AtomicFile::fail(int saved_errno) const {
  throw report::WriteError(fmt::format("--{} {}", flag_, path_), report::write_failure_reason(saved_errno));
}

}  // namespace roofline::cli
