// SGLang 0.5: `python -m sglang.launch_server`, its flags as the server arguments document them
// (https://docs.sglang.io/advanced_features/server_arguments.html; python/sglang/srt/server_args.py).
// Under --enable-dp-attention SGLang divides --max-running-requests and --chunked-prefill-size by
// --dp-size (server_args.py), so both are the replica's totals here. There it runs no mixed chunks:
// SGLang 0.5 fails at the first step that mixes a prefill chunk with running decodes under data-
// parallel attention (its TBO splitter raised NotImplementedError for ForwardMode.MIXED, fixed in
// sgl-project/sglang PR #24241, May 2026), and the plan prices a data-parallel prefill as a step of
// its own (model/capacity_plan.cpp). Nor under a pipeline: SGLang refuses to start with
// --enable-mixed-chunk and --pp-size above 1 (ServerArgs.check_server_args, server_args.py, 0.4
// through 0.5: assert ... not self.enable_mixed_chunk, "Pipeline parallelism is not compatible
// with overlap schedule, speculative decoding, mixed chunked prefill."; later versions split it,
// the same refusal). Its pipeline loop (event_loop_pp) then takes, for each of its pp micro-batches,
// get_next_batch_to_run's batch: the prompts it admits alone if any, else the micro-batch's decodes,
// and the plan prices a pipeline's prefill so, a pass of its own through the stages that costs the
// replica its busiest stage's time (model/capacity_plan.cpp: per_request); plan --percentile, whose
// checks step mixed, simulates no pipeline.
#include <fmt/format.h>

#include "launch/engines.hpp"
#include "launch/share_format.hpp"

namespace roofline::launch {

namespace {

// The least batch size SGLang 0.5 captures a CUDA graph for at or above `batch`: its capture list
// is 1, 2, 4, 8, 12, then by 8 to 256, by 16 from 272 to 496, by 32 from 512, cut at
// --cuda-graph-max-bs (ServerArgs._generate_cuda_graph_batch_sizes, server_args.py), and a batch
// past the largest captured decodes eagerly: the flag is set to a size on that list.
long graph_ladder_ceiling(long batch) {
  if (batch <= 2) return batch;
  if (batch <= 4) return 4;
  if (batch <= 8) return 8;
  if (batch <= 12) return 12;
  const auto up = [&](long from, long step) { return from + (batch - from + step - 1) / step * step; };
  if (batch <= 256) return up(16, 8);
  if (batch <= 496) return up(272, 16);
  return up(512, 32);
}

}  // namespace

std::optional<std::string> sglang_refusal(const LaunchSpec& s) {
  // SGLang 0.5's --device: "The device to use ('cuda', 'xpu', 'hpu', 'npu', 'cpu')" (server_args.py):
  // CUDA covers AMD's ROCm; there is no TPU device (sglang-jax is a separate project) and no Apple
  // GPU ("As of February 21, 2026 ... SGLang has no support for Apple Silicon", sgl-project/sglang
  // issue #19137).
  if (s.vendor == Vendor::google || s.vendor == Vendor::apple) {
    return fmt::format("--gpu: SGLang 0.5 runs on CUDA (NVIDIA, and AMD through ROCm), XPU, HPU, NPU and CPU devices "
                       "(its --device), not on {} ({})",
                       s.gpu_name,
                       s.vendor == Vendor::google ? "TPUs are the separate sglang-jax project's"
                                                  : "Apple silicon support began in 2026, sgl-project/sglang#19137");
  }
  return kv_refusal("SGLang", s);
}

Script sglang_script(const LaunchSpec& s) {
  Script script("SGLang 0.5", "https://docs.sglang.io/advanced_features/server_arguments.html",
                "python -m sglang.launch_server", "--model-path");
  script.flag("--tp-size", fmt::format("{}", s.tp));
  if (s.pp > 1) script.flag("--pp-size", fmt::format("{}", s.pp));
  if (s.ep > 1) script.flag("--ep-size", fmt::format("{}", s.ep));
  if (s.dp_attention) {
    script.flag("--enable-dp-attention");
    script.flag("--dp-size", fmt::format("{}", s.tp));
  }
  // The other engines' token budget for every attention rank at once: a whole prompt beside a token
  // for each of the rank's running sequences. Under --enable-mixed-chunk SGLang takes the running
  // decodes from the chunk (PrefillAdder: rem_chunk_tokens -= mixed_with_decode_tokens), so a
  // chunk of the prompt alone split every prompt that joined running decodes, which the plan
  // prefills whole. And the rank's sequences as the other engines get them (SGLang's floor of
  // total / ranks would run 58 a rank of a planned 470 over 8).
  // Under data-parallel attention or a pipeline (no mixed chunks: a prefill step holds no decodes) a
  // whole prompt for each rank.
  const bool pipeline = s.pp > 1;
  const bool mixed = !s.dp_attention && !pipeline;
  const long chunk = (mixed ? s.token_budget() : s.prompt_tokens) * s.attention_ranks();
  const long running = s.batch_per_rank() * s.attention_ranks();
  script.flag("--max-running-requests", fmt::format("{}", running));
  script.flag("--chunked-prefill-size", fmt::format("{}", chunk));
  // A prefill joins the running decodes in one step, the step the plan prices (SGLang runs them
  // apart by default, and must under a pipeline or data-parallel attention).
  if (mixed) script.flag("--enable-mixed-chunk");
  // CUDA graphs: SGLang captures decode batches up to --cuda-graph-max-bs, its default set by the
  // GPU's memory and tp (serve::sglang_cuda_graph_max_bs: 256 on an H100 or H200 below tp 4), and
  // pads a batch up to the next one captured; a forward pass's batch past it decodes eagerly.
  // Without a pipeline a forward pass decodes a rank's whole batch. With one, SGLang's scheduler
  // runs pp micro-batches through the stages, each of at most pp_max_micro_batch_size =
  // max(max_running_requests // pp_size, 1) sequences (Scheduler.__init__ and
  // get_num_allocatable_reqs, python/sglang/srt/managers/scheduler.py; max_running_requests a
  // rank's, divided by --dp-size first): a rank's batch over pp, which one forward pass runs.
  const long decode_batch = pipeline ? s.batch_per_microbatch() : s.batch_per_rank();
  const long graph_default = s.sglang_cuda_graph_default;
  const bool graphs = graph_default > 0 && decode_batch > graph_default;
  const long graph_max = graph_ladder_ceiling(decode_batch);
  if (graphs) script.flag("--cuda-graph-max-bs", fmt::format("{}", graph_max));
  script.flag("--context-length", fmt::format("{}", s.max_len()));
  script.flag("--kv-cache-dtype", s.kv == DType::fp8 ? "fp8_e4m3" : "auto");
  if (s.weights == WeightSource::online_fp8) script.flag("--quantization", "fp8");
  const double static_share = share_up_value(s.static_share(), 1 - s.activations_share());
  script.flag("--mem-fraction-static", share(static_share));
  script.flag("--host", "0.0.0.0");  // SGLang listens on 127.0.0.1 unless told: the router is elsewhere
  script.notes.push_back(fmt::format("--context-length {}: the plan's {} prompt + {} generated tokens; the engine refuses longer "
                                     "requests",
                                     s.max_len(), s.prompt_tokens, s.gen_tokens));
  script.notes.push_back(s.dp_attention ? fmt::format("--max-running-requests {}: the planned batch of {}, {} a rank "
                                                      "over {} ranks (SGLang divides it by --dp-size)",
                                                      running, s.batch, s.batch_per_rank(), s.attention_ranks())
                                        : fmt::format("--max-running-requests {}: the planned batch", s.batch));
  // Each micro-batch holds at most --max-running-requests // pp (above): a batch pp does not divide
  // runs that many fewer at once, said as TensorRT-LLM's script says its own.
  if (pipeline && s.batch_per_microbatch() * s.pp < s.batch_per_rank()) {
    script.notes.push_back(fmt::format("--pp-size {}: SGLang runs {} micro-batches of at most {} // {} = {}: {} sequences "
                                       "at most{}, against the plan's {}",
                                       s.pp, s.pp, s.batch_per_rank(), s.pp, s.batch_per_microbatch(),
                                       s.batch_per_microbatch() * s.pp, s.dp_attention ? " a rank" : "",
                                       s.batch_per_rank()));
  }
  if (graphs) {
    const std::string rounded = graph_max != decode_batch ? ", rounded up to a size SGLang captures" : "";
    if (pipeline) {
      script.notes.push_back(fmt::format(
          "--cuda-graph-max-bs {}: CUDA graphs up to a micro-batch of {}{}: SGLang decodes {} of {} as {} "
          "micro-batches of at most {} // {} = {} (--max-running-requests{} // --pp-size), one a forward pass; "
          "SGLang 0.5's default on this GPU at tp {} is {}, past which a micro-batch decodes eagerly",
          graph_max, decode_batch, rounded, s.dp_attention ? "a rank's batch" : "the planned batch", s.batch_per_rank(),
          s.pp, s.batch_per_rank(), s.pp, decode_batch, s.dp_attention ? " / --dp-size" : "", s.tp, graph_default));
    } else {
      script.notes.push_back(fmt::format("--cuda-graph-max-bs {}: CUDA graphs up to the planned batch{} of {}{}; SGLang "
                                         "0.5's default on this GPU at tp {} is {}, past which a batch decodes eagerly",
                                         graph_max, s.dp_attention ? " of a rank" : "", decode_batch, rounded, s.tp,
                                         graph_default));
    }
  }
  if (mixed) {
    script.notes.push_back("--enable-mixed-chunk: a prefill joins the running decodes in one step, as the plan prices it");
    script.notes.push_back(fmt::format("--chunked-prefill-size {}: a whole {}-token prompt beside a token for each of {} "
                                       "running sequences (mixed chunks count them in it), as the plan prefills",
                                       chunk, s.prompt_tokens, s.batch_per_rank()));
  } else if (!pipeline) {
    script.notes.push_back("no --enable-mixed-chunk: SGLang 0.5 fails at the first mixed step under "
                           "--enable-dp-attention (sgl-project/sglang PR #24241); a rank's prefill runs as a step of "
                           "its own, which every rank waits on, as the plan prices it");
    script.notes.push_back(fmt::format("--chunked-prefill-size {}: a whole {}-token prompt for each of the {} ranks, as "
                                       "the plan prefills",
                                       chunk, s.prompt_tokens, s.attention_ranks()));
  } else {
    script.notes.push_back(fmt::format(
        "no --enable-mixed-chunk: SGLang 0.5 refuses to start with it under --pp-size (server_args.py, "
        "check_server_args: \"Pipeline parallelism is not compatible with ... mixed chunked prefill\"){}; SGLang runs "
        "prefill steps apart from decodes: a micro-batch's step holds the prompts admitted, or else its decodes, which "
        "wait it; the plan prices a prefill so, a pass of its own through the {} stages, costing the replica its "
        "busiest stage's time",
        s.dp_attention ? ", and fails at the first mixed step under --enable-dp-attention (sgl-project/sglang PR #24241)"
                       : "",
        s.pp));
    script.notes.push_back(s.dp_attention
                               ? fmt::format("--chunked-prefill-size {}: a whole {}-token prompt for each of the {} "
                                             "ranks, as the plan prefills (a prefill step holds no decodes)",
                                             chunk, s.prompt_tokens, s.attention_ranks())
                               : fmt::format("--chunked-prefill-size {}: a whole {}-token prompt, as the plan prefills "
                                             "(a prefill step holds no decodes)",
                                             chunk, s.prompt_tokens));
  }
  script.notes.push_back(fmt::format("--mem-fraction-static {}: weights and KV pool, all but the plan's --reserve {} "
                                     "and one step's activations ({} of a GPU{})",
                                     share(static_share), share(s.reserve), share_said(s.activations_share()),
                                     s.stages.size() > 1 ? ", the most a stage holds" : ""));
  // SGLang sizes every rank's pool alike: the memory free once the weights are loaded, the least
  // of every rank of the job (ModelRunner: get_available_gpu_memory with distributed over the world
  // group, python/sglang/srt/model_executor/), less (1 − the static share) of the GPU. The heaviest
  // stage's weights set it, and a lighter stage's pool is less than its own room.
  std::size_t heaviest = 0;
  for (std::size_t i = 1; i < s.stages.size(); ++i) {
    if (s.stages[i].weights > s.stages[heaviest].weights) heaviest = i;
  }
  const double pool = static_share - s.stages[heaviest].weights;
  if (const auto short_of = short_cache(s, [pool](std::size_t) { return pool; })) {
    script.warnings.push_back(fmt::format(
        "--mem-fraction-static {}: stage {} of {}'s KV pool holds {} of the plan's {} sequences{}: SGLang gives every "
        "rank the pool the least free GPU has room for, stage {}'s beside its weights ({} of a GPU); SGLang runs "
        "that many at once, the others wait",
        share(static_share), short_of->stage + 1, s.stages.size(), short_of->held, s.batch_per_rank(),
        s.dp_attention ? " a rank" : "", heaviest + 1, share(s.stages[heaviest].weights)));
  }
  if (s.weights == WeightSource::online_fp8) {
    script.notes.push_back("--quantization fp8: the 16-bit checkpoint's weights quantized to fp8 as they load");
  }
  return script;
}

}  // namespace roofline::launch
