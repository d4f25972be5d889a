#pragma once
// What a roofline needs to know about one accelerator: its datasheet ceilings, how much of them
// is reachable (efficiency), and, once measured, the calibrated ceilings that replace both.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "hardware/dtype.hpp"
#include "hardware/expected_model.hpp"
#include "hardware/quantity.hpp"

namespace roofline {

// How the GPUs of one scale-up domain (a node; a rack for NVL72) reach each other.
//   switched: each GPU has `bandwidth` into a switch (NVLink Switch): any group gets all of it.
//   mesh: each GPU has `links` links of `bandwidth`, one to each peer (Infinity Fabric on
//         MI300X: 7 × 64 GB/s): a group of k GPUs uses k − 1 of them, a pair one.
//   pcie: each GPU has `bandwidth` to a PCIe switch or the host bridge.
enum class Topology { switched, mesh, pcie };
inline constexpr int kTopologyCount = 3;

struct Interconnect {
  BytesPerSecond bandwidth;  // per direction: per GPU (switched, pcie) or per link (mesh)
  Seconds latency;           // of one transfer
  Topology topology = Topology::switched;
  int links = 1;   // mesh: links per GPU, one to each peer
  int domain = 8;  // GPUs the fabric joins; a larger group needs the network between domains
  // GPUs one host holds (a server: one operating system, one CUDA_VISIBLE_DEVICES), where the
  // fabric joins more than one (an NVL72 rack's trays of 4); none: the domain. Launch scripts only.
  std::optional<int> host{};
};

// The network between domains (InfiniBand, RoCE): per GPU, per direction (a 400 Gb/s NIC per GPU
// is 50 GB/s).
struct Network {
  BytesPerSecond bandwidth;
  Seconds latency;
};

struct Efficiency {
  double memory = 1.0;   // fraction of datasheet bandwidth reachable
  double compute = 1.0;  // fraction of datasheet peak reachable
};

using PeakTable = std::array<std::optional<FlopsPerSecond>, kDTypeCount>;

// One calibration kernel's result, as a rate: bytes/s for bandwidth kernels, FLOP/s otherwise.
struct KernelRecord {
  std::string name;
  bool bandwidth = true;
  double best = 0;
  double median = 0;
  double spread = 0;
};

struct Calibration {
  std::optional<BytesPerSecond> bandwidth;
  PeakTable peak{};
  std::string device;
  std::string toolchain;  // driver and compiler versions, as the calibration run saw them
  std::string date;
  int repetitions = 0;
  double spread = 0.0;  // (max - min) / median of the repeated runs
  std::vector<KernelRecord> kernels;
};

struct GpuSpec {
  std::string name;
  std::string source;
  Bytes memory_capacity;
  BytesPerSecond memory_bandwidth;
  PeakTable peak{};
  std::optional<Interconnect> interconnect;
  std::optional<Network> network;
  // The board's power limit (TDP/TBP) as the datasheet gives it: what `plan` prices energy at.
  std::optional<Watts> power;
  Efficiency efficiency;
  std::optional<Calibration> calibration;
  // How far kernels fall short of this GPU's ceilings; absent: the published fit
  // (ExpectedModel's defaults), made for datasheet ceilings.
  std::optional<ExpectedModel> expected;

  [[nodiscard]] std::optional<FlopsPerSecond> datasheet_peak(DType t) const {
    return peak[static_cast<std::size_t>(t)];
  }
  // The ceilings the roofline uses: measured where calibrated, else datasheet × efficiency.
  [[nodiscard]] BytesPerSecond effective_bandwidth() const;
  [[nodiscard]] std::optional<FlopsPerSecond> effective_peak(DType t) const;
  // The ceilings a workload computing in `compute` is priced against (that peak, which the
  // workload's validation has checked exists), with the 16-bit peak attention kernels run at.
  [[nodiscard]] Ceilings ceilings(DType compute) const;
  // The expected-performance coefficients: the GPU's own, else the published fit. A measured
  // ceiling is already what kernels reach, so against it the fit's share of the ceiling is 1.
  [[nodiscard]] ExpectedModel expected_model() const;
  // The same, borrowed where it needs no change (no calibration: the GPU's own, or the published
  // fit), else worked out into `scratch`. The engine reads it at every point of a sweep, where a
  // copy allocated its two `source` lines.
  [[nodiscard]] const ExpectedModel& expected_model(std::optional<ExpectedModel>& scratch) const;
};

}  // namespace roofline
