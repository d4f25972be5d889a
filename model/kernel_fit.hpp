#pragma once
// The kernel classes' coefficients (hardware/kernel_classes.hpp) fitted to kernels measured on
// real GPUs, and how well they carry over: each class fitted on each GPU alone (in-sample) and on
// all the other GPUs to predict the one left out (leave-one-GPU-out), the check that a GPU the
// tables never saw is priced right. Least squares on log(expected / measured), Levenberg–Marquardt
// in the logs of the coefficients, inside their physical bounds.
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "hardware/kernel_classes.hpp"

namespace roofline {

// One measured kernel on GPU number `gpu` (an index into the ceilings the fit is given).
struct MeasuredKernel {
  KernelClass klass;
  KernelAsk ask;
  double seconds = 0;
  std::size_t gpu = 0;
};

// A class on one GPU: how many kernels, the median |log(expected / measured)| of the GPU's own
// fit and of the fit on the other GPUs (none with one GPU only).
struct ClassResidual {
  KernelClass klass;
  std::size_t gpu = 0;
  std::size_t samples = 0;
  double in_sample = 0;
  std::optional<double> held_out;
  bool fitted = true;  // false: too few kernels to fit; the class kept its defaults (said)
};

struct KernelFit {
  // Each GPU's own fit, by index; a class it has too few kernels of keeps the pooled fit's.
  std::vector<KernelCoefficients> per_gpu;
  KernelCoefficients pooled;                // every GPU's kernels together
  std::vector<ClassResidual> residuals;     // by class, then GPU; only where the GPU has kernels of it
  // Over every kernel of the class: the pooled fit's and the held-out fits' median |log|.
  struct Summary {
    KernelClass klass;
    std::size_t samples = 0;
    double in_sample = 0;
    std::optional<double> held_out;
    bool fitted = true;  // false: too few kernels in all; the class kept its shipped defaults
    // The least measured / bound of the class's kernels (≥ 1 while the roofline holds), and which.
    double closest = INFINITY;
    const MeasuredKernel* closest_kernel = nullptr;
    std::size_t below_bound = 0;       // kernels faster than the DRAM roofline (activations in L2)
    double closest_streamed = INFINITY;  // the least measured / streamed bound: ≥ 1 for all
  };
  std::vector<Summary> summary;
};

// A class needs this many kernels a coefficient, else it keeps its defaults.
inline constexpr std::size_t kKernelsPerCoefficient = 4;

// A measured kernel's roofline bound: max(FLOPs / peak, bytes / bandwidth); an all-reduce's, as
// the bound prices one through a switch, (k − 1)/k of the message through each GPU's link.
[[nodiscard]] double roofline_seconds(const MeasuredKernel& m, const KernelCeilings& c);

// The same with only the bytes that must stream from memory (KernelAsk::stream_bytes): what a
// kernel timed in a loop over activations that stay in L2 cannot beat either.
[[nodiscard]] double streamed_bound_seconds(const MeasuredKernel& m, const KernelCeilings& c);

// The expected time of a measured kernel under `k`, never below its roofline bound.
[[nodiscard]] double expected_kernel_seconds(const KernelCoefficients& k, const MeasuredKernel& m,
                                             const KernelCeilings& c);

// Fits every class present in `kernels`; classes absent keep `start`'s coefficients.
[[nodiscard]] KernelCoefficients fit_kernel_classes(std::span<const MeasuredKernel> kernels,
                                                    std::span<const KernelCeilings> gpus, KernelCoefficients start = {});

// The fits and their residuals, in-sample and leave-one-GPU-out.
[[nodiscard]] KernelFit fit_and_check_kernels(std::span<const MeasuredKernel> kernels,
                                              std::span<const KernelCeilings> gpus);

}  // namespace roofline
