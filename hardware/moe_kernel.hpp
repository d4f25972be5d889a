#pragma once
// Grouped expert GEMMs: a MoE layer's routed experts as a fused MoE operator runs them
// (TensorRT-LLM's CUTLASS path, vLLM's and SGLang's fused_moe): the tokens' picks gathered by
// expert, one grouped GEMM for gate and up over every expert a pick reached, the activation, one
// grouped GEMM for down, and the picks combined back into the tokens (routing, permute and
// finalize kernels around them). What aiconfigurator's `moe` rows time (its collector,
// collector/trtllm/collect_moe.py: `create_moe` with the router's logits given, so the router's
// GEMM is not in the row; the rank's num_experts / moe_ep_size experts, inter_size / moe_tp_size
// wide). Fitted by `rooflineplan fit --kernels` on `*_moe.csv` (io/kernel_table.cpp).
namespace roofline {

// A few physical coefficients; the defaults are `fit --kernels` on the H100 and H200 MoE tables
// together (docs/expected-performance.md). The grouped GEMMs' share of the peak with full tiles on
// wide experts is the dense GEMM class's (`gemm.compute`, `gemm_fp8.compute`): the same tensor-core
// main loop. Left free, a share and the half-width below trade off (the fp8 share ran to its ceiling
// of 1 with a wider half-width, no better at the median), so the share a GPU's own GEMMs reach is
// what an unseen GPU's experts get.
struct ExpertsCoefficients {
  double memory = 0.977;   // share of the bandwidth the reached experts' weights stream at
  // p of overlap_norm between the GEMMs' compute and their weights' stream: the fit takes 1.09,
  // close to adding them, as the separate gate/up and down GEMMs each stream then compute.
  double overlap = 1.09;
  // Rows of the tile a reached expert's rows fill, half of it empty on average (CUTLASS tiles are
  // 64 to 256 rows): the fit takes 32, an expert's rows padded by about 16 on average, less than
  // half a CUTLASS tile because the grouped GEMM picks smaller tiles for few rows.
  double tile = 31.8;
  // Intermediate columns an expert holds on a GPU at which its GEMMs reach half their share: a
  // narrow expert is a short main loop for down (its K) and a few tiles across for gate and up
  // (their N), so each tile's prologue and epilogue weigh more. Without it the class's residual on
  // the balanced rows ran from -0.36 at 32 columns to +0.28 at 16384 (docs/expected-performance.md).
  double width = 326;
  double launch = 30.4 * 1e-6;  // s: routing, permute, activation and finalize kernels, a layer
};
struct ExpertsFp8Coefficients {
  // The 16-bit experts' `width`, for fp8: a tile's main loop steps 128 fp8 elements of K where it
  // steps 64 of 16 bits, so a narrow expert runs fewer steps and its fixed cost weighs more.
  double width = 732;
};

// What one fused MoE asks of a GPU, in the parts its time needs: the GEMMs' FLOPs, the reached
// experts' weights, the activations the kernels around the GEMMs move (gathered rows, the
// intermediate, the combine), the rows (picks on this GPU) and the distinct experts they reach.
struct ExpertsWork {
  double flops = 0, weights = 0, activations = 0, rows = 0, experts = 0;
  double width = 0;  // each expert's intermediate columns on this GPU; 0: wide (no narrowness term)
};
struct ExpertsTime {
  double compute = 0, memory = 0, fixed = 0;
};

// The arithmetic the grouped GEMMs run at: the 16-bit or the fp8 peak, the share of it they reach
// with full tiles, and the width at which narrow experts reach half of that.
struct ExpertsArithmetic {
  double peak = 0, share = 0, half_width = 0;
};

// The grouped GEMMs' compute (their rows padded by `tile` an expert, their share scaled by the
// experts' width w as w / (w + half_width)) overlapped with the weights' stream, then the
// activations' passes, which run as kernels of their own, at the same memory share; and the
// fixed cost.
[[nodiscard]] ExpertsTime experts_time(const ExpertsCoefficients& k, const ExpertsWork& w, const ExpertsArithmetic& a,
                                       double bandwidth);

}  // namespace roofline
