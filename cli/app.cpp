#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <stdexcept>

#include "cli/calibrate_command.hpp"
#include "cli/command.hpp"
#include "cli/completion_command.hpp"
#include "cli/convert_command.hpp"
#include "cli/explain_command.hpp"
#include "cli/failure.hpp"
#include "cli/fit_command.hpp"
#include "cli/plan_command.hpp"
#include "cli/plot_command.hpp"
#include "cli/point_command.hpp"
#include "cli/presets_command.hpp"
#include "cli/simulate_command.hpp"
#include "cli/sweep_command.hpp"
#include "cli/validate_command.hpp"
#include "io/input_error.hpp"
#include "io/nearest_word.hpp"
#include "io/text_file.hpp"
#include "report/run_envelope.hpp"
#include "report/safe_text.hpp"
#include "report/write_error.hpp"

namespace roofline::cli {

using namespace io;

namespace {

// Every command's parsed flags, alive from parsing to running.
struct Flags {
  PointArgs point;
  SweepArgs sweep;
  PlanArgs plan;
  CalibrateArgs calibrate;
  ExplainArgs explain;
  std::string convert_model;
  PlotArgs plot;
  ValidateArgs validate;
  FitArgs fit;
  SimulateArgs simulate;
};

// The commands, in the order --help and completion list them. The first, without a name, is
// `rooflineplan` itself.
std::vector<Command> commands(Flags& f, const CLI::App& app) {
  using Out = std::ostream;
  return {
      {"", "", [&f](Options& o) { add_point_options(o, f.point); },
       [&f](Out& out, Out& err) { run_point(f.point, out, err); }},
      {"presets", "list the bundled models and GPUs", nullptr, [](Out& out, Out&) { print_presets(out); }},
      {"sweep", "evaluate every combination of the listed values; one row per point",
       [&f](Options& o) { add_sweep_options(o, f.sweep); }, [&f](Out& out, Out& err) { run_sweep(f.sweep, out, err); }},
      {"plan", "GPUs needed for a load under latency targets, ranked by cost",
       [&f](Options& o) { add_plan_options(o, f.plan); }, [&f](Out& out, Out& err) { run_plan(f.plan, out, err); }},
      {"calibrate", "measure bandwidth and FLOPS and write a GPU description with them",
       [&f](Options& o) { add_calibrate_options(o, f.calibrate); },
       [&f](Out& out, Out& err) { run_calibrate(f.calibrate, out, err); }},
      {"explain", "the two-phase story, step by step, from your model's and GPU's numbers",
       [&f](Options& o) { add_explain_options(o, f.explain); },
       [&f](Out& out, Out&) { run_explain(f.explain, out); }},
      {"completion", "print a bash completion script for rooflineplan", nullptr,
       [&app](Out& out, Out&) { out << bash_completion(app); }},
      {"convert", "print a model (a Hugging Face config.json, a preset) as rooflineplan YAML",
       [&f](Options& o) { add_convert_options(o, f.convert_model); },
       [&f](Out& out, Out&) { run_convert(f.convert_model, out); }},
      {"plot", "charts: the roofline with every operator, decode against batch or context",
       [&f](Options& o) { add_plot_options(o, f.plot); },
       [&f](Out& out, Out&) { run_plot(f.plot, out); }},
      {"validate", "run a synthetic decode step shaped like the model: predicted vs measured",
       [&f](Options& o) { add_validate_options(o, f.validate); },
       [&f](Out& out, Out& err) { run_validate(f.validate, out, err); }},
      {"fit", "fit the expected-performance coefficients to measured runs: residuals, each source held out",
       [&f](Options& o) { add_fit_options(o, f.fit); }, [&f](Out& out, Out& err) { run_fit(f.fit, out, err); }},
      {"simulate", "one replica serving a stream of requests: TTFT, TPOT and queue wait percentiles under load",
       [&f](Options& o) { add_simulate_options(o, f.simulate); },
       [&f](Out& out, Out& err) { run_simulate(f.simulate, out, err); }},
  };
}

}  // namespace

namespace {

// Prints an error for a terminal: a name in the message cannot drive it.
void print_error(std::ostream& err, std::string_view message) {
  err << "error: " << report::terminal_text(message, true) << "\n";
}

// What CLI11 could not place, in the order typed (its own message lists it backwards: "int4
// --weigths"), each unknown flag with the command's flags nearest to it: "--weigths: not a flag
// of `rooflineplan`, did you mean `--weights`?".
std::string extras_message(const CLI::App& app, const std::vector<const CLI::App*>& parsers) {
  const CLI::App* where = &app;
  for (const CLI::App* p : parsers) {
    if (p != &app && p->parsed()) where = p;
  }
  std::vector<std::string> flags;
  for (const CLI::Option* o : where->get_options()) {
    for (const std::string& name : o->get_lnames()) flags.push_back("--" + name);
  }
  const std::string command = where == &app ? "rooflineplan" : "rooflineplan " + where->get_name();
  std::string message, others;
  // Before the subcommand's name, the extras are the top level's: `rooflineplan --bach 1 sweep`.
  std::vector<std::string> extras = where == &app ? std::vector<std::string>{} : app.remaining();
  for (const std::string& e : where->remaining()) extras.push_back(e);
  for (const std::string& extra : extras) {
    if (extra.starts_with("--")) {
      const std::string name = extra.substr(0, extra.find('='));
      message += fmt::format("{}{}: not a flag of `{}`{}", message.empty() ? "" : "\n", report::terminal_text(name),
                             command, io::did_you_mean(name, flags));
    } else {
      others += (others.empty() ? "" : " ") + report::terminal_text(extra);
    }
  }
  if (!others.empty()) message += fmt::format("{}not expected by `{}`: {}", message.empty() ? "" : "\n", command, others);
  return message;
}

// A value given empty (`--weights ''`, `--model=`) is refused by the flag's name: read by the
// flag's own parser it was its default (`--kv ''` priced bf16, `simulate --ttft ''` judged
// nothing, `plan --emit ''` wrote nothing), a value the user did not give.
void refuse_empty_values(const std::vector<const CLI::App*>& parsers) {
  for (const CLI::App* p : parsers) {
    if (!p->parsed() && p->get_parent() != nullptr) continue;
    for (const CLI::Option* o : p->get_options()) {
      if (o->count() == 0 || o->get_type_size_max() == 0) continue;  // not given, or a flag of no value
      for (const std::string& value : o->results()) {
        if (value.empty()) throw io::InputError(o->get_name() + ": empty; give a value, or leave the flag out");
      }
    }
  }
}

// Parses and runs one command. Every exception ends here, as a message and an exit code
// (cli/failure.hpp): 2 for input the user must fix, 1 for a failure that is not the input's (a
// write, a measurement, a bug of ours, which says so); never std::terminate.
int parse_and_run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"rooflineplan: roofline performance model and capacity planner for LLM inference.\n"
               "Prefill is compute-bound, decode is memory-bound; this shows by how much and why.",
               "rooflineplan"};
  app.require_subcommand(0, 1);
  // A flag CLI11 refuses is said as every other refused input is: `error: <where>: <what>`.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) { return "error: " + CLI::FailureMessage::simple(a, e); });
  app.set_version_flag("--version", "rooflineplan " ROOFLINEPLAN_VERSION, "print the version and exit");
  Flags flags;
  const std::vector<Command> table = commands(flags, app);
  std::vector<const CLI::App*> parsers;
  for (const Command& c : table) {
    CLI::App* parser = c.name.empty() ? &app : app.add_subcommand(std::string(c.name), std::string(c.description));
    Options options(*parser);
    if (c.add_options) c.add_options(options);
    parsers.push_back(parser);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    const std::string message = extras_message(app, parsers);
    if (message.empty()) return app.exit(e, out, err) == 0 ? 0 : kExitInputError;
    err << "error: " << message << "\nRun with --help for more information.\n";
    return kExitInputError;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    return code == 0 ? 0 : kExitInputError;
  }
  try {
    refuse_empty_values(parsers);
    // The subcommand that was given, else the point command itself.
    std::size_t chosen = 0;
    for (std::size_t i = 1; i < table.size(); ++i) {
      if (parsers[i]->parsed()) chosen = i;
    }
    table[chosen].run(out, err);
  } catch (...) {
    return exit_for(std::current_exception(), err);
  }
  return 0;
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  int code = kExitFailure;
  io::forget_files_read();  // the inputs an --out must not replace are this command's
  // What every JSON output records of its run: the tool, the command and its arguments as given
  // (the point command has no word of its own: its flags come first, and it is named "point").
  report::RunInputs inputs{"rooflineplan " ROOFLINEPLAN_VERSION, "point", {}};
  int first = 1;
  if (argc > 1 && argv[1][0] != '-') inputs.command = argv[first++];
  for (int i = first; i < argc; ++i) inputs.arguments.emplace_back(argv[i]);
  const report::ScopedRunInputs scoped(std::move(inputs));
  try {
    code = parse_and_run(argc, argv, out, err);
  } catch (...) {  // building the parser itself: ours, never the input's
    code = exit_for(std::current_exception(), err);
  }
  // What was written but is still buffered, and whether every write went through: a full disk
  // or a closed pipe is an error, not a success with nothing in the file. (A command that failed
  // has said why already.)
  errno = 0;
  out.flush();
  if (!out && code == 0) {
    int reason = errno;
    if (reason == 0) {
      // The stream failed at an earlier write and no longer tries, and what it held may be gone:
      // clear it and write one byte more, so that errno says why the bytes cannot go.
      out.clear();
      out.put('\n');
      out.flush();
      reason = errno;
    }
    print_error(err, "writing standard output: " + report::write_failure_reason(reason));
    out.setstate(std::ios::badbit);
    return kExitFailure;
  }
  return code;
}

}  // namespace roofline::cli
