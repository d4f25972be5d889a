#pragma once
// A calibration device that measures nothing: its kernels take the time a formula says, exactly,
// so that calibrate's plumbing (sizing, files, tables, the fit's round trip) is tested on any
// host in milliseconds, and what calibrate asked of it is logged for the tests to read.
//
// The formula: 40 GB/s and 300 GFLOP/s; the STREAM, read and GEMM kernels reach both exactly
// (they are the ceilings), and the synthetic step's products reach 90% of the bandwidth and 80%
// of the peak, the two added (no overlap), plus 3 us a product.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/calibration_device.hpp"
#include "calibrate/curves.hpp"
#include "calibrate/measurement.hpp"
#include "cli/calibrate_command.hpp"

namespace roofline::test {

struct FakeDeviceLog {
  std::vector<std::size_t> stream_bytes;                   // each STREAM kernel's array size
  std::vector<std::pair<calibrate::GemmShape, int>> steps;  // each run_step's first shape and timed runs
  int kernels = 0;                                         // calls of any kernel: 0 = nothing measured
};

class FakeCalibrationDevice final : public calibrate::CalibrationDevice {
 public:
  static constexpr double kBandwidth = 40e9, kPeak = 300e9;
  static constexpr double kMemory = 0.9, kCompute = 0.8, kLaunch = 3e-6;

  explicit FakeCalibrationDevice(std::shared_ptr<FakeDeviceLog> log) : log_(std::move(log)) {}

  std::string description() const override { return "fake: 40 GB/s, 300 GFLOP/s"; }
  std::string toolchain() const override { return "none"; }
  DType gemm_dtype() const override { return DType::fp32; }

  calibrate::Measurement copy(const calibrate::CalibrationOptions& o) override { return stream("copy", 2, o); }
  calibrate::Measurement triad(const calibrate::CalibrationOptions& o) override { return stream("triad", 3, o); }
  calibrate::Measurement read(const calibrate::CalibrationOptions& o) override { return stream("read", 1, o); }
  calibrate::Measurement fma_peak(const calibrate::CalibrationOptions& o) override {
    return at_rate("fma_fp32", calibrate::Rate::flops_per_s, 1e9, 2 * kPeak, o.repetitions);
  }
  std::vector<calibrate::Measurement> gemm(const calibrate::CalibrationOptions& o) override {
    return {at_rate("gemm_fp32", calibrate::Rate::flops_per_s, 2.0 * 2048 * 2048 * 2048, kPeak, o.repetitions)};
  }

  std::vector<double> run_step(const std::vector<calibrate::GemmShape>& shapes, int repetitions) override {
    ++log_->kernels;
    log_->steps.emplace_back(shapes.front(), repetitions);
    double t = 0;
    for (const calibrate::GemmShape& s : shapes) {
      const calibrate::PointWork w = calibrate::point_work(s, DType::fp32);
      t += static_cast<double>(s.count) *
           ((w.weight_bytes + w.activation_bytes) / (kMemory * kBandwidth) + w.flops / (kCompute * kPeak) + kLaunch);
    }
    return std::vector<double>(static_cast<std::size_t>(repetitions), t);
  }

 private:
  calibrate::Measurement stream(const std::string& name, double arrays, const calibrate::CalibrationOptions& o) {
    log_->stream_bytes.push_back(o.stream_bytes);
    return at_rate(name, calibrate::Rate::bytes_per_s, arrays * static_cast<double>(o.stream_bytes), kBandwidth,
                   o.repetitions);
  }
  calibrate::Measurement at_rate(const std::string& name, calibrate::Rate rate, double work, double per_s, int reps) {
    ++log_->kernels;
    return calibrate::summarize(name, rate, work, std::vector<double>(static_cast<std::size_t>(reps), work / per_s));
  }

  std::shared_ptr<FakeDeviceLog> log_;
};

// Calibrate on the fake device and a described host for the life of the guard.
class FakeCalibrationHost {
 public:
  explicit FakeCalibrationHost(calibrate::HostFacts facts)
      : log(std::make_shared<FakeDeviceLog>()),
        scope_({[l = log](const std::string&) { return std::make_unique<FakeCalibrationDevice>(l); }, facts}) {}
  std::shared_ptr<FakeDeviceLog> log;

 private:
  cli::ScopedCalibrationHost scope_;
};

}  // namespace roofline::test
