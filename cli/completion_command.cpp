#include "cli/completion_command.hpp"

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "io/presets.hpp"
#include "model/weight_format.hpp"

namespace roofline::cli {

using namespace io;

namespace {

// Every flag of one command, long and short, as typed.
std::string flags_of(const CLI::App& app) {
  std::vector<std::string> words;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) words.push_back("--" + l);
    for (const std::string& s : o->get_snames()) words.push_back("-" + s);
  }
  return fmt::format("{}", fmt::join(words, " "));
}

std::string preset_ids(PresetKind kind) {
  std::vector<std::string> ids;
  for (const Preset& p : list_presets(kind)) ids.push_back(p.id);
  return fmt::format("{}", fmt::join(ids, " "));
}

std::string dtype_names() {
  std::vector<std::string_view> names;
  for (DType t : kAllDTypes) names.push_back(name(t));
  return fmt::format("{}", fmt::join(names, " "));
}

}  // namespace

std::string bash_completion(const CLI::App& app) {
  std::vector<std::string> names;
  std::string cases;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
    // A positional argument is a file: convert's `model` a file or a model preset, fit's
    // `measurements` a CSV only (a preset's name there is refused).
    const auto options = sub->get_options();
    const auto positional =
        std::find_if(options.begin(), options.end(), [](const CLI::Option* o) { return o->get_positional(); });
    if (positional == options.end()) {
      cases += fmt::format("    {}) words=\"{}\" ;;\n", sub->get_name(), flags_of(*sub));
    } else if ((*positional)->get_name(true) == "model") {
      cases += fmt::format("    {}) words=\"{} {}\" files=1 ;;\n", sub->get_name(), flags_of(*sub),
                           preset_ids(PresetKind::model));
    } else {
      cases += fmt::format("    {}) words=\"{}\" files=1 ;;\n", sub->get_name(), flags_of(*sub));
    }
  }
  return fmt::format(R"(# bash completion for rooflineplan, written by `rooflineplan completion`
_rooflineplan() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} sub="" words files="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${{COMP_WORDS[i]}} in {0}) sub=${{COMP_WORDS[i]}}; break ;; esac
  done
  case $prev in
    --model|-m) COMPREPLY=($(compgen -W "{1}" -- "$cur") $(compgen -f -- "$cur")); return ;;
    --gpu|-g|--base) COMPREPLY=($(compgen -W "{2}" -- "$cur") $(compgen -f -- "$cur")); return ;;
    --out|-o|--plot) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --weights|--lm-head) COMPREPLY=($(compgen -W "{6}" -- "$cur")); return ;;
    --kv|--activations|--compute) COMPREPLY=($(compgen -W "{7}" -- "$cur")); return ;;
  esac
  case $sub in
{3}    *) words="{4} {5}" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  [ -n "$files" ] && COMPREPLY+=($(compgen -f -- "$cur"))
}}
complete -F _rooflineplan rooflineplan
)",
                     fmt::join(names, "|"), preset_ids(PresetKind::model), preset_ids(PresetKind::gpu), cases,
                     fmt::join(names, " "), flags_of(app), weight_format_names(" "), dtype_names());
}

}  // namespace roofline::cli
