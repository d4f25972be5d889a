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
// together (docs/expected-performance.md): median |log(expected / measured)| 0.136 (16-bit) and
// 0.165 (fp8) in-sample, 0.139 and 0.164 with a GPU held out.
struct ExpertsCoefficients {
  double compute = 0.61;   // share of the 16-bit peak the grouped GEMMs reach, full tiles
  double memory = 0.845;   // share of the bandwidth the reached experts' weights stream at
  // p of overlap_norm between the GEMMs' compute and their weights' stream: the fit takes 1 (they
  // add, as the separate gate/up and down GEMMs each stream then compute).
  double overlap = 1;
  // Rows of the tile a reached expert's rows fill, half of it empty on average (CUTLASS tiles are
  // 64 to 256 rows): the fit takes its floor, 1, the padding the tables show being small beside
  // what the fixed cost and the weights explain.
  double tile = 1;
  double launch = 32.6 * 1e-6;  // s: routing, permute, activation and finalize kernels, a layer
};
struct ExpertsFp8Coefficients {
  double compute = 0.464;  // share of the fp8 peak the fp8 grouped GEMMs reach, full tiles
};

// What one fused MoE asks of a GPU, in the parts its time needs: the GEMMs' FLOPs, the reached
// experts' weights, the activations the kernels around the GEMMs move (gathered rows, the
// intermediate, the combine), the rows (picks on this GPU) and the distinct experts they reach.
struct ExpertsWork {
  double flops = 0, weights = 0, activations = 0, rows = 0, experts = 0;
};
struct ExpertsTime {
  double compute = 0, memory = 0, fixed = 0;
};

// The grouped GEMMs' compute (their rows padded by `tile` an expert) overlapped with the weights'
// stream, then the activations' passes, which run as kernels of their own, at the same memory
// share; and the fixed cost. `peak` and `share`: the 16-bit or the fp8 peak and its share.
[[nodiscard]] ExpertsTime experts_time(const ExpertsCoefficients& k, const ExpertsWork& w, double peak, double share,
                                       double bandwidth);

}  // namespace roofline
