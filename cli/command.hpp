#pragma once
// A command as the table in cli/app.cpp lists it, and the one way commands declare their flags.
// CLI11 is only named here: its header costs seconds in every file that reads it, so only
// options.cpp, app.cpp and completion_command.cpp read it.
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "io/input_error.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace roofline::cli {

// A list flag's name and the checks each of its items meets (cli/options.cpp splits it).
struct ListChecks;

// Declares the flags of one command. `names` as CLI11 reads them ("--batch,-b"; a bare name is
// positional). Each call returns *this, and a modifier applies to the flag declared last.
class Options {
 public:
  explicit Options(CLI::App& app) : app_(app) {}
  Options& add(const std::string& names, std::string& into, const std::string& help);
  Options& add(const std::string& names, long& into, const std::string& help);
  Options& add(const std::string& names, int& into, const std::string& help);
  Options& add(const std::string& names, double& into, const std::string& help);
  // A flag whose absence means something (a default the command works out): empty unless given.
  Options& add(const std::string& names, std::optional<long>& into, const std::string& help);
  Options& add(const std::string& names, std::optional<std::string>& into, const std::string& help);
  Options& add(const std::string& names, std::optional<double>& into, const std::string& help);
  Options& add(const std::string& names, std::vector<std::string>& into, const std::string& help);  // a,b,c
  Options& add(const std::string& names, std::vector<double>& into, const std::string& help);       // a,b,c
  Options& flag(const std::string& names, bool& into, const std::string& help);
  Options& one_of(std::vector<std::string> values);  // each value given must be one of these
  Options& show_default();                           // --help shows the value held before parsing
  Options& required();
  // A file (or folder) the command writes: empty, or `-` (which is not standard output here), is
  // refused by the flag's name rather than read as "not given" or as a file named -. Each flag's
  // default (standard output, a folder of its own, nothing written) is what leaving it out gives.
  Options& writes_file();
  // Sets `into` when the flag is given (either spelling of a negatable flag), to tell a value
  // given from the default it shows: an engine's preset yields to the flags given only.
  Options& given(bool& into);

 private:
  CLI::App& app_;
  CLI::Option* last_ = nullptr;
  std::shared_ptr<ListChecks> last_list_;  // the last list flag declared
};

// --lang en|zh: the language of a command's words and charts. Declared here once, so every
// command that takes it spells, documents and refuses it alike.
void add_lang_option(Options& o, std::string& into);

// Parses `line`, flags split as a shell would split them, with the flags `declare` adds: a
// command line held in a file (a measurements row's extra_flags), read by the same declarations
// as the real one. Throws io::InputError with CLI11's reason: an unknown flag, a value missing or
// refused; or check_flag_line_quotes' first.
void parse_flag_line(const std::string& line, const std::function<void(Options&)>& declare);

// Throws io::InputError where CLI11 would split `line` other than a shell: a quote left open
// (CLI11 reads its word to the end of the line: `--group-size "16` as 16), or text right after a
// closing quote (CLI11 drops its first character: `--context "1024"8` as 1024, `"a b"c` as `a b`).
void check_flag_line_quotes(std::string_view line);

// The error `e`, thrown reading the file (or preset) `arg` that `flag` gave, said with the flag
// first when it is about the file as a whole, as --out's are: `--base: /x.yaml: cannot open: No
// such file or directory` (missing, no such preset, a folder, a device, too large, unreadable,
// empty: io's messages that start `arg: `). An error inside the file is left as it is, its
// file:line:column first. `flag` is a flag's name (`--base`) or a positional's (`measurements`).
[[nodiscard]] io::InputError flag_file_error(std::string_view flag, std::string_view arg, const io::InputError& e);

// `read()`, its io::InputError said through flag_file_error.
template <class Read>
auto read_flag_file(std::string_view flag, std::string_view arg, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const io::InputError& e) {
    throw flag_file_error(flag, arg, e);
  }
}

// Whether the file name `path` ends in `extension` (".csv"), compared without case: the one rule
// by which a file's name says its format, for every flag that reads it (sweep --out, simulate
// --requests-out, plot --out, explain's and simulate's --plot; a trace --arrivals and an
// empirical: length file): `X.SVG` is an SVG and `r.CSV` a CSV, as `a.JSON` is JSON.
[[nodiscard]] bool has_extension(std::string_view path, std::string_view extension);

// One command: its name (empty: the flags of `rooflineplan` itself, which evaluate one point), a
// line for --help, how it declares its flags, and how it runs once they are parsed.
struct Command {
  std::string_view name;
  std::string_view description;
  std::function<void(Options&)> add_options;
  std::function<void(std::ostream& out, std::ostream& err)> run;
};

}  // namespace roofline::cli
