#pragma once
// `rooflineplan convert config.json`: any model the tool reads (a Hugging Face config, a preset,
// a YAML file), printed as rooflineplan's model YAML for the user to keep and edit.
#include <ostream>
#include <string>

#include "cli/command.hpp"

namespace roofline::cli {

void add_convert_options(Options& o, std::string& model);
void run_convert(const std::string& model, std::ostream& out);

}  // namespace roofline::cli
