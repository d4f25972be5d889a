#include "cli/sweep_command.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <optional>

#include "model/engine.hpp"
#include "report/human_units.hpp"
#include "io/input_error.hpp"
#include "cli/progress_bar.hpp"
#include "report/report_csv.hpp"
#include "report/report_json.hpp"
#include "io/spec_loader.hpp"
#include "report/text_table.hpp"
#include "report/warning_text.hpp"
#include "cli/value_lists.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;

namespace {

constexpr std::size_t kFlushBytes = 1 << 20;

std::vector<std::optional<DType>> dtype_list(const std::vector<std::string>& items, std::string_view flag) {
  if (items.empty()) return {std::nullopt};
  std::vector<std::optional<DType>> out;
  for (const std::string& item : items) out.push_back(dtype_flag(item, flag));
  return out;
}

// Everything a sweep varies, parsed once before the loop.
struct Axes {
  std::vector<ModelSpec> models;
  std::vector<GpuSpec> gpus;
  std::vector<long> batch, prompt, gen, tp;
  std::vector<std::optional<long>> context;
  std::vector<std::optional<DType>> weights, kv, compute;
  [[nodiscard]] std::size_t points() const {
    return models.size() * gpus.size() * batch.size() * prompt.size() * gen.size() * tp.size() * context.size() *
           weights.size() * kv.size() * compute.size();
  }
};

Axes parse_axes(const SweepArgs& a) {
  if (a.models.empty() || a.gpus.empty()) throw InputError("sweep: --model and --gpu are required (lists allowed)");
  Axes x;
  for (const std::string& m : a.models) x.models.push_back(load_model(m));
  for (const std::string& g : a.gpus) x.gpus.push_back(load_gpu(g));
  x.batch = expand_counts(a.batch, "batch");
  x.prompt = expand_counts(a.prompt, "prompt");
  x.gen = expand_counts(a.gen, "gen");
  x.tp = expand_counts(a.tp, "tp");
  if (a.context.empty()) {
    x.context = {std::nullopt};
  } else {
    for (long c : expand_counts(a.context, "context")) x.context.emplace_back(c);
  }
  x.weights = dtype_list(a.weights, "weights");
  x.kv = dtype_list(a.kv, "kv");
  x.compute = dtype_list(a.compute, "compute");
  return x;
}

// Where the rows go: CSV and JSON lines are streamed; a table is collected and drawn at the end.
class RowSink {
 public:
  RowSink(std::string format, std::ostream& out) : format_(std::move(format)), out_(out) {
    if (format_ == "csv") append_csv_header(buffer_);
    if (format_ == "table") {
      table_.header = {"model", "gpu", "tp", "weights", "batch", "prompt", "context", "TTFT", "step", "tokens/s",
                       "decode", "fits"};
    }
  }
  void add(const Report& r) {
    if (format_ == "csv") {
      append_csv_row(buffer_, r);
    } else if (format_ == "jsonl") {
      buffer_ += report_json(r, false).dump();
      buffer_ += '\n';
    } else {
      table_.rows.push_back({r.model.spec.name, r.gpu.spec.name, fmt::format("{}", r.workload.tp),
                             std::string(name(r.workload.precision.weights)), fmt::format("{}", r.workload.batch),
                             fmt::format("{}", r.workload.prompt_tokens), fmt::format("{}", r.workload.context_tokens),
                             human(r.prefill.time), human(r.decode.step.time), three_digits(r.decode.tokens_per_s),
                             std::string(name(r.decode.step.bound)), r.memory.fits ? "yes" : "no"});
    }
    if (buffer_.size() >= kFlushBytes) flush();
  }
  void finish() {
    if (format_ == "table") buffer_ = render_plain(table_);
    flush();
  }

 private:
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }
  std::string format_;
  std::ostream& out_;
  std::string buffer_;
  TextTable table_;
};

// Points the sweep did not write (invalid) or wrote with a caveat (warnings), counted so that
// neither passes silently.
struct Tally {
  std::size_t skipped = 0;
  std::map<std::string, std::size_t> skip_reasons;
  std::size_t warned = 0;
  std::string first_warning;
};

void sweep(const Axes& x, const SweepArgs& a, RowSink& sink, ProgressBar& progress, Tally& tally) {
  Workload w;
  w.attention = a.attention == "naive" ? AttentionKernel::naive : AttentionKernel::flash;
  w.reserve_fraction = a.reserve;
  for (const ModelSpec& m : x.models)
    for (const GpuSpec& g : x.gpus)
      for (long tp : x.tp)
        for (const auto& weights : x.weights)
          for (const auto& kv : x.kv)
            for (const auto& compute : x.compute)
              for (long prompt : x.prompt)
                for (long gen : x.gen)
                  for (const auto& context : x.context)
                    for (long batch : x.batch) {
                      progress.advance();
                      w.batch = batch;
                      w.prompt_tokens = prompt;
                      w.gen_tokens = gen;
                      w.context_tokens = context.value_or(default_context(prompt, gen));
                      w.tp = static_cast<int>(tp);
                      w.precision = resolve_precision(m.dtype, {.weights = weights, .kv = kv, .compute = compute});
                      if (const auto e = validate(w, m, g)) {
                        ++tally.skipped;
                        ++tally.skip_reasons[fmt::format("--{}: {}", e->field, e->message)];
                        continue;
                      }
                      const Report r = evaluate(m, g, w);
                      if (!r.warnings.empty() && tally.warned++ == 0) tally.first_warning = warning_text(r.warnings.front());
                      sink.add(r);
                    }
}

}  // namespace

CLI::App* add_sweep_command(CLI::App& app, SweepArgs& a) {
  CLI::App* s = app.add_subcommand("sweep", "evaluate every combination of the listed values; one row per point");
  auto list = [s](const std::string& flag, std::vector<std::string>& into, const std::string& help) {
    s->add_option(flag, into, help + " (list: 1,2,4; ranges: 1..1024:x2, 128..1024:+128)")->delimiter(',');
  };
  list("--model,-m", a.models, "models: files or preset names");
  list("--gpu,-g", a.gpus, "GPUs: files or preset names");
  list("--batch,-b", a.batch, "batch sizes [1]");
  list("--prompt,-p", a.prompt, "prompt tokens [512]");
  list("--gen", a.gen, "generated tokens [256]");
  list("--context", a.context, "decode context [prompt + gen/2]");
  list("--tp", a.tp, "tensor-parallel GPUs [1]");
  list("--weights", a.weights, "weight formats [model dtype]");
  list("--kv", a.kv, "KV cache formats [activation format]");
  list("--compute", a.compute, "compute formats [activation format]");
  s->add_option("--attention", a.attention, "attention kernel")->check(CLI::IsMember({"flash", "naive"}))->capture_default_str();
  s->add_option("--reserve", a.reserve, "fraction of memory held back")->capture_default_str();
  s->add_option("--format,-f", a.format, "csv, jsonl (one JSON object per line) or table")
      ->check(CLI::IsMember({"csv", "jsonl", "table"}))
      ->capture_default_str();
  s->add_option("--out,-o", a.out, "write rows to this file instead of stdout");
  return s;
}

void run_sweep(const SweepArgs& a, std::ostream& out, std::ostream& err) {
  const Axes axes = parse_axes(a);
  std::ofstream file;
  if (!a.out.empty()) {
    file.open(a.out, std::ios::binary);
    if (!file) throw InputError(fmt::format("--out: cannot write {}", a.out));
  }
  RowSink sink(a.format, a.out.empty() ? out : file);
  ProgressBar progress(err, axes.points(), stderr_is_terminal());
  Tally tally;
  sweep(axes, a, sink, progress, tally);
  sink.finish();
  progress.finish();
  if (tally.skipped > 0) {
    err << fmt::format("skipped {} of {} points that are not valid:\n", tally.skipped, axes.points());
    for (const auto& [reason, n] : tally.skip_reasons) err << fmt::format("  {} × {}\n", n, reason);
  }
  if (tally.warned > 0) {
    err << fmt::format("warning: {} of the rows written carry warnings, the first: {}\n", tally.warned,
                       tally.first_warning);
  }
}

}  // namespace roofline::cli
