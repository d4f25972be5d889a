#include "cli/calibrate_command.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "calibrate/calibration_device.hpp"
#include "calibrate/curves.hpp"
#include "calibrate/expected_fit.hpp"
#include "calibrate/host_machine.hpp"
#include "calibrate/kernel_tables.hpp"
#include "calibrate/stream_size.hpp"
#include "cli/atomic_file.hpp"
#include "cli/curve_tables.hpp"
#include "cli/memory_check.hpp"
#include "io/gpu_writer.hpp"
#include "report/human_units.hpp"
#include "report/safe_text.hpp"
#include "io/input_error.hpp"
#include "io/spec_loader.hpp"
#include "report/text_table.hpp"
#include "report/write_error.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;

namespace {

KernelRecord record(const calibrate::Measurement& m) {
  return {m.kernel, m.rate == calibrate::Rate::bytes_per_s, m.best, m.median, m.spread};
}

// A machine measured without a datasheet: its measured ceilings stand in for the datasheet's.
GpuSpec unnamed_machine(const calibrate::CalibrationDevice& d) {
  GpuSpec g;
  g.name = d.description();
  g.source = "measured by rooflineplan calibrate (no datasheet given: --base)";
  g.memory_capacity = Bytes(static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE)));
  return g;
}

TextTable kernel_table(const Calibration& c) {
  TextTable t{fmt::format("{} ({} repetitions)", c.device, c.repetitions), {"kernel", "best", "median", "spread"}, {}};
  for (const KernelRecord& k : c.kernels) {
    auto show = [&k](double v) { return k.bandwidth ? human(BytesPerSecond(v)) : human(FlopsPerSecond(v)); };
    t.rows.push_back({k.name, show(k.best), show(k.median), fmt::format("{:.1f}%", 100 * k.spread)});
  }
  return t;
}

}  // namespace

void add_calibrate_options(Options& o, CalibrateArgs& a) {
  o.add("--device", a.device, "cpu or cuda").one_of(calibrate::device_kinds()).show_default();
  o.add("--out,-o", a.out, "write the YAML here (default: stdout, with the summary on stderr)").writes_file();
  o.add("--base", a.base, "a GPU description (file or preset) whose datasheet fields to keep");
  o.add("--repetitions", a.repetitions, "timed runs per kernel, and per point of the curves (in up to three passes)").show_default();
  o.add("--stream-size", a.stream_size,
        "size of each STREAM array; auto: at least 4 × the last-level cache, 256 MiB where memory allows")
      .show_default();
  o.flag("--quick", a.quick, "measure the curves at every other size and row count: about half the points");
  o.add("--kernel-table", a.kernel_table,
        "also time kernel tables (a GEMM grid, attention, all-reduce on 2+ GPUs) and write them into this folder as "
        "<device>_gemm.csv ..., in the columns `fit --kernels` reads")
      .writes_file();
  o.add("--kernel-grid", a.kernel_grid, "the kernel tables' grid: full, or smoke (16 GEMMs, two lengths: checks the path)")
      .one_of({"full", "smoke"})
      .show_default();
  o.flag("--tables-only", a.tables_only, "time only the --kernel-table tables: no ceilings, curves nor GPU description");
}

namespace {

// A spread above this says the machine was busy or its clock moved while it was measured.
constexpr double kNoisySpread = 0.10;

const CalibrationHost* g_host = nullptr;  // a test's, while its ScopedCalibrationHost lives

// The bytes of one STREAM array and a line saying why that many, checked before anything is
// allocated: three arrays must fit in memory, and on a CPU each must be well beyond the
// last-level cache, else the "memory" bandwidth measured is the cache's (four times it: the three
// arrays then spill it twelvefold).
struct StreamChoice {
  std::size_t bytes = 0;
  std::string why;
};

StreamChoice stream_bytes(const CalibrateArgs& a, const calibrate::HostFacts& host) {
  const bool cache_bound = a.device == "cpu";
  const auto& llc = host.last_level_cache;
  if (a.stream_size == "auto") {
    const calibrate::StreamSize s = calibrate::default_stream_size(host, cache_bound);
    const std::string each = fmt::format("STREAM arrays of {} each", human(Bytes(static_cast<double>(s.bytes))));
    using Basis = calibrate::StreamSize::Basis;
    switch (s.basis) {
      case Basis::cache:
        return {s.bytes, fmt::format("{} (--stream-size auto: 4 × the last-level cache of {})", each,
                                     human(Bytes(*llc)))};
      case Basis::memory_share:
        return {s.bytes, fmt::format("{} (--stream-size auto: a sixth of the {} available{})", each,
                                     human(Bytes(*host.memory_available)),
                                     cache_bound && llc ? fmt::format(", and 4 × the last-level cache of {} or more",
                                                                       human(Bytes(*llc)))
                                                        : std::string())};
      case Basis::preferred:
        break;
    }
    return {s.bytes, fmt::format("{} (--stream-size auto{})", each,
                                 cache_bound && llc ? fmt::format(": 256 MiB, above 4 × the last-level cache of {}", human(Bytes(*llc)))
                                 : cache_bound      ? std::string(": 256 MiB; the last-level cache is unknown")
                                                    : std::string(": 256 MiB; the device's arrays are 4 × this, past its L2"))};
  }
  const double bytes = quantity_flag(a.stream_size, Dimension::bytes, "stream-size");
  if (bytes < (1U << 20)) throw InputError("--stream-size: must be at least 1 MiB");
  require_memory(3 * bytes, "stream-size", fmt::format("three STREAM arrays of {}", human(Bytes(bytes))),
                 host.memory_available);
  if (cache_bound && llc && bytes < 4 * *llc) {
    throw InputError(fmt::format("--stream-size: {} is below 4 × the last-level cache of {} ({}): the arrays would "
                                 "stay in cache and measure its bandwidth, not memory's; give at least {}, or auto",
                                 human(Bytes(bytes)), human(Bytes(*llc)), a.stream_size, human(Bytes(4 * *llc))));
  }
  return {static_cast<std::size_t>(bytes), fmt::format("STREAM arrays of {} each", human(Bytes(bytes)))};
}

}  // namespace

std::string noise_warnings(const Calibration& c) {
  std::string out;
  for (const KernelRecord& k : c.kernels) {
    if (k.spread > kNoisySpread) {
      out += fmt::format("warning: {}'s runs spread {:.1f}% (more than {:.0f}%): the machine was busy or its clock "
                         "changed, so its ceilings may read low; the spread is recorded in the file. Measure again "
                         "on a quiet machine, or with more --repetitions\n",
                         k.name, 100 * k.spread, 100 * kNoisySpread);
    }
  }
  return out;
}

namespace {

// The fastest point of a curve as a kernel record: its weight stream (single-row products only)
// or its FLOP rate. A ceiling is the fastest rate any verified kernel reached, and a product
// streaming its weights can outrun the read kernel (47 against 42 GB/s on the development VM).
calibrate::Measurement fastest(const std::vector<calibrate::CurvePoint>& points, std::string name, calibrate::Rate rate,
                               DType dtype) {
  calibrate::Measurement best{std::move(name), rate, 0, 0, 0, 0};
  for (const calibrate::CurvePoint& p : points) {
    if (rate == calibrate::Rate::bytes_per_s && p.shape.rows != 1) continue;
    const calibrate::PointWork w = calibrate::point_work(p.shape, dtype);
    const double work = static_cast<double>(p.shape.count) *
                        (rate == calibrate::Rate::bytes_per_s ? w.weight_bytes + w.activation_bytes : w.flops);
    const calibrate::Measurement m = calibrate::summarize(best.kernel, rate, work, p.seconds);
    if (m.best > best.best) best = m;
  }
  return best;
}

std::string utc_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

// The day, device and fit the coefficients come from, for the YAML's `expected.source`.
std::string fit_source(const Calibration& c, const calibrate::CurveFit& fit) {
  return fmt::format("measured by rooflineplan calibrate on {}, {}: launch, memory and compute shares, overlap and "
                     "skinny GEMM rows fitted to {} transfer and GEMM points (median |error| {:.1f}%) against the "
                     "calibrated ceilings; spreads from every repetition",
                     c.device, c.date, fit.points.size(), 100 * fit.median_abs_error);
}

// The STREAM, FMA and GEMM kernels (copy, triad, read, fma_fp32, then each GEMM: that order), and
// the ceilings they give: the read kernel for memory (decode reads weights and KV and writes next
// to nothing), the best GEMM for compute (a practical ceiling, below the FMA peak, that matrix
// products actually reach).
Calibration measure_kernels(calibrate::CalibrationDevice& device, const calibrate::CalibrationOptions& o) {
  std::vector<calibrate::Measurement> ms{device.copy(o), device.triad(o), device.read(o), device.fma_peak(o)};
  const auto gemms = device.gemm(o);
  ms.insert(ms.end(), gemms.begin(), gemms.end());
  Calibration c;
  c.device = device.description();
  c.toolchain = device.toolchain();
  c.date = utc_now();
  c.repetitions = o.repetitions;
  for (const auto& m : ms) c.kernels.push_back(record(m));
  c.bandwidth = BytesPerSecond(ms[2].best);
  const auto best_gemm = std::max_element(gemms.begin(), gemms.end(), [](const auto& x, const auto& y) { return x.best < y.best; });
  c.peak[static_cast<std::size_t>(device.gemm_dtype())] = FlopsPerSecond(best_gemm->best);
  return c;
}

// The curves of the expected model: measured, the ceilings raised to the fastest rate any of
// their products reached, and the coefficients fitted against those ceilings. Their tables are
// appended to `summary`.
ExpectedModel measure_expected(calibrate::CalibrationDevice& device, const calibrate::CalibrationOptions& o,
                               calibrate::CurveDensity density, Calibration& c, std::string& summary) {
  const DType dtype = device.gemm_dtype();
  auto& peak = c.peak[static_cast<std::size_t>(dtype)];
  const double ridge_rows = peak->value() / c.bandwidth->value() * bytes_per_element(dtype) / 2;
  // Twice the STREAM arrays: weights that far exceed the last-level cache (CPU) or L2 (GPU).
  const auto plan = calibrate::plan_curves(2 * o.stream_bytes, ridge_rows, dtype, density);
  const calibrate::Curves curves = calibrate::measure_curves(device, plan, o.repetitions);
  std::vector<calibrate::CurvePoint> single_row = curves.transfer;
  for (const calibrate::CurvePoint& p : curves.gemm) {
    if (p.shape.rows == 1) single_row.push_back(p);
  }
  const auto stream = fastest(single_row, fmt::format("gemv_{}", name(dtype)), calibrate::Rate::bytes_per_s, dtype);
  const auto grid = fastest(curves.gemm, fmt::format("gemm_grid_{}", name(dtype)), calibrate::Rate::flops_per_s, dtype);
  // The read kernel once more, a minute after the first: a shared machine's memory bandwidth
  // drifts with its neighbours (35-61 GB/s on the development VM), and the ceiling must hold for
  // the fastest moment seen, not the first.
  calibrate::Measurement again = device.read(o);
  again.kernel = "read_end";
  c.kernels.push_back(record(again));
  c.kernels.push_back(record(stream));
  c.kernels.push_back(record(grid));
  c.bandwidth = std::max({*c.bandwidth, BytesPerSecond(again.best), BytesPerSecond(stream.best)});
  peak = std::max(*peak, FlopsPerSecond(grid.best));

  const Ceilings ceilings{*peak, *c.bandwidth};
  const calibrate::CurveFit fit = calibrate::fit_expected(curves, ceilings, dtype);
  ExpectedModel m = fit.model;
  m.source = fit_source(c, fit);
  summary += "\n" + render_plain(transfer_table(fit, dtype)) + "\n" + render_plain(gemm_table(fit, ceilings, dtype)) +
             "\n" + render_plain(coefficient_table(m)) +
             fmt::format("median |error| of the fit: {:.1f}% over {} points\n", 100 * fit.median_abs_error,
                         fit.points.size());
  return m;
}

// The --kernel-table folder, made and checked before anything is measured: its README is reserved
// now, so a folder that cannot take files is refused before minutes of measurement.
class TableFolder {
 public:
  TableFolder(const std::string& dir, std::ostream& err) : dir_(dir), err_(err) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec || !std::filesystem::is_directory(dir_)) {
      throw InputError(fmt::format("--kernel-table: {}: cannot make a folder there{}", dir_.string(),
                                   ec ? ": " + ec.message() : std::string(": a file is in the way")));
    }
    readme_ = std::make_unique<AtomicFile>((dir_ / "README.md").string(), "kernel-table", &err_);
  }

  // Times the tables on the device and writes them, saying each file (and each table skipped)
  // on `say`.
  void write(calibrate::CalibrationDevice& device, const CalibrateArgs& a, const std::string& date, std::ostream& say) {
    const auto size = a.kernel_grid == "smoke" ? calibrate::KernelGridSize::smoke : calibrate::KernelGridSize::full;
    const calibrate::KernelTables t =
        calibrate::measure_kernel_tables(device, calibrate::kernel_grid(a.device != "cpu", size), a.repetitions);
    const std::string prefix = calibrate::table_prefix(device.description());
    for (const calibrate::KernelTableFile& f : t.files) {
      const std::string path = (dir_ / fmt::format("{}_{}.csv", prefix, f.kind)).string();
      AtomicFile file(path, "kernel-table", &err_);
      file.stream() << f.csv;
      file.commit();
      say << fmt::format("wrote {} ({} kernels)\n", path, f.rows);
    }
    for (const std::string& why : t.skipped) say << "skipped " << why << "\n";
    readme_->stream() << calibrate::tables_provenance(t, prefix, device.description(), device.toolchain(), date,
                                                       a.repetitions, size);
    readme_->commit();
    say << fmt::format("wrote {} (how they were measured); fit them: rooflineplan fit --kernels {} --gpu GPU.yaml\n",
                       readme_->path(), (dir_ / (prefix + "_*.csv")).string());
  }

 private:
  std::filesystem::path dir_;
  std::ostream& err_;
  std::unique_ptr<AtomicFile> readme_;
};

// --tables-only and --kernel-grid go with --kernel-table, and --tables-only measures nothing the
// YAML's flags would shape: each refused by name rather than ignored.
void check_table_flags(const CalibrateArgs& a) {
  if (a.kernel_table.empty()) {
    if (a.tables_only) throw InputError("--tables-only: give --kernel-table DIR, the folder the tables go to");
    if (a.kernel_grid != "full") throw InputError("--kernel-grid: the grid of --kernel-table; give --kernel-table DIR");
    return;
  }
  if (!a.tables_only) return;
  if (!a.out.empty()) throw InputError("--out: --tables-only writes no GPU description");
  if (!a.base.empty()) throw InputError("--base: --tables-only writes no GPU description");
  if (a.quick) throw InputError("--quick: --tables-only measures no curves");
  if (a.stream_size != "auto") throw InputError("--stream-size: --tables-only runs no STREAM kernel");
}

}  // namespace

ScopedCalibrationHost::ScopedCalibrationHost(CalibrationHost host) : host_(std::move(host)), previous_(g_host) {
  g_host = &host_;
}
ScopedCalibrationHost::~ScopedCalibrationHost() { g_host = previous_; }

CalibrationHost calibration_host() {
  if (g_host) return *g_host;
  return {calibrate::open_device, calibrate::host_facts()};
}

namespace {

// `--base` describes the device measured, or its datasheet's peaks (those the calibration did not
// measure: bf16 on a CPU) would sit beside another device's bandwidth: `calibrate --base h100-sxm`
// on a CPU wrote 28.2 GB/s beside the H100's 989 TFLOP/s, a ridge of 35,010 FLOP/byte. A GPU's
// measured stream reaches 0.8–0.9 of its datasheet's; a factor of 4 either way is another device.
void refuse_another_device(const std::string& base, const GpuSpec& g, const Calibration& c,
                           const calibrate::CalibrationDevice& device) {
  constexpr double kAnotherDevice = 4;
  if (!c.bandwidth || g.memory_bandwidth.value() <= 0) return;
  const double ratio = g.memory_bandwidth / *c.bandwidth;
  if (ratio <= kAnotherDevice && ratio >= 1 / kAnotherDevice) return;
  throw InputError(fmt::format("--base {}: its {} of memory bandwidth is {:.3g} times the {} measured on this device ({}); "
                               "--base describes the device measured, a MIG slice its own (leave it out to describe this one)",
                               terminal_text(base), human(g.memory_bandwidth), ratio, human(*c.bandwidth),
                               terminal_text(device.description())));
}

}  // namespace

void check_repetitions(int repetitions) {
  if (repetitions < 1) throw InputError(fmt::format("--repetitions: must be at least 1, got {}", repetitions));
  // A median settles within tens of runs; a billion ran for days without a word.
  if (repetitions > calibrate::kMostRepetitions) {
    throw InputError(fmt::format("--repetitions: at most {}, got {}", calibrate::kMostRepetitions, repetitions));
  }
}

void run_calibrate(const CalibrateArgs& a, std::ostream& out, std::ostream& err) {
  check_repetitions(a.repetitions);
  check_table_flags(a);
  const CalibrationHost host = calibration_host();
  std::unique_ptr<TableFolder> tables = a.kernel_table.empty() ? nullptr : std::make_unique<TableFolder>(a.kernel_table, err);
  if (a.tables_only) {
    const auto device = host.open_device(a.device);
    tables->write(*device, a, utc_now(), out);
    return;
  }
  calibrate::CalibrationOptions o;
  o.repetitions = a.repetitions;
  const StreamChoice stream = stream_bytes(a, host.facts);
  o.stream_bytes = stream.bytes;
  // The file is reserved before measuring: a folder that cannot take it is refused now, not
  // after minutes of measurement.
  std::unique_ptr<AtomicFile> file = a.out.empty() ? nullptr : std::make_unique<AtomicFile>(a.out, "out", &err);
  auto device = host.open_device(a.device);
  GpuSpec g = a.base.empty() ? unnamed_machine(*device) : read_flag_file("--base", a.base, [&] { return load_gpu(a.base); });
  if (file) file->refuse_an_input();  // --base g.yaml --out g.yaml: refused before measuring

  Calibration c = measure_kernels(*device, o);
  if (!a.base.empty()) {
    // Before the curves' minutes; the kernels measured are shown, not lost.
    try {
      refuse_another_device(a.base, g, c, *device);
    } catch (const InputError&) {
      err << render_plain(kernel_table(c));
      throw;
    }
  }
  std::string curve_summary;
  g.expected = measure_expected(*device, o, a.quick ? calibrate::CurveDensity::quick : calibrate::CurveDensity::full,
                                c, curve_summary);
  for (const KernelRecord& k : c.kernels) c.spread = std::max(c.spread, k.spread);
  if (a.base.empty()) {
    const DType dtype = device->gemm_dtype();
    g.memory_bandwidth = *c.bandwidth;
    g.peak[static_cast<std::size_t>(DType::fp32)] = FlopsPerSecond(c.kernels[3].best);  // fma_fp32
    g.peak[static_cast<std::size_t>(dtype)] = c.peak[static_cast<std::size_t>(dtype)];
  }
  g.calibration = c;
  err << noise_warnings(c);

  // The size is part of the measurement: said in the summary and kept in the file, as a comment.
  const std::string yaml = fmt::format("# measured with {}{}\n", stream.why, a.quick ? ", curves --quick" : "") + gpu_yaml(g);
  const std::string summary = stream.why + (a.quick ? "; curves --quick" : "") + "\n" + render_plain(kernel_table(c)) +
                              curve_summary;
  if (!file) {
    out << yaml;
    err << summary;
    if (tables) tables->write(*device, a, c.date, err);  // stdout holds the YAML
    return;
  }
  try {
    file->stream() << yaml;
    file->commit();
  } catch (const WriteError&) {
    // A measurement is never lost: what could not be written goes to stdout, and the command
    // still fails.
    out << yaml;
    err << summary;
    throw;
  } catch (const InputError&) {  // the target became an input while it measured: the same
    out << yaml;
    err << summary;
    throw;
  }
  out << summary << fmt::format("wrote {}\n", a.out);
  // After the description is safe: a table that fails loses none of it.
  if (tables) tables->write(*device, a, c.date, out);
}

}  // namespace roofline::cli
