#pragma once
// A file that `--out` names, written whole or not at all. The output goes to a temporary file
// beside the target (same folder, so the rename stays on one file system) and replaces the
// target only once complete: a failed write, an exception, a crash, SIGINT or SIGTERM leaves
// the old file as it was and no temporary behind. A target that is not a regular file
// (/dev/stdout, a pipe) is written in place.
//
// A file that is there already is replaced as its owner left it: its mode and owner are kept,
// a read-only one is refused, one of the command's own inputs is refused, and replacing a hard
// link or the file behind a symbolic link is said (notes()).
#include <fstream>
#include <ostream>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace roofline::cli {

class AtomicFile {
 public:
  // Reserves the temporary now, so that a folder that cannot take the file is refused before
  // any work: io::InputError naming `flag`, the path and the reason. `notes`, when given, gets
  // notes() at commit.
  AtomicFile(std::string path, std::string_view flag, std::ostream* notes = nullptr);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the temporary unless committed

  // Where to write: the temporary, with the target's extension (a figure's format follows it).
  [[nodiscard]] const std::string& temporary() const { return temporary_; }
  // A stream on temporary(), opened on first use.
  std::ostream& stream();
  // Refuses a target the command read (io::files_read), then flushes and closes the stream,
  // gives the temporary the old file's mode and renames it onto the target; a failed write
  // throws report::WriteError naming `--flag path` and strerror's reason.
  void commit();

  [[nodiscard]] const std::string& path() const { return path_; }
  // What the user should know of the replacement: a hard link broken, a link followed.
  [[nodiscard]] const std::vector<std::string>& notes() const { return notes_; }
  // Refuses (io::InputError) a target the command has read so far: commit() checks again, and a
  // command that prints before it commits calls this once its inputs are read.
  void refuse_an_input() const;

 private:
  [[noreturn]] void fail(int saved_errno) const;
  std::string path_, flag_, temporary_, target_;  // target_: path_ through its links
  bool in_place_ = false, committed_ = false;
  bool existed_ = false;        // a regular file was there: keep its mode
  mode_t mode_ = 0;
  std::vector<std::string> notes_;
  std::ostream* note_to_ = nullptr;
  int slot_ = -1;  // the temporary's slot in the signal handler's table
  std::ofstream stream_;
};

}  // namespace roofline::cli
