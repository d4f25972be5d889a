#include "cli/sweep_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <streambuf>

#include "cli/atomic_file.hpp"
#include "cli/ordered_parallel.hpp"
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
  // Each kind of warning the rows carry, in the kinds' order: how many rows carry it and its words
  // at the first of them. CSV, tables and markdown have no column for warnings, so every kind is
  // said on stderr; one row's first warning hid the rest. A kind is told apart by what changes its
  // words but its numbers: an assumption's subject, a compute format's source, a GPU's name.
  struct Kind {
    std::size_t rows = 0;
    std::string first;
  };
  std::map<std::pair<std::size_t, std::string>, Kind> kinds;

  static std::string detail(const Warning& w) {
    if (const auto* a = std::get_if<Assumed>(&w)) return std::to_string(static_cast<int>(a->what));
    if (const auto* c = std::get_if<ComputeFromCheckpoint>(&w)) {
      // The GPU is named only where it lacks the peak.
      return fmt::format("{} {} {} {} {}", static_cast<int>(c->source), name(c->compute), name(c->checkpoint),
                         name(c->activations), c->source == ComputeSource::no_peak ? c->gpu : "");
    }
    if (const auto* e = std::get_if<ExpectedBorrowed>(&w)) {
      std::string classes;
      for (const KernelClass k : e->classes) classes += fmt::format(" {}", name(k));
      return e->gpu + classes;
    }
    // Each model's operators apart: a sweep of two models had shown the first's list for both.
    if (const auto* u = std::get_if<ExpectedUnclassed>(&w)) return fmt::format("{}", fmt::join(u->operators, " "));
    // Each model's classes apart (Llama's attention and dense_ffn, an MoE's attention and experts),
    // and each compute and stored format: three models had all been said in the first's classes.
    if (const auto* n = std::get_if<ComputeNarrowerThanWeights>(&w)) {
      return fmt::format("{} {} {}", name(n->compute), name(n->stored), fmt::join(n->classes, " "));
    }
    // The weights it names: --weights fp8,bf16 had said "the weights are fp8" of both rows.
    if (const auto* g = std::get_if<GroupSizeUnused>(&w)) {
      std::string formats;
      for (WeightFormat f : g->weights) formats += fmt::format("{} ", name(f));
      return formats;
    }
    // The rest change only in their numbers (tokens, bytes, a batch), or not at all.
    return "";
  }

  void add(const std::vector<Warning>& warnings) {
    if (warnings.empty()) return;
    ++warned;
    for (const Warning& w : warnings) {
      Kind& k = kinds[{w.index(), detail(w)}];
      if (k.rows++ == 0) k.first = warning_text(w);
    }
  }
  // A later part of the sweep: its words count only for kinds that none before it carried.
  void merge(Tally&& later) {
    skipped += later.skipped;
    for (auto& [reason, n] : later.skip_reasons) skip_reasons[reason] += n;
    warned += later.warned;
    for (auto& [kind, k] : later.kinds) {
      Kind& mine = kinds[kind];
      if (mine.rows == 0) mine.first = std::move(k.first);
      mine.rows += k.rows;
    }
  }
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

// The specs the points name, each loaded once.
struct Specs {
  std::vector<ModelSpec> models;
  std::vector<GpuSpec> gpus;
};

// The table's columns for the flags given more than one value that it has no column for: without
// them `--kv bf16,fp8 --reserve 0.1,0.9` drew four rows as two identical pairs. A flag of one
// value adds none, so the table of a sweep that varies only what it shows is as it was.
std::vector<SweptColumn> swept_columns(const WorkloadAxes& x) {
  using enum WorkloadFlag;
  constexpr std::pair<WorkloadFlag, SweptColumn> kAdded[] = {
      {lm_head, SweptColumn::lm_head},   {group_size, SweptColumn::group_size}, {kv, SweptColumn::kv},
      {activations, SweptColumn::activations}, {compute, SweptColumn::compute}, {attention, SweptColumn::attention},
      {gen, SweptColumn::gen},           {reserve, SweptColumn::reserve}};
  const auto sizes = x.sizes();
  std::vector<SweptColumn> out;
  for (const auto& [flag, column] : kAdded) {
    if (sizes[static_cast<std::size_t>(flag)] > 1) out.push_back(column);
  }
  return out;
}

// The point at p's index: tallied as skipped, or its record handed to `emit`.
template <class Emit>
void run_point(const WorkloadAxes& x, const Product& p, const Specs& s, std::span<const SweptColumn> swept, Tally& tally,
               Emit&& emit) {
  const ModelSpec& m = s.models[p.index()[static_cast<std::size_t>(WorkloadFlag::model)]];
  const GpuSpec& g = s.gpus[p.index()[static_cast<std::size_t>(WorkloadFlag::gpu)]];
  const Workload w = workload_at(x, p.index(), m, g);
  if (const auto e = workload_error(w, m, g)) {
    ++tally.skipped;
    ++tally.skip_reasons[fmt::format("--{}: {}", e->field, e->message)];
    return;
  }
  const Report r = evaluate(m, g, w);
  tally.add(r.warnings);
  emit(ReportRecord(r, false, false, swept));
}

// Points a thread takes at a time, and chunks held ahead of the writer a thread: enough that a
// chunk's bookkeeping is noise beside its points, few enough that the rows in memory stay a few
// megabytes.
constexpr std::size_t kChunkPoints = 1024;
constexpr std::size_t kChunksAhead = 4;
constexpr std::size_t kMostChunksAhead = 64;  // about 50 MB of CSV rows, whatever the threads

struct Chunk {
  std::string text;  // its rows as the sink writes them
  Tally tally;
};

// The sink's output, held back until the sweep has a row to write: a sweep of which no point is
// valid exits 2 and writes nothing, where it wrote a CSV header, a table's head or an empty JSON
// array to standard output (an --out it would replace is left as it was, cli/atomic_file.hpp).
// Once a row comes, what was held and every later write pass straight through; a failed write
// returns short, so the sink sees its stream fail with the write's errno (report::WriteError).
class HeldUntilRow final : public std::streambuf {
 public:
  explicit HeldUntilRow(std::ostream& out) : out_(out) {}
  void release() { released_ = true; }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (!released_) {
      held_.append(s, static_cast<std::size_t>(n));
      return n;
    }
    if (!held_.empty()) {
      out_.write(held_.data(), static_cast<std::streamsize>(held_.size()));
      held_.clear();
    }
    if (out_) out_.write(s, n);
    return out_ ? n : 0;
  }
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char one = traits_type::to_char_type(c);
    return xsputn(&one, 1) == 1 ? c : traits_type::eof();
  }
  int sync() override { return released_ && !out_.flush() ? -1 : 0; }

 private:
  std::ostream& out_;
  std::string held_;
  bool released_ = false;
};

// CSV and JSON lines: chunks of points evaluated and rendered on every core, written in order.
// Other formats lay rows out together (a table's widths, an array): one core feeds the sink.
// `held` is released before the first row reaches the sink.
void sweep(const WorkloadAxes& x, Product& p, std::span<const SweptColumn> swept, Sink& sink, HeldUntilRow& held,
           ProgressBar& progress, Tally& tally) {
  Specs s;
  for (const std::string& m : x.model) s.models.push_back(read_flag_file("--model", m, [&] { return load_model(m); }));
  for (const std::string& g : x.gpu) s.gpus.push_back(read_flag_file("--gpu", g, [&] { return load_gpu(g); }));
  if (p.size() == 0) return;
  const unsigned threads = worker_threads();
  if (!sink.renders_alone() || threads <= 1 || p.size() <= kChunkPoints) {
    do {
      progress.advance();
      run_point(x, p, s, swept, tally, [&](const ReportRecord& r) {
        held.release();
        sink.add(r);
      });
    } while (p.next());
    return;
  }
  const std::size_t chunks = (p.size() + kChunkPoints - 1) / kChunkPoints;
  ordered_parallel<Chunk>(
      chunks, threads, std::min(kMostChunksAhead, kChunksAhead * threads),
      [&](std::size_t k) {
        Chunk c;
        Product at = p;
        at.seek(k * kChunkPoints);
        const std::size_t n = std::min(kChunkPoints, p.size() - k * kChunkPoints);
        for (std::size_t i = 0; i < n; ++i, at.next()) {
          run_point(x, at, s, swept, c.tally, [&](const ReportRecord& r) { sink.render(r, c.text); });
        }
        return c;
      },
      [&](std::size_t k, Chunk&& c) {
        if (!c.text.empty()) held.release();
        sink.add_rendered(c.text);
        tally.merge(std::move(c.tally));
        progress.advance_to(std::min(p.size(), (k + 1) * kChunkPoints));
      });
}

// The format a file's name says, compared without case: .csv, .jsonl, .json, .md or .markdown; a
// table has none of its own, and another name (`/dev/full`, `rows.txt`) says nothing.
std::optional<OutputFormat> format_named(const std::string& path) {
  constexpr std::pair<std::string_view, OutputFormat> kExtensions[] = {{".csv", OutputFormat::csv},
                                                                      {".jsonl", OutputFormat::jsonl},
                                                                      {".json", OutputFormat::json},
                                                                      {".md", OutputFormat::markdown},
                                                                      {".markdown", OutputFormat::markdown}};
  for (const auto& [extension, format] : kExtensions) {
    if (has_extension(path, extension)) return format;
  }
  return std::nullopt;
}

// What the rows are written as: -f, else --out's extension, else CSV. An --out whose extension
// names another format than -f's is refused before any work (it wrote CSV into pts.jsonl, and
// JSON lines into pts.json), as simulate's --requests-out and plot's --out refuse a name that
// does not say their format.
OutputFormat sweep_format(const SweepArgs& a) {
  const OutputFormat given = output_format(a.format);
  if (a.out.empty()) return given;
  const std::optional<OutputFormat> named = format_named(a.out);
  if (!named) return given;
  if (!a.format_given) return *named;
  if (*named != given) {
    // Each format's own ending: a table has none, so any name but these four takes one.
    const std::string_view ending = given == OutputFormat::csv        ? ".csv"
                                    : given == OutputFormat::jsonl    ? ".jsonl"
                                    : given == OutputFormat::json     ? ".json"
                                    : given == OutputFormat::markdown ? ".md"
                                                                      : ".txt";
    throw InputError(fmt::format("--out {}: the name says {}, -f says {}; name it {}, or leave -f out",
                                 terminal_text(a.out), info(*named).name, info(given).name, ending));
  }
  return given;
}

}  // namespace

void add_sweep_options(Options& o, SweepArgs& a) {
  add_workload_options(o, a.workload);
  o.add("--format,-f", a.format,
        "csv, jsonl (one JSON object per line), json, table or markdown [csv; with --out, the format its name ends "
        "in: .csv, .jsonl, .json, .md]")
      .one_of(output_format_names())
      .given(a.format_given);
  o.add("--out,-o", a.out,
        "write rows to this file instead of stdout; a name ending .csv, .jsonl, .json or .md picks the format, and "
        "one that says another than -f is refused")
      .writes_file();
}

void run_sweep(const SweepArgs& a, std::ostream& out, std::ostream& err) {
  if (a.workload.model.empty() || a.workload.gpu.empty()) {
    throw InputError("sweep: --model and --gpu are required (lists allowed)");
  }
  const WorkloadAxes axes = parse_workload(a.workload);
  Product product = points(axes);
  const OutputFormat format = sweep_format(a);
  const std::vector<SweptColumn> swept = swept_columns(axes);
  // The old file stays whole until the new one is: rows go to a temporary beside it.
  std::unique_ptr<AtomicFile> file = a.out.empty() ? nullptr : std::make_unique<AtomicFile>(a.out, "out", &err);
  HeldUntilRow held(file ? file->stream() : out);
  std::ostream rows(&held);
  const auto sink = make_sink(format, Shape::rows, report_record_columns(false, swept), rows);
  ProgressBar progress(err, product.size(), stderr_is_terminal());
  Tally tally;
  // A sweep of which no point is valid (`-b 0`, `--tp 3,5` on 32 heads) is refused: it writes
  // nothing (its header stays held), and an --out it would have replaced is left as it was.
  bool none_valid = false;
  try {
    sweep(axes, product, swept, *sink, held, progress, tally);
    none_valid = product.size() > 0 && tally.skipped == product.size();
    if (!none_valid) held.release();  // a sweep of no points at all writes its empty output
    sink->finish();
  } catch (const WriteError& e) {
    if (!file || !e.target().empty()) throw;
    throw WriteError(fmt::format("--out {}", a.out), e.reason());
  }
  if (file && !none_valid) file->commit();
  progress.finish();
  if (tally.skipped > 0) {
    err << fmt::format("skipped {} of {} points that are not valid:\n", tally.skipped, product.size());
    for (const auto& [reason, n] : tally.skip_reasons) err << fmt::format("  {} × {}\n", n, terminal_text(reason));
  }
  if (none_valid) {
    throw InputError(fmt::format("sweep: none of its {} points is valid (above){}", product.size(),
                                 file ? fmt::format("; --out {} is left as it was", terminal_text(a.out)) : ""));
  }
  if (tally.warned > 0) {
    const bool in_rows = format == OutputFormat::json || format == OutputFormat::jsonl;
    err << fmt::format("warning: {} of the {} rows written carry warnings (each kind once, in the words of its first "
                       "row{}):\n",
                       tally.warned, product.size() - tally.skipped, in_rows ? "; every row's are in its warnings" : "; -f jsonl gives every row's");
    for (const auto& [kind, k] : tally.kinds) err << fmt::format("  {} × {}\n", k.rows, terminal_text(k.first));
  }
}

}  // namespace roofline::cli
