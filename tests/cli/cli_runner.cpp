#include "cli_runner.hpp"

#include <sstream>
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

std::string data_file(const std::string& relative) { return std::string(ROOFLINEPLAN_TEST_DATA) + "/" + relative; }
std::string example_file(const std::string& name) { return std::string(ROOFLINEPLAN_EXAMPLES) + "/" + name; }

Workload default_workload(const ModelSpec& m, long batch) {
  Workload w;
  w.batch = batch;
  w.precision = resolve_precision(m.dtype, {});
  return w;
}

}  // namespace roofline::test
