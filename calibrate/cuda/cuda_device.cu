// The CUDA backend: vectorised copy/triad over a grid that fills the chip, an FP32 FMA peak,
// an FP16 tensor-core GEMM with WMMA, and cuBLAS GEMMs for the practical ceiling. Every result is
// checked on the host before its rate is reported; every CUDA call is checked.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/calibration_device.hpp"

namespace roofline::calibrate {

namespace {

void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
                             "): " + cudaGetErrorString(e));
  }
}
void cublas_check(cublasStatus_t s, const char* what, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuBLAS error in ") + what + " (" + file + ":" + std::to_string(line) +
                             "): status " + std::to_string(static_cast<int>(s)));
  }
}
#define CUDA_CHECK(x) cuda_check((x), #x, __FILE__, __LINE__)
#define CUBLAS_CHECK(x) cublas_check((x), #x, __FILE__, __LINE__)

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&p_, n * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::vector<T> to_host() const {
    std::vector<T> h(n_);
    CUDA_CHECK(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  void from_host(const std::vector<T>& h) { CUDA_CHECK(cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice)); }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

__global__ void fill(float4* a, float value, std::size_t n4) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += std::size_t(gridDim.x) * blockDim.x) {
    a[i] = make_float4(value, value, value, value);
  }
}

__global__ void copy_kernel(const float4* __restrict__ a, float4* __restrict__ c, std::size_t n4) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += std::size_t(gridDim.x) * blockDim.x) {
    c[i] = a[i];
  }
}

__global__ void triad_kernel(float4* __restrict__ a, const float4* __restrict__ b, const float4* __restrict__ c,
                             float s, std::size_t n4) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += std::size_t(gridDim.x) * blockDim.x) {
    const float4 x = b[i], y = c[i];
    a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
  }
}

// Each thread sums its float4s (small exact integers: the array holds 1.0), a warp adds its
// lanes, and one atomic per warp collects them as an integer, so the total is exact.
__global__ void read_kernel(const float4* __restrict__ a, unsigned long long* total, std::size_t n4) {
  float s = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += std::size_t(gridDim.x) * blockDim.x) {
    const float4 v = a[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(total, static_cast<unsigned long long>(s));
}

// Eight independent chains per thread converge to a / (1 − m) = 1.
constexpr int kChains = 8;
__global__ void fma_kernel(float* out, long iterations) {
  float x[kChains];
  for (int k = 0; k < kChains; ++k) x[k] = 1.0f + 0.01f * k + 1e-6f * threadIdx.x;
  const float m = 0.999f, a = 0.001f;
  for (long it = 0; it < iterations; ++it) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) x[k] = fmaf(x[k], m, a);
  }
  float worst = x[0];
  for (int k = 1; k < kChains; ++k) worst = fabsf(x[k] - 1.0f) > fabsf(worst - 1.0f) ? x[k] : worst;
  out[blockIdx.x * blockDim.x + threadIdx.x] = worst;
}

// Tensor cores through WMMA: each warp computes one 16×16 tile of C = A·B (row-major A, col-major
// B, n a multiple of 16), accumulating in fp32. A reference kernel, not a tuned one: cuBLAS
// measures the practical ceiling.
__global__ void wmma_gemm(const half* a, const half* b, float* c, int n) {
  using namespace nvcuda;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tiles = n / 16;
  if (warp >= tiles * tiles) return;
  const int row = (warp / tiles) * 16, col = (warp % tiles) * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < n; k += 16) {
    wmma::load_matrix_sync(fa, a + row * n + k, n);
    wmma::load_matrix_sync(fb, b + col * n + k, n);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + row * n + col, acc, n, wmma::mem_row_major);
}

class Events {
 public:
  Events() {
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~Events() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start() { CUDA_CHECK(cudaEventRecord(start_)); }
  double stop() {
    CUDA_CHECK(cudaEventRecord(stop_));
    CUDA_CHECK(cudaEventSynchronize(stop_));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("CUDA calibration kernel gave a wrong result: " + what);
}

// Values in [-1, 1) from a linear congruential sequence: the curves fill gigabytes of weights,
// which std::mt19937 and a distribution took seconds a point to make.
std::vector<half> random_halves(std::size_t n, unsigned seed) {
  std::uint32_t s = seed * 2654435761u + 1;
  std::vector<half> h(n);
  for (auto& x : h) {
    s = s * 1664525u + 1013904223u;
    x = __float2half(static_cast<float>(static_cast<std::int32_t>(s)) * (1.0f / 2147483648.0f));
  }
  return h;
}

class CudaDevice final : public CalibrationDevice {
 public:
  CudaDevice() {
    CUDA_CHECK(cudaGetDeviceProperties(&props_, 0));
    CUBLAS_CHECK(cublasCreate(&blas_));
  }
  ~CudaDevice() override { cublasDestroy(blas_); }

  std::string description() const override {
    return std::string("cuda: ") + props_.name + ", " + std::to_string(props_.multiProcessorCount) + " SMs, sm_" +
           std::to_string(props_.major) + std::to_string(props_.minor);
  }
  std::string toolchain() const override {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    return "CUDA driver " + std::to_string(driver) + ", runtime " + std::to_string(runtime) + ", nvcc " +
           std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__);
  }
  DType gemm_dtype() const override { return DType::fp16; }

  Measurement copy(const CalibrationOptions& o) override { return stream(o, false); }
  Measurement triad(const CalibrationOptions& o) override { return stream(o, true); }

  Measurement read(const CalibrationOptions& o) override {
    const std::size_t n4 = o.stream_bytes * 4 / sizeof(float4);
    DeviceBuffer<float4> a(n4);
    DeviceBuffer<unsigned long long> total(1);
    const int threads = 256, blocks = props_.multiProcessorCount * 16;
    fill<<<blocks, threads>>>(a.get(), 1.0f, n4);
    Events ev;
    std::vector<double> seconds;
    for (int rep = 0; rep <= o.repetitions; ++rep) {
      CUDA_CHECK(cudaMemset(total.get(), 0, sizeof(unsigned long long)));
      ev.start();
      read_kernel<<<blocks, threads>>>(a.get(), total.get(), n4);
      const double s = ev.stop();
      if (rep > 0) seconds.push_back(s);
      check(total.to_host()[0] == 4ULL * n4, "read");
    }
    return summarize("read", Rate::bytes_per_s, double(sizeof(float4)) * double(n4), seconds);
  }

  Measurement fma_peak(const CalibrationOptions& o) override {
    const int threads = 256, blocks = props_.multiProcessorCount * 8;
    const long iterations = 1 << 16;
    DeviceBuffer<float> out(std::size_t(threads) * blocks);
    Events ev;
    std::vector<double> seconds;
    for (int rep = 0; rep <= o.repetitions; ++rep) {
      ev.start();
      fma_kernel<<<blocks, threads>>>(out.get(), iterations);
      const double s = ev.stop();
      if (rep > 0) seconds.push_back(s);
    }
    for (float v : out.to_host()) check(std::fabs(v - 1.0f) < 1e-3f, "fma chains did not reach their fixed point");
    const double flops = 2.0 * kChains * iterations * threads * blocks;
    return summarize("fma_fp32", Rate::flops_per_s, flops, seconds);
  }

  std::vector<Measurement> gemm(const CalibrationOptions& o) override {
    const int n = 8192;
    const std::size_t nn = std::size_t(n) * n;
    DeviceBuffer<half> a(nn), b(nn);
    a.from_host(random_halves(nn, 1));
    b.from_host(random_halves(nn, 2));
    DeviceBuffer<float> c(nn);
    Events ev;
    std::vector<double> wmma_s, blas_s;
    const int warps = (n / 16) * (n / 16);
    for (int rep = 0; rep <= o.repetitions; ++rep) {
      ev.start();
      wmma_gemm<<<(warps * 32 + 255) / 256, 256>>>(a.get(), b.get(), c.get(), n);
      const double s = ev.stop();
      if (rep > 0) wmma_s.push_back(s);
    }
    check_gemm(a, b, c, n, "wmma fp16");
    const float one = 1.0f, zero = 0.0f;
    for (int rep = 0; rep <= o.repetitions; ++rep) {
      ev.start();
      // Column-major cuBLAS computing Cᵀ = Bᵀ·Aᵀ gives the row-major C = A·B of the WMMA kernel,
      // with B stored column-major (= Bᵀ row-major).
      CUBLAS_CHECK(cublasGemmEx(blas_, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, b.get(), CUDA_R_16F, n, a.get(),
                                CUDA_R_16F, n, &zero, c.get(), CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      const double s = ev.stop();
      if (rep > 0) blas_s.push_back(s);
    }
    check_gemm(a, b, c, n, "cuBLAS fp16");
    const double flops = 2.0 * n * double(n) * n;
    return {summarize("gemm_fp16_wmma", Rate::flops_per_s, flops, wmma_s),
            summarize("gemm_fp16_cublas", Rate::flops_per_s, flops, blas_s)};
  }

  std::vector<double> run_step(const std::vector<GemmShape>& shapes, int repetitions) override {
    struct Operands {
      explicit Operands(const GemmShape& shape) : s(shape), x(shape.rows * shape.in), y(shape.rows * shape.out) {}
      GemmShape s;
      DeviceBuffer<half> x, y;
      std::vector<DeviceBuffer<half>> w;
    };
    std::vector<Operands> ops;
    ops.reserve(shapes.size());
    for (const GemmShape& s : shapes) {
      Operands& o = ops.emplace_back(s);
      o.x.from_host(random_halves(o.x.size(), 3));
      for (long c = 0; c < s.count; ++c) {
        o.w.emplace_back(s.in * s.out);
        o.w.back().from_host(random_halves(s.in * s.out, 4 + c));
      }
    }
    // fp16 operands, fp32 accumulation, as inference kernels run them (datacenter tensor cores do
    // both at one rate): an fp16 sum over 14336 terms would drift past the check below.
    const float one = 1.0f, zero = 0.0f;
    Events ev;
    std::vector<double> seconds;
    for (int rep = 0; rep <= repetitions; ++rep) {
      ev.start();
      for (Operands& o : ops) {
        for (auto& w : o.w) {
          // Y[rows × out] = X[rows × in] · W[in × out], all column-major.
          CUBLAS_CHECK(cublasGemmEx(blas_, CUBLAS_OP_N, CUBLAS_OP_N, int(o.s.rows), int(o.s.out), int(o.s.in), &one,
                                    o.x.get(), CUDA_R_16F, int(o.s.rows), w.get(), CUDA_R_16F, int(o.s.in), &zero,
                                    o.y.get(), CUDA_R_16F, int(o.s.rows), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        }
      }
      const double s = ev.stop();
      if (rep > 0) seconds.push_back(s);
    }
    for (Operands& o : ops) {
      const auto x = o.x.to_host(), w = o.w.back().to_host(), y = o.y.to_host();
      double want = 0;
      for (long k = 0; k < o.s.in; ++k) want += double(__half2float(x[k * o.s.rows])) * __half2float(w[k]);
      check(std::fabs(__half2float(y[0]) - want) <= 2e-2 * (1 + std::fabs(want)), "synthetic step product");
    }
    return seconds;
  }

 private:
  Measurement stream(const CalibrationOptions& o, bool triad) {
    const std::size_t n4 = o.stream_bytes * 4 / sizeof(float4);  // 4× the CPU arrays: GPU caches are ~50-100 MB
    DeviceBuffer<float4> a(n4), b(n4), c(n4);
    const int threads = 256, blocks = props_.multiProcessorCount * 16;
    fill<<<blocks, threads>>>(a.get(), 1.0f, n4);
    fill<<<blocks, threads>>>(b.get(), 2.0f, n4);
    fill<<<blocks, threads>>>(c.get(), 0.5f, n4);
    Events ev;
    std::vector<double> seconds;
    for (int rep = 0; rep <= o.repetitions; ++rep) {
      ev.start();
      if (triad) {
        triad_kernel<<<blocks, threads>>>(a.get(), b.get(), c.get(), 3.0f, n4);
      } else {
        copy_kernel<<<blocks, threads>>>(a.get(), c.get(), n4);
      }
      const double s = ev.stop();
      if (rep > 0) seconds.push_back(s);
    }
    const auto out = (triad ? a : c).to_host();
    const float want = triad ? 2.0f + 3.0f * 0.5f : 1.0f;
    for (std::size_t i : {std::size_t(0), n4 / 3, n4 - 1}) check(out[i].x == want && out[i].w == want, triad ? "triad" : "copy");
    const double bytes = (triad ? 3.0 : 2.0) * sizeof(float4) * double(n4);
    return summarize(triad ? "triad" : "copy", Rate::bytes_per_s, bytes, seconds);
  }

  void check_gemm(const DeviceBuffer<half>& a, const DeviceBuffer<half>& b, const DeviceBuffer<float>& c, int n,
                  const std::string& what) {
    const auto ha = a.to_host(), hb = b.to_host();
    const auto hc = c.to_host();
    for (int idx : {0, n * n / 2 + 7, n * n - 1}) {
      const int row = idx / n, col = idx % n;
      double want = 0;
      for (int k = 0; k < n; ++k) want += double(__half2float(ha[row * n + k])) * __half2float(hb[col * n + k]);
      check(std::fabs(hc[idx] - want) <= 1e-2 * (1 + std::fabs(want)), what);
    }
  }

  cudaDeviceProp props_{};
  cublasHandle_t blas_{};
};

}  // namespace

std::unique_ptr<CalibrationDevice> make_plugin_device() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    throw std::runtime_error(std::string("no CUDA device: ") +
                             (e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports none"));
  }
  return std::make_unique<CudaDevice>();
}

}  // namespace roofline::calibrate
