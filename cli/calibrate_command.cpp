#include "cli/calibrate_command.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <stdexcept>

#include "calibrate/calibration_device.hpp"
#include "calibrate/host_machine.hpp"
#include "cli/atomic_file.hpp"
#include "cli/memory_check.hpp"
#include "io/gpu_writer.hpp"
#include "report/human_units.hpp"
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
  o.add("--out,-o", a.out, "write the YAML here (default: stdout, with the summary on stderr)");
  o.add("--base", a.base, "a GPU description (file or preset) whose datasheet fields to keep");
  o.add("--repetitions", a.repetitions, "timed runs per kernel").show_default();
  o.add("--stream-size", a.stream_size, "size of each STREAM array").show_default();
}

namespace {

// A spread above this says the machine was busy or its clock moved while it was measured.
constexpr double kNoisySpread = 0.10;

// The bytes of one STREAM array, checked before anything is allocated: three arrays must fit in
// memory, and on a CPU each must be well beyond the last-level cache, else the "memory"
// bandwidth measured is the cache's (four times it: the three arrays then spill it twelvefold).
std::size_t stream_bytes(const CalibrateArgs& a) {
  const double bytes = quantity_flag(a.stream_size, Dimension::bytes, "stream-size");
  if (bytes < (1U << 20)) throw InputError("--stream-size: must be at least 1 MiB");
  require_memory(3 * bytes, "stream-size", fmt::format("three STREAM arrays of {}", human(Bytes(bytes))));
  const auto llc = a.device == "cpu" ? calibrate::last_level_cache() : std::nullopt;
  if (llc && bytes < 4 * *llc) {
    throw InputError(fmt::format("--stream-size: {} is below 4 × the last-level cache of {} ({}): the arrays would "
                                 "stay in cache and measure its bandwidth, not memory's; give at least {}",
                                 human(Bytes(bytes)), human(Bytes(*llc)), a.stream_size, human(Bytes(4 * *llc))));
  }
  return static_cast<std::size_t>(bytes);
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

void run_calibrate(const CalibrateArgs& a, std::ostream& out, std::ostream& err) {
  if (a.repetitions < 1) throw InputError(fmt::format("--repetitions: must be at least 1, got {}", a.repetitions));
  calibrate::CalibrationOptions o;
  o.repetitions = a.repetitions;
  o.stream_bytes = stream_bytes(a);
  // The file is reserved before measuring: a folder that cannot take it is refused now, not
  // after minutes of measurement.
  std::unique_ptr<AtomicFile> file = a.out.empty() ? nullptr : std::make_unique<AtomicFile>(a.out, "out");
  auto device = calibrate::open_device(a.device);
  GpuSpec g = a.base.empty() ? unnamed_machine(*device) : load_gpu(a.base);

  std::vector<calibrate::Measurement> ms{device->copy(o), device->triad(o), device->read(o), device->fma_peak(o)};
  const auto gemms = device->gemm(o);
  ms.insert(ms.end(), gemms.begin(), gemms.end());

  Calibration c;
  c.device = device->description();
  c.toolchain = device->toolchain();
  c.date = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
  c.repetitions = a.repetitions;
  for (const auto& m : ms) {
    c.kernels.push_back(record(m));
    c.spread = std::max(c.spread, m.spread);
  }
  // The ceilings a roofline should use: the read kernel for memory (decode reads weights and KV
  // and writes next to nothing), the best GEMM for compute (a practical ceiling, below the FMA
  // peak, that matrix products actually reach).
  c.bandwidth = BytesPerSecond(ms[2].best);
  const auto best_gemm = std::max_element(gemms.begin(), gemms.end(), [](const auto& x, const auto& y) { return x.best < y.best; });
  c.peak[static_cast<std::size_t>(device->gemm_dtype())] = FlopsPerSecond(best_gemm->best);
  if (a.base.empty()) {
    g.memory_bandwidth = *c.bandwidth;
    g.peak[static_cast<std::size_t>(DType::fp32)] = FlopsPerSecond(ms[3].best);
    g.peak[static_cast<std::size_t>(device->gemm_dtype())] = FlopsPerSecond(best_gemm->best);
  }
  g.calibration = c;
  err << noise_warnings(c);

  const std::string yaml = gpu_yaml(g);
  const std::string summary = render_plain(kernel_table(c));
  if (!file) {
    out << yaml;
    err << summary;
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
  }
  out << summary << fmt::format("wrote {}\n", a.out);
}

}  // namespace roofline::cli
