#include "cli/calibrate_command.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <stdexcept>

#include "calibrate/calibration_device.hpp"
#include "io/gpu_writer.hpp"
#include "report/human_units.hpp"
#include "io/input_error.hpp"
#include "io/spec_loader.hpp"
#include "report/text_table.hpp"
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

void run_calibrate(const CalibrateArgs& a, std::ostream& out, std::ostream& err) {
  if (a.repetitions < 1) throw InputError(fmt::format("--repetitions: must be at least 1, got {}", a.repetitions));
  calibrate::CalibrationOptions o;
  o.repetitions = a.repetitions;
  o.stream_bytes = static_cast<std::size_t>(quantity_flag(a.stream_size, Dimension::bytes, "stream-size"));
  if (o.stream_bytes < (1U << 20)) throw InputError("--stream-size: must be at least 1 MiB");
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

  const std::string yaml = gpu_yaml(g);
  const std::string summary = render_plain(kernel_table(c));
  if (a.out.empty()) {
    out << yaml;
    err << summary;
    return;
  }
  std::ofstream file(a.out);
  if (!file) throw InputError(fmt::format("--out: cannot write {}", a.out));
  file << yaml;
  out << summary << fmt::format("wrote {}\n", a.out);
}

}  // namespace roofline::cli
