#pragma once
// `rooflineplan convert config.json`: any model the tool reads (a Hugging Face config, a preset,
// a YAML file), printed as rooflineplan's model YAML for the user to keep and edit.
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>

namespace roofline::cli {

CLI::App* add_convert_command(CLI::App& app, std::string& model);
void run_convert(const std::string& model, std::ostream& out);

}  // namespace roofline::cli
