#pragma once
// A file read whole as text, refused when it cannot be one: missing, a folder, a device or FIFO
// (which would block or never end), or larger than a limit (read no further than it even when
// the size lies, as /proc files' does).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::io {

// The file's bytes, or an InputError naming `path` and the reason. `kind` names what was
// expected in the message ("a description", "a measurements file").
[[nodiscard]] std::string read_text_file(const std::string& path, std::string_view kind, std::size_t limit);

// Every file read_text_file has read since the last forget_files_read(), by device and inode, so
// that an --out naming one of a command's inputs is refused (cli/atomic_file.hpp): `fit t.csv
// --out t.csv` replaced its own input. cli::run forgets them as each command starts.
struct FileRead {
  unsigned long long device = 0, inode = 0;
  std::string path;
};
[[nodiscard]] const std::vector<FileRead>& files_read();
void forget_files_read();
// The path the command read `path` as, where `path` is the same file (device and inode) as one of
// its inputs; none where it is not, or cannot be stat'ed.
[[nodiscard]] std::optional<std::string> read_as(const std::string& path);

}  // namespace roofline::io
