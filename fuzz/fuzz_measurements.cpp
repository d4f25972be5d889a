// libFuzzer target: any bytes as `fit`'s measurements CSV, run in-process as a user would
// (`fit runs.csv --format json --out expected.yaml`). The command must exit 0 or 2 (a file it
// cannot read is refused, never a crash or an internal error); what it accepts prints JSON that
// parses back, and the `expected:` block it writes is one the tool itself reads, inside a GPU
// description. The CSV sits beside links to tests/data/measurements' gpus/ and models/, so the
// training file's rows resolve as they do in the source tree.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/app.hpp"
#include "every_writer.hpp"
#include "io/input_error.hpp"
#include "io/spec_loader.hpp"

namespace {

namespace fs = std::filesystem;

// A folder of this process's own, holding the links once.
fs::path scratch_folder() {
  const char* tmp = std::getenv("TMPDIR");
  const fs::path dir = fs::path(tmp && *tmp ? tmp : "/tmp") / ("fuzz-measurements-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path data = fs::path(ROOFLINEPLAN_SOURCE_DIR) / "tests/data/measurements";
  for (const char* sub : {"gpus", "models"}) {
    std::error_code ec;
    fs::create_directory_symlink(data / sub, dir / sub, ec);  // there already: from an earlier input
  }
  return dir;
}

// A GPU description around the block, as a user would paste it into one.
constexpr const char* kGpuHead = "name: fitted\nmemory: {capacity: 80 GB, bandwidth: 2 TB/s}\ncompute: {peak: {fp16: 312 TFLOPS}}\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofline;
  static const fs::path dir = scratch_folder();
  static const std::string csv = (dir / "runs.csv").string(), block = (dir / "expected.yaml").string();
  {
    std::ofstream file(csv, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!file.flush()) fuzz::fail("cannot write the scratch CSV " + csv);
  }
  fs::remove(block);
  std::vector<std::string> args = {"rooflineplan", "fit", csv, "--format", "json", "--out", block};
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int code = 0;
  try {
    code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  } catch (const std::exception& e) {
    fuzz::fail(std::string("an exception escaped fit: ") + e.what());
  }
  if (code != 0 && code != 2) fuzz::fail("fit exited " + std::to_string(code), err.str());
  if (code != 0) return 0;
  if (!nlohmann::json::accept(out.str())) fuzz::fail("fit's JSON does not parse back", out.str());
  std::ifstream in(block);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    (void)io::read_gpu(io::parse_yaml(kGpuHead + written, "fitted.yaml"));
  } catch (const io::InputError& e) {
    fuzz::fail(std::string("fit wrote an expected: block the tool refuses: ") + e.what(), written);
  }
  return 0;
}
