// vLLM 0.11: `vllm serve`, its flags as the engine arguments document them
// (https://docs.vllm.ai/en/v0.11.2/configuration/engine_args.html; vllm/config/scheduler.py and
// cache.py of the 0.11 line). Each rank of data parallelism is an engine core with its own
// scheduler, so --max-num-seqs and --max-num-batched-tokens are a rank's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "launch/engines.hpp"
#include "launch/share_format.hpp"

namespace roofline::launch {

namespace {

// The largest decode batch vLLM 0.11 captures a CUDA graph for by default, whatever max_num_seqs.
constexpr long kVllmGraphLimit = 512;

}  // namespace

std::optional<std::string> vllm_refusal(const LaunchSpec& s) {
  // vLLM on macOS runs on the CPU: "Currently the CPU implementation for macOS supports FP32 and
  // FP16 datatypes" (getting_started/installation/cpu, Apple silicon, v0.11 and v0.12 pages); the
  // Metal plugin (vllm-project/vllm-metal) is a separate project on MLX.
  if (s.vendor == Vendor::apple) {
    return fmt::format("--gpu: vLLM 0.11 has no back end for Apple GPUs (on macOS it runs on the CPU alone; "
                       "vllm-metal is a separate plugin), so {} is not what it runs on",
                       s.gpu_name);
  }
  // On a TPU vLLM 0.11 runs its TPU platform (vllm/platforms/tpu.py: Pallas attention under XLA,
  // CUDA graphs off, chips chosen by TPU_VISIBLE_CHIPS), whose defaults are its own: a token budget
  // from a chip table (EngineArgs._set_default_args, arg_utils.py: V6E 1024 and V5E 512 for the
  // API server, matched against the name the platform reports), a KV page size from max_model_len
  // (PallasAttentionBackend.get_page_size: 16 past 8192 tokens, else max_model_len / 16 within 16
  // to 256), and tpu_inference replacing the platform where installed. None of it is modelled.
  if (s.vendor == Vendor::google) {
    return fmt::format("--gpu: vLLM 0.11 runs {} through its TPU back end (Pallas attention under XLA, no CUDA graphs, "
                       "chips by TPU_VISIBLE_CHIPS), whose token budget (a chip table: 1024 tokens on a v6e, 512 on "
                       "a v5e), KV page size (from max_model_len) and memory are not modelled here; simulate it "
                       "without --engine, giving --max-batched-tokens, --max-batch and --block-tokens as the server "
                       "runs",
                       s.gpu_name);
  }
  if (auto kv = kv_refusal("vLLM", s)) return kv;
  // --enable-expert-parallel shards the experts over all tp × dp GPUs; there is no size to give.
  if (!s.dp_attention && s.ep != 1 && s.ep != s.tp) {
    return fmt::format("--ep: vLLM shards the experts over all {} GPUs of the tensor-parallel group or none; plan "
                       "with --ep 1 or --ep {}",
                       s.tp, s.tp);
  }
  return std::nullopt;
}

Script vllm_script(const LaunchSpec& s) {
  Script script("vLLM 0.11", "https://docs.vllm.ai/en/v0.11.2/configuration/engine_args.html",
                "vllm serve");
  if (s.dp_attention) {
    // Data-parallel attention is vLLM's data parallelism of a MoE model: tp ranks of one GPU
    // each, the experts sharded over all of them.
    script.flag("--data-parallel-size", fmt::format("{}", s.tp));
    script.flag("--tensor-parallel-size", "1");
    script.flag("--enable-expert-parallel");
    script.notes.push_back(fmt::format("--data-parallel-size {0} --tensor-parallel-size 1 --enable-expert-parallel: "
                                       "attention data-parallel over {0} GPUs, the experts over all of them",
                                       s.tp));
  } else {
    script.flag("--tensor-parallel-size", fmt::format("{}", s.tp));
    if (s.ep > 1) script.flag("--enable-expert-parallel");
  }
  if (s.pp > 1) script.flag("--pipeline-parallel-size", fmt::format("{}", s.pp));
  script.flag("--max-num-seqs", fmt::format("{}", s.batch_per_rank()));
  script.flag("--max-num-batched-tokens", fmt::format("{}", s.token_budget()));
  script.flag("--max-model-len", fmt::format("{}", s.max_len()));
  script.flag("--kv-cache-dtype", s.kv == DType::fp8 ? "fp8" : "auto");
  if (s.weights == WeightSource::online_fp8) script.flag("--quantization", "fp8");
  script.flag("--gpu-memory-utilization", share_up(s.usable_share()));
  // CUDA graphs: vLLM 0.11 captures decode batches up to min(2 × max_num_seqs, 512)
  // (VllmConfig._set_cudagraph_sizes, vllm/config/vllm.py; SchedulerConfig's cuda_graph_sizes
  // default before it) and runs a larger batch without one. Past 512 the capture sizes are given
  // whole in --compilation-config, whose cudagraph_capture_sizes replace the default list
  // (CompilationConfig, the v0.11.0 and v0.11.2 API pages): vLLM's own ladder, 1, 2, 4, then by 8
  // to 248 and by 16 from 256, carried on to the planned batch, which ends it.
  // Under a pipeline too the whole --max-num-seqs: vLLM V1's scheduler caps the running requests,
  // not a step's, so one scheduled batch (one forward pass) may hold all of them while the others of
  // the batch queue (max_concurrent_batches = pp) hold none (vllm-project/vllm issue #41682; PR
  // #39165, a per-stage share, is not merged), unlike SGLang's and TensorRT-LLM's micro-batches.
  const long seqs = s.batch_per_rank();
  const bool graphs = seqs > kVllmGraphLimit;
  if (graphs) {
    std::vector<long> sizes{1, 2, 4};
    for (long b = 8; b < 256; b += 8) sizes.push_back(b);
    for (long b = 256; b <= seqs; b += 16) sizes.push_back(b);
    if (sizes.back() != seqs) sizes.push_back(seqs);
    script.flag("--compilation-config",
                fmt::format("'{{\"cudagraph_capture_sizes\": [{}]}}'", fmt::join(sizes, ", ")));
  }
  script.flag("--host", "0.0.0.0");
  script.notes.push_back(s.dp_attention ? fmt::format("--max-num-seqs {}: the planned batch of {} over {} ranks",
                                                      s.batch_per_rank(), s.batch, s.attention_ranks())
                                        : fmt::format("--max-num-seqs {}: the planned batch", s.batch));
  script.notes.push_back(fmt::format("--max-model-len {}: the plan's {} prompt + {} generated tokens; the engine refuses longer "
                                     "requests",
                                     s.max_len(), s.prompt_tokens, s.gen_tokens));
  script.notes.push_back(fmt::format("--max-num-batched-tokens {}: a whole {}-token prompt beside a token for each "
                                     "running sequence, the step the plan prices",
                                     s.token_budget(), s.prompt_tokens));
  if (graphs) {
    script.notes.push_back(fmt::format("--compilation-config: CUDA graphs captured up to the planned batch of {}; vLLM "
                                       "0.11 captures up to min(2 x --max-num-seqs, 512) = 512 by default, and decodes "
                                       "a larger batch eagerly",
                                       seqs));
  }
  script.notes.push_back(fmt::format("--gpu-memory-utilization {}: all but the plan's --reserve {}",
                                     share_up(s.usable_share()), share(s.reserve)));
  if (s.weights == WeightSource::online_fp8) {
    script.notes.push_back("--quantization fp8: the 16-bit checkpoint's weights quantized to fp8 as they load");
  }
  return script;
}

}  // namespace roofline::launch
