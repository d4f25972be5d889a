#pragma once
// A file read whole as text, refused when it cannot be one: missing, a folder, a device or FIFO
// (which would block or never end), or larger than a limit (read no further than it even when
// the size lies, as /proc files' does).
#include <cstddef>
#include <string>
#include <string_view>

namespace roofline::io {

// The file's bytes, or an InputError naming `path` and the reason. `kind` names what was
// expected in the message ("a description", "a measurements file").
[[nodiscard]] std::string read_text_file(const std::string& path, std::string_view kind, std::size_t limit);

}  // namespace roofline::io
