// The CPU backend: STREAM-style bandwidth, FMA peak and GEMM with Eigen, on all hardware threads.
#include <Eigen/Core>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>

#include "calibrate/calibration_device.hpp"
#include "calibrate/cpu/fma_chains.hpp"
#include "calibrate/cpu/sum_array.hpp"
#include "calibrate/cpu/thread_team.hpp"

namespace roofline::calibrate {

namespace {

using Clock = std::chrono::steady_clock;
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;  // column-major: a column is contiguous
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Up to this many rows a product is a batch of matrix-vector products over panels of weight
// columns small enough to stay in L2: each weight comes from memory once and is reused from cache
// by every row, as decode kernels do. Eigen's GEMM would first copy ("pack") the whole weight
// matrix, tripling the traffic; above this many rows packing pays for itself. At 16 rows it
// already does: there Eigen's kernel fills its 16-float AVX-512 packets, and on the development
// VM ran a Llama-2 layer in 72-140 ms against 88-179 ms for 16 matrix-vector products.
constexpr long kBatchedGemvRows = 15;
constexpr double kPanelBytes = 256 * 1024;
// The weights a kernel table's product rotates through: 4 × this VM's 32 MiB last-level cache
// (at 64 MiB, single-row products read 1.5-2 × the bandwidth calibrate measured: from the cache).
constexpr double kRotatedBytes = 128 << 20;
constexpr long kMostCopies = 128;  // a small product's copies: a 128 x 128 one's 64 KiB rotate 8 MiB

template <class Weights>
void multiply(Matrix& y, long c0, const RowMatrix& x, const Weights& w) {
  if (x.rows() > kBatchedGemvRows) {
    y.middleCols(c0, w.cols()).noalias() = x * w;
    return;
  }
  const long panel = std::max(8L, static_cast<long>(kPanelBytes / (sizeof(float) * static_cast<double>(w.rows()))));
  for (long c = 0; c < w.cols(); c += panel) {
    const long n = std::min(panel, w.cols() - c);
    for (long b = 0; b < x.rows(); ++b) y.row(b).segment(c0 + c, n).noalias() = x.row(b) * w.middleCols(c, n);
  }
}

// Operands in [-1, 1) from a linear congruential sequence: Eigen's Random calls std::rand for
// each element, which for the curves' gigabytes of weights took longer than measuring them.
template <class M>
M filled(long rows, long cols, std::uint32_t seed) {
  M m(rows, cols);
  std::uint32_t s = seed * 2654435761U + 1;
  float* p = m.data();
  for (long i = 0; i < m.size(); ++i) {
    s = s * 1664525U + 1013904223U;
    p[i] = static_cast<float>(static_cast<std::int32_t>(s)) * (1.0F / 2147483648.0F);
  }
  return m;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("calibration kernel gave a wrong result: " + what);
}

// One entry of a·b, in double, to check a product against.
double reference_entry(const RowMatrix& a, const Matrix& b, long i, long j) {
  double s = 0;
  for (long k = 0; k < a.cols(); ++k) s += static_cast<double>(a(i, k)) * b(k, j);
  return s;
}

void check_product(const RowMatrix& x, const Matrix& w, const Matrix& y, const std::string& what) {
  for (long j : {0L, y.cols() / 2, y.cols() - 1}) {
    const double want = reference_entry(x, w, 0, j);
    check(std::fabs(y(0, j) - want) <= 1e-3 * (1 + std::fabs(want)), what);
  }
}

class CpuDevice final : public CalibrationDevice {
 public:
  CpuDevice() : team_(static_cast<int>(std::max(1U, std::thread::hardware_concurrency()))) {}

  std::string description() const override { return fmt::format("cpu: {}, {} threads", cpu_model(), team_.size()); }
  std::string toolchain() const override {
    return fmt::format("g++ {}, Eigen {}.{}.{}", __VERSION__, EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION);
  }
  DType gemm_dtype() const override { return DType::fp32; }

  Measurement copy(const CalibrationOptions& o) override { return stream(o, Stream::copy); }
  Measurement triad(const CalibrationOptions& o) override { return stream(o, Stream::triad); }
  Measurement read(const CalibrationOptions& o) override { return stream(o, Stream::read); }

  Measurement fma_peak(const CalibrationOptions& o) override {
    const long iterations = 20'000'000;
    std::vector<double> seconds;
    for (int rep = 0; rep <= o.repetitions; ++rep) {
      std::vector<float> results(team_.size());
      const auto t0 = Clock::now();
      team_.run([&](int i, std::barrier<>&) { results[i] = fma_chains(iterations); });
      const double s = seconds_since(t0);
      for (float r : results) check(std::fabs(r - 1.0F) < 1e-3F, "fma chains did not reach their fixed point");
      if (rep > 0) seconds.push_back(s);  // the first run warms the cores up
    }
    return summarize("fma_fp32", Rate::flops_per_s, fma_chains_flops(iterations) * team_.size(), seconds);
  }

  std::vector<Measurement> gemm(const CalibrationOptions& o) override {
    const long n = 2048;
    const GemmShape shape{n, n, n, 1};
    const auto seconds = run_step({shape}, o.repetitions);
    return {summarize("gemm_fp32", Rate::flops_per_s, 2.0 * n * n * n, seconds)};
  }

  std::vector<double> run_step(const std::vector<GemmShape>& shapes, int repetitions) override {
    struct Operands {
      RowMatrix x;
      Matrix y;
      std::vector<Matrix> w;
    };
    std::vector<Operands> ops;
    for (const GemmShape& s : shapes) {
      Operands o{filled<RowMatrix>(s.rows, s.in, 1), Matrix::Zero(s.rows, s.out), {}};
      for (long c = 0; c < s.count; ++c) o.w.push_back(filled<Matrix>(s.in, s.out, static_cast<std::uint32_t>(c + 2)));
      ops.push_back(std::move(o));
    }
    std::vector<double> seconds;
    for (int rep = 0; rep <= repetitions; ++rep) {
      double s = 0;
      team_.run([&](int index, std::barrier<>& sync) {
        sync.arrive_and_wait();
        const auto t0 = Clock::now();
        for (Operands& o : ops) {
          const auto [c0, c1] = team_.share(o.y.cols(), index);
          for (const Matrix& w : o.w) {
            multiply(o.y, c0, o.x, w.middleCols(c0, c1 - c0));
            sync.arrive_and_wait();  // the next kernel starts when this one is done everywhere
          }
        }
        if (index == 0) s = seconds_since(t0);
      });
      if (rep > 0) seconds.push_back(s);  // the first run touches the pages
    }
    for (const Operands& o : ops) check_product(o.x, o.w.back(), o.y, "synthetic step product");
    return seconds;
  }

  // Each product as a synthetic step of copies of it, each with its own weights, so that small
  // weights come from memory as a model's layers' do rather than from the cache the last
  // repetition left them in: as many as make kRotatedBytes, but at most kMostCopies (so a
  // product of under 1 MiB of weights rotates less: 128 times its own) and at least one.
  std::vector<KernelSeconds> time_gemms(const std::vector<GemmShape>& shapes, int repetitions) override {
    std::vector<KernelSeconds> out;
    for (GemmShape s : shapes) {
      const double weight_bytes = sizeof(float) * static_cast<double>(s.in) * static_cast<double>(s.out);
      s.count = std::clamp(static_cast<long>(std::ceil(kRotatedBytes / weight_bytes)), 1L, kMostCopies);
      KernelSeconds seconds = run_step({s}, repetitions);
      for (double& x : seconds) x /= static_cast<double>(s.count);
      out.push_back(std::move(seconds));
    }
    return out;
  }
  std::vector<KernelSeconds> time_attention(const std::vector<AttentionShape>&, bool, int) override { return {}; }
  int device_count() const override { return 1; }
  std::vector<KernelSeconds> time_all_reduce(const std::vector<long>&, int) override { return {}; }
  std::string gemm_method() const override {
    return fmt::format("Eigen fp32 products on {} threads, as the synthetic step runs them (matrix-vector products "
                       "over cached weight panels up to {} rows), timed by the steady clock; each repetition runs "
                       "copies of the product with their own weights, as many as make {} MiB but at most {} (a "
                       "product of under {} MiB of weights rotates {} times its own: a 128 x 128 one's 64 KiB, 8 MiB "
                       "in all) and at least one, so that they stream from memory where the last-level cache is under "
                       "a quarter of the weights rotated",
                       team_.size(), kBatchedGemvRows, kRotatedBytes / (1 << 20), kMostCopies,
                       kRotatedBytes / (1 << 20) / static_cast<double>(kMostCopies), kMostCopies);
  }
  std::string attention_method() const override { return "the cpu backend has no attention kernel"; }
  std::string all_reduce_method() const override { return "the cpu backend has no all-reduce"; }

 private:
  enum class Stream { copy, triad, read };

  Measurement stream(const CalibrationOptions& o, Stream kind) {
    const long n = static_cast<long>(o.stream_bytes / sizeof(double));
    std::vector<double> a(n), b(n), c(n);
    const double scalar = 3.0;
    team_.run([&](int i, std::barrier<>&) {  // first touch by the thread that will use the pages
      const auto [lo, hi] = team_.share(n, i);
      for (long k = lo; k < hi; ++k) {
        a[k] = 1.0;
        b[k] = 2.0;
        c[k] = 0.5;
      }
    });
    std::vector<double> seconds, sums(team_.size());
    for (int rep = 0; rep <= o.repetitions; ++rep) {
      const auto t0 = Clock::now();
      team_.run([&](int i, std::barrier<>&) {
        const auto [lo, hi] = team_.share(n, i);
        switch (kind) {
          case Stream::copy:
            for (long k = lo; k < hi; ++k) c[k] = a[k];
            break;
          case Stream::triad:
            for (long k = lo; k < hi; ++k) a[k] = b[k] + scalar * c[k];
            break;
          case Stream::read:
            sums[i] = sum_array(c.data() + lo, hi - lo);
            break;
        }
      });
      if (rep > 0) seconds.push_back(seconds_since(t0));
    }
    std::string name;
    double arrays = 0;
    switch (kind) {
      case Stream::copy:
        name = "copy", arrays = 2;
        for (long k : {0L, n / 3, n - 1}) check(c[k] == 1.0, name);
        break;
      case Stream::triad:
        name = "triad", arrays = 3;
        for (long k : {0L, n / 3, n - 1}) check(a[k] == 2.0 + scalar * 0.5, name);
        break;
      case Stream::read:
        name = "read", arrays = 1;
        double total = 0;
        for (double s : sums) total += s;
        check(total == 0.5 * static_cast<double>(n), name);  // halves sum exactly in any order
        break;
    }
    // STREAM convention: bytes read plus bytes written, without write-allocate traffic.
    return summarize(name, Rate::bytes_per_s, arrays * sizeof(double) * static_cast<double>(n), seconds);
  }

  ThreadTeam team_;
};

}  // namespace

std::unique_ptr<CalibrationDevice> make_cpu_device() { return std::make_unique<CpuDevice>(); }

}  // namespace roofline::calibrate
