// TensorRT-LLM 1.0: `trtllm-serve` on its PyTorch back end, its flags as the command's page
// documents them (https://nvidia.github.io/TensorRT-LLM/1.0.0/commands/trtllm-serve/trtllm-serve.html)
// and the options file --extra_llm_api_options reads (TorchLlmArgs, KvCacheConfig). The options
// file overrides the command line, so the cache's settings are given there only.
#include <fmt/format.h>

#include "launch/engines.hpp"
#include "launch/share_format.hpp"

namespace roofline::launch {

namespace {

// The largest batch whose every size up to it CudaGraphConfig's defaults capture (1 to 31, 32).
constexpr long kTrtllmUnpaddedGraphs = 32;

std::string_view whose(Vendor v) {
  switch (v) {
    case Vendor::amd: return "an AMD GPU";
    case Vendor::intel: return "an Intel accelerator";
    case Vendor::google: return "a Google TPU";
    case Vendor::apple: return "an Apple GPU";
    case Vendor::nvidia:
    case Vendor::unknown: break;
  }
  return "";
}

}  // namespace

std::optional<std::string> trtllm_refusal(const LaunchSpec& s) {
  // TensorRT-LLM is NVIDIA's, on CUDA: "optimizes the performance of a range of well-known models on
  // NVIDIA GPUs" and lists NVIDIA architectures alone (its support matrix,
  // https://nvidia.github.io/TensorRT-LLM/reference/support-matrix.html, and supported-hardware.html).
  if (s.vendor == Vendor::unknown) {
    return fmt::format("--gpu: TensorRT-LLM runs on NVIDIA GPUs only, and the GPU's name `{}` does not say NVIDIA (a "
                       "GPU's file gives no vendor but its name: begin it with NVIDIA if it is one)",
                       s.gpu_name);
  }
  if (s.vendor != Vendor::nvidia) {
    const bool others = s.vendor == Vendor::amd || s.vendor == Vendor::intel;  // vLLM and SGLang run there
    return fmt::format("--gpu: TensorRT-LLM runs on NVIDIA GPUs only, and {} is {}{}", s.gpu_name, whose(s.vendor),
                       others ? "; price it for vLLM or SGLang" : "");
  }
  if (auto kv = kv_refusal("TensorRT-LLM", s)) return kv;
  // Its quantization page: "FP4 and FP8 quantization on the latest Blackwell and Hopper GPUs"
  // (https://nvidia.github.io/TensorRT-LLM/1.0.0/features/quantization.html; its support matrix
  // adds Ada). The plan prices fp8 weights on an A100 as vLLM runs them there (Marlin, weight-only).
  if (s.fp8_asked && !s.fp8_tensor_cores) {
    // Named by the flags that chose fp8, as the other refusals are: simulate --engine says it too.
    return std::string("--weights or --kv: fp8 weights or cache (the checkpoint's, or asked), and TensorRT-LLM runs "
                       "fp8 only on GPUs with fp8 tensor cores (Ada, Hopper, Blackwell), which this GPU lacks; price "
                       "without fp8, or for vLLM");
  }
  // The fraction is written to three decimals: below 0.001 it would give the cache nothing.
  if (!(s.kv_share_of_free() >= 0.001)) {
    return fmt::format("--reserve: {} leaves the KV cache {:.2g} of the memory free after the weights, which "
                       "TensorRT-LLM's free_gpu_memory_fraction cannot say; lower --reserve",
                       share(s.reserve), s.kv_share_of_free());
  }
  return std::nullopt;
}

Script trtllm_script(const LaunchSpec& s) {
  Script script("TensorRT-LLM 1.0", "https://nvidia.github.io/TensorRT-LLM/1.0.0/commands/trtllm-serve/trtllm-serve.html",
                "trtllm-serve");
  std::string options;
  if (s.dp_attention) options += "enable_attention_dp: true\n";
  options += fmt::format("kv_cache_config:\n  dtype: {}\n  free_gpu_memory_fraction: {}\n",
                         s.kv == DType::fp8 ? "fp8" : "auto", share_up(s.kv_share_of_free()));
  // With a pipeline, TensorRT-LLM keeps pp micro-batches of --max_batch_size in flight (its
  // PyTorch executor admits pp × max_batch_size requests: model_engine.py, get_max_num_sequences).
  const long most = s.pp > 1 ? s.batch_per_microbatch() : s.batch_per_rank();
  // CUDA graphs: CudaGraphConfig left to its defaults (max_batch_size 0, taken as 128; enable_padding
  // False) captures batches 1 to 31, 32, 64 and 128 only (_generate_cuda_graph_batch_sizes,
  // tensorrt_llm/llmapi/llm_args.py of 1.0), and a decode batch of any other size runs eagerly.
  // Padded up to the planned batch, every batch up to it replays a graph: 1, 2, 4, then by 8 to 128,
  // powers of two past it, and the planned batch itself, which ends the list.
  const bool graphs = most > kTrtllmUnpaddedGraphs;
  if (graphs) options += fmt::format("cuda_graph_config:\n  enable_padding: true\n  max_batch_size: {}\n", most);
  script.preamble = fmt::format("OPTIONS=${{OPTIONS:-/tmp/rooflineplan-trtllm-$REPLICA.yaml}}\n"
                                "cat > \"$OPTIONS\" <<'YAML'\n{}YAML\n",
                                options);
  script.flag("--backend", "pytorch");
  script.flag("--tp_size", fmt::format("{}", s.tp));
  if (s.pp > 1) script.flag("--pp_size", fmt::format("{}", s.pp));
  if (s.ep > 1) script.flag("--ep_size", fmt::format("{}", s.ep));
  script.flag("--max_batch_size", fmt::format("{}", most));
  script.flag("--max_num_tokens", fmt::format("{}", s.token_budget()));
  script.flag("--max_seq_len", fmt::format("{}", s.max_len()));
  script.flag("--extra_llm_api_options", "\"$OPTIONS\"");
  script.flag("--host", "0.0.0.0");
  if (s.pp > 1) {
    const std::string rank = s.dp_attention ? fmt::format(" a rank (of {})", s.attention_ranks()) : "";
    script.notes.push_back(fmt::format("--max_batch_size {}: a micro-batch; TensorRT-LLM keeps {} in flight through "
                                       "the {} stages: {} sequences at most{}, against the plan's {}",
                                       most, s.pp, s.pp, most * s.pp, rank, s.batch_per_rank()));
    if (most * s.pp > s.batch_per_rank()) {
      script.warnings.push_back(fmt::format(
          "the plan runs {} sequences{} through {} stages: TensorRT-LLM may keep one in each, {} at once, past the "
          "plan's TPOT",
          s.batch_per_rank(), rank, s.pp, most * s.pp));
    }
  } else {
    script.notes.push_back(s.dp_attention
                               ? fmt::format("--max_batch_size {}: the planned batch of {} over {} attention ranks, "
                                             "each rank's own limit (not confirmed in the documentation)",
                                             s.batch_per_rank(), s.batch, s.attention_ranks())
                               : fmt::format("--max_batch_size {}: the planned batch", s.batch));
  }
  if (graphs) {
    script.notes.push_back(fmt::format("cuda_graph_config: CUDA graphs padded up to the batch of {}; TensorRT-LLM 1.0's "
                                       "default captures batches 1 to 32, 64 and 128 only, and decodes the others "
                                       "eagerly",
                                       most));
  }
  script.notes.push_back(fmt::format("--max_seq_len {}: the plan's {} prompt + {} generated tokens; the engine refuses longer "
                                     "requests",
                                     s.max_len(), s.prompt_tokens, s.gen_tokens));
  script.notes.push_back(fmt::format("--max_num_tokens {}: a whole {}-token prompt beside a token for each running "
                                     "sequence, the step the plan prices",
                                     s.token_budget(), s.prompt_tokens));
  const std::size_t heaviest = s.heaviest_stage();
  const StageShares& h = s.stages[heaviest];
  const double fraction = share_up_value(s.kv_share_of_free());
  if (s.stages.size() == 1) {
    script.notes.push_back(fmt::format("free_gpu_memory_fraction {}: the plan's cache, of the memory left once the "
                                       "weights ({} of the fullest GPU) and one step's activations ({}) are placed, "
                                       "--reserve {} kept free",
                                       share(fraction), share(h.weights), share_said(h.activations), share(s.reserve)));
  } else {
    script.notes.push_back(fmt::format("free_gpu_memory_fraction {}: every rank's cache, of the memory left once its "
                                       "own weights and one step's activations are placed; stage {} of {} keeps the "
                                       "least free (weights {}, activations {} of a GPU), and this fraction keeps "
                                       "--reserve {} free there, so on every stage",
                                       share(fraction), heaviest + 1, s.stages.size(), share(h.weights),
                                       share_said(h.activations), share(s.reserve)));
  }
  // Each rank sizes its own cache: the fraction of its memory less the peak a profiling step left
  // (its own weights and activations), in its own layers' bytes a token (KvCacheCreator's
  // _cal_max_tokens, tensorrt_llm/_torch/pyexecutor/_util.py). The fraction that keeps the reserve
  // on the heaviest stage gives a lighter one less than all of its own room: at a batch that fills
  // that stage, fewer sequences than the plan's.
  const auto cache = [&](std::size_t i) { return fraction * (1 - s.stages[i].weights - s.stages[i].activations); };
  if (const auto short_of = short_cache(s, cache)) {
    script.warnings.push_back(fmt::format(
        "free_gpu_memory_fraction {}: stage {} of {}'s cache holds {} of the plan's {} sequences{}: TensorRT-LLM "
        "gives every rank one fraction of what its own weights leave free, and a larger one leaves stage {} under "
        "--reserve {}; TensorRT-LLM runs that many at once, the others wait",
        share(fraction), short_of->stage + 1, s.stages.size(), short_of->held, s.batch_per_rank(),
        s.dp_attention ? " a rank" : "", heaviest + 1, share(s.reserve)));
  }
  if (s.weights == WeightSource::online_fp8) {
    script.warnings.push_back(
        "the plan stores the weights as fp8 and TensorRT-LLM does not quantize as it loads: MODEL must be an fp8 "
        "checkpoint made with NVIDIA Model Optimizer");
  }
  return script;
}

}  // namespace roofline::launch
