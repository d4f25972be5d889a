#pragma once
// A file that `--out` names, written whole or not at all. The output goes to a temporary file
// beside the target (same folder, so the rename stays on one file system) and replaces the
// target only once complete: a failed write, an exception or a crash leaves the old file as it
// was. A target that is not a regular file (/dev/stdout, a pipe) is written in place.
#include <fstream>
#include <string>
#include <string_view>

namespace roofline::cli {

class AtomicFile {
 public:
  // Reserves the temporary now, so that a folder that cannot take the file is refused before
  // any work: io::InputError naming `flag`, the path and the reason.
  AtomicFile(std::string path, std::string_view flag);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the temporary unless committed

  // Where to write: the temporary, with the target's extension (a figure's format follows it).
  [[nodiscard]] const std::string& temporary() const { return temporary_; }
  // A stream on temporary(), opened on first use.
  std::ostream& stream();
  // Flushes and closes the stream, then renames the temporary onto the target; a failed write
  // throws report::WriteError naming `--flag path` and strerror's reason.
  void commit();

  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(int saved_errno) const;
  std::string path_, flag_, temporary_, target_;  // target_: path_ through its links
  bool in_place_ = false, committed_ = false;
  std::ofstream stream_;
};

}  // namespace roofline::cli
