#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "io/input_error.hpp"
#include "io/presets.hpp"
#include "io/spec_loader.hpp"

namespace roofline::io {

namespace {

// A table of `dtype: "312 TFLOPS"` lines; the keys are checked as dtype names.
PeakTable read_peaks(const MapReader& r) {
  PeakTable peaks{};
  for (const std::string& key : r.keys()) {
    DType t{};
    try {
      t = parse_dtype(key);
    } catch (const std::invalid_argument& e) {
      r.fail(key, e.what());
    }
    peaks[static_cast<std::size_t>(t)] = FlopsPerSecond(r.quantity(key, Dimension::flops_rate));
  }
  return peaks;
}

double fraction(const MapReader& r, std::string_view key) {
  if (!r.has(key)) return 1.0;
  const double v = r.number(key);
  if (!(v > 0 && v <= 1)) r.fail(key, fmt::format("must be a fraction in (0, 1], got {}", v));
  return v;
}

Calibration read_calibration(const MapReader& r) {
  Calibration c;
  if (r.has("bandwidth")) c.bandwidth = BytesPerSecond(r.quantity("bandwidth", Dimension::bandwidth));
  if (auto peak = r.optional_child("peak", {})) c.peak = read_peaks(*peak);
  c.device = r.optional_string("device").value_or("");
  c.toolchain = r.optional_string("toolchain").value_or("");
  c.date = r.optional_string("date").value_or("");
  c.repetitions = static_cast<int>(r.optional_count("repetitions").value_or(0));
  if (r.has("spread")) c.spread = r.number("spread");
  if (auto kernels = r.optional_child("kernels", {})) {
    for (const std::string& name : kernels->keys()) {
      const MapReader k = kernels->child(name, {"best", "median", "spread"});
      // A kernel measures either bandwidth or compute; its unit says which.
      const bool bandwidth = k.string("best").find("B/s") != std::string::npos;
      const Dimension d = bandwidth ? Dimension::bandwidth : Dimension::flops_rate;
      c.kernels.push_back({name, bandwidth, k.quantity("best", d), k.quantity("median", d), k.number("spread")});
    }
  }
  return c;
}

}  // namespace

GpuSpec read_gpu(const YamlDocument& doc) {
  const MapReader r(doc, doc.root, "",
                    {"name", "source", "memory", "compute", "interconnect", "efficiency", "calibration"});
  GpuSpec g;
  g.name = r.string("name");
  g.source = r.optional_string("source").value_or("");
  const MapReader memory = r.child("memory", {"capacity", "bandwidth"});
  g.memory_capacity = Bytes(memory.quantity("capacity", Dimension::bytes));
  g.memory_bandwidth = BytesPerSecond(memory.quantity("bandwidth", Dimension::bandwidth));
  const MapReader compute = r.child("compute", {"peak"});
  g.peak = read_peaks(compute.child("peak", {}));
  if (std::none_of(g.peak.begin(), g.peak.end(), [](const auto& p) { return p.has_value(); })) {
    compute.fail("peak", "needs at least one dtype, like fp16: \"312 TFLOPS\"");
  }
  if (auto link = r.optional_child("interconnect", {"bandwidth", "latency"})) {
    g.interconnect = Interconnect{BytesPerSecond(link->quantity("bandwidth", Dimension::bandwidth)),
                                  Seconds(link->quantity("latency", Dimension::time))};
  }
  if (auto eff = r.optional_child("efficiency", {"memory", "compute"})) {
    g.efficiency = {fraction(*eff, "memory"), fraction(*eff, "compute")};
  }
  if (auto cal = r.optional_child("calibration", {"bandwidth", "peak", "device", "toolchain", "date",
                                                  "repetitions", "spread", "kernels"})) {
    g.calibration = read_calibration(*cal);
  }
  return g;
}

GpuSpec load_gpu(const std::string& file_or_preset) {
  return read_gpu(load_yaml_file(resolve_preset(PresetKind::gpu, file_or_preset)));
}

}  // namespace roofline::io
