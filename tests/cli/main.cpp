// ctest runs each test case as a process of its own, two at a time (README's test command): each
// gets a temporary folder of its own, so that tests writing files by fixed names never race.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

int main(int argc, char* argv[]) {
  std::string dir = (std::filesystem::temp_directory_path() / "rooflineplan-tests-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) return 1;
  setenv("TMPDIR", dir.c_str(), 1);
  const int code = Catch::Session().run(argc, argv);
  std::error_code ignored;  // a test that left a file unremovable has already failed on its own
  std::filesystem::remove_all(dir, ignored);
  return code;
}
