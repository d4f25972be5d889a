#pragma once
// Runs the rooflineplan command in-process, as a user would from a shell, and keeps what it
// printed and its exit code.
#include <filesystem>
#include <string>
#include <vector>

#include "model/engine.hpp"
#include "io/spec_loader.hpp"

namespace roofline::test {

struct CliResult {
  int code;
  std::string out;
  std::string err;
};

CliResult run_cli(const std::vector<std::string>& args);

// The point command with this model on an A100-80GB, or Llama-2-7B on this GPU.
CliResult with_model(const std::string& model);
CliResult with_gpu(const std::string& gpu);

// Bad input: exit 2, nothing on stdout, an error starting with `where` and saying `what`.
void check_error(const CliResult& r, const std::string& where, const std::string& what);

std::string data_file(const std::string& relative);  // tests/data/<relative>
std::string example_file(const std::string& name);   // examples/<name>
// A file in this test process's own temporary folder (tests/cli/main.cpp), never the working one,
// and `text` written to it.
std::string temp_file(const std::string& name);
void write_temp(const std::string& name, const std::string& text);
// The whole file, its bytes as they are. A file that cannot be opened throws, failing the test:
// an empty text would pass every check that something is absent from it.
std::string read_text(const std::filesystem::path& path);

// A workload with the defaults of the command line, resolved for this model.
Workload default_workload(const ModelSpec& m, long batch = 1);

// examples/7b.yaml on examples/a100.yaml: 7e9 fp16 parameters, 2 TB/s, 312 TFLOP/s.
struct TeachingExample {
  ModelSpec model = io::load_model(example_file("7b.yaml"));
  GpuSpec gpu = io::load_gpu(example_file("a100.yaml"));
  [[nodiscard]] Report at(long batch) const { return evaluate(model, gpu, default_workload(model, batch)); }
};

}  // namespace roofline::test
