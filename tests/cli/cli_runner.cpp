#include "cli_runner.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "cli/app.hpp"

namespace roofline::test {

CliResult run_cli(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"rooflineplan"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

CliResult with_model(const std::string& model) { return run_cli({"--model", model, "--gpu", "a100-80gb"}); }
CliResult with_gpu(const std::string& gpu) { return run_cli({"--model", "llama-2-7b", "--gpu", gpu}); }

void check_error(const CliResult& r, const std::string& where, const std::string& what) {
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("error: " + where) && Catch::Contains(what));
}

std::string data_file(const std::string& relative) { return std::string(ROOFLINEPLAN_TEST_DATA) + "/" + relative; }
std::string temp_file(const std::string& name) { return (std::filesystem::temp_directory_path() / name).string(); }
void write_temp(const std::string& name, const std::string& text) { std::ofstream(temp_file(name)) << text; }
std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
std::string example_file(const std::string& name) { return std::string(ROOFLINEPLAN_EXAMPLES) + "/" + name; }

Workload default_workload(const ModelSpec& m, long batch) {
  Workload w;
  w.batch = batch;
  w.precision = resolve_precision(m);
  return w;
}

}  // namespace roofline::test
