#include "io/gpu_writer.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace roofline::io {

namespace {

// Shortest round-trip digits, so that reading the file back gives the same double.
std::string bytes(double v) { return fmt::format("{} GB", v / 1e9); }
std::string bandwidth(double v) { return fmt::format("{} GB/s", v / 1e9); }
std::string rate(double v) { return fmt::format("{} GFLOPS", v / 1e9); }
std::string time(double v) { return fmt::format("{} us", v * 1e6); }

void emit_peaks(YAML::Emitter& e, const PeakTable& peaks) {
  e << YAML::BeginMap;
  for (DType t : kAllDTypes) {
    if (const auto& p = peaks[static_cast<std::size_t>(t)]) e << YAML::Key << std::string(name(t)) << YAML::Value << rate(p->value());
  }
  e << YAML::EndMap;
}

void emit_calibration(YAML::Emitter& e, const Calibration& c) {
  e << YAML::Key << "calibration" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "device" << YAML::Value << c.device;
  e << YAML::Key << "toolchain" << YAML::Value << c.toolchain;
  e << YAML::Key << "date" << YAML::Value << c.date;
  e << YAML::Key << "repetitions" << YAML::Value << c.repetitions;
  e << YAML::Key << "spread" << YAML::Value << fmt::format("{}", c.spread);
  if (c.bandwidth) e << YAML::Key << "bandwidth" << YAML::Value << bandwidth(c.bandwidth->value());
  e << YAML::Key << "peak" << YAML::Value;
  emit_peaks(e, c.peak);
  e << YAML::Key << "kernels" << YAML::Value << YAML::BeginMap;
  for (const KernelRecord& k : c.kernels) {
    auto unit = k.bandwidth ? bandwidth : rate;
    e << YAML::Key << k.name << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "best" << YAML::Value
      << unit(k.best) << YAML::Key << "median" << YAML::Value << unit(k.median) << YAML::Key << "spread" << YAML::Value
      << fmt::format("{}", k.spread) << YAML::EndMap;
  }
  e << YAML::EndMap << YAML::EndMap;
}

}  // namespace

std::string gpu_yaml(const GpuSpec& g) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "name" << YAML::Value << g.name;
  if (!g.source.empty()) e << YAML::Key << "source" << YAML::Value << g.source;
  e << YAML::Key << "memory" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "capacity" << YAML::Value
    << bytes(g.memory_capacity.value()) << YAML::Key << "bandwidth" << YAML::Value << bandwidth(g.memory_bandwidth.value())
    << YAML::EndMap;
  e << YAML::Key << "compute" << YAML::Value << YAML::BeginMap << YAML::Key << "peak" << YAML::Value;
  emit_peaks(e, g.peak);
  e << YAML::EndMap;
  if (g.interconnect) {
    e << YAML::Key << "interconnect" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "bandwidth"
      << YAML::Value << bandwidth(g.interconnect->bandwidth.value()) << YAML::Key << "latency" << YAML::Value
      << time(g.interconnect->latency.value()) << YAML::EndMap;
  }
  e << YAML::Key << "efficiency" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "memory" << YAML::Value
    << fmt::format("{}", g.efficiency.memory) << YAML::Key << "compute" << YAML::Value
    << fmt::format("{}", g.efficiency.compute) << YAML::EndMap;
  if (g.calibration) emit_calibration(e, *g.calibration);
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace roofline::io
