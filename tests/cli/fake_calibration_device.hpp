#pragma once
// A calibration device that measures nothing: its kernels take the time a formula says, exactly,
// so that calibrate's plumbing (sizing, files, tables, the fit's round trip) is tested on any
// host in milliseconds, and what calibrate asked of it is logged for the tests to read.
//
// The formula: 40 GB/s and 300 GFLOP/s; the STREAM, read and GEMM kernels reach both exactly
// (they are the ceilings), and the synthetic step's products reach 90% of the bandwidth and 80%
// of the peak, the two added (no overlap), plus 3 us a product. The kernel tables' GEMMs are such
// products; its attention (fp16) and all-reduce follow the same formula (below).
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
  std::vector<calibrate::GemmShape> table_gemms;           // every GEMM time_gemms was asked for
  std::vector<calibrate::AttentionShape> table_attention;  // every attention kernel, prefill and decode
  int devices = 1;                                         // what device_count() says: 2 or more times all-reduces
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
    for (const calibrate::GemmShape& s : shapes) t += static_cast<double>(s.count) * product_seconds(s);
    return std::vector<double>(static_cast<std::size_t>(repetitions), t);
  }

  std::vector<calibrate::KernelSeconds> time_gemms(const std::vector<calibrate::GemmShape>& shapes, int reps) override {
    ++log_->kernels;
    std::vector<calibrate::KernelSeconds> out;
    for (const calibrate::GemmShape& s : shapes) {
      log_->table_gemms.push_back(s);
      out.emplace_back(static_cast<std::size_t>(reps), product_seconds(s));
    }
    return out;
  }
  // Every score computed (4·b·h·d·length² FLOPs for a prompt, 4·b·h·d·length for one query) and
  // K, V, Q and the output moved once in fp16, at the products' shares, plus the launch.
  std::vector<calibrate::KernelSeconds> time_attention(const std::vector<calibrate::AttentionShape>& shapes, bool prefill,
                                                       int reps) override {
    ++log_->kernels;
    std::vector<calibrate::KernelSeconds> out;
    for (const calibrate::AttentionShape& a : shapes) {
      log_->table_attention.push_back(a);
      const double b = static_cast<double>(a.batch), d = static_cast<double>(a.head_dim), n = static_cast<double>(a.length);
      const double queries = prefill ? n : 1;
      const double flops = 4 * b * static_cast<double>(a.heads) * d * queries * n;
      const double bytes = 2 * b * d * (2 * static_cast<double>(a.kv_heads) * n + 2 * static_cast<double>(a.heads) * queries);
      out.emplace_back(static_cast<std::size_t>(reps), bytes / (kMemory * kBandwidth) + flops / (kCompute * kPeak) + kLaunch);
    }
    return out;
  }
  int device_count() const override { return log_->devices; }
  // 5 us and 100 GB/s of bus bandwidth: 2·(g − 1)/g of the message's fp16 bytes.
  std::vector<calibrate::KernelSeconds> time_all_reduce(const std::vector<long>& elements, int reps) override {
    ++log_->kernels;
    const double g = log_->devices;
    std::vector<calibrate::KernelSeconds> out;
    for (long e : elements) {
      out.emplace_back(static_cast<std::size_t>(reps), 5e-6 + 2 * (g - 1) / g * 2 * static_cast<double>(e) / 100e9);
    }
    return out;
  }
  std::string gemm_method() const override { return "timed by a formula"; }
  std::string attention_method() const override { return "timed by a formula"; }
  std::string all_reduce_method() const override { return "timed by a formula"; }

 private:
  static double product_seconds(const calibrate::GemmShape& s) {
    const calibrate::PointWork w = calibrate::point_work(s, DType::fp32);
    return (w.weight_bytes + w.activation_bytes) / (kMemory * kBandwidth) + w.flops / (kCompute * kPeak) + kLaunch;
  }
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
