#include "report/warning_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "report/human_units.hpp"
#include "report/sink.hpp"

namespace roofline::report {

namespace {

struct Words {
  std::string_view architecture_unknown, beyond_max_context, does_not_fit;
  std::string_view weights_do_not_fit, tpot_unreachable, ttft_unreachable, too_many_replicas, beyond_context;
  std::string_view compute_from_checkpoint, compute_from_fp8_weights, compute_without_peak, kv_from_checkpoint;
  std::string_view expected_borrowed, expected_partly_borrowed, group_size_unused, compute_narrower;
  std::string_view expected_unclassed;
  std::array<std::string_view, kAssumptionCount> assumed;  // by Assumption
  std::string_view list_separator;
  std::string (*kernel_class)(KernelClass);  // a kernel class as the reader calls it
};

// English names the classes by their keys in a GPU file's `expected.kernels` (what fit --kernels
// writes); Chinese by the kernel's name, the key beside it so that the file's entry can be found.
std::string english_class(KernelClass k) { return std::string(name(k)); }
std::string chinese_class(KernelClass k) {
  const auto word = [k]() -> std::string_view {
    switch (k) {
      case KernelClass::gemm: return "16 位矩阵乘";
      case KernelClass::gemm_fp8: return "fp8 矩阵乘";
      case KernelClass::gemm_fp8_block: return "分块缩放 fp8 矩阵乘";
      case KernelClass::decode_attention: return "解码注意力";
      case KernelClass::prefill_attention: return "预填充注意力";
      case KernelClass::elementwise: return "逐元素算子";
      case KernelClass::all_reduce: return "全归约";
      case KernelClass::nccl_all_reduce: return "NCCL 全归约";
      case KernelClass::experts: return "专家";
      case KernelClass::experts_fp8: return "fp8 专家";
      case KernelClass::latent_decode: return "潜在注意力解码";
      case KernelClass::latent_prefill: return "潜在注意力预填充";
      case KernelClass::delta_net_decode: return "DeltaNet 解码";
      case KernelClass::delta_net_prefill: return "DeltaNet 预填充";
    }
    return "";
  }();
  return fmt::format("{}（{}）", word, name(k));
}

constexpr Words kEnglish{
    "architecture unknown (only `params` given): KV cache, attention and activations are not modelled; decode "
    "reads the weights only",
    "{tokens} tokens exceed the model's max_context of {max}",
    "does not fit: needs {needed} of {capacity} at batch {batch}",
    "does not fit: the weights and one sequence need {needed} beside the {reserve} --reserve holds back of {capacity}",
    "no batch size meets TPOT {target:.4g} ms: batch 1 already takes {at:.4g} ms per token",
    "no batch size meets TTFT {target:.4g} ms: at batch 1 the first token takes {at:.4g} ms",
    "the load needs more than {most:g} replicas",
    "the planned request's {tokens} tokens (prompt and generation, their means under a distribution) exceed the "
    "model's max_context of {max}: engines refuse it, as simulate does",
    "the linears compute in {compute}: the checkpoint quantizes their inputs to {compute} as it runs (W8A8 and the "
    "like), so every operator's arithmetic is bound at the {compute} peak (--compute prices them otherwise)",
    "the linears compute in fp8: engines run fp8 weights W8A8 on fp8 tensor cores, each token's activations scaled "
    "as it runs, so every operator's arithmetic is bound at the fp8 peak (--compute {activations} prices them "
    "weight-only)",
    "the weights would compute in {checkpoint}, but the {gpu} gives no {checkpoint} peak: priced weight-only in "
    "{compute}, the weights unpacked, as vLLM runs them there (--compute to choose)",
    "the KV cache is held in {kv}, the format the checkpoint declares for it (kv_cache_quant_algo or "
    "kv_cache_scheme), which vLLM's default --kv-cache-dtype auto takes: its bytes and the batch that fits are "
    "priced in {kv} (--kv prices another)",
    "no kernel was measured on the {gpu}: its expected times use kernel coefficients fitted on other GPUs' tables, "
    "a transfer that its own kernels and engine may miss by far; the bound holds (docs/expected-performance.md)",
    "the {gpu}'s kernel tables did not measure {classes}: those kernels' expected times use coefficients fitted on "
    "other GPUs' tables, a transfer its own kernels may miss by far; the bound holds (docs/expected-performance.md)",
    "--group-size {group} changes nothing: the weights are {weights}, and only int4, awq, gptq, fp4 and fp6 weights "
    "take a group size (--weights chooses them)",
    "the linears compute in {compute}, each bound at the {compute} peak, but the {classes} weights are stored in "
    "{stored}: an engine runs those GEMMs at {stored} or quantizes the weights first (--weights {compute}, fewer "
    "bytes), so their bound here is below what they take",
    "no kernel class prices {operators}: no kernel table measured them, so their expected times use the "
    "end-to-end coefficients, fitted to whole models' runs, not their own kernels'; the bound holds "
    "(docs/expected-performance.md)",
    {"the config gives no torch_dtype: the weights it does not quantize are priced in bf16, as serving engines load "
     "them",
     "multimodal model: only the text decoder is priced; the vision tower and its projector (weights, memory, image "
     "tokens) are not modelled",
     "the model's multi-token-prediction layers are not priced (nor is speculative decoding with them)",
     "multimodal model: the vision and audio towers' weights are held in memory (estimated from their configs' "
     "dimensions) but never run: their compute, and image or audio tokens in a prompt, are not priced",
     "the weight formats are read from hf_quant_config.json beside config.json (an NVIDIA ModelOpt checkpoint)",
     "the config gives torch_dtype float32: serving engines load it in 16 bits (vLLM's --dtype auto: bf16), so the "
     "weights it does not quantize, the KV cache and the matrix products are priced in bf16 (--weights fp32 "
     "--activations fp32 prices it in fp32)"},
    ", ",
    english_class};

// In explain's terms (report/explain_phrases.cpp): a token is a 词元, and the roofline's time is a
// 下界 (a floor; 上界 is a ceiling, said only of a rate such as the compute peak).
constexpr Words kChinese{"架构未知（只给了 `params`）：KV 缓存、注意力和激活均未建模；解码只读取权重",
                         "{tokens} 个词元超过了模型的 max_context（{max}）",
                         "放不下：批大小 {batch} 需要 {needed}，容量只有 {capacity}",
                         "放不下：权重加一个序列需要 {needed}，另有 --reserve 预留 {reserve}，容量只有 {capacity}",
                         "没有批大小能满足 TPOT {target:.4g} ms：批大小 1 每个词元已需 {at:.4g} ms",
                         "没有批大小能满足 TTFT {target:.4g} ms：批大小 1 的首个词元已需 {at:.4g} ms",
                         "负载需要超过 {most:g} 个副本",
                         "所规划请求的 {tokens} 个词元（提示加生成；长度按分布给出时取其均值）超过了模型的 max_context（{max}）：推理引擎会拒绝它，simulate 也一样",
                         "线性层以 {compute} 计算：检查点在运行时把它们的输入也量化为 {compute}（W8A8 之类），所以每个算子的"
                         "计算上界都按 {compute} 峰值算（--compute 可另选）",
                         "线性层以 fp8 计算：推理引擎在 fp8 张量核上以 W8A8 运行 fp8 权重，每个词元的激活在运行时缩放，所以"
                         "每个算子的计算上界都按 fp8 峰值算（--compute {activations} 按只量化权重计价）",
                         "权重本应以 {checkpoint} 计算，但 {gpu} 没有 {checkpoint} 峰值：按只量化权重计价，以 {compute} "
                         "计算、权重先解包，与 vLLM 在这类 GPU 上的运行方式一致（--compute 可另选）",
                         "KV 缓存按 {kv} 存储：这是检查点为它声明的格式（kv_cache_quant_algo 或 kv_cache_scheme），"
                         "vLLM 默认的 --kv-cache-dtype auto 也取用它，所以缓存字节和放得下的批大小都按 {kv} 计价（--kv 可另选）",
                         "{gpu} 上没有实测过内核：其预期时间沿用在其他 GPU 内核表上拟合的系数，换到它自己的内核和推理引擎上"
                         "可能相差很大；屋顶线下界不受影响（见 docs/expected-performance.md）",
                         "{gpu} 的内核表没有测量 {classes}：这些内核的预期时间沿用在其他 GPU 内核表上拟合的系数，换到它自己的内核上"
                         "可能相差很大；屋顶线下界不受影响（见 docs/expected-performance.md）",
                         "--group-size {group} 不起作用：权重为 {weights}，只有 int4、awq、gptq、fp4 和 fp6 权重才有分组大小"
                         "（用 --weights 选择）",
                         "线性层以 {compute} 计算，每个的计算上界都按 {compute} 峰值算，但 {classes} 的权重以 {stored} "
                         "存储：推理引擎要么以 {stored} 运行这些矩阵乘法，要么先把权重量化（--weights {compute}，字节更少），"
                         "所以这里它们的下界低于实际耗时",
                         "没有内核类为 {operators} 计价：内核表没有测量过它们，其预期时间沿用按整个模型的运行拟合的端到端"
                         "系数，而非它们自己的内核；屋顶线下界不受影响（见 docs/expected-performance.md）",
                         {"配置未给出 torch_dtype：未量化的权重按 bf16 计价（与推理引擎的加载方式一致）",
                          "多模态模型：只计价文本解码器；视觉塔及其投影层（权重、显存、图像词元）均未建模",
                          "模型附带的多词元预测（MTP）层未计价（用它们做的投机解码也未建模）",
                          "多模态模型：视觉与音频塔的权重计入显存（按其配置的维度估算），但从不运行：其计算以及提示中的图像、音频词元均未计价",
                          "权重格式读自 config.json 旁的 hf_quant_config.json（NVIDIA ModelOpt 检查点）",
                          "配置给出的 torch_dtype 为 float32：推理引擎以 16 位加载它（vLLM 的 --dtype auto 为 bf16），所以未量化的"
                          "权重、KV 缓存和矩阵乘法按 bf16 计价（--weights fp32 --activations fp32 按 fp32 计价）"},
                         "、",
                         chinese_class};

struct Wording {
  const Words& words;
  std::string operator()(const ArchitectureUnknown&) const { return std::string(words.architecture_unknown); }
  std::string operator()(const BeyondMaxContext& w) const {
    return fmt::format(fmt::runtime(words.beyond_max_context), fmt::arg("tokens", w.tokens),
                       fmt::arg("max", w.max_context));
  }
  std::string operator()(const DoesNotFit& w) const {
    // In human units (a GPU of a few MB was "0.0 GB", a cache of terabytes "1126.6 GB"), told
    // apart where a point just misses.
    const auto [needed, capacity] = human_apart(w.needed, w.capacity);
    return fmt::format(fmt::runtime(words.does_not_fit), fmt::arg("needed", needed), fmt::arg("capacity", capacity),
                       fmt::arg("batch", w.batch));
  }
  std::string operator()(const WeightsDoNotFit& w) const {
    // The reserve apart: "the weights and one sequence need 102 GB of 85.5 GB" was said of 16.2 GB
    // beside 85.4 GB held back by --reserve 0.999999.
    const auto [needed, capacity] = human_apart(w.needed + w.reserve, w.capacity);
    return fmt::format(fmt::runtime(words.weights_do_not_fit), fmt::arg("needed", human(w.needed)),
                       fmt::arg("reserve", human(w.reserve)), fmt::arg("capacity", capacity));
  }
  std::string operator()(const TpotUnreachable& w) const { return latency(words.tpot_unreachable, w.target, w.at_batch_1); }
  std::string operator()(const TtftUnreachable& w) const { return latency(words.ttft_unreachable, w.target, w.at_batch_1); }
  std::string operator()(const Assumed& w) const {
    return std::string(words.assumed[static_cast<std::size_t>(w.what)]);
  }
  std::string operator()(const ComputeFromCheckpoint& w) const {
    const std::string_view phrase = w.source == ComputeSource::no_peak       ? words.compute_without_peak
                                    : w.source == ComputeSource::fp8_weights ? words.compute_from_fp8_weights
                                                                             : words.compute_from_checkpoint;
    return fmt::format(fmt::runtime(phrase), fmt::arg("compute", name(w.compute)),
                       fmt::arg("checkpoint", name(w.checkpoint)), fmt::arg("gpu", w.gpu),
                       fmt::arg("activations", name(w.activations)));
  }
  std::string operator()(const KvFromCheckpoint& w) const {
    return fmt::format(fmt::runtime(words.kv_from_checkpoint), fmt::arg("kv", name(w.kv)));
  }
  std::string operator()(const ExpectedBorrowed& w) const {
    if (!w.classes.empty()) {
      std::vector<std::string> classes;
      for (const KernelClass k : w.classes) classes.push_back(words.kernel_class(k));
      return fmt::format(fmt::runtime(words.expected_partly_borrowed), fmt::arg("gpu", w.gpu),
                         fmt::arg("classes", fmt::join(classes, words.list_separator)));
    }
    return fmt::format(fmt::runtime(words.expected_borrowed), fmt::arg("gpu", w.gpu));
  }
  std::string operator()(const GroupSizeUnused& w) const {
    std::vector<std::string_view> formats;
    for (WeightFormat f : w.weights) formats.push_back(name(f));
    return fmt::format(fmt::runtime(words.group_size_unused), fmt::arg("group", w.group_size),
                       fmt::arg("weights", fmt::join(formats, words.list_separator)));
  }
  std::string operator()(const ComputeNarrowerThanWeights& w) const {
    return fmt::format(fmt::runtime(words.compute_narrower), fmt::arg("compute", name(w.compute)),
                       fmt::arg("stored", name(w.stored)), fmt::arg("classes", fmt::join(w.classes, ", ")));
  }
  std::string operator()(const ExpectedUnclassed& w) const {
    return fmt::format(fmt::runtime(words.expected_unclassed),
                       fmt::arg("operators", fmt::join(w.operators, words.list_separator)));
  }
  std::string operator()(const BeyondContext& w) const {
    return fmt::format(fmt::runtime(words.beyond_context), fmt::arg("tokens", w.tokens), fmt::arg("max", w.max_context));
  }
  std::string operator()(const TooManyReplicas& w) const {
    return fmt::format(fmt::runtime(words.too_many_replicas), fmt::arg("most", w.most));
  }

  static std::string latency(std::string_view phrase, Seconds target, Seconds at) {
    return fmt::format(fmt::runtime(phrase), fmt::arg("target", target.value() * 1e3), fmt::arg("at", at.value() * 1e3));
  }
};

}  // namespace

std::string infeasible_text(const Infeasible& why, std::string_view lang) {
  return std::visit(Wording{lang == "zh" ? kChinese : kEnglish}, why);
}

std::string warning_text(const Warning& w, std::string_view lang) {
  return std::visit(Wording{lang == "zh" ? kChinese : kEnglish}, w);
}

std::string_view warning_label(std::string_view lang) { return lang == "zh" ? "注意：" : "warning: "; }

std::vector<std::string> warning_texts(const Report& r, std::string_view lang) { return warning_texts(r.warnings, lang); }

std::vector<std::string> warning_texts(const std::vector<Warning>& warnings, std::string_view lang) {
  std::vector<std::string> out;
  out.reserve(warnings.size());
  for (const Warning& w : warnings) out.push_back(warning_text(w, lang));
  return out;
}

void add_unsaid(std::vector<std::string>& said, const std::vector<std::string>& texts) {
  for (const std::string& t : texts) {
    if (std::find(said.begin(), said.end(), t) == said.end()) said.push_back(t);
  }
}

void note_warnings(Sink& sink, const std::vector<std::string>& said, std::string_view lang) {
  for (const std::string& w : said) sink.note(std::string(warning_label(lang)) + w);
}

}  // namespace roofline::report
