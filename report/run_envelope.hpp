#pragma once
// What every JSON output says of itself before its data: the version of its schema, the tool that
// wrote it and what it was asked (the command and its arguments as given), so a file found later
// says what made it. JSON lines carry no envelope: each line is one row, for streaming.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace roofline::report {

// Raised when a key is renamed, removed or changes meaning; adding keys keeps it. 2: plan's
// `warnings` (and --percentile's, --pools' short_ and long_) became an array, as every other
// command's; they were one string joined by " | ".
inline constexpr int kSchemaVersion = 2;

struct RunInputs {
  std::string tool;                    // "rooflineplan 0.9.0"
  std::string command;                 // "plan"; empty: the point command
  std::vector<std::string> arguments;  // after the command, as given
};

// The run being answered, for the length of one command (cli::run sets it); outside a run (a
// test writing through a sink) the envelope's tool and inputs are null.
class ScopedRunInputs {
 public:
  explicit ScopedRunInputs(RunInputs inputs);
  ~ScopedRunInputs();
  ScopedRunInputs(const ScopedRunInputs&) = delete;
  ScopedRunInputs& operator=(const ScopedRunInputs&) = delete;

 private:
  RunInputs inputs_;
  const RunInputs* previous_;
};

// {"schema_version": 2, "tool": …, "inputs": {"command": …, "arguments": […]}}
[[nodiscard]] nlohmann::ordered_json run_envelope();
// The envelope, then `body`'s keys in their order.
[[nodiscard]] nlohmann::ordered_json enveloped(const nlohmann::ordered_json& body);

}  // namespace roofline::report
