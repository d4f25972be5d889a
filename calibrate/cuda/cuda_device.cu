// The CUDA backend: vectorised copy/triad over a grid that fills the chip, an FP32 FMA peak,
// an FP16 tensor-core GEMM with WMMA, and cuBLAS GEMMs for the practical ceiling; for the kernel
// tables, cuBLAS GEMMs over a grid, an unfused attention kernel and NCCL's all-reduce, each
// replayed from a CUDA graph. Every result is checked on the host before its rate is reported;
// every CUDA call is checked.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
#ifdef ROOFLINEPLAN_HAVE_NCCL
#include <nccl.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
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
#ifdef ROOFLINEPLAN_HAVE_NCCL
void nccl_check(ncclResult_t r, const char* what, const char* file, int line) {
  if (r != ncclSuccess) {
    throw std::runtime_error(std::string("NCCL error in ") + what + " (" + file + ":" + std::to_string(line) +
                             "): " + ncclGetErrorString(r));
  }
}
#define NCCL_CHECK(x) nccl_check((x), #x, __FILE__, __LINE__)
#endif

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

// The kernel tables' operands: element i of sequence `seed` is a value in [-1, 1) that the host
// computes as the device does, so a result is checked on the host without copying its operands.
__host__ __device__ inline float hashed_value(std::uint64_t i, std::uint32_t seed) {
  std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761u ^ static_cast<std::uint32_t>(i >> 32) * 2246822519u ^
                    (seed + 1u) * 3266489917u;
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  x *= 3266489917u;
  x ^= x >> 16;
  return static_cast<float>(static_cast<std::int32_t>(x)) * (1.0f / 2147483648.0f);
}
float hashed_half(std::uint64_t i, std::uint32_t seed) { return __half2float(__float2half(hashed_value(i, seed))); }

__global__ void fill_hashed(half* a, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    a[i] = __float2half(hashed_value(i, seed));
  }
}

__global__ void fill_half(half* a, std::size_t n, float value) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    a[i] = __float2half(value);
  }
}

// A block's maximum or sum, every thread getting it (blockDim.x a multiple of 32, at most 1024).
__device__ float block_reduce(float v, bool maximum) {
  __shared__ float part[32];
  for (int o = 16; o > 0; o /= 2) {
    const float w = __shfl_down_sync(0xffffffffu, v, o);
    v = maximum ? fmaxf(v, w) : v + w;
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // the previous call's readers of part[0] are done
  if (lane == 0) part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < int(blockDim.x / 32) ? part[lane] : (maximum ? -INFINITY : 0.0f);
    for (int o = 16; o > 0; o /= 2) {
      const float w = __shfl_down_sync(0xffffffffu, v, o);
      v = maximum ? fmaxf(v, w) : v + w;
    }
    if (lane == 0) part[0] = v;
  }
  __syncthreads();
  return part[0];
}

// The softmax of each row of scores, in place, one block a row. `causal`: rows are query
// positions 0 … causal − 1 over and over (a prompt's heads one after another), and a query sees
// the keys up to its own position; the rest get probability 0.
__global__ void softmax_rows(half* scores, long cols, long causal) {
  half* x = scores + static_cast<std::size_t>(blockIdx.x) * cols;
  const long valid = causal > 0 ? static_cast<long>(blockIdx.x % causal) + 1 : cols;
  float m = -INFINITY;
  for (long j = threadIdx.x; j < valid; j += blockDim.x) m = fmaxf(m, __half2float(x[j]));
  m = block_reduce(m, true);
  float sum = 0;
  for (long j = threadIdx.x; j < valid; j += blockDim.x) sum += __expf(__half2float(x[j]) - m);
  const float inv = 1.0f / block_reduce(sum, false);
  for (long j = threadIdx.x; j < cols; j += blockDim.x) {
    x[j] = __float2half(j < valid ? __expf(__half2float(x[j]) - m) * inv : 0.0f);
  }
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
  void start(cudaStream_t s = 0) {
    stream_ = s;
    CUDA_CHECK(cudaEventRecord(start_, s));
  }
  double stop() {
    CUDA_CHECK(cudaEventRecord(stop_, stream_));
    CUDA_CHECK(cudaEventSynchronize(stop_));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3;
  }

 private:
  cudaEvent_t start_{}, stop_{};
  cudaStream_t stream_ = 0;
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
  ~CudaDevice() override {
    if (table_blas_) cublasDestroy(table_blas_);
    if (stream_) cudaStreamDestroy(stream_);
    cudaFree(workspace_);
    cublasDestroy(blas_);
  }

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

  // [rows × in] · [in × out] as engines call it: Y = X·Wᵀ with W stored [out × in] (nn.Linear's
  // weights), row-major, which cuBLAS (column-major) runs as Yᵀ = W·Xᵀ, "TN". fp16 operands and
  // output, fp32 accumulation. Each repetition replays copies of the product, each over its own
  // weights, 4 × L2 of them at least (at most 128 copies), so that weights come from memory.
  std::vector<KernelSeconds> time_gemms(const std::vector<GemmShape>& shapes, int repetitions) override {
    start_tables();
    std::size_t x_elems = 0, y_elems = 0, w_elems = 0;
    std::vector<long> copies;
    for (const GemmShape& s : shapes) {
      const std::size_t kn = std::size_t(s.in) * s.out;
      copies.push_back(rotation(2.0 * double(kn), 128));
      x_elems = std::max(x_elems, std::size_t(s.rows) * s.in);
      y_elems = std::max(y_elems, std::size_t(s.rows) * s.out);
      w_elems = std::max(w_elems, kn * copies.back());
    }
    DeviceBuffer<half> x(x_elems), y(y_elems), w(w_elems);
    fill_on_device(x, 11);
    fill_on_device(w, 12);
    const float one = 1.0f, zero = 0.0f;
    std::vector<KernelSeconds> out;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const GemmShape& s = shapes[i];
      const long n = copies[i];
      const std::size_t kn = std::size_t(s.in) * s.out;
      out.push_back(time_replays(
          [&] {
            for (long c = 0; c < n; ++c) {
              CUBLAS_CHECK(cublasGemmEx(table_blas_, CUBLAS_OP_T, CUBLAS_OP_N, int(s.out), int(s.rows), int(s.in), &one,
                                        w.get() + c * kn, CUDA_R_16F, int(s.in), x.get(), CUDA_R_16F, int(s.in), &zero,
                                        y.get(), CUDA_R_16F, int(s.out), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
            }
          },
          n, repetitions));
      // Y[0][0] of the last copy: row 0 of X against row 0 of that copy's W.
      double want = 0;
      for (long k = 0; k < s.in; ++k) want += double(hashed_half(k, 11)) * hashed_half((n - 1) * kn + k, 12);
      check(std::fabs(first_of(y) - want) <= 1e-2 * (1 + std::fabs(want)),
            "table GEMM " + std::to_string(s.rows) + " × " + std::to_string(s.out) + " × " + std::to_string(s.in));
    }
    return out;
  }

  // Not FlashAttention: cuBLAS strided-batched GEMMs around a softmax kernel, the query heads of
  // each KV head stacked into one product (grouped-query attention): S = Q·Kᵀ/√d, P = softmax(S),
  // O = P·V, all fp16 with fp32 accumulation. The scores go through memory, and a prompt's kernel
  // computes every score and masks the upper half: twice a causal FMHA's FLOPs.
  std::vector<KernelSeconds> time_attention(const std::vector<AttentionShape>& shapes, bool prefill,
                                            int repetitions) override {
    start_tables();
    std::vector<KernelSeconds> out;
    for (const AttentionShape& a : shapes) {
      if (a.heads % a.kv_heads != 0) throw std::invalid_argument("attention: heads must be a multiple of KV heads");
      const long group = a.heads / a.kv_heads, batches = a.batch * a.kv_heads;
      const long rows = prefill ? group * a.length : group;  // queries a batch entry
      const long keys = a.length, d = a.head_dim;
      const std::size_t q_n = std::size_t(batches) * rows * d, kv_n = std::size_t(batches) * keys * d;
      const std::size_t set = q_n + 2 * kv_n;  // Q, K and V of one copy
      const long n = rotation(2.0 * double(set), 64);
      DeviceBuffer<half> qkv(set * n), scores(std::size_t(batches) * rows * keys), o(q_n);
      fill_on_device(qkv, 21);
      const float scale = 1.0f / std::sqrt(float(d)), one = 1.0f, zero = 0.0f;
      out.push_back(time_replays(
          [&] {
            for (long c = 0; c < n; ++c) {
              const half* q = qkv.get() + c * set;
              const half* k = q + q_n;
              const half* v = k + kv_n;
              // Sᵀ [keys × rows] = K [keys × d] · Qᵀ [d × rows], each batch entry's (column-major).
              CUBLAS_CHECK(cublasGemmStridedBatchedEx(
                  table_blas_, CUBLAS_OP_T, CUBLAS_OP_N, int(keys), int(rows), int(d), &scale, k, CUDA_R_16F, int(d),
                  keys * d, q, CUDA_R_16F, int(d), rows * d, &zero, scores.get(), CUDA_R_16F, int(keys), rows * keys,
                  int(batches), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
              softmax_rows<<<unsigned(batches * rows), 256, 0, stream_>>>(scores.get(), keys, prefill ? a.length : 0);
              CUDA_CHECK(cudaGetLastError());
              // Oᵀ [d × rows] = Vᵀ [d × keys] · Pᵀ [keys × rows].
              CUBLAS_CHECK(cublasGemmStridedBatchedEx(
                  table_blas_, CUBLAS_OP_N, CUBLAS_OP_N, int(d), int(rows), int(keys), &one, v, CUDA_R_16F, int(d),
                  keys * d, scores.get(), CUDA_R_16F, int(keys), rows * keys, &zero, o.get(), CUDA_R_16F, int(d),
                  rows * d, int(batches), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
            }
          },
          n, repetitions));
      check_attention(o, (n - 1) * set, q_n, kv_n, keys, d, prefill);
    }
    return out;
  }

  int device_count() const override {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 1;
  }

  std::vector<KernelSeconds> time_all_reduce(const std::vector<long>& elements, int repetitions) override {
#ifndef ROOFLINEPLAN_HAVE_NCCL
    (void)elements;
    (void)repetitions;
    return {};
#else
    // One process drives every GPU (ncclCommInitAll); out of place, so the sum of ones stays
    // the number of GPUs; 10 all-reduces a repetition, the slowest GPU's time.
    const int gpus = device_count();
    const long most = *std::max_element(elements.begin(), elements.end());
    struct Rank {
      int device = 0;
      ncclComm_t comm = nullptr;
      half *send = nullptr, *recv = nullptr;
      cudaStream_t stream = nullptr;
      cudaEvent_t start = nullptr, stop = nullptr;
    };
    struct Ranks {
      std::vector<Rank> r;
      ~Ranks() {
        for (Rank& x : r) {
          cudaSetDevice(x.device);
          if (x.comm) ncclCommDestroy(x.comm);
          cudaFree(x.send);
          cudaFree(x.recv);
          if (x.start) cudaEventDestroy(x.start);
          if (x.stop) cudaEventDestroy(x.stop);
          if (x.stream) cudaStreamDestroy(x.stream);
        }
        cudaSetDevice(0);
      }
    } ranks;
    ranks.r.resize(gpus);
    std::vector<ncclComm_t> comms(gpus);
    NCCL_CHECK(ncclCommInitAll(comms.data(), gpus, nullptr));
    // Every comm into its owner before anything else can throw: a CUDA call failing on rank i
    // would otherwise leak the comms of the ranks after it.
    for (int i = 0; i < gpus; ++i) {
      ranks.r[i].device = i;
      ranks.r[i].comm = comms[i];
    }
    for (int i = 0; i < gpus; ++i) {
      Rank& x = ranks.r[i];
      CUDA_CHECK(cudaSetDevice(i));
      CUDA_CHECK(cudaMalloc(&x.send, most * sizeof(half)));
      CUDA_CHECK(cudaMalloc(&x.recv, most * sizeof(half)));
      CUDA_CHECK(cudaStreamCreate(&x.stream));
      CUDA_CHECK(cudaEventCreate(&x.start));
      CUDA_CHECK(cudaEventCreate(&x.stop));
      fill_half<<<256, 256, 0, x.stream>>>(x.send, std::size_t(most), 1.0f);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaStreamSynchronize(x.stream));
    }
    constexpr int inner = 10;
    std::vector<KernelSeconds> out;
    for (long e : elements) {
      KernelSeconds seconds;
      for (int rep = 0; rep <= repetitions; ++rep) {  // the first warms NCCL's channels up
        for (Rank& x : ranks.r) {
          CUDA_CHECK(cudaSetDevice(x.device));
          CUDA_CHECK(cudaEventRecord(x.start, x.stream));
        }
        for (int t = 0; t < inner; ++t) {
          NCCL_CHECK(ncclGroupStart());
          for (Rank& x : ranks.r) NCCL_CHECK(ncclAllReduce(x.send, x.recv, std::size_t(e), ncclHalf, ncclSum, x.comm, x.stream));
          NCCL_CHECK(ncclGroupEnd());
        }
        double slowest = 0;
        for (Rank& x : ranks.r) {
          CUDA_CHECK(cudaSetDevice(x.device));
          CUDA_CHECK(cudaEventRecord(x.stop, x.stream));
        }
        for (Rank& x : ranks.r) {
          CUDA_CHECK(cudaSetDevice(x.device));
          CUDA_CHECK(cudaEventSynchronize(x.stop));
          float ms = 0;
          CUDA_CHECK(cudaEventElapsedTime(&ms, x.start, x.stop));
          slowest = std::max(slowest, ms * 1e-3 / inner);
        }
        if (rep > 0) seconds.push_back(slowest);
      }
      half last{};
      CUDA_CHECK(cudaSetDevice(0));
      CUDA_CHECK(cudaMemcpy(&last, ranks.r[0].recv + (e - 1), sizeof(half), cudaMemcpyDeviceToHost));
      check(__half2float(last) == float(gpus), "all-reduce of " + std::to_string(e) + " elements");
      out.push_back(std::move(seconds));
    }
    return out;
#endif
  }

  std::string gemm_method() const override {
    return "cuBLAS cublasGemmEx on " + std::string(props_.name) +
           ", fp16 operands and output with fp32 accumulation, in the layout engines call (Y = X·Wᵀ, W stored as "
           "nn.Linear's); " + replay_method() + "; each repetition over copies of the weights, 4 × L2 of them at least "
           "(up to 128 copies), so that small weights come from memory, not L2";
  }
  std::string attention_method() const override {
    return "NOT FlashAttention nor any engine's FMHA: an unfused kernel, cuBLAS strided-batched GEMMs (S = Q·Kᵀ/√d, "
           "O = P·V, fp16, fp32 accumulation) around a softmax kernel, each KV head's query heads stacked into one "
           "product; the scores go through memory, and a prompt's computes every score and masks the upper half "
           "(twice a causal FMHA's FLOPs). So it is slower than the attention engines run, chiefly for prompts; " +
           replay_method() + "; Q, K and V rotated through copies, 4 × L2 at least (up to 64)";
  }
  std::string all_reduce_method() const override {
#ifdef ROOFLINEPLAN_HAVE_NCCL
    int version = 0;
    ncclGetVersion(&version);
    return "NCCL " + std::to_string(version) + " all-reduce (sum, fp16, out of place) over the " +
           std::to_string(device_count()) + " GPUs of this machine from one process (ncclCommInitAll), 10 calls a "
           "timed repetition, the slowest GPU's time; not TensorRT-LLM's custom all-reduce";
#else
    return "this plugin was built without NCCL (nccl.h and libnccl were not found when it was configured)";
#endif
  }

 private:
  // The kernel tables run on a stream of their own, with a cuBLAS handle bound to it and a fixed
  // workspace, so that their launches can be captured into CUDA graphs.
  void start_tables() {
    if (table_blas_) return;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&table_blas_));
    CUBLAS_CHECK(cublasSetStream(table_blas_, stream_));
    CUDA_CHECK(cudaMalloc(&workspace_, kWorkspaceBytes));
    CUBLAS_CHECK(cublasSetWorkspace(table_blas_, workspace_, kWorkspaceBytes));
  }

  // Copies of operands of `bytes` that span 4 × L2 (a repetition then streams them from memory),
  // 1 to `most`.
  long rotation(double bytes, long most) const {
    const double cold = 4.0 * double(props_.l2CacheSize);
    return std::clamp(static_cast<long>(std::ceil(cold / bytes)), 1L, most);
  }

  void fill_on_device(DeviceBuffer<half>& b, std::uint32_t seed) {
    fill_hashed<<<props_.multiProcessorCount * 8, 256, 0, stream_>>>(b.get(), b.size(), seed);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  static float first_of(const DeviceBuffer<half>& b, std::size_t at = 0) {
    half h{};
    CUDA_CHECK(cudaMemcpy(&h, b.get() + at, sizeof(half), cudaMemcpyDeviceToHost));
    return __half2float(h);
  }

  // The seconds of one launch of `enqueue` (which enqueues `launches` kernels on stream_) in each
  // repetition: captured once into a CUDA graph and replayed, so that host launch gaps are hidden
  // as engines' CUDA graphs hide them (and as aiconfigurator's tables were timed); launched
  // directly where capture fails, which replay_method() then says.
  KernelSeconds time_replays(const std::function<void()>& enqueue, long launches, int repetitions) {
    // Once directly first: cuBLAS chooses and loads its kernels outside the capture.
    enqueue();
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    cudaGraphExec_t exec = nullptr;
    if (graph_failure_.empty()) {
      cudaGraph_t graph = nullptr;
      cudaError_t e = cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed);
      if (e == cudaSuccess) {
        try {
          enqueue();
        } catch (const std::exception& x) {
          graph_failure_ = x.what();
        }
        e = cudaStreamEndCapture(stream_, &graph);
      }
      if (e == cudaSuccess && graph_failure_.empty()) e = cudaGraphInstantiate(&exec, graph, 0);
      if (graph) cudaGraphDestroy(graph);
      if (e != cudaSuccess && graph_failure_.empty()) graph_failure_ = cudaGetErrorString(e);
      if (!graph_failure_.empty()) {
        if (exec) cudaGraphExecDestroy(exec);
        exec = nullptr;
        cudaGetLastError();  // the capture's error is said in replay_method(), not left pending
      }
    }
    Events ev;
    KernelSeconds seconds;
    try {
      for (int rep = 0; rep <= repetitions; ++rep) {  // the first warms the graph up
        ev.start(stream_);
        if (exec) CUDA_CHECK(cudaGraphLaunch(exec, stream_));
        else enqueue();
        const double s = ev.stop();
        if (rep > 0) seconds.push_back(s / double(launches));
      }
    } catch (...) {
      if (exec) cudaGraphExecDestroy(exec);
      throw;
    }
    if (exec) CUDA_CHECK(cudaGraphExecDestroy(exec));
    return seconds;
  }

  std::string replay_method() const {
    return graph_failure_.empty() ? "timed by CUDA events around CUDA-graph replays (host launch gaps hidden)"
                                  : "timed by CUDA events around direct launches, since CUDA-graph capture failed (" +
                                        graph_failure_ + "): small kernels include the host's launch gaps";
  }

  // Row 0 of batch entry 0 of the last copy, recomputed on the host from the operands' values:
  // a prompt's first query sees only the first key, so its output is V's first row exactly; a
  // decode query's is the softmax-weighted sum over every key.
  void check_attention(const DeviceBuffer<half>& o, std::size_t base, std::size_t q_n, std::size_t kv_n, long keys,
                       long d, bool prefill) {
    const std::size_t k0 = base + q_n, v0 = k0 + kv_n;
    std::vector<double> want(d, 0.0);
    if (prefill) {
      for (long j = 0; j < d; ++j) want[j] = hashed_half(v0 + j, 21);
    } else {
      std::vector<double> p(keys);
      double m = -INFINITY, sum = 0;
      for (long t = 0; t < keys; ++t) {
        double s = 0;
        for (long j = 0; j < d; ++j) s += double(hashed_half(base + j, 21)) * hashed_half(k0 + t * d + j, 21);
        p[t] = __half2float(__float2half(float(s / std::sqrt(double(d)))));  // stored in fp16, as on the device
        m = std::max(m, p[t]);
      }
      for (double& x : p) sum += (x = std::exp(x - m));
      for (long t = 0; t < keys; ++t) {
        for (long j = 0; j < d; ++j) want[j] += p[t] / sum * hashed_half(v0 + t * d + j, 21);
      }
    }
    for (long j : {0L, d / 2, d - 1}) {
      check(std::fabs(first_of(o, std::size_t(j)) - want[j]) <= 2e-3 + 1e-2 * std::fabs(want[j]),
            std::string(prefill ? "context" : "generation") + " attention, output " + std::to_string(j));
    }
  }

  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;  // cuBLAS's advice for Hopper

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
  // The kernel tables' (start_tables()).
  cudaStream_t stream_ = nullptr;
  cublasHandle_t table_blas_ = nullptr;
  void* workspace_ = nullptr;
  std::string graph_failure_;  // why CUDA-graph capture failed, once it has: launches are then direct
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
