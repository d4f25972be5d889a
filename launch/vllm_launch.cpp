// vLLM 0.11: `vllm serve`, its flags as the engine arguments document them
// (https://docs.vllm.ai/en/v0.11.2/configuration/engine_args.html; vllm/config/scheduler.py and
// cache.py of the 0.11 line). Each rank of data parallelism is an engine core with its own
// scheduler, so --max-num-seqs and --max-num-batched-tokens are a rank's.
#include <fmt/format.h>

#include "launch/engines.hpp"
#include "launch/share_format.hpp"

namespace roofline::launch {

std::optional<std::string> vllm_refusal(const LaunchSpec& s) {
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
  script.notes.push_back(fmt::format("--gpu-memory-utilization {}: all but the plan's --reserve {}",
                                     share_up(s.usable_share()), share(s.reserve)));
  if (s.weights == WeightSource::online_fp8) {
    script.notes.push_back("--quantization fp8: the 16-bit checkpoint's weights quantized to fp8 as they load");
  }
  return script;
}

}  // namespace roofline::launch
