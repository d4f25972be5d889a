#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <stdexcept>

#include "cli/calibrate_command.hpp"
#include "cli/completion_command.hpp"
#include "cli/convert_command.hpp"
#include "model/engine.hpp"
#include "cli/explain_command.hpp"
#include "io/input_error.hpp"
#include "cli/plan_command.hpp"
#include "cli/plot_command.hpp"
#include "cli/presets_command.hpp"
#include "report/report_csv.hpp"
#include "report/report_json.hpp"
#include "report/report_view.hpp"
#include "report/warning_text.hpp"
#include "io/spec_loader.hpp"
#include "cli/sweep_command.hpp"
#include "cli/validate_command.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;

namespace {

struct MainArgs {
  WorkloadArgs point;
  bool ops = false;
  std::string format = "table";
};

void print_report(const Report& r, const MainArgs& a, std::ostream& out) {
  if (a.format == "json") {
    out << report_json(r).dump(2) << "\n";
  } else if (a.format == "csv") {
    std::string csv;
    if (a.ops) {
      csv = ops_csv(r);
    } else {
      append_csv_header(csv);
      append_csv_row(csv, r);
    }
    out << csv;
  } else if (a.format == "markdown") {
    out << render_report_markdown(r, a.ops);
  } else {
    out << render_report_plain(r, a.ops);
  }
}

void run_point(const MainArgs& a, std::ostream& out, std::ostream& err) {
  if (a.point.model.empty() || a.point.gpu.empty()) {
    throw InputError("--model and --gpu are required (files or preset names; `rooflineplan presets` lists them)");
  }
  const ModelSpec model = load_model(a.point.model);
  const GpuSpec gpu = load_gpu(a.point.gpu);
  const Workload w = make_workload(a.point, model, gpu);
  const Report r = evaluate(model, gpu, w);
  // JSON carries its warnings in the document; every other format says them on stderr.
  if (a.format != "json") {
    for (const std::string& warning : warning_texts(r)) err << "warning: " << warning << "\n";
  }
  print_report(r, a, out);
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"rooflineplan: roofline performance model and capacity planner for LLM inference.\n"
               "Prefill is compute-bound, decode is memory-bound; this shows by how much and why.",
               "rooflineplan"};
  app.require_subcommand(0, 1);
  MainArgs main_args;
  add_workload_options(app, main_args.point);
  app.add_flag("--ops", main_args.ops, "add the per-operator table");
  app.add_option("--format,-f", main_args.format, "output format")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}))
      ->capture_default_str();
  CLI::App* presets = app.add_subcommand("presets", "list the bundled models and GPUs");
  SweepArgs sweep_args;
  CLI::App* sweep = add_sweep_command(app, sweep_args);
  PlanArgs plan_args;
  CLI::App* plan = add_plan_command(app, plan_args);
  CalibrateArgs calibrate_args;
  CLI::App* calibrate = add_calibrate_command(app, calibrate_args);
  ExplainArgs explain_args;
  CLI::App* explain = add_explain_command(app, explain_args);
  CLI::App* completion = app.add_subcommand("completion", "print a bash completion script for rooflineplan");
  std::string convert_model;
  CLI::App* convert = add_convert_command(app, convert_model);
  PlotArgs plot_args;
  CLI::App* plot = add_plot_command(app, plot_args);
  ValidateArgs validate_args;
  CLI::App* validate = add_validate_command(app, validate_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    return code == 0 ? 0 : kExitInputError;
  }
  try {
    if (presets->parsed()) {
      print_presets(out);
    } else if (explain->parsed()) {
      run_explain(explain_args, out);
    } else if (completion->parsed()) {
      out << bash_completion(app);
    } else if (convert->parsed()) {
      run_convert(convert_model, out);
    } else if (plot->parsed()) {
      run_plot(plot_args, out);
    } else if (calibrate->parsed()) {
      run_calibrate(calibrate_args, out, err);
    } else if (validate->parsed()) {
      run_validate(validate_args, out);
    } else if (plan->parsed()) {
      run_plan(plan_args, out);
    } else if (sweep->parsed()) {
      run_sweep(sweep_args, out, err);
    } else {
      run_point(main_args, out, err);
    }
  } catch (const InputError& e) {
    err << "error: " << e.what() << "\n";
    return kExitInputError;
  } catch (const std::invalid_argument& e) {
    err << "error: " << e.what() << "\n";
    return kExitInputError;
  }
  return 0;
}

}  // namespace roofline::cli
