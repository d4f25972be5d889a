#include "cli/fit_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <cerrno>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cli/atomic_file.hpp"
#include "cli/progress_bar.hpp"
#include "cli/workload_options.hpp"
#include "io/gpu_writer.hpp"
#include "io/input_error.hpp"
#include "io/measurements_csv.hpp"
#include "io/presets.hpp"
#include "io/spec_loader.hpp"
#include "model/engine.hpp"
#include "model/leave_one_source_out.hpp"
#include "report/terminal_width.hpp"
#include "report/fit_view.hpp"
#include "report/safe_text.hpp"
#include "report/warning_text.hpp"
#include "report/write_error.hpp"

namespace roofline::cli {

using namespace io;

namespace {

namespace fs = std::filesystem;

// The workload flags a measurements file gives as columns of their own; extra_flags gives any
// other (--group-size, --compute, --activations, --context, ...).
constexpr std::array kColumnFlags = {WorkloadFlag::model, WorkloadFlag::gpu,   WorkloadFlag::weights,
                                     WorkloadFlag::kv,    WorkloadFlag::tp,    WorkloadFlag::batch,
                                     WorkloadFlag::prompt, WorkloadFlag::gen};

std::string where(const std::string& path, const MeasurementRow& row) { return fmt::format("{}:{}", path, row.line); }

// A workload flag's error ("--tp: must be at least 1, got 0") at the row and column that gave the
// flag: the column of that name, else extra_flags.
InputError located(const std::string& path, const MeasurementRow& row, const std::string& message) {
  for (WorkloadFlag f : kColumnFlags) {
    const std::string prefix = fmt::format("--{}: ", flag_name(f));
    if (message.starts_with(prefix)) {
      return InputError(fmt::format("{}: {}: {}", where(path, row), flag_name(f), message.substr(prefix.size())));
    }
  }
  return InputError(fmt::format("{}: extra_flags: {}", where(path, row), message));
}

std::vector<std::string> cell(const std::string& text) {
  return text.empty() ? std::vector<std::string>{} : std::vector<std::string>{text};
}

// The row's workload, read by the command line's own parser: the columns as their flags, the
// extra flags on top.
Workload workload_of(const MeasurementRow& row, const ModelSpec& m, const GpuSpec& g, const std::string& path) {
  WorkloadFlags f;
  // Before parse_flag_line, which checks the quotes too, so that a quote's error is not said as a flag's.
  try {
    check_flag_line_quotes(row.extra_flags);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: extra_flags: {}", where(path, row), e.what()));
  }
  try {
    parse_flag_line(row.extra_flags, [&f](Options& o) {
      add_workload_options(o, f, {WorkloadFlag::model, WorkloadFlag::gpu, WorkloadFlag::weights, WorkloadFlag::kv,
                                  WorkloadFlag::tp, WorkloadFlag::batch, WorkloadFlag::prompt, WorkloadFlag::gen});
    });
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: extra_flags: {} (--weights, --kv, --tp, --batch, --prompt and --gen are columns "
                                 "of their own)",
                                 where(path, row), e.what()));
  }
  f.weights = cell(row.weights);
  f.kv = cell(row.kv);
  f.tp = {row.tp};
  f.batch = {row.batch};
  f.prompt = {row.prompt};
  f.gen = {row.gen};
  try {
    const WorkloadAxes x = parse_workload(f);
    x.require_one();
    const Workload w = workload_at(x, std::vector<std::size_t>(kWorkloadFlags, 0), m, g);
    if (const auto e = workload_error(w, m, g)) throw InputError(fmt::format("--{}: {}", e->field, e->message));
    return w;
  } catch (const InputError& e) {
    throw located(path, row, e.what());
  } catch (const std::invalid_argument& e) {
    throw located(path, row, e.what());
  }
}

// Each model and GPU file is read once, however many rows name it.
class SpecCache {
 public:
  explicit SpecCache(fs::path folder) : folder_(std::move(folder)) {}
  const ModelSpec& model(const MeasurementRow& row, const std::string& path) {
    return get(models_, PresetKind::model, row.model, row, path, "model");
  }
  const GpuSpec& gpu(const MeasurementRow& row, const std::string& path) {
    return get(gpus_, PresetKind::gpu, row.gpu, row, path, "gpu");
  }

 private:
  template <class Spec>
  const Spec& get(std::map<std::string, Spec>& cache, PresetKind kind, const std::string& cell,
                  const MeasurementRow& row, const std::string& path, std::string_view column) {
    try {
      const std::string file = resolve_beside(kind, cell, folder_);
      auto it = cache.find(file);
      if (it == cache.end()) {
        if constexpr (std::is_same_v<Spec, ModelSpec>) it = cache.emplace(file, load_model(file)).first;
        else it = cache.emplace(file, load_gpu(file)).first;
      }
      return it->second;
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}: {}", where(path, row), column, e.what()));
    }
  }
  fs::path folder_;
  std::map<std::string, ModelSpec> models_;
  std::map<std::string, GpuSpec> gpus_;
};

// Every row evaluated once, before any fitting: the fit reprices the kept phases, and a bad row
// stops the command before it prints anything. What the evaluations warn of goes to `warnings`,
// each sentence naming its row.
std::vector<MeasuredRun> evaluate_rows(const std::vector<MeasurementRow>& rows, const std::string& path,
                                       std::vector<std::string>& warnings) {
  SpecCache specs(fs::path(path).parent_path());
  std::vector<MeasuredRun> runs;
  bool calibrated = false, datasheet = false;
  for (const MeasurementRow& row : rows) {
    const ModelSpec& m = specs.model(row, path);
    const GpuSpec& g = specs.gpu(row, path);
    (g.calibration ? calibrated : datasheet) = true;
    const Workload w = workload_of(row, m, g, path);
    Report r;
    try {
      r = evaluate(m, g, w);
    } catch (const std::invalid_argument& e) {
      throw located(path, row, e.what());
    }
    for (const std::string& warning : report::warning_texts(r)) {
      warnings.push_back(fmt::format("{} ({}): {}", where(path, row), row.id, warning));
    }
    runs.push_back(measured_run(row.id, source_group(row.source), row.metric, row.measured, r));
  }
  // The shares are of the ceilings each row's GPU gives: one set of shares for measured and for
  // datasheet ceilings mixes two different things.
  if (calibrated && datasheet) {
    warnings.emplace_back(
        "some rows' GPUs are calibrated and some give datasheet ceilings: one fit of the shares of their ceilings "
        "(memory, compute) mixes the two");
  }
  return runs;
}

// --out names a file fit replaces with an `expected:` block alone: where it already holds more (a
// GPU's description, its name, memory and compute beside its `expected:`), that would be lost, as
// a user asked to "write the block to my GPU file" means it. Refused, naming the keys it holds.
void refuse_replacing_description(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return;
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(path);
  } catch (const YAML::Exception&) {
    return;  // not YAML: a file of the user's to replace, as any --out replaces its file
  }
  if (!doc.IsMap()) return;
  std::vector<std::string> others;
  for (const auto& entry : doc) {
    if (entry.first.IsScalar() && entry.first.Scalar() != "expected") others.push_back(entry.first.Scalar());
  }
  if (others.empty()) return;
  throw InputError(fmt::format("--out {}: holds {} beside any expected: block (a GPU's description?), which fit "
                               "would replace with the block alone; name another file and paste the block into it",
                               path, fmt::join(others, ", ")));
}

}  // namespace

void add_fit_options(Options& o, FitArgs& a) {
  o.add("measurements", a.measurements,
        "CSV of measured runs (columns: id, source, model, gpu, weights, kv, tp, batch, prompt, gen, extra_flags, "
        "metric, measured, note)");
  o.add("--kernels", a.kernels,
        "fit the kernel classes instead, from tables of measured kernels (../shared/gpu-kernels/ columns: "
        "aiconfigurator's gemm, generation_attention, context_attention, custom_allreduce, nccl; Vidur's ops, all_reduce)");
  o.add("--gpu", a.gpu,
        "the GPU the --kernels tables were measured on, for tables whose names give none [from each file's name: "
        "a100_, h100_, h200_; --gpu naming another GPU than a file's name is refused]");
  o.add("--for", a.for_gpu,
        "with --kernels and --out: the GPU whose own fit is written [the one GPU; with several, all of them together]");
  o.add("--format,-f", a.format, "output format").one_of({"table", "markdown", "json"}).show_default();
  o.add("--out,-o", a.out,
        "write the fitted GPU YAML `expected:` block here (with --kernels: its `kernels:`, of the one GPU or of all the "
        "tables' GPUs together)")
      .writes_file();
}

void run_fit(const FitArgs& a, std::ostream& out, std::ostream& err) {
  if (!a.out.empty()) refuse_replacing_description(a.out);
  if (!a.kernels.empty()) {
    if (!a.measurements.empty()) throw InputError("--kernels: give measured runs or kernel tables, not both");
    return run_kernel_fit(a, out, err);
  }
  if (a.measurements.empty()) throw InputError("measurements: a CSV of measured runs is needed (or --kernels TABLE...)");
  if (!a.gpu.empty()) throw InputError("--gpu: names the GPU of --kernels tables; a measurements file names its own");
  if (!a.for_gpu.empty()) throw InputError("--for: chooses a GPU of --kernels tables");
  // Reserved first, so that a folder that cannot take the file is refused before any work.
  std::unique_ptr<AtomicFile> file = a.out.empty() ? nullptr : std::make_unique<AtomicFile>(a.out, "out", &err);
  const std::vector<MeasurementRow> rows =
      read_flag_file("measurements", a.measurements, [&] { return read_measurements(a.measurements); });
  std::vector<std::string> warnings;
  // JSON holds them; the tables' readers see them on stderr, as the point report's do, and every
  // reader sees the rows' so far when a later row is refused.
  const auto say = [&] {
    for (const std::string& w : warnings) err << report::warning_label() << report::terminal_text(w) << "\n";
  };
  std::vector<MeasuredRun> runs;
  try {
    runs = evaluate_rows(rows, a.measurements, warnings);
  } catch (...) {
    say();
    throw;
  }
  if (a.format != "json") say();
  if (file) file->refuse_an_input();  // before the tables are printed
  // A fit of thousands of runs takes seconds: a bar on a terminal, a tick a fit.
  const std::size_t fits = fits_for(runs);
  ProgressBar bar(err, fits, stderr_is_terminal() && static_cast<double>(runs.size() * fits) > 2e4, 0);
  const FitCheck f = fit_and_check(runs, {}, [&bar] { bar.advance(); });
  bar.finish();
  const std::string name = fs::path(a.measurements).filename().string();
  std::string text;
  if (a.format == "json") {
    text = report::fit_json(f, runs, name, warnings);
  } else {
    const bool markdown = a.format == "markdown";
    for (const report::TextTable& t : report::fit_tables(f, runs)) {
      text += (markdown ? report::render_markdown(t) : report::render_plain(t, report::table_width(out))) + "\n";
    }
    text += report::fit_summary(f, runs);
  }
  // Written at once and checked at once, so that a full disk is reported with its reason (errno
  // is the write's) and the --out block is not written after output that was lost.
  errno = 0;
  out << text;
  out.flush();
  if (!out) throw report::WriteError("", report::write_failure_reason(errno));
  if (!file) return;
  ExpectedModel fitted = report::as_printed(f.model);
  fitted.source = report::fit_provenance(f, runs, name);
  file->stream() << io::expected_yaml(fitted);
  file->commit();
  (a.format == "json" ? err : out) << fmt::format("wrote the expected: block to {}\n", report::terminal_text(a.out));
}

}  // namespace roofline::cli
