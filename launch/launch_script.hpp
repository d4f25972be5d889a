#pragma once
// The shell script every engine's launch file is: a header that says which plan row it runs and
// what the flags could not say, one replica's GPUs and port, and the engine's command.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "launch/launch_spec.hpp"

namespace roofline::launch {

struct Script {
  Script(std::string engine_, std::string documented_at_, std::string command_, std::string model_flag_ = {})
      : engine(std::move(engine_)),
        documented_at(std::move(documented_at_)),
        command(std::move(command_)),
        model_flag(std::move(model_flag_)) {}
  // A flag of the command, in order; no value: a switch.
  void flag(std::string name, std::string value = {}) { flags.emplace_back(std::move(name), std::move(value)); }

  std::string engine;         // "vLLM 0.11"
  std::string documented_at;  // where the flags are documented
  std::vector<std::string> notes;     // header lines: what a flag's value was derived from
  std::vector<std::string> warnings;  // what the flags cannot make the engine do as planned
  std::string preamble;       // lines before the command (a config file the command reads)
  std::string command;        // "vllm serve"
  std::string model_flag;     // before the model ("--model-path"); empty: the model is positional
  std::vector<std::pair<std::string, std::string>> flags;  // in order; an empty value: a switch
  std::string port_flag = "--port";
};

// Single-quoted for a POSIX shell (a model path may hold anything).
[[nodiscard]] std::string shell_quoted(std::string_view s);
// The script, its warnings also as "WARNING:" comment lines.
[[nodiscard]] std::string render(const Script& script, const LaunchSpec& s);
// Warnings every engine shares: a model given as a path, weights that need another checkpoint,
// an LM head's format the engines do not choose.
void add_common_warnings(Script& script, const LaunchSpec& s);

}  // namespace roofline::launch
