#include "io/text_file.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include "io/input_error.hpp"

namespace roofline::io {

namespace {

std::string_view file_kind(const std::filesystem::file_status& s) {
  switch (s.type()) {
    case std::filesystem::file_type::fifo: return "a FIFO";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::socket: return "a socket";
    default: return "a special file";
  }
}

std::vector<FileRead>& read_so_far() {
  static std::vector<FileRead> files;
  return files;
}

}  // namespace

const std::vector<FileRead>& files_read() { return read_so_far(); }
void forget_files_read() { read_so_far().clear(); }

std::optional<std::string> read_as(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  for (const FileRead& f : read_so_far()) {
    if (f.device == static_cast<unsigned long long>(st.st_dev) && f.inode == static_cast<unsigned long long>(st.st_ino)) {
      return f.path;
    }
  }
  return std::nullopt;
}

std::string read_text_file(const std::string& path, std::string_view kind, std::size_t limit) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) throw InputError(fmt::format("{}: cannot open: {}", path, ec.message()));
  if (fs::is_directory(status)) throw InputError(fmt::format("{}: is a directory, not a file", path));
  // A FIFO would block, /dev/zero and /dev/urandom never end: only a file has a size to check.
  if (!fs::is_regular_file(status)) {
    throw InputError(fmt::format("{}: is {}, not a file; {} is read from a regular file", path, file_kind(status), kind));
  }
  const auto too_large = [&](std::string_view size) {
    return InputError(fmt::format("{}: is {}; {} is at most {} MiB (is it the right file?)", path, size, kind, limit >> 20));
  };
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > static_cast<std::uintmax_t>(limit)) {
    throw too_large(fmt::format("{:.1f} MiB", static_cast<double>(size) / (1 << 20)));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  if (struct stat st {}; ::stat(path.c_str(), &st) == 0) {
    read_so_far().push_back({static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino), path});
  }
  // Read no more than the limit even so: the file may grow, and /proc files report no size.
  std::string text;
  std::array<char, 1 << 16> chunk{};
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > limit) throw too_large(fmt::format("more than {} MiB", limit >> 20));
  }
  if (in.bad()) throw InputError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  return text;
}

}  // namespace roofline::io
