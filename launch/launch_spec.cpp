#include "launch/launch_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <regex>
#include <utility>

#include "launch/engines.hpp"
#include "launch/launch_script.hpp"
#include "model/layers.hpp"
#include "model/parameters.hpp"

namespace roofline::launch {

namespace {

constexpr std::array kEngines = {std::pair{Engine::vllm, std::string_view("vllm")},
                                 std::pair{Engine::sglang, std::string_view("sglang")},
                                 std::pair{Engine::trtllm, std::string_view("trtllm")}};

// Two formats the engines load alike: every 16- or 32-bit float runs in the model's dtype.
bool same_format(WeightFormat a, WeightFormat b) { return a == b || (is_wide_float(a) && is_wide_float(b)); }

// `stored`: the checkpoint's formats, as resolve_precision gives them with no flags.
WeightSource weight_source(const Precision& stored, const Precision& asked) {
  bool as_stored = true, stored_wide = true;
  for (TensorClass c : kBlockClasses) {
    as_stored = as_stored && same_format(asked.of(c), stored.of(c));
    stored_wide = stored_wide && is_wide_float(stored.of(c));
  }
  if (as_stored) return WeightSource::checkpoint;
  const std::optional<WeightFormat> block = asked.block_format();
  // vLLM's and SGLang's `--quantization fp8` on a 16-bit checkpoint: e4m3 weights with a scale a
  // matrix (or a channel), computed as the weights load.
  if (stored_wide && block && (*block == WeightFormat::fp8 || *block == WeightFormat::fp8_channel)) {
    return WeightSource::online_fp8;
  }
  return WeightSource::other_checkpoint;
}

std::string slug(std::string_view text) {
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      out += static_cast<char>(std::tolower(c));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace

Vendor vendor_of(std::string_view gpu_name) {
  std::string n;
  for (char ch : gpu_name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const auto has = [&](std::string_view word) { return n.find(word) != std::string::npos; };
  if (has("apple")) return Vendor::apple;
  if (has("tpu") || has("google")) return Vendor::google;
  if (has("amd") || has("instinct") || has("radeon")) return Vendor::amd;
  if (has("intel") || has("gaudi")) return Vendor::intel;
  if (has("nvidia") || has("geforce") || has("rtx") || has("quadro") || has("tesla")) return Vendor::nvidia;
  // NVIDIA's data-centre parts named without the maker: "H100 SXM", "A100 80GB", "GB200", "L40S".
  static const std::regex part(R"((^|[^a-z0-9])(a|b|gb|gh|h|l|t|v)[0-9]{1,3}[a-z]?($|[^a-z0-9]))");
  if (std::regex_search(n, part)) return Vendor::nvidia;
  return Vendor::unknown;
}

std::string_view name(Engine e) {
  for (const auto& [engine, text] : kEngines) {
    if (engine == e) return text;
  }
  return "?";
}

std::optional<Engine> engine_named(std::string_view text) {
  for (const auto& [engine, n] : kEngines) {
    if (n == text) return engine;
  }
  return std::nullopt;
}

namespace {

// What the plan priced that the engines choose for themselves: said in every script, so a server
// that differs from the plan is not a surprise.
std::vector<std::string> plan_only(const Precision& asked, const Precision& stored, const Workload& w) {
  std::vector<std::string> out;
  // Only --compute itself: a compute format the weights chose (W8A8 where the GPU has the peak,
  // weight-only where it has not) is the one the engines choose too.
  if (asked.compute_source == ComputeSource::asked) {
    out.push_back(fmt::format("--compute {}: the plan priced the matrix units in {}; the engine computes as its kernels "
                              "for the checkpoint do",
                              name(asked.compute), name(asked.compute)));
  }
  if (asked.activations != stored.activations) {
    out.push_back(fmt::format("--activations {}: the plan held activations in {}; the engine keeps its own",
                              name(asked.activations), name(asked.activations)));
  }
  if (w.pp > 1 && w.microbatches > 0) {
    out.push_back(fmt::format("--microbatches {}: the engine splits the pipeline's batch as it schedules, not as "
                              "the plan did",
                              w.microbatches));
  }
  bool grouped = false;
  for (TensorClass c : kBlockClasses) grouped = grouped || takes_group_size(asked.of(c));
  if (grouped && asked.group_size != stored.group_size) {
    out.push_back(fmt::format("--group-size {}: the checkpoint's group size decides; the plan priced scales a {} "
                              "weights",
                              asked.group_size, asked.group_size));
  }
  return out;
}

// Each stage's GPU as the plan holds it (`ledger`: the row's at its batch, its activations one
// step's, the step the plan holds beside its caches). Without a pipeline every GPU holds alike: the
// ledger's parts of its fullest. A pipeline's stages hold unequal weights, caches and activations
// (a head, a tied table, a vision tower, a hybrid's pattern: pipeline_stages), and its ledger keeps
// only the stage that fills first as the batch grows; the engines that give every rank one share
// (TensorRT-LLM's fraction of what is free, SGLang's static share) must fit the others too. Each
// stage is weighed as the engine weighs it (model/engine.cpp, place_weights and one_sequence): the
// layers described for one GPU of a stage, dealt by pipeline_stages, a sequence's cache over its
// holders (tp GPUs, or one under data-parallel attention), and one step's activations as
// step_ledger holds them: one sequence of the step's tokens (a prompt beside a token for each other
// sequence of a rank, plan_capacity's step_tokens where colocated, as --emit is).
std::vector<StageShares> stage_shares(const ModelSpec& m, const GpuSpec& g, const Workload& w,
                                      const MemoryLedger& ledger) {
  const double gpu = g.memory_capacity.value();
  if (w.pp == 1 || !m.architecture) {
    // ledger.activations: the step's over the replica's GPUs, which all hold alike.
    return {StageShares{(ledger.fixed_fullest.value() - gpu * w.reserve_fraction) / gpu,
                        ledger.activations.value() / ledger.capacity.value(),
                        ledger.cache_per_sequence_fullest.value() / gpu}};
  }
  const Architecture& a = *m.architecture;
  const LayerStack whole = describe_layers(a, whole_model(w));  // its state in the workload's format
  const LayerStack shard = w.tp > 1 ? describe_layers(a, sharding(w)) : whole;
  const WeightPricing pricing(w.precision, whole);
  const WeightPlacement placed = stage_weights(pipeline_stages(a, shard, w), weigh(shard, pricing).bytes, pricing, w);
  const long ranks = std::max(1L, ledger.attention_ranks);
  const long tokens = step_token_budget(w.prompt_tokens, (std::max(w.batch, 1L) + ranks - 1) / ranks);
  const SequenceFootprint sequence = sequence_footprint(a, shard, w),
                          stepped = sequence_footprint(a, shard, step_workload(w, tokens));
  // The GPUs of a stage that hold some of each sequence (the ledger's holders).
  const double holders = static_cast<double>(shard.tp) / static_cast<double>(shard.data_parallel);
  std::vector<StageShares> out;
  for (std::size_t i = 0; i < placed.stages.size(); ++i) {
    out.push_back({placed.stages[i].value() / gpu, stepped.stages.at(i).activations.value() / holders / gpu,
                   sequence.stages.at(i).cache.value() / holders / gpu});
  }
  return out;
}

// The spec's fields a layout sets, which every refusal but the reserve's reads.
LaunchSpec layout_spec(const GpuSpec& g, const Workload& w) {
  LaunchSpec s;
  s.gpu_name = g.name;
  s.vendor = vendor_of(g.name);
  s.tp = w.tp;
  s.pp = w.pp;
  s.ep = w.ep;
  s.dp_attention = w.dp_attention;
  s.kv = w.precision.kv;
  s.naive_attention = w.attention == AttentionKernel::naive;
  s.fp8_asked = w.precision.kv == DType::fp8;
  for (TensorClass c : kBlockClasses) s.fp8_asked = s.fp8_asked || element_of(w.precision.of(c)) == DType::fp8;
  s.fp8_tensor_cores = g.effective_peak(DType::fp8).has_value();
  return s;
}

}  // namespace

LaunchSpec launch_spec(const ModelSpec& m, std::string_view model_arg, bool model_from_file, const GpuSpec& g,
                       const Workload& w, const CapacityPlan& plan, const MemoryLedger& ledger, int rank,
                       std::string row) {
  LaunchSpec s = layout_spec(g, w);
  const std::optional<std::string> id = hf_id_of_source(m.source);
  s.model = id.value_or(std::string(model_arg));
  s.model_is_id = id.has_value();
  s.model_from_file = model_from_file;
  s.row = std::move(row);
  s.rank = rank;
  s.batch = plan.batch;
  s.prompt_tokens = w.prompt_tokens;
  s.gen_tokens = w.gen_tokens;
  const Precision stored = resolve_precision(m);
  s.weights = weight_source(stored, w.precision);
  const std::optional<WeightFormat> block = w.precision.block_format();
  s.weight_format = block ? std::string(name(*block)) : "mixed";
  s.lm_head_changed = !same_format(w.precision.of(TensorClass::lm_head), stored.of(TensorClass::lm_head));
  s.plan_only = plan_only(w.precision, stored, w);
  if (g.interconnect) {
    s.gpus_per_node = g.interconnect->host.value_or(g.interconnect->domain);
    s.node_assumed = !g.interconnect->host && g.interconnect->domain > 8;
  }
  s.reserve = w.reserve_fraction;
  s.stages = stage_shares(m, g, w, ledger);
  s.replicas = plan.replicas;
  return s;
}

double LaunchSpec::activations_share() const {
  double most = 0;
  for (const StageShares& st : stages) most = std::max(most, st.activations);
  return most;
}

double LaunchSpec::stage_kv_share_of_free(std::size_t i) const {
  const double held = stages.at(i).weights + stages.at(i).activations;
  return (1 - reserve - held) / (1 - held);
}

std::size_t LaunchSpec::heaviest_stage() const {
  std::size_t heaviest = 0;
  for (std::size_t i = 1; i < stages.size(); ++i) {
    if (stage_kv_share_of_free(i) < stage_kv_share_of_free(heaviest)) heaviest = i;
  }
  return heaviest;
}

std::optional<ShortCache> short_cache(const LaunchSpec& s, const std::function<double(std::size_t)>& cache) {
  std::optional<ShortCache> fewest;
  for (std::size_t i = 0; i < s.stages.size(); ++i) {
    if (!(s.stages[i].cache_per_sequence > 0)) continue;
    // A hair below a whole sequence is one (the shares are rounded); clamped so that a tiny cache a
    // sequence cannot overflow a long of 32 bits (WebAssembly), as the ledger's max batch is.
    const double room = std::floor(cache(i) / s.stages[i].cache_per_sequence + 1e-6);
    const auto held = static_cast<long>(std::clamp(room, 0.0, 1e9));
    if (held < s.batch_per_rank() && (!fewest || held < fewest->held)) fewest = ShortCache{i, held};
  }
  return fewest;
}

std::optional<std::string> refusal(Engine e, const LaunchSpec& s) {
  if (s.naive_attention) {
    return std::string("--attention: the engines run a flash attention kernel; plan with --attention flash");
  }
  switch (e) {
    case Engine::vllm: return vllm_refusal(s);
    case Engine::sglang: return sglang_refusal(s);
    case Engine::trtllm: return trtllm_refusal(s);
  }
  return std::nullopt;
}

std::optional<std::string> layout_refusal(Engine e, const GpuSpec& g, const Workload& w) {
  return refusal(e, layout_spec(g, w));
}

namespace {
Script script_for(Engine e, const LaunchSpec& s) {
  switch (e) {
    case Engine::vllm: return vllm_script(s);
    case Engine::sglang: return sglang_script(s);
    case Engine::trtllm: break;
  }
  return trtllm_script(s);
}
}  // namespace

LaunchFile write_launch(Engine e, const LaunchSpec& s, std::string_view gpu) {
  Script script = script_for(e, s);
  add_common_warnings(script, s);
  std::string layout = fmt::format("tp{}", s.tp);
  if (s.pp > 1) layout += fmt::format("-pp{}", s.pp);
  if (s.ep > 1) layout += fmt::format("-ep{}", s.ep);
  if (s.dp_attention) layout += "-dpattn";
  return {fmt::format("{:02}-{}-{}-{}.sh", s.rank, name(e), slug(gpu), layout), render(script, s), script.warnings};
}

std::optional<std::string> kv_refusal(std::string_view engine, const LaunchSpec& s) {
  if (s.kv == DType::fp16 || s.kv == DType::bf16 || s.kv == DType::fp8) return std::nullopt;
  return fmt::format("--kv: {} keeps the KV cache in 16 bits or fp8, not {}; plan with --kv fp8 or fp16", engine,
                     name(s.kv));
}

}  // namespace roofline::launch
