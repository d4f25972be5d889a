// Issue 24, a README a newcomer can use: its two set-up commands are the ones CI and a fresh
// machine run, the first installs only what the binary needs, and every page it links is there.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli_runner.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kSource = ROOFLINEPLAN_SOURCE;

// The README's ```sh blocks, in order.
std::vector<std::string> shell_blocks() {
  const std::string readme = roofline::test::read_text(kSource / "README.md");
  std::vector<std::string> blocks;
  const std::regex block("```sh\n([^`]*)```");
  for (auto it = std::sregex_iterator(readme.begin(), readme.end(), block); it != std::sregex_iterator(); ++it) {
    blocks.push_back((*it)[1].str());
  }
  return blocks;
}

std::set<std::string> packages(const std::string& file) {
  std::istringstream in(roofline::test::read_text(kSource / file));
  std::set<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.insert(line);
  }
  return out;
}

}  // namespace

TEST_CASE("readme: the test command is the one .ci/run runs") {
  const auto blocks = shell_blocks();
  REQUIRE(blocks.size() >= 2);
  const std::string ci = roofline::test::read_text(kSource / ".ci" / "run");
  const std::string command = blocks[1];
  CHECK_THAT(command, Catch::StartsWith("apt-get update"));
  CHECK_THAT(ci, Catch::EndsWith(command));
}

TEST_CASE("readme: the first command builds the binary alone and runs the seed example") {
  const std::string first = shell_blocks().at(0);
  CHECK_THAT(first, Catch::Contains("xargs -a debian-packages-binary.txt"));
  CHECK_THAT(first, Catch::Contains("--target rooflineplan &&"));
  CHECK_THAT(first, Catch::EndsWith("./build/rooflineplan --model examples/7b.yaml --gpu examples/a100.yaml\n"));
  // Tests and the page off, so the second command turns them on again in the same folder.
  CHECK_THAT(first, Catch::Contains("-DBUILD_TESTING=OFF -DROOFLINEPLAN_WEB=OFF"));
  CHECK_THAT(shell_blocks().at(1), Catch::Contains("-DBUILD_TESTING=ON -DROOFLINEPLAN_WEB=ON"));
}

TEST_CASE("readme: the binary's packages are a part of the full list") {
  const auto binary = packages("debian-packages-binary.txt"), all = packages("debian-packages.txt");
  REQUIRE(!binary.empty());
  for (const std::string& p : binary) CHECK(all.contains(p));
  CHECK(!binary.contains("emscripten"));
  CHECK(!binary.contains("catch2"));
}

TEST_CASE("readme: every page the README and docs link to is there") {
  std::vector<fs::path> pages = {kSource / "README.md"};
  for (const auto& e : fs::directory_iterator(kSource / "docs")) {
    if (e.path().extension() == ".md") pages.push_back(e.path());
  }
  const std::regex link(R"(\]\(([^)#:]+\.(md|png|svg|csv|yaml))(#[^)]*)?\))");
  for (const fs::path& page : pages) {
    const std::string text = roofline::test::read_text(page);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator(); ++it) {
      const fs::path target = page.parent_path() / (*it)[1].str();
      INFO(page.filename().string() << " links to " << (*it)[1].str());
      CHECK(fs::exists(target));
    }
  }
}
