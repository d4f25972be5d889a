#include "cli/sweep_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <memory>

#include "cli/atomic_file.hpp"
#include "cli/product.hpp"
#include "cli/progress_bar.hpp"
#include "io/input_error.hpp"
#include "io/spec_loader.hpp"
#include "model/engine.hpp"
#include "report/report_record.hpp"
#include "report/safe_text.hpp"
#include "report/warning_text.hpp"
#include "report/write_error.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;

namespace {

// Points the sweep did not write (invalid) or wrote with a caveat (warnings), counted so that
// neither passes silently.
struct Tally {
  std::size_t skipped = 0;
  std::map<std::string, std::size_t> skip_reasons;
  std::size_t warned = 0;
  std::string first_warning;
};

// The flags with more than one value, for a refusal that says where the points come from.
std::string listed_flags(const std::array<std::size_t, kWorkloadFlags>& sizes) {
  std::vector<std::string> listed;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] > 1) listed.push_back(fmt::format("--{} has {}", flag_name(static_cast<WorkloadFlag>(i)), sizes[i]));
  }
  return fmt::format("{}", fmt::join(listed, ", "));
}

Product points(const WorkloadAxes& x) {
  const auto sizes = x.sizes();
  if (!product_size(sizes, kMaxSweepPoints)) {
    throw InputError(fmt::format("sweep: more than {} points, the most one sweep runs ({}); narrow a list or a range",
                                 kMaxSweepPoints, listed_flags(sizes)));
  }
  return Product({sizes.begin(), sizes.end()});
}

void sweep(const WorkloadAxes& x, Product& p, Sink& sink, ProgressBar& progress, Tally& tally) {
  std::vector<ModelSpec> models;
  std::vector<GpuSpec> gpus;
  for (const std::string& m : x.model) models.push_back(load_model(m));
  for (const std::string& g : x.gpu) gpus.push_back(load_gpu(g));
  if (p.size() == 0) return;
  do {
    progress.advance();
    const ModelSpec& m = models[p.index()[static_cast<std::size_t>(WorkloadFlag::model)]];
    const GpuSpec& g = gpus[p.index()[static_cast<std::size_t>(WorkloadFlag::gpu)]];
    const Workload w = workload_at(x, p.index(), m);
    if (const auto e = workload_error(w, m, g)) {
      ++tally.skipped;
      ++tally.skip_reasons[fmt::format("--{}: {}", e->field, e->message)];
      continue;
    }
    const Report r = evaluate(m, g, w);
    if (!r.warnings.empty() && tally.warned++ == 0) tally.first_warning = warning_text(r.warnings.front());
    sink.add(ReportRecord(r, false, false));
  } while (p.next());
}

}  // namespace

void add_sweep_options(Options& o, SweepArgs& a) {
  add_workload_options(o, a.workload);
  o.add("--format,-f", a.format, "csv, jsonl (one JSON object per line), json, table or markdown")
      .one_of(output_format_names())
      .show_default();
  o.add("--out,-o", a.out, "write rows to this file instead of stdout");
}

void run_sweep(const SweepArgs& a, std::ostream& out, std::ostream& err) {
  if (a.workload.model.empty() || a.workload.gpu.empty()) {
    throw InputError("sweep: --model and --gpu are required (lists allowed)");
  }
  const WorkloadAxes axes = parse_workload(a.workload);
  Product product = points(axes);
  // The old file stays whole until the new one is: rows go to a temporary beside it.
  std::unique_ptr<AtomicFile> file = a.out.empty() ? nullptr : std::make_unique<AtomicFile>(a.out, "out", &err);
  const auto sink = make_sink(output_format(a.format), Shape::rows, report_record_columns(false), file ? file->stream() : out);
  ProgressBar progress(err, product.size(), stderr_is_terminal());
  Tally tally;
  try {
    sweep(axes, product, *sink, progress, tally);
    sink->finish();
  } catch (const WriteError& e) {
    if (!file || !e.target().empty()) throw;
    throw WriteError(fmt::format("--out {}", a.out), e.reason());
  }
  if (file) file->commit();
  progress.finish();
  if (tally.skipped > 0) {
    err << fmt::format("skipped {} of {} points that are not valid:\n", tally.skipped, product.size());
    for (const auto& [reason, n] : tally.skip_reasons) err << fmt::format("  {} × {}\n", n, terminal_text(reason));
  }
  if (tally.warned > 0) {
    err << fmt::format("warning: {} of the rows written carry warnings, the first: {}\n", tally.warned,
                       terminal_text(tally.first_warning));
  }
}

}  // namespace roofline::cli
