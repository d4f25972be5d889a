// Issue 27, --out: a file there already is replaced as its owner left it (mode kept, read-only
// refused), never one of the command's own inputs, and a link replaced is said. SIGINT and
// SIGTERM leave no temporary behind: tests/cli/out_signals_test.sh runs the binary for that.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"
#include "fake_calibration_device.hpp"

using namespace roofline;
using test::check_error;
using test::data_file;
using test::run_cli;

namespace fs = std::filesystem;

namespace {

struct Folder {
  fs::path path = fs::temp_directory_path() / "rooflineplan-out-files";
  Folder() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
  [[nodiscard]] std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::vector<std::string> sweep_to(const std::string& out, const std::string& model = "llama-2-7b") {
  return {"sweep", "-m", model, "-g", "a100-80gb", "-b", "1,2", "--out", out};
}

mode_t mode_of(const std::string& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("out: over a 0600 file keeps it 0600 (it became 0644)") {
  const Folder f;
  REQUIRE(run_cli(sweep_to(f / "a.csv")).code == 0);
  fs::permissions(f / "a.csv", fs::perms::owner_read | fs::perms::owner_write);
  REQUIRE(run_cli(sweep_to(f / "a.csv")).code == 0);
  CHECK(mode_of(f / "a.csv") == 0600);
}

TEST_CASE("out: over a read-only file is refused and the file kept, even for root") {
  const Folder f;
  std::ofstream(f / "a.csv") << "mine\n";
  fs::permissions(f / "a.csv", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  check_error(run_cli(sweep_to(f / "a.csv")), "--out: " + (f / "a.csv"), "is read-only (mode 0444)");
  std::ifstream in(f / "a.csv");
  std::string line;
  std::getline(in, line);
  CHECK(line == "mine");
  CHECK(entries(f.path) == 1);  // no temporary left
}

TEST_CASE("out: naming one of the command's inputs is refused: sweep -m m.yaml --out m.yaml, fit t.csv --out t.csv") {
  const Folder f;
  fs::copy_file(data_file("good/tiny.yaml"), f / "m.yaml");
  check_error(run_cli(sweep_to(f / "m.yaml", f / "m.yaml")), "--out: " + (f / "m.yaml"),
              "is one of this command's inputs (read as " + (f / "m.yaml") + ")");
  CHECK(fs::file_size(f / "m.yaml") == fs::file_size(data_file("good/tiny.yaml")));
  // Through another name (a hard link) it is the same file.
  fs::create_hard_link(f / "m.yaml", f / "n.yaml");
  check_error(run_cli(sweep_to(f / "n.yaml", f / "m.yaml")), "--out: " + (f / "n.yaml"), "one of this command's inputs");

  fs::copy(data_file("measurements"), f.path / "fit", fs::copy_options::recursive);
  const std::string csv = (f.path / "fit" / "training.csv").string();
  const auto before = fs::file_size(csv);
  // Refused once the rows are read, before the tables are printed (the rows' warnings come first).
  const auto r = run_cli({"fit", csv, "--out", csv});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("error: --out: " + csv + " is one of this command's inputs"));
  CHECK(fs::file_size(csv) == before);
}

TEST_CASE("out: a name beginning with - is refused, as a flag that took the name's place (-o --help wrote a file --help)") {
  const Folder f;
  fs::current_path(f.path);
  check_error(run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "-o", "--help"}), "--out: --help",
              "--help begins with -, as a flag does; name a file so named ./--help");
  check_error(run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "--rate", "1", "--emit", "vllm", "--emit-dir",
                       "--help"}),
              "--emit-dir: --help", "begins with -");
  CHECK(entries(f.path) == 0);
  // Named so on purpose, it is written.
  CHECK(run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "-b", "1", "-o", "./-x.csv"}).code == 0);
  CHECK(fs::exists(f / "-x.csv"));
  fs::current_path(fs::temp_directory_path());
}

TEST_CASE("out: calibrate --base g.yaml --out g.yaml is refused before it measures anything") {
  const Folder f;
  const test::FakeCalibrationHost host({32.0 * (1 << 20), 16e9});
  fs::copy_file(data_file("good/calibrated-cpu.yaml"), f / "g.yaml");
  const auto r = run_cli({"calibrate", "--base", f / "g.yaml", "--out", f / "g.yaml", "--repetitions", "1"});
  check_error(r, "--out: " + (f / "g.yaml"), "one of this command's inputs");
  CHECK(host.log->kernels == 0);
  CHECK(fs::file_size(f / "g.yaml") == fs::file_size(data_file("good/calibrated-cpu.yaml")));
}

TEST_CASE("out: through a symbolic link replaces the file it names and says so, and a hard link broken is said") {
  const Folder f;
  REQUIRE(run_cli(sweep_to(f / "a.csv")).code == 0);
  fs::create_symlink(f / "a.csv", f / "link.csv");
  const auto linked = run_cli(sweep_to(f / "link.csv"));
  REQUIRE(linked.code == 0);
  CHECK_THAT(linked.err, Catch::Contains("note: --out " + (f / "link.csv") + ": a symbolic link; the file it names, " +
                                         fs::canonical(f / "a.csv").string() + ", was replaced"));
  CHECK(fs::is_symlink(f / "link.csv"));
  fs::create_hard_link(f / "a.csv", f / "b.csv");
  const auto hard = run_cli(sweep_to(f / "b.csv"));
  REQUIRE(hard.code == 0);
  CHECK_THAT(hard.err, Catch::Contains("note: --out " + (f / "b.csv") + ": had 2 hard links; this name now holds the "
                                       "new file, the others the old one"));
  CHECK(fs::hard_link_count(f / "b.csv") == 1);
}

TEST_CASE("out: an empty name or `-` is refused by the flag's name, not read as standard output or as a file named -") {
  const Folder folder;
  const auto here = fs::current_path();
  fs::current_path(folder.path);  // where a file named - would land
  const std::vector<std::vector<std::string>> commands = {
      {"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--out"},
      {"plot", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--out"},
      {"explain", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--plot"},
      {"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "1", "--duration", "5s", "--requests-out"},
      {"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--emit", "vllm", "--emit-dir"},
      {"calibrate", "--quick", "--kernel-table"}};
  for (std::vector<std::string> args : commands) {
    const std::string flag = args.back();
    for (const std::string name : {"", "-"}) {
      INFO(args.front() << " " << flag << " '" << name << "'");
      args.push_back(name);
      const auto r = run_cli(args);
      args.pop_back();
      CHECK(r.code == 2);
      CHECK(r.out.empty());
      CHECK_THAT(r.err, Catch::StartsWith("error: " + flag + ": " + (name.empty() ? "empty" : "`-` would be a file (or "
                                                                                         "folder) named -, not standard")));
    }
  }
  CHECK_FALSE(fs::exists(folder.path / "-"));
  fs::current_path(here);
}
