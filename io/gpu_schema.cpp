// The GPU YAML, field by field: what `--gpu file.yaml` reads, `calibrate` writes and docs/inputs.md
// lists. Dimensioned values carry units; a calibration block replaces the datasheet ceilings.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "io/schema.hpp"

namespace roofline::io {

namespace {

struct InGpu {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return g; }
};
struct InInterconnect {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return *g.interconnect; }
};
struct InNetwork {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return *g.network; }
};
struct InEfficiency {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return g.efficiency; }
};
struct InCalibration {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return *g.calibration; }
};
struct InExpected {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return *g.expected; }
};

// A field left out keeps the published fit's value (hardware/expected_model.hpp).
const ExpectedModel kFit{};
constexpr Range kSpread{0, 5};  // log-normal spread: 0 … e^(±6.4) at 10–90%
constexpr Range kOverlap{1, 100};   // 1: the sum; 100: the larger time within 0.7%
constexpr Range kSkinnyRows{0, 1e5};  // beyond any batch or prompt a GEMM is run at
constexpr Range kLinks{1, 64};
constexpr Range kDomain{1, 1e5};  // GPUs of one fabric: 8 in a node, 72 in an NVL72 rack

// In the order of `Topology`.
constexpr std::array kTopologies = {
    Word{"switch", "each GPU has `bandwidth` into a switch (NVLink Switch): any group gets all of it"},
    Word{"mesh", "each GPU has `links` links of `bandwidth`, one to each peer (Infinity Fabric): k GPUs use k - 1"},
    Word{"pcie", "each GPU has `bandwidth` to a PCIe switch"}};

using F = Field<GpuSpec>;

void check(const MapReader& r, const GpuSpec& g) {
  if (std::none_of(g.peak.begin(), g.peak.end(), [](const auto& p) { return p.has_value(); }) && r.has("compute")) {
    const MapReader compute = r.child("compute", {});
    if (compute.has("peak")) compute.fail("peak", "needs at least one dtype, like fp16: \"312 TFLOPS\"");
  }
  if (g.network && !g.interconnect) r.fail("network", "needs `interconnect:` too: groups within a domain use it");
  // The ceilings the engine prices with, datasheet × efficiency, stay in the physical range the
  // datasheet figures are held to: a share of a thousandth of 1 MB/s made hours of a step.
  if (r.has("efficiency")) {
    const MapReader eff = r.child("efficiency", {});
    const Range bandwidth = physical_range(Dimension::bandwidth), rate = physical_range(Dimension::flops_rate);
    if (eff.has("memory") && g.memory_bandwidth.value() * g.efficiency.memory < bandwidth.min) {
      eff.fail("memory", fmt::format("leaves {:g} B/s of the datasheet's bandwidth, outside {}",
                                     g.memory_bandwidth.value() * g.efficiency.memory,
                                     range_text(bandwidth, Dimension::bandwidth)));
    }
    for (const auto& p : eff.has("compute") ? g.peak : PeakTable{}) {
      if (p && p->value() * g.efficiency.compute < rate.min) {
        eff.fail("compute", fmt::format("leaves {:g} FLOP/s of a datasheet peak, outside {}", p->value() * g.efficiency.compute,
                                        range_text(rate, Dimension::flops_rate)));
      }
    }
  }
  if (g.interconnect && g.interconnect->topology != Topology::mesh && r.has("interconnect")) {
    const MapReader link = r.child("interconnect", {});
    if (link.has("links")) link.fail("links", "is for `topology: mesh` only: a switch gives each GPU one `bandwidth`");
  }
}

}  // namespace

const Schema<GpuSpec>& gpu_schema() {
  static const std::array memory = {
      F{.key = "capacity", .kind = Kind::quantity, .need = Need::required, .doc = "memory size",
        .access = member<InGpu, &GpuSpec::memory_capacity>(), .dimension = Dimension::bytes},
      F{.key = "bandwidth", .kind = Kind::quantity, .need = Need::required, .doc = "datasheet memory bandwidth",
        .access = member<InGpu, &GpuSpec::memory_bandwidth>(), .dimension = Dimension::bandwidth},
  };
  static const std::array compute = {
      F{"peak", Kind::peaks, Need::required, "datasheet dense peak of each dtype it has; at least one",
        member<InGpu, &GpuSpec::peak>()},
  };
  static const std::array interconnect = {
      F{.key = "bandwidth", .kind = Kind::quantity, .need = Need::required, .doc = "per direction, per GPU",
        .access = member<InInterconnect, &Interconnect::bandwidth>(), .dimension = Dimension::bandwidth},
      F{.key = "latency", .kind = Kind::quantity, .need = Need::required, .doc = "of one transfer",
        .access = member<InInterconnect, &Interconnect::latency>(), .dimension = Dimension::time},
      F{.key = "topology", .kind = Kind::choice, .need = Need::optional,
        .doc = "how the GPUs of a domain are joined; absent: switch", .access = member<InInterconnect, &Interconnect::topology>(),
        .fallback = Choice{0}, .words = kTopologies},
      F{.key = "links", .kind = Kind::small_count, .need = Need::optional,
        .doc = "mesh: links per GPU, one to each peer (`bandwidth` is one link's)",
        .access = member<InInterconnect, &Interconnect::links>(), .range = kLinks, .fallback = 1L},
      F{.key = "domain", .kind = Kind::small_count, .need = Need::optional,
        .doc = "GPUs the fabric joins (8 in a node, 72 in an NVL72 rack); larger groups need `network`; absent: 8",
        .access = member<InInterconnect, &Interconnect::domain>(), .range = kDomain, .fallback = 8L},
  };
  static const std::array network = {
      F{.key = "bandwidth", .kind = Kind::quantity, .need = Need::required,
        .doc = "per direction, per GPU (a 400 Gb/s NIC each: 50 GB/s)",
        .access = member<InNetwork, &Network::bandwidth>(), .dimension = Dimension::bandwidth},
      F{.key = "latency", .kind = Kind::quantity, .need = Need::required, .doc = "of one transfer between domains",
        .access = member<InNetwork, &Network::latency>(), .dimension = Dimension::time},
  };
  static const std::array efficiency = {
      F{.key = "memory", .kind = Kind::fraction, .need = Need::optional,
        .doc = "fraction of the datasheet bandwidth reachable", .access = member<InEfficiency, &Efficiency::memory>(),
        .fallback = 1.0},
      F{.key = "compute", .kind = Kind::fraction, .need = Need::optional,
        .doc = "fraction of the datasheet peak reachable", .access = member<InEfficiency, &Efficiency::compute>(),
        .fallback = 1.0},
  };
  static const std::array calibration = {
      F{.key = "device", .kind = Kind::text, .need = Need::optional, .doc = "the device measured",
        .access = member<InCalibration, &Calibration::device>(), .fallback = std::string()},
      F{.key = "toolchain", .kind = Kind::text, .need = Need::optional, .doc = "driver and compiler versions",
        .access = member<InCalibration, &Calibration::toolchain>(), .fallback = std::string()},
      F{.key = "date", .kind = Kind::text, .need = Need::optional, .doc = "when it was measured",
        .access = member<InCalibration, &Calibration::date>(), .fallback = std::string()},
      F{.key = "repetitions", .kind = Kind::count, .need = Need::optional, .doc = "runs of each kernel",
        .access = member<InCalibration, &Calibration::repetitions>(), .range = Range{0, 1e9}, .fallback = 0L},
      F{.key = "spread", .kind = Kind::number, .need = Need::optional, .doc = "(max - min) / median of the runs",
        .access = member<InCalibration, &Calibration::spread>(), .range = kSpreadRange, .fallback = 0.0},
      F{.key = "bandwidth", .kind = Kind::quantity, .need = Need::optional,
        .doc = "measured memory bandwidth: replaces datasheet × efficiency",
        .access = member<InCalibration, &Calibration::bandwidth>(), .dimension = Dimension::bandwidth},
      F{.key = "peak", .kind = Kind::peaks, .need = Need::optional,
        .doc = "measured compute ceilings: replace datasheet × efficiency",
        .access = member<InCalibration, &Calibration::peak>(), .fallback = PeakTable{}},
      F{.key = "kernels", .kind = Kind::kernels, .need = Need::optional, .doc = "every kernel's measurements",
        .access = member<InCalibration, &Calibration::kernels>(), .fallback = std::vector<KernelRecord>{}},
  };
  static const std::array expected = {
      F{.key = "memory", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of the bandwidth a long weight stream reaches", .access = member<InExpected, &ExpectedModel::memory>(),
        .fallback = kFit.memory},
      F{.key = "compute", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of the peak a large GEMM reaches", .access = member<InExpected, &ExpectedModel::compute>(),
        .fallback = kFit.compute},
      F{.key = "launch", .kind = Kind::quantity, .need = Need::optional,
        .doc = "fixed time per operator and layer (launch gap, ramp, tail)",
        .access = member<InExpected, &ExpectedModel::launch>(), .fallback = kFit.launch.value(),
        .dimension = Dimension::time},
      F{.key = "step", .kind = Kind::quantity, .need = Need::optional,
        .doc = "fixed time per pass (sampling, scheduling); absent: none",
        .access = member<InExpected, &ExpectedModel::step>(), .fallback = kFit.step.value(),
        .dimension = Dimension::time},
      F{.key = "hop_latency", .kind = Kind::quantity, .need = Need::optional,
        .doc = "per hop of a ring all-reduce, 2(tp - 1) hops a call",
        .access = member<InExpected, &ExpectedModel::hop_latency>(), .fallback = kFit.hop_latency.value(),
        .dimension = Dimension::time},
      F{.key = "dequant_int8", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of `memory` a weight-only one-byte GEMM streams at",
        .access = member<InExpected, &ExpectedModel::dequant_int8>(), .fallback = kFit.dequant_int8},
      F{.key = "dequant_int4", .kind = Kind::fraction, .need = Need::optional,
        .doc = "the same for sub-byte weights (int4, fp4, mxfp4...)",
        .access = member<InExpected, &ExpectedModel::dequant_int4>(), .fallback = kFit.dequant_int4},
      F{.key = "overlap", .kind = Kind::number, .need = Need::optional,
        .doc = "how a kernel's memory and compute times combine, (c^p + m^p)^(1/p): 1 adds them, large takes the larger",
        .access = member<InExpected, &ExpectedModel::overlap>(), .range = kOverlap, .fallback = kFit.overlap},
      F{.key = "skinny_rows", .kind = Kind::number, .need = Need::optional,
        .doc = "a GEMM's first rows, computed at `skinny_compute` (one matrix-vector product each, or a first tile); 0: none",
        .access = member<InExpected, &ExpectedModel::skinny_rows>(), .range = kSkinnyRows,
        .fallback = kFit.skinny_rows},
      F{.key = "skinny_compute", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of the peak those rows reach", .access = member<InExpected, &ExpectedModel::skinny_compute>(),
        .fallback = kFit.skinny_compute},
      F{.key = "spread_memory", .kind = Kind::number, .need = Need::optional,
        .doc = "log-normal spread of measured / expected, memory-bound phases: 10-90% is e^(±1.28 s)",
        .access = member<InExpected, &ExpectedModel::spread_memory>(), .range = kSpread,
        .fallback = kFit.spread_memory},
      F{.key = "spread_compute", .kind = Kind::number, .need = Need::optional,
        .doc = "the same for phases with compute ≥ 20% of the time",
        .access = member<InExpected, &ExpectedModel::spread_compute>(), .range = kSpread,
        .fallback = kFit.spread_compute},
      F{.key = "spread_overhead", .kind = Kind::number, .need = Need::optional,
        .doc = "the same for phases with launches and all-reduces ≥ 30% of the time",
        .access = member<InExpected, &ExpectedModel::spread_overhead>(), .range = kSpread,
        .fallback = kFit.spread_overhead},
      F{.key = "source", .kind = Kind::text, .need = Need::optional, .doc = "where the coefficients come from",
        .access = member<InExpected, &ExpectedModel::source>(), .fallback = kFit.source},
  };
  static const std::array fields = {
      F{"name", Kind::text, Need::required, "the GPU's name", member<InGpu, &GpuSpec::name>()},
      F{.key = "source", .kind = Kind::text, .need = Need::optional, .doc = "where the figures come from",
        .access = member<InGpu, &GpuSpec::source>(), .fallback = std::string()},
      F{.key = "power", .kind = Kind::quantity, .need = Need::optional,
        .doc = "board power (TDP) from the datasheet; `plan` prices energy at it; absent: no energy",
        .access = member<InGpu, &GpuSpec::power>(), .dimension = Dimension::power},
      F{.key = "memory", .kind = Kind::section, .need = Need::required, .doc = "the memory's size and bandwidth", .fields = memory, .flow = true},
      F{.key = "compute", .kind = Kind::section, .need = Need::required, .doc = "the datasheet's compute ceilings", .fields = compute},
      F{.key = "interconnect", .kind = Kind::section, .need = Need::optional,
        .doc = "the link between GPUs; needed for `--tp` > 1", .fields = interconnect,
        .present = [](const GpuSpec& g) { return g.interconnect.has_value(); },
        .create = [](GpuSpec& g) { g.interconnect.emplace(); }, .flow = true},
      F{.key = "network", .kind = Kind::section, .need = Need::optional,
        .doc = "the network between domains (InfiniBand, RoCE); needed for groups larger than `interconnect.domain`",
        .fields = network, .present = [](const GpuSpec& g) { return g.network.has_value(); },
        .create = [](GpuSpec& g) { g.network.emplace(); }, .flow = true},
      F{.key = "efficiency", .kind = Kind::section, .need = Need::optional,
        .doc = "the reachable share of the datasheet figures", .fields = efficiency, .flow = true},
      F{.key = "calibration", .kind = Kind::section, .need = Need::optional,
        .doc = "measured by `rooflineplan calibrate`: replaces datasheet × efficiency", .fields = calibration,
        .present = [](const GpuSpec& g) { return g.calibration.has_value(); },
        .create = [](GpuSpec& g) { g.calibration.emplace(); }},
      F{.key = "expected", .kind = Kind::section, .need = Need::optional,
        .doc = "how far kernels fall short of the ceilings, for expected times beside the bound; absent: the "
               "published fit (`rooflineplan fit`, `calibrate`)",
        .fields = expected, .present = [](const GpuSpec& g) { return g.expected.has_value(); },
        .create = [](GpuSpec& g) { g.expected.emplace(); }},
  };
  static const Schema<GpuSpec> schema{fields, check};
  return schema;
}

}  // namespace roofline::io
