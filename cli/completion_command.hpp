#pragma once
// `rooflineplan completion`: a bash completion script made from the command's own CLI11
// definition (subcommands, their flags) and the bundled presets, so it cannot drift from them.
// The build writes it and `cmake --install` puts it in share/bash-completion/completions.
#include <string>

#include "cli/command.hpp"

namespace roofline::cli {

[[nodiscard]] std::string bash_completion(const CLI::App& app);

}  // namespace roofline::cli
