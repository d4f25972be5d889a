#pragma once
// What a serving engine must be told to run one row of a capacity plan: the layout, the planned
// batch, the token budget, the formats, the memory share and the replica count, in the plan's own
// terms. Each engine's file (vllm_launch, sglang_launch, trtllm_launch) spells them in its flags.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hardware/gpu_spec.hpp"
#include "model/capacity_plan.hpp"
#include "model/memory_ledger.hpp"
#include "model/model_spec.hpp"
#include "model/precision.hpp"
#include "model/workload.hpp"

namespace roofline::launch {

enum class Engine { vllm, sglang, trtllm };
[[nodiscard]] std::string_view name(Engine e);
[[nodiscard]] std::optional<Engine> engine_named(std::string_view name);
inline constexpr std::string_view kEngineNames = "vllm, sglang or trtllm";

// Whose accelerator the GPU is. A GPU's spec gives no vendor, only its name ("NVIDIA H100 SXM",
// "AMD Instinct MI300X", "Google Cloud TPU v6e", "Apple M4 Max"): read from it (vendor_of), and
// unknown where the name says none, which TensorRT-LLM (NVIDIA's only) refuses.
enum class Vendor { nvidia, amd, intel, google, apple, unknown };
[[nodiscard]] Vendor vendor_of(std::string_view gpu_name);

// Where the weights' formats come from. The engines read a quantized checkpoint's own config
// (quantization_config, hf_quant_config.json), so formats the checkpoint stores need no flag;
// fp8 asked of a 16-bit checkpoint vLLM and SGLang quantize as they load it; any other format
// asked of a checkpoint that does not store it needs a checkpoint that does.
enum class WeightSource { checkpoint, online_fp8, other_checkpoint };

// One GPU of a pipeline stage (of any GPU, without a pipeline), in shares of its memory as the
// plan's ledger holds it: its weights, one step's activations (a whole prompt beside a token for
// each other sequence of a rank, the step the plan holds them for), and one sequence's cache.
struct StageShares {
  double weights = 0;
  double activations = 0;
  double cache_per_sequence = 0;
};

struct LaunchSpec {
  std::string model;        // the Hugging Face id the model came from, else the path given
  bool model_is_id = false;  // false: a path, to be replaced by the checkpoint's
  std::string row;          // the plan's row in words, for the file's header
  int rank = 1;             // the row's place in the ranking
  int tp = 1, pp = 1, ep = 1;
  bool dp_attention = false;
  long batch = 1;            // sequences a replica runs at once (all its attention ranks together)
  long prompt_tokens = 0, gen_tokens = 0;
  DType kv = DType::fp16;
  WeightSource weights = WeightSource::checkpoint;
  std::string weight_format;  // the block classes' format, or "mixed"
  bool lm_head_changed = false;  // --lm-head asked a format the checkpoint does not store
  bool model_from_file = false;  // --model named a file (whose source may name an upstream id)
  // Flags the plan priced that no engine flag sets, each as its flag and what the plan assumed
  // ("--compute fp8: …"): warnings in every script.
  std::vector<std::string> plan_only;
  bool naive_attention = false;  // --attention naive: engines run a flash kernel
  // fp8 asked of the engine (a block class's weights, or the cache) and whether the GPU has fp8
  // tensor cores (an fp8 peak: Ada, Hopper, Blackwell), without which TensorRT-LLM has no fp8 path.
  bool fp8_asked = false;
  bool fp8_tensor_cores = true;
  std::string gpu_name;            // the GPU's spec's name
  Vendor vendor = Vendor::nvidia;  // vendor_of(gpu_name)
  // SGLang's --cuda-graph-max-bs left to its default on this GPU and layout
  // (serve::sglang_cuda_graph_max_bs, which cli/launch_files.cpp fills in); 0: not known.
  long sglang_cuda_graph_default = 0;
  // GPUs one host holds: the GPU's `interconnect.host`, else its domain, else an HGX board's 8.
  int gpus_per_node = 8;
  bool node_assumed = false;  // the domain, past 8 GPUs, taken as one host: the GPU gives no `host`
  // What each GPU keeps free (--reserve), as a share of its memory; the KV cache gets what the
  // stage's weights and activations leave of the rest.
  double reserve = 0.1;
  // One GPU of each pipeline stage, first to last (one entry without a pipeline, every GPU alike).
  std::vector<StageShares> stages{StageShares{}};
  long replicas = 1;

  // The share of a GPU's memory the engine may use at all: vLLM's --gpu-memory-utilization.
  [[nodiscard]] double usable_share() const { return 1 - reserve; }
  // One step's activations on the GPU of the stage that holds the most: what every rank must leave
  // outside a share that all ranks are given alike (SGLang's --mem-fraction-static).
  [[nodiscard]] double activations_share() const;
  // Weights and the KV pool, activations outside: SGLang's --mem-fraction-static.
  [[nodiscard]] double static_share() const { return 1 - reserve - activations_share(); }
  // The stage whose weights and activations take the most of its GPU: the one the smallest
  // stage_kv_share_of_free keeps --reserve free on (1 − r / (1 − w − a) falls as w + a grow).
  [[nodiscard]] std::size_t heaviest_stage() const;
  // The KV cache's share of what a GPU of stage `i` has free once its weights and activations are
  // placed, --reserve kept free beside them: (1 − r − w − a) / (1 − w − a).
  [[nodiscard]] double stage_kv_share_of_free(std::size_t i) const;
  // TensorRT-LLM's free_gpu_memory_fraction: one fraction, which every rank applies to what its
  // own weights and activations leave free; the heaviest stage's, the largest that keeps --reserve
  // free on every stage.
  [[nodiscard]] double kv_share_of_free() const { return stage_kv_share_of_free(heaviest_stage()); }

  [[nodiscard]] int gpus_per_replica() const { return tp * pp; }
  // The attention ranks a replica's sequences are spread over (data-parallel attention: tp).
  [[nodiscard]] int attention_ranks() const { return dp_attention ? tp : 1; }
  // Sequences one attention rank runs: the engines' limits are per rank under data-parallel attention.
  [[nodiscard]] long batch_per_rank() const { return (batch + attention_ranks() - 1) / attention_ranks(); }
  // A pipeline's micro-batch where an engine keeps pp of them in flight, each at most this: a rank's
  // batch over the stages, rounded down so that pp of them do not pass it (but one at least, which
  // pp of pass a batch smaller than pp).
  [[nodiscard]] long batch_per_microbatch() const { return std::max(1L, batch_per_rank() / pp); }
  // The longest request: the engines size their per-sequence limits on it.
  [[nodiscard]] long max_len() const { return prompt_tokens + gen_tokens; }
  // Tokens one step may carry: a whole prompt beside one token for every other running sequence
  // of the rank, the step the plan prices when a prefill joins the batch (it prefills prompts
  // whole, so a budget below the prompt would chunk what the plan did not).
  [[nodiscard]] long token_budget() const { return step_token_budget(prompt_tokens, batch_per_rank()); }
};

// The spec for a feasible row: `model_arg` is what --model said, `m` what it loaded, `ledger`
// the memory of the row's layout at the planned batch, its activations one step's
// (CapacityPlan::step_activations); a pipeline's stages are weighed from `m` again, each on its own.
[[nodiscard]] LaunchSpec launch_spec(const ModelSpec& m, std::string_view model_arg, bool model_from_file,
                                     const GpuSpec& g, const Workload& w, const CapacityPlan& plan,
                                     const MemoryLedger& ledger, int rank, std::string row);

// A launch file: its name within the folder, its text, and what it could not say in flags (also
// written into the text, as comments), for stderr.
struct LaunchFile {
  std::string name;
  std::string text;
  std::vector<std::string> warnings;
};

// Why the engine cannot run the row as planned, naming the plan's flag (--kv, --ep …); empty when
// it can. write_launch is only for a row without a refusal.
[[nodiscard]] std::optional<std::string> refusal(Engine e, const LaunchSpec& s);
// What refusal() reads of a layout alone, without a plan (its layout, formats, attention kernel and
// the GPU's fp8 tensor cores): simulate --engine refuses what plan --emit would
// (cli/serve_flags.cpp, check_engine).
[[nodiscard]] std::optional<std::string> layout_refusal(Engine e, const GpuSpec& g, const Workload& w);
// `gpu` names the file: "NVIDIA H100 SXM" → 01-vllm-nvidia-h100-sxm-tp2.sh.
[[nodiscard]] LaunchFile write_launch(Engine e, const LaunchSpec& s, std::string_view gpu);

}  // namespace roofline::launch
